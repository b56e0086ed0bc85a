package inference_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/testgen/frgen"
	"github.com/factreasoner/factreasoner-go/uai"
)

// errorBarModel is a model with exact marginals to test error bars on.
type errorBarModel struct {
	name  string
	model func(t testing.TB) *inference.Model
	exact func(t testing.TB, m *inference.Model) [][]float64
	// tol is the rounding of the reference: 5e-7 for one printed with 6
	// decimals.
	tol float64
}

// approximateAuto is Auto kept off exact inference: no junction tree fits
// its memory bound and no cutset its budget, so that it answers with
// conditioned BP and narrows that by sampling where a label is in doubt.
var approximateAuto = inference.Auto{Exact: inference.JunctionTree{MaxBytes: 1 << 10, Budget: time.Nanosecond}}

func errorBarModels() []errorBarModel {
	generated := func(a, c int) func(t testing.TB) *inference.Model {
		return func(t testing.TB) *inference.Model {
			m, err := frgen.Generate(frgen.Contradictory, a, c, 1)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	byCutset := func(t testing.TB, m *inference.Model) [][]float64 {
		res, err := inference.JunctionTree{Budget: time.Minute}.Solve(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		return res.Marginals
	}
	fromMAR := func(path string) func(t testing.TB, m *inference.Model) [][]float64 {
		return func(t testing.TB, _ *inference.Model) [][]float64 {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			mar, err := uai.ReadMAR(f, path)
			if err != nil {
				t.Fatal(err)
			}
			return mar.Marginals
		}
	}
	fr3 := func(size string) func(t testing.TB) *inference.Model {
		return func(t testing.TB) *inference.Model {
			needVectors(t)
			return loadModel(t, fr3Path(size))
		}
	}
	fr3Exact := func(t testing.TB, size string) [][]float64 {
		if size == "20x40" {
			// Computed here to full precision (cutset conditioning,
			// 16,384 branches of width 17: JunctionTree{Budget:
			// time.Hour}); the reference data's 6 decimals are 8e-7
			// from it at worst.
			return fromMAR(filepath.Join("testdata", "fr3_20x40.exact.MAR"))(t, nil)
		}
		_, want := marJSON(t, filepath.Join(vectors, "fr3", "fr3_"+size+".exact.MAR.json"))
		return want
	}
	models := []errorBarModel{
		{name: "contradictory 15x30", model: generated(15, 30), exact: byCutset, tol: 1e-9},
		// Made by fr uai solve --algorithm exact --exact-budget 1h on
		// scripts/frgen -kind contradictory -size 20x40 (2,048 branches).
		{name: "contradictory 20x40", model: generated(20, 40), exact: fromMAR(filepath.Join("testdata", "contradictory_20x40.exact.MAR")), tol: 5e-7},
	}
	for _, size := range []string{"5x10", "10x20", "15x30", "20x40"} {
		tol := 5e-7 // merlin's exact marginals, printed with 6 decimals
		if size == "20x40" {
			tol = 1e-12
		}
		models = append(models, errorBarModel{name: "fr3 " + size, model: fr3(size),
			exact: func(t testing.TB, _ *inference.Model) [][]float64 { return fr3Exact(t, size) }, tol: tol})
	}
	return models
}

// TestErrorBars: every approximate marginal's error bar covers its
// distance from the exact marginal, on the generated contradiction-heavy
// models (where loopy BP is up to 0.39 off) and the reference FR3 models,
// for plain and conditioned BP and for auto kept off exact inference; the
// bars are within 0.05 of the true error, auto's (which narrows them by
// sampling) within 0.05 at all; and the labels within their bar are
// exactly those reported uncertain. By default auto is exact on these
// models (no bars), or uses a partial cutset, whose bars are bounds. Every
// model runs in every test run (all six take about 15 s on 2 cores);
// BENCHMARKS.md has the whole table.
func TestErrorBars(t *testing.T) {
	solvers := []struct {
		name string
		s    inference.Solver
	}{
		{"bp", inference.LoopyBP{}},
		{"cbp", inference.ConditionedBP{}},
		{"auto (approximate)", approximateAuto},
		{"auto", inference.Auto{}},
	}
	for _, bm := range errorBarModels() {
		t.Run(bm.name, func(t *testing.T) {
			m := bm.model(t)
			want := bm.exact(t, m)
			for _, sv := range solvers {
				t.Run(sv.name, func(t *testing.T) {
					res, err := sv.s.Solve(context.Background(), m)
					if err != nil {
						t.Fatal(err)
					}
					row := checkErrorBars(t, res, want, bm.tol)
					t.Logf("| %s | %s | %s |", bm.name, sv.name, row)
					if strings.HasPrefix(sv.name, "auto") && res.Report.MaxError > 0.05 {
						t.Errorf("auto: largest bar %.3g, want ≤ 0.05 (%s)", res.Report.MaxError, res.Report.Summary())
					}
				})
			}
		})
	}
}

// checkErrorBars checks a result's bars against the exact marginals and
// returns a table row: the largest true error, the largest bar, covered,
// the largest excess of a bar over its error, the uncertain labels, and
// what the solver did.
func checkErrorBars(t *testing.T, res *inference.Result, want [][]float64, tol float64) string {
	t.Helper()
	if res.Errors == nil {
		if res.Report.BPComponents > 0 {
			t.Fatalf("no error bars on an approximate result (%s)", res.Report.Summary())
		}
		for v, p := range res.Marginals {
			if d := math.Abs(p[1] - want[v][1]); d > tol+1e-9 {
				t.Errorf("variable %d: exact result %.3g from the reference", v, d)
			}
		}
		return "– | – | exact | – | 0 | " + res.Report.Summary()
	}
	worst, widest, excess := 0.0, 0.0, 0.0
	covered := true
	uncertain := 0
	for v, p := range res.Marginals {
		d := 0.0
		for x := range p {
			d = max(d, math.Abs(p[x]-want[v][x]))
		}
		bar := res.Errors[v]
		worst, widest = max(worst, d), max(widest, bar)
		excess = max(excess, bar-d)
		if d > bar+tol {
			covered = false
			t.Errorf("variable %d: P = %v, exact %v: error %.3g outside its bar %.3g", v, p, want[v], d, bar)
		}
		if res.Uncertain(v) != (math.Abs(p[1]-0.5) <= bar) {
			t.Errorf("variable %d: P(1) = %v, bar %v: uncertain %v", v, p[1], bar, res.Uncertain(v))
		}
		if res.Uncertain(v) {
			uncertain++
		}
	}
	if excess > 0.05 {
		t.Errorf("a bar is %.3g wider than its error, want ≤ 0.05", excess)
	}
	if uncertain != res.Report.Uncertain || widest != res.Report.MaxError {
		t.Errorf("report: %d uncertain, largest bar %v; counted %d, %v", res.Report.Uncertain, res.Report.MaxError, uncertain, widest)
	}
	return fmt.Sprintf("%.3g | %.3g | %s | %.3g | %d | %s", worst, widest, map[bool]string{true: "yes", false: "NO"}[covered], excess, uncertain, res.Report.Summary())
}

// TestErrorBarsDeterministic: the sampler's seed comes from the model, so
// that the bars are the same on every run and whatever the cores.
func TestErrorBarsDeterministic(t *testing.T) {
	m, err := frgen.Generate(frgen.Contradictory, 10, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := inference.LoopyBP{ErrorBudget: 20_000_000}
	var first *inference.Result
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		res, err := s.Solve(context.Background(), m)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		for v := range res.Errors {
			if res.Errors[v] != first.Errors[v] || res.Marginals[v][1] != first.Marginals[v][1] {
				t.Fatalf("GOMAXPROCS %d: variable %d: P %v, bar %v; with 1: %v, %v", procs, v, res.Marginals[v], res.Errors[v], first.Marginals[v], first.Errors[v])
			}
		}
	}
}

// TestExactHasNoErrorBars: an exact result has no bars, and none of its
// labels is uncertain, even at 0.5.
func TestExactHasNoErrorBars(t *testing.T) {
	m := &inference.Model{Cards: []int{2, 2}, Factors: []inference.Factor{{Scope: []int{0, 1}, Table: []float64{1, 1, 1, 1}}}}
	res, err := inference.Auto{}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != nil || res.Uncertain(0) || res.Report.MaxError != 0 || res.Report.Uncertain != 0 {
		t.Errorf("exact result: errors %v, uncertain %v, report %+v", res.Errors, res.Uncertain(0), res.Report)
	}
}
