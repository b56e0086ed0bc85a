package merlin

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/uai"
)

// fakeMerlin is the path of the fake binary built by TestMain.
var fakeMerlin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakemerlin-")
	if err != nil {
		panic(err)
	}
	// The go command on PATH, or in $GOROOT (runtime.GOROOT is
	// deprecated).
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	fakeMerlin = filepath.Join(dir, "merlin")
	cmd := exec.Command(goBin, "build", "-o", fakeMerlin, "./testdata/fakemerlin")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic("building the fake merlin: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// frNet is a small FR-shaped network whose tables have at most 6 decimals,
// so merlin's input format loses nothing.
func frNet() *inference.Model {
	return &inference.Model{Cards: []int{2, 2, 2, 2}, Factors: []inference.Factor{
		{Scope: []int{0}, Table: []float64{0.5, 0.5}},
		{Scope: []int{1}, Table: []float64{0.5, 0.5}},
		{Scope: []int{2}, Table: []float64{0.1, 0.9}},
		{Scope: []int{3}, Table: []float64{0.1, 0.9}},
		{Scope: []int{2, 0}, Table: []float64{0.5, 0.5, 0.1, 0.9}},
		{Scope: []int{2, 1}, Table: []float64{0.5, 0.5, 0.6, 0.4}},
		{Scope: []int{3, 0}, Table: []float64{0.5, 0.5, 0.3, 0.7}},
		{Scope: []int{3, 1}, Table: []float64{0.5, 0.5, 0.15, 0.85}},
		{Scope: []int{2, 3}, Table: []float64{0.1, 0.9, 0.25, 0.75}},
	}}
}

func TestFakeMerlin(t *testing.T) {
	m := frNet()
	want, err := inference.Enumeration{}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		mode string
		err  string // "" for success
	}{
		{"good", ""},
		{"underflow", ""},
		{"status", `merlin reports "false: Inconsistent evidence or underflow" (ln Z = -Inf): the model or evidence is inconsistent`},
		{"garbage", `merlin wrote an unreadable result: merlin's result:1: want a PR, STATUS, MAR or ERRORS block, found "Segmentation"`},
		{"wrongvars", "merlin's result does not fit the model: it has 3 variables, the model 4"},
		{"badsum", "merlin's result does not fit the model: variable 0 has marginal"},
		{"nooutput", "merlin exited normally but wrote no result file result.MAR; its last output:\n  [MERLIN] fake merlin starting"},
		{"crash", "merlin failed (exit status 3); its last output:\n  [MERLIN] fake merlin starting\n  terminate called after throwing an instance of 'std::runtime_error'"},
		{"killed", "merlin failed (signal: killed)"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Setenv("FAKE_MERLIN_MODE", c.mode)
			tmp := t.TempDir()
			r, err := Solver{Path: fakeMerlin, TempDir: tmp}.Solve(context.Background(), m)
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("temporary files left behind: %v", left)
			}
			if c.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for v := range want.Marginals {
				for x := range want.Marginals[v] {
					if d := math.Abs(r.Marginals[v][x] - want.Marginals[v][x]); d > 5e-7 {
						t.Errorf("P(x%d = %d) = %v, want %v (6 decimals)", v, x, r.Marginals[v][x], want.Marginals[v][x])
					}
				}
			}
			wantZ := math.Round(want.LogZ*1e6) / 1e6
			if c.mode == "underflow" {
				wantZ = -2000
			}
			if r.LogZ != wantZ {
				t.Errorf("ln Z = %v, want %v", r.LogZ, wantZ)
			}
			if !reflect.DeepEqual(r.Report, inference.Report{Solver: "merlin", Method: "wmb", Converged: true}) {
				t.Errorf("report %+v", r.Report)
			}
		})
	}
}

// TestModelAndArgs: what merlin is given: the UAI model with 6 decimals,
// variables and factors in the model's order, a uniform factor for a
// variable in no factor, and the reference's flags.
func TestModelAndArgs(t *testing.T) {
	t.Setenv("FAKE_MERLIN_MODE", "good")
	logDir := t.TempDir()
	t.Setenv("FAKE_MERLIN_LOG", filepath.Join(logDir, "args"))
	m := &inference.Model{Cards: []int{2, 2, 3}, Factors: []inference.Factor{
		{Scope: []int{0}, Table: []float64{0.5, 0.5}},
		{Scope: []int{1, 0}, Table: []float64{0.1, 0.9, 1 - 1e-6, 1e-6}},
	}}
	r, err := Solver{Path: fakeMerlin}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if r.Marginals[2][0] != 0.333333 {
		t.Errorf("free variable: %v", r.Marginals[2])
	}
	model, _ := os.ReadFile(filepath.Join(logDir, "model.uai"))
	wantModel := "MARKOV\n3\n2 2 3\n3\n1 0\n2 1 0\n1 2\n\n2\n 0.500000 0.500000\n\n4\n 0.100000 0.900000\n 0.999999 0.000001\n\n3\n 1.000000 1.000000 1.000000\n"
	if string(model) != wantModel {
		t.Errorf("model file:\n%s\nwant\n%s", model, wantModel)
	}
	args, _ := os.ReadFile(filepath.Join(logDir, "args"))
	fields := strings.Fields(string(args))
	if len(fields) != 12 || fields[0] != "--input-file" || fields[2] != "--output-file" || !strings.HasSuffix(fields[3], "result") ||
		strings.Join(fields[4:], " ") != "--output-format uai --task MAR --algorithm wmb --ibound 6" {
		t.Errorf("arguments %q", args)
	}
}

func TestFlags(t *testing.T) {
	cases := []struct {
		flags []string
		want  string
		err   string
	}{
		{nil, "--task MAR --algorithm wmb --ibound 6", ""},
		{[]string{"--algorithm", "lbp", "--iterations", "100"}, "--task MAR --algorithm lbp --ibound 6 --iterations 100", ""},
		{[]string{"--ibound=10", "--debug"}, "--task MAR --algorithm wmb --ibound 10 --debug", ""},
		{[]string{"--task", "MAP"}, "", "--task MAP: the solver needs marginals"},
		{[]string{"--output-file", "x"}, "", "--output-file is set by the solver itself"},
		{[]string{"lbp"}, "", `"lbp" is not an option`},
	}
	for _, c := range cases {
		args, err := Solver{Flags: c.flags}.args()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err = %v, want %q", c.flags, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(args, " ") != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.flags, args, err, c.want)
		}
	}
	t.Setenv("FAKE_MERLIN_MODE", "good")
	r, err := Solver{Path: fakeMerlin, Flags: []string{"--algorithm", "lbp"}}.Solve(context.Background(), frNet())
	if err != nil || r.Report.Method != "lbp" {
		t.Errorf("with --algorithm lbp: %v, %+v", err, r)
	}
}

func TestMissingBinary(t *testing.T) {
	_, err := Solver{Path: filepath.Join(t.TempDir(), "no-merlin")}.Solve(context.Background(), frNet())
	if err == nil || !strings.Contains(err.Error(), "no-merlin") {
		t.Errorf("missing --merlin-path binary: err = %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err = Solver{}.Solve(context.Background(), frNet())
	if err == nil || !strings.Contains(err.Error(), "merlin binary not found on PATH") {
		t.Errorf("no merlin on PATH: err = %v", err)
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	t.Setenv("FAKE_MERLIN_MODE", "sleep")
	start := time.Now()
	_, err := Solver{Path: fakeMerlin, Timeout: 200 * time.Millisecond}.Solve(context.Background(), frNet())
	if err == nil || err.Error() != "merlin did not finish within 200ms" {
		t.Errorf("timeout: err = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = Solver{Path: fakeMerlin}.Solve(ctx, frNet())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled context: err = %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the sleeping process was not killed (took %v)", d)
	}
}

// TestRealMerlin runs the real engine when it is installed. It is not
// packaged for Debian or Go, so CI has none; there the Solver's whole
// protocol (UAI and evidence files written, flags, MAR read back, errors,
// timeouts) runs against the fake binary of TestMain.
func TestRealMerlin(t *testing.T) {
	bin, err := exec.LookPath("merlin")
	if err != nil {
		t.Skip("no merlin binary on PATH: build github.com/radum2275/merlin and put it on PATH to run this test (CI tests the protocol with the fake merlin)")
	}
	// The 4-variable loopy model has induced width 2, so wmb at i-bound 6
	// is exact; compare with enumeration.
	m := frNet()
	want, _ := inference.Enumeration{}.Solve(context.Background(), m)
	r, err := Solver{Path: bin}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	for v := range want.Marginals {
		for x := range want.Marginals[v] {
			if d := math.Abs(r.Marginals[v][x] - want.Marginals[v][x]); d > 1e-6 {
				t.Errorf("P(x%d = %d) = %v, want %v", v, x, r.Marginals[v][x], want.Marginals[v][x])
			}
		}
	}
	// And a model with over 5000 factors, whose Z underflows in merlin's
	// own printing.
	n, err := uai.ReadFile(refdata.Path(t, "merlin-vectors", "fr3", "fr3_50x100.uai"))
	if err != nil {
		t.Fatal(err)
	}
	r, err = Solver{Path: bin}.Solve(context.Background(), n.Model)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Marginals) != len(n.Model.Cards) || reflect.DeepEqual(r.Marginals[0], []float64(nil)) {
		t.Errorf("50x100: %d marginals", len(r.Marginals))
	}
}

// FuzzResult: merlin's result file, as the solver reads and checks it
// against the model, never panics, and what is accepted has a proper
// distribution for every variable of the model. Seeds: testdata/fuzz.
func FuzzResult(f *testing.F) {
	m := frNet()
	exact, err := inference.Enumeration{}.Solve(context.Background(), m)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := uai.WriteMAR(&buf, exact); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		mar, err := uai.ReadMAR(bytes.NewReader(data), "result.MAR")
		if err != nil {
			return
		}
		res, err := check(mar, m, "wmb")
		if err != nil {
			return
		}
		if len(res.Marginals) != len(m.Cards) {
			t.Fatalf("%d marginals for %d variables", len(res.Marginals), len(m.Cards))
		}
		for v, p := range res.Marginals {
			sum := 0.0
			for _, x := range p {
				if !(x >= 0 && x <= 1) {
					t.Fatalf("variable %d: P = %v", v, p)
				}
				sum += x
			}
			if len(p) != m.Cards[v] || math.Abs(sum-1) > 1e-6*float64(len(p))+1e-9 {
				t.Fatalf("variable %d: P = %v", v, p)
			}
		}
	})
}
