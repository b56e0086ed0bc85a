package report_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies: the report is presentation, apart from assembly: it
// reads output lines and draws them, and so pulls in neither the pipeline
// nor what the pipeline opens (ONNX Runtime, SQLite). A program that only
// renders reports stays small, and builds without cgo.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"/pipeline", "onnxruntime", "go-sqlite3", "/sqlcache", "/retrieve"} {
			if strings.Contains(dep, banned) {
				t.Errorf("package report depends on %s", dep)
			}
		}
	}
}
