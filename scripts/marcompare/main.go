// Command marcompare compares an approximate result of fr uai solve (its MAR
// and ERRORS blocks) with a reference result (a MAR file, or merlin's
// .MAR.json), for the error-bar table of BENCHMARKS.md (issue 24):
//
//	fr uai solve --algorithm bp model.uai > bp.MAR
//	fr uai solve --algorithm exact model.uai > exact.MAR
//	go run ./scripts/marcompare -atoms 15 bp.MAR exact.MAR
//
// It prints one table row: the largest |P − P_exact| over all variables and
// over the atoms (the first -atoms variables), the largest error bar, whether
// every bar covers its variable's true error (within the printed rounding:
// the MAR block's 6 decimals on both sides), the largest excess of a bar
// over its variable's true error (how loose the bars are), the labels (most probable
// state) that differ from the reference, how many of those are not marked
// uncertain (silent flips), and how many labels the bars mark uncertain
// (P(true) within its bar of 0.5, as fr uai solve reports). A result with no
// ERRORS block is treated as exact: bar 0.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/factreasoner/factreasoner-go/uai"
)

func main() {
	atoms := flag.Int("atoms", 0, "the first ATOMS variables are atoms (0: report over all variables only)")
	header := flag.Bool("header", false, "print the table header first")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: marcompare [-atoms N] [-header] APPROX.MAR EXACT.MAR|EXACT.MAR.json")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *header {
		fmt.Println("| max \\|ΔP\\| all | max \\|ΔP\\| atoms | largest bar | every bar covers | largest bar − error | flips (not marked) | uncertain |")
		fmt.Println("|---|---|---|---|---|---|---|")
	}
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *atoms); err != nil {
		fmt.Fprintln(os.Stderr, "marcompare:", err)
		os.Exit(1)
	}
}

func run(approxPath, exactPath string, atoms int) error {
	approx, err := readMAR(approxPath)
	if err != nil {
		return err
	}
	exact, err := readReference(exactPath)
	if err != nil {
		return err
	}
	if len(approx.Marginals) != len(exact) {
		return fmt.Errorf("%s has %d variables, %s %d", approxPath, len(approx.Marginals), exactPath, len(exact))
	}
	if approx.Errors != nil && len(approx.Errors) != len(approx.Marginals) {
		return fmt.Errorf("%s: %d error bars for %d variables", approxPath, len(approx.Errors), len(approx.Marginals))
	}
	// Both sides are printed with 6 decimals: a bar covers when the printed
	// difference is within it and one unit of rounding on each side.
	const rounding = 1e-6
	worst, worstAtoms, widest, excess := 0.0, 0.0, 0.0, 0.0
	covered := true
	flips, silent, uncertain := 0, 0, 0
	for v, p := range approx.Marginals {
		want := exact[v]
		if len(p) != len(want) {
			return fmt.Errorf("variable %d: %d states, reference %d", v, len(p), len(want))
		}
		d := 0.0
		for x := range p {
			d = max(d, math.Abs(p[x]-want[x]))
		}
		bar := 0.0
		if approx.Errors != nil {
			bar = approx.Errors[v]
		}
		worst, widest, excess = max(worst, d), max(widest, bar), max(excess, bar-d)
		if v < atoms {
			worstAtoms = max(worstAtoms, d)
		}
		if d > bar+rounding {
			covered = false
			fmt.Fprintf(os.Stderr, "variable %d: P = %v, exact %v: error %.3g outside its bar %.3g\n", v, p, want, d, bar)
		}
		isUncertain := approx.Errors != nil && len(p) == 2 && math.Abs(p[1]-0.5) <= bar
		if isUncertain {
			uncertain++
		}
		if argmax(p) != argmax(want) {
			flips++
			if !isUncertain {
				silent++
			}
		}
	}
	atomsCol := "–"
	if atoms > 0 {
		atomsCol = fmt.Sprintf("%.3g", worstAtoms)
	}
	yes := map[bool]string{true: "yes", false: "**no**"}[covered]
	fmt.Printf("| %.3g | %s | %.3g | %s | %.3g | %d of %d (%d) | %d |\n", worst, atomsCol, widest, yes, excess, flips, len(exact), silent, uncertain)
	return nil
}

// argmax is the most probable state, the first on a tie.
func argmax(p []float64) int {
	best := 0
	for x := range p {
		if p[x] > p[best] {
			best = x
		}
	}
	return best
}

func readMAR(path string) (*uai.MAR, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return uai.ReadMAR(f, path)
}

// readReference reads exact marginals from a MAR file or merlin's JSON
// output (testdata/refdata/merlin-vectors/fr3/*.exact.MAR.json).
func readReference(path string) ([][]float64, error) {
	if !strings.HasSuffix(path, ".json") {
		m, err := readMAR(path)
		if err != nil {
			return nil, err
		}
		if m.Errors != nil {
			return nil, fmt.Errorf("%s has an ERRORS block: not an exact reference", path)
		}
		return m.Marginals, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Marginals []struct {
			Variable      int       `json:"variable"`
			Probabilities []float64 `json:"probabilities"`
		} `json:"marginals"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([][]float64, len(doc.Marginals))
	for i, m := range doc.Marginals {
		if m.Variable != i {
			return nil, fmt.Errorf("%s: marginal %d is of variable %d", path, i, m.Variable)
		}
		out[i] = m.Probabilities
	}
	return out, nil
}
