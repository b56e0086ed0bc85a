// Package merlin runs the merlin probabilistic inference engine
// (github.com/radum2275/merlin, an external program the user builds) as an
// inference.Solver: it writes the model in the UAI format, runs the binary
// for marginals (MAR), and reads back its UAI-format result.
//
// merlin's quirks that shape this package (docs/inference.md): --output-file is a
// prefix (merlin appends ".MAR"); its JSON output comes back with empty
// marginals when ln Z underflows and is invalid with -inf values, so the
// UAI output is read instead; an exit status of 0 does not mean success,
// so the result's STATUS block and numbers are checked; every variable
// must appear in some factor.
package merlin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/tempfile"
	"github.com/factreasoner/factreasoner-go/uai"
)

// DefaultFlags returns the flags the FactReasoner reference runs merlin
// with: weighted mini-buckets at i-bound 6.
func DefaultFlags() []string {
	return []string{"--task", "MAR", "--algorithm", "wmb", "--ibound", "6"}
}

// Solver runs merlin. The zero value looks up "merlin" on PATH and uses
// DefaultFlags.
type Solver struct {
	// Path is the merlin binary; empty means "merlin" found on PATH.
	Path string
	// Flags are merlin options as "--name value" pairs (or "--name=value");
	// each one given replaces the default of the same name, others are
	// added. The input, output, output format and evidence options are the
	// solver's own and may not be set; the task must be MAR.
	Flags []string
	// Timeout bounds one run; zero means no limit beyond the context's.
	Timeout time.Duration
	// TempDir is where the model and result files are written (in a fresh
	// directory removed afterwards); empty means os.TempDir().
	TempDir string
}

// reserved reports whether an option is one the solver sets itself.
func reserved(name string) bool {
	switch name {
	case "--input-file", "--output-file", "--output-format", "--evidence-file":
		return true
	}
	return false
}

// args merges the user's flags into the defaults.
func (s Solver) args() ([]string, error) {
	type opt struct{ name, value string }
	parse := func(flags []string) ([]opt, error) {
		var out []opt
		for i := 0; i < len(flags); i++ {
			f := flags[i]
			if !strings.HasPrefix(f, "--") || len(f) == 2 {
				return nil, fmt.Errorf("merlin flags: %q is not an option (want --name value)", f)
			}
			if name, value, ok := strings.Cut(f, "="); ok {
				out = append(out, opt{name, value})
				continue
			}
			o := opt{name: f}
			if i+1 < len(flags) && !strings.HasPrefix(flags[i+1], "--") {
				o.value = flags[i+1]
				i++
			}
			out = append(out, o)
		}
		return out, nil
	}
	opts, _ := parse(DefaultFlags())
	user, err := parse(s.Flags)
	if err != nil {
		return nil, err
	}
	for _, u := range user {
		if reserved(u.name) {
			return nil, fmt.Errorf("merlin flags: %s is set by the solver itself", u.name)
		}
		if u.name == "--task" && u.value != "MAR" {
			return nil, fmt.Errorf("merlin flags: --task %s: the solver needs marginals (MAR)", u.value)
		}
		replaced := false
		for i := range opts {
			if opts[i].name == u.name {
				opts[i].value, replaced = u.value, true
			}
		}
		if !replaced {
			opts = append(opts, u)
		}
	}
	var args []string
	for _, o := range opts {
		args = append(args, o.name)
		if o.value != "" {
			args = append(args, o.value)
		}
	}
	return args, nil
}

// algorithm returns the value of --algorithm in args.
func algorithm(args []string) string {
	for i, a := range args {
		if a == "--algorithm" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return "merlin"
}

// binary finds the merlin executable.
func (s Solver) binary() (string, error) {
	if s.Path != "" {
		p, err := exec.LookPath(s.Path)
		if err != nil {
			return "", fmt.Errorf("merlin binary %s: %w", s.Path, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("merlin")
	if err != nil {
		return "", errors.New("merlin binary not found on PATH: install merlin (github.com/radum2275/merlin; this project does not build it) or give its path (merlin.Solver.Path)")
	}
	return p, nil
}

// Name is the solver's name in reports: "merlin".
func (s Solver) Name() string { return "merlin" }

// Identify says what the solver is (inference.Solver): merlin and the
// options it runs with, defaults merged in ("merlin[task=MAR,algorithm=wmb,ibound=6]").
// The binary's path and the time limit are not part of it: they change
// where and whether merlin runs, not its marginals.
func (s Solver) Identify() string {
	args, err := s.args()
	if err != nil {
		return "merlin[invalid flags]"
	}
	var parts []string
	for i := 0; i < len(args); i++ {
		name := strings.TrimPrefix(args[i], "--")
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			name += "=" + args[i+1]
			i++
		}
		parts = append(parts, name)
	}
	return "merlin[" + strings.Join(parts, ",") + "]"
}

// Solve implements inference.Solver.
func (s Solver) Solve(ctx context.Context, m *inference.Model) (*inference.Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	args, err := s.args()
	if err != nil {
		return nil, err
	}
	bin, err := s.binary()
	if err != nil {
		return nil, err
	}
	// The directories of runs killed while merlin ran go; this one is
	// locked while it is in use (internal/tempfile).
	tempfile.Clean(s.TempDir, "fr-merlin-*")
	tmp, err := tempfile.MkdirTemp(s.TempDir, "fr-merlin-*")
	if err != nil {
		return nil, fmt.Errorf("merlin: %w", err)
	}
	defer tmp.RemoveAll()
	dir := tmp.Path
	modelPath := filepath.Join(dir, "model.uai")
	if err := writeModel(modelPath, m); err != nil {
		return nil, fmt.Errorf("merlin: writing the model: %w", err)
	}
	prefix := filepath.Join(dir, "result")
	args = append([]string{"--input-file", modelPath, "--output-file", prefix, "--output-format", "uai"}, args...)

	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && s.Timeout > 0 {
			return nil, fmt.Errorf("merlin did not finish within %v", s.Timeout)
		}
		return nil, fmt.Errorf("merlin: %w", err)
	}
	if runErr != nil {
		return nil, fmt.Errorf("merlin failed (%v)%s", runErr, out.describe())
	}
	f, err := os.Open(prefix + ".MAR")
	if err != nil {
		return nil, fmt.Errorf("merlin exited normally but wrote no result file %s.MAR%s", filepath.Base(prefix), out.describe())
	}
	defer f.Close()
	mar, err := uai.ReadMAR(f, "merlin's result")
	if err != nil {
		return nil, fmt.Errorf("merlin wrote an unreadable result: %w", err)
	}
	return check(mar, m, algorithm(args))
}

// writeModel writes m as merlin reads it: UAI MARKOV with 6 decimals (the
// reference's precision), variables and factors in the model's order,
// plus a uniform unary factor for any variable in no factor (merlin needs
// every variable in some factor; a table of ones changes nothing).
func writeModel(path string, m *inference.Model) error {
	used := make([]bool, len(m.Cards))
	for _, f := range m.Factors {
		for _, v := range f.Scope {
			used[v] = true
		}
	}
	out := m
	for v, ok := range used {
		if ok {
			continue
		}
		if out == m {
			out = &inference.Model{Cards: m.Cards, Factors: append([]inference.Factor(nil), m.Factors...)}
		}
		ones := make([]float64, m.Cards[v])
		for i := range ones {
			ones[i] = 1
		}
		out.Factors = append(out.Factors, inference.Factor{Scope: []int{v}, Table: ones})
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := uai.WriteFixed(f, out, 6); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// check validates merlin's result against the model and converts it.
func check(mar *uai.MAR, m *inference.Model, alg string) (*inference.Result, error) {
	problem := ""
	if len(mar.Marginals) != len(m.Cards) {
		problem = fmt.Sprintf("it has %d variables, the model %d", len(mar.Marginals), len(m.Cards))
	}
	for v, p := range mar.Marginals {
		if problem != "" {
			break
		}
		if len(p) != m.Cards[v] {
			problem = fmt.Sprintf("it gives variable %d %d states, the model %d", v, len(p), m.Cards[v])
			break
		}
		sum, ok := 0.0, true
		for _, x := range p {
			ok = ok && x >= 0 && x <= 1
			sum += x
		}
		// Six printed decimals: each entry is off by at most 5e-7.
		if !ok || !(math.Abs(sum-1) <= 1e-6*float64(len(p))+1e-9) {
			problem = fmt.Sprintf("variable %d has marginal %v", v, p)
		}
	}
	if mar.HasStatus && !mar.Consistent {
		// merlin says "false: Inconsistent evidence or underflow" when
		// e^lnZ is 0, which happens for any model with ln Z below about
		// -745 (≈1000+ FR factors). A finite ln Z with proper marginals
		// is that underflow, not an inconsistency.
		if math.IsNaN(mar.LogZ) || math.IsInf(mar.LogZ, 0) || problem != "" {
			return nil, fmt.Errorf("merlin reports %q (ln Z = %v): the model or evidence is inconsistent", mar.StatusMessage, mar.LogZ)
		}
	}
	if problem != "" {
		return nil, fmt.Errorf("merlin's result does not fit the model: %s", problem)
	}
	return &inference.Result{
		Marginals: mar.Marginals,
		LogZ:      mar.LogZ,
		Report:    inference.Report{Solver: "merlin", Method: alg, Converged: true},
	}, nil
}

// tailBuffer keeps the last few kilobytes of a process's output, for error
// messages (merlin prints a lot of progress).
type tailBuffer struct{ buf []byte }

const tailBytes = 2048

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

// describe returns the tail of the output as an error-message suffix.
func (t *tailBuffer) describe() string {
	b := t.buf
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return "; its last output:\n  " + strings.Join(lines, "\n  ")
}
