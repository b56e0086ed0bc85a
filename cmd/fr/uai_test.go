package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// runUAI runs fr with args and returns its stdout, stderr and error.
func runUAI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errw bytes.Buffer
	app := newApp()
	app.Writer, app.ErrWriter = &out, &errw
	err := app.RunContext(context.Background(), append([]string{"fr"}, args...))
	return out.String(), errw.String(), err
}

func writeUAIFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A 3-variable model with an unsorted scope (x2, x0, x1), x1 fastest, and
// a prior [1 2] on x1. By hand: Z = 120; P(x0 = 1) = (3+2·4 + 7+2·8 +
// 11+2·12)/120 = 69/120; P(x1 = 1) = 84/120; P(x2) = (16, 40, 64)/120.
// With x2 = 2 observed the entries left are 9..12: Z = 9 + 2·10 + 11 +
// 2·12 = 64, P(x0 = 1) = 35/64, P(x1 = 1) = 44/64.
const cliModel = "MARKOV\n3\n2 2 3\n2\n3 2 0 1\n1 1\n\n12\n 1 2\n 3 4\n 5 6\n 7 8\n 9 10\n 11 12\n\n2\n 1 2\n"

func TestUAISolve(t *testing.T) {
	model := writeUAIFile(t, "m.uai", cliModel)
	evid := writeUAIFile(t, "m.evid", "1 2 2\n")
	cases := []struct {
		args       []string
		out, notes string
	}{
		{[]string{"uai", "solve", model},
			"PR\n4.787492 (1.200000e+02)\nSTATUS\ntrue: Consistent evidence\nMAR\n3 2 0.425000 0.575000 2 0.300000 0.700000 3 0.133333 0.333333 0.533333\n",
			"native exact (width 2)"},
		{[]string{"uai", "solve", "--evidence", evid, model},
			"PR\n4.158883 (6.400000e+01)\nSTATUS\ntrue: Consistent evidence\nMAR\n3 2 0.453125 0.546875 2 0.312500 0.687500 3 0.000000 0.000000 1.000000\n",
			"native exact"},
		{[]string{"uai", "solve", "--algorithm", "bp", model},
			"PR\n4.787492 (1.200000e+02)\nSTATUS\ntrue: Consistent evidence\nMAR\n3 2 0.425000 0.575000 2 0.300000 0.700000 3 0.133333 0.333333 0.533333\n",
			"native bp ("},
		{[]string{"uai", "solve", "--algorithm", "cbp", "--damping", "none", "--clamp-budget", "0.5", model},
			"PR\n4.787492 (1.200000e+02)\nSTATUS\ntrue: Consistent evidence\nMAR\n3 2 0.425000 0.575000 2 0.300000 0.700000 3 0.133333 0.333333 0.533333\n",
			"native bp (3 variables from 0 by bp: converged"},
		{[]string{"uai", "solve", "--algorithm", "auto", "--clamp-budget", "none", "--damping", "0.3", model},
			"PR\n4.787492 (1.200000e+02)\nSTATUS\ntrue: Consistent evidence\nMAR\n3 2 0.425000 0.575000 2 0.300000 0.700000 3 0.133333 0.333333 0.533333\n",
			"native exact (width 2)"},
	}
	for _, c := range cases {
		out, notes, err := runUAI(t, c.args...)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if out != c.out {
			t.Errorf("%q: stdout\n%s\nwant\n%s", c.args, out, c.out)
		}
		if !strings.Contains(notes, c.notes) || strings.Contains(out, "native") {
			t.Errorf("%q: stderr %q, want it to contain %q (and stdout only the result)", c.args, notes, c.notes)
		}
	}
}

// TestUAISolveMatchesMerlin: on the reference models, fr uai solve prints
// what merlin's exact algorithm printed.
func TestUAISolveMatchesMerlin(t *testing.T) {
	dir := refdata.Path(t, "merlin-vectors")
	out, _, err := runUAI(t, "uai", "solve", "--evidence", filepath.Join(dir, "models", "order3_v1eq2.evid"), filepath.Join(dir, "models", "order3.uai"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "outputs", "order3_ev_cte.MAR"))
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// bigUAI is a model of n factors of 4096 entries each over 24 binary
// variables.
func bigUAI(n int) string {
	var b strings.Builder
	b.WriteString("MARKOV\n24\n" + strings.Repeat("2 ", 24) + "\n")
	fmt.Fprintf(&b, "%d\n", n)
	for i := range n {
		b.WriteString("12")
		for k := range 12 {
			fmt.Fprintf(&b, " %d", (i+k)%24)
		}
		b.WriteString("\n")
	}
	for range n {
		b.WriteString("4096\n" + strings.Repeat("1 ", 4096) + "\n")
	}
	return b.String()
}

// TestUAISolveConstants: 2,000 variables of domain size 1 in one scope
// (12 KB that ran for over 120 s, issue 16) are constants.
func TestUAISolveConstants(t *testing.T) {
	var b strings.Builder
	b.WriteString("MARKOV\n2001\n" + strings.Repeat("1 ", 2000) + "2\n1\n2001")
	for v := range 2001 {
		fmt.Fprintf(&b, " %d", v)
	}
	b.WriteString("\n2\n1 3\n")
	out, _, err := runUAI(t, "uai", "solve", writeUAIFile(t, "ones.uai", b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if want := "MAR\n2001" + strings.Repeat(" 1 1.000000", 2000) + " 2 0.250000 0.750000\n"; !strings.HasSuffix(out, want) {
		t.Errorf("stdout ends %q, want %q", out[max(0, len(out)-200):], want[len(want)-100:])
	}
}

func TestUAISolveErrors(t *testing.T) {
	model := writeUAIFile(t, "m.uai", cliModel)
	bad := writeUAIFile(t, "bad.uai", "MARKOV\n2\n2 2\n1\n2 0 1\n4\n1 2 x 4\n")
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"uai", "solve"}, "want exactly one MODEL file"},
		{[]string{"uai", "solve", bad}, `bad.uai:7: entry 2 of function 0: want a number, found "x"`},
		{[]string{"uai", "solve", "--algorithm", "magic", model}, `--algorithm: unknown algorithm "magic" (want auto, exact, bp or cbp)`},
		{[]string{"uai", "solve", "--solver", "merlin", "--algorithm", "bp", model}, "--algorithm applies to --solver native, not to this run (--solver merlin)"},
		{[]string{"uai", "solve", "--merlin-path", "/x", model}, "--merlin-path applies to --solver merlin, not to this run (--solver native)"},
		{[]string{"uai", "solve", "--solver", "merlin", "--merlin-path", "/nonexistent/merlin", model}, "merlin binary /nonexistent/merlin"},
		{[]string{"uai", "solve", "--solver", "magic", model}, `--solver: unknown solver "magic" (want native or merlin)`},
		{[]string{"uai", "solve", "--evidence", writeUAIFile(t, "e.evid", "1 5 0"), model}, "e.evid: evidence: variable 5 out of range"},
		{[]string{"uai", "solve", "--algorithm", "exact", "--max-memory", "0", model}, "--max-memory: 0 MiB is not positive"},
		{[]string{"uai", "solve", "--clamp-budget", "-1", model}, `--clamp-budget: "-1" is not a positive number of millions of message updates, or none`},
		{[]string{"uai", "solve", "--clamp-budget", "0", model}, `--clamp-budget: "0" is not a positive number`},
		{[]string{"uai", "solve", "--solver", "merlin", "--clamp-budget", "2", model}, "--clamp-budget applies to --algorithm auto or cbp (of --solver native), not to this run (--solver merlin)"},
		{[]string{"uai", "solve", "--algorithm", "bp", "--clamp-budget", "2", model}, "--clamp-budget applies to --algorithm auto or cbp (of --solver native), not to this run (--algorithm bp)"},
		{[]string{"uai", "solve", "--algorithm", "cbp", "--clamp-budget", "none", model}, "--clamp-budget: none: conditioned BP needs a clamp budget (bp is loopy BP without conditioning)"},
		{[]string{"uai", "solve", "--algorithm", "exact", "--damping", "0.5", model}, "--damping applies to --algorithm auto, bp or cbp (of --solver native), not to this run (--algorithm exact)"},
		{[]string{"uai", "solve", "--algorithm", "bp", "--max-memory", "0", model}, "--max-memory: 0 MiB is not positive"},
		// Issue 16: 23 bytes that asked for 17 GiB.
		{[]string{"uai", "solve", writeUAIFile(t, "huge.uai", "MARKOV\n1\n2000000000\n0\n")}, "huge.uai: native solver: the marginals alone need 15259 MiB (2000000000 states in all), more than the memory bound of 512 MiB"},
		{[]string{"uai", "solve", "--algorithm", "bp", "--max-memory", "1", writeUAIFile(t, "big.uai", bigUAI(300))}, "big.uai: native solver: the model needs about 19 MiB before inference starts (its tables, marginals and messages), more than the memory bound of 1 MiB"},
		{[]string{"uai", "solve", "--damping", "1", model}, "--damping: damping 1 is not in (0, 1) (use none for no damping)"},
		{[]string{"uai", "solve", "--damping", "-1", model}, "--damping: damping -1 is not in (0, 1)"},
		{[]string{"uai", "solve", "--damping", "0", model}, "--damping: damping 0 is not in (0, 1) (use none for no damping)"},
		{[]string{"uai", "solve", "--damping", "strong", model}, `--damping: damping "strong": want adaptive, none or a number in (0, 1)`},
		{[]string{"uai", "solve", "--tolerance", "0", model}, "--tolerance: 0 is not positive"},
		{[]string{"uai", "solve", "--exact-budget", "0s", model}, "--exact-budget: 0s is not positive"},
		{[]string{"uai", "solve", "--algorithm", "cbp", "--exact-budget", "1m", model}, "--exact-budget applies to --algorithm auto or exact (of --solver native), not to this run (--algorithm cbp)"},
		{[]string{"uai", "solve", "--solver", "merlin", "--exact-budget", "1m", model}, "--exact-budget applies to --algorithm auto or exact (of --solver native), not to this run (--solver merlin)"},
		{[]string{"uai", "solve", "--max-iterations", "0", model}, "--max-iterations: 0 is not positive"},
	}
	for _, c := range cases {
		_, _, err := runUAI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: err = %v, want %q", c.args, err, c.err)
		}
	}
}
