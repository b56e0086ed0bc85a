package report_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/report"
)

// exampleInput is the input the fixtures were scored from.
const exampleInput = "../testdata/report/example-input.jsonl"

// exampleRunFiles are real fr score outputs on exampleInput (see
// testdata/report/README.md): FR1, FR2 and FR3 with the records' own
// relations, and FR2 with the lexical backend, which does not record them.
var exampleRunFiles = []string{
	"../testdata/report/example.fr1.jsonl",
	"../testdata/report/example.fr2.jsonl",
	"../testdata/report/example.fr3.jsonl",
	"../testdata/report/example.fr2-lexical.jsonl",
}

func readExampleRuns(t testing.TB) []*report.Run {
	t.Helper()
	inputs, err := report.ReadInputs(exampleInput)
	if err != nil {
		t.Fatal(err)
	}
	var runs []*report.Run
	for _, f := range exampleRunFiles {
		run, err := report.ReadRun(context.Background(), f, inputs)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	return runs
}

// readReport reads the runs of paths (with inputs, which may be nil) and
// reports them.
func readReport(t testing.TB, inputs *report.Inputs, paths ...string) *report.Report {
	t.Helper()
	var runs []*report.Run
	for _, p := range paths {
		run, err := report.ReadRun(context.Background(), p, inputs)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	rep, err := report.New(runs, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func exampleReport(t testing.TB) *report.Report {
	t.Helper()
	rep, err := report.New(readExampleRuns(t), report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// writeExampleHTML writes the example report into dir and returns its path.
func writeExampleHTML(t testing.TB, dir string, l report.Layouter) string {
	t.Helper()
	var b bytes.Buffer
	if err := exampleReport(t).WriteHTML(context.Background(), &b, l); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "report.html")
	if err := report.WriteFile(path, true, func(w *os.File) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
		t.Fatal(err)
	}
	return path
}

// exampleRecord returns the input record that starts on the given line.
func exampleRecord(t testing.TB, line int) *instance.Instance {
	t.Helper()
	ins, err := instance.ReadFile(exampleInput)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if in.Line == line {
			return in
		}
	}
	t.Fatalf("no record on line %d of %s", line, exampleInput)
	return nil
}

// findDot returns the path of Graphviz's dot. The graphviz tests fail,
// rather than skip, when it is missing, unless FACTREASONER_GRAPHVIZ_TESTS
// is "off": scripts/test installs graphviz.
func findDot(t *testing.T) string {
	t.Helper()
	if os.Getenv("FACTREASONER_GRAPHVIZ_TESTS") == "off" {
		t.Skip("FACTREASONER_GRAPHVIZ_TESTS=off: graphviz tests are off")
	}
	p, err := exec.LookPath("dot")
	if err != nil {
		t.Fatal("no dot on the PATH: install Debian's graphviz package (scripts/test does), or set FACTREASONER_GRAPHVIZ_TESTS=off to skip the graphviz tests")
	}
	return p
}
