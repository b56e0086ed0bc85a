package profile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStart: a CPU profile (gzipped, as pprof writes it) and an execution
// trace (its "go 1." header) are in their files once stopped; none is
// started for an empty name; a file that cannot be made is an error naming
// the variable, with nothing left running.
func TestStart(t *testing.T) {
	dir := t.TempDir()
	cpu, tr := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "trace.out")
	stop, err := Start(cpu, tr)
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := range 1_000_000 {
		x += i % 7
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cpu); !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("CPU profile: %d bytes, not gzip (%d)", len(b), x)
	}
	if b, _ := os.ReadFile(tr); !bytes.HasPrefix(b, []byte("go 1.")) {
		t.Errorf("trace: %d bytes without its header", len(b))
	}

	stop, err = Start("", "")
	if err != nil || stop() != nil {
		t.Errorf("nothing to start: %v", err)
	}
	missing := filepath.Join(dir, "no", "such", "dir", "x")
	if _, err := Start(missing, ""); err == nil || !strings.HasPrefix(err.Error(), "FR_CPUPROFILE: ") {
		t.Errorf("CPU profile in a missing directory: %v", err)
	}
	// The profile of the first is stopped when the trace cannot start.
	if _, err := Start(cpu, missing); err == nil || !strings.HasPrefix(err.Error(), "FR_TRACE: ") {
		t.Errorf("trace in a missing directory: %v", err)
	}
	stop, err = Start(cpu, "")
	if err != nil {
		t.Fatalf("a profile after a failed start: %v", err)
	}
	stop()
}
