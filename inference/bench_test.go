package inference_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/testgen/frgen"
)

// BenchmarkFR3 solves the synthetic worst-case FR3 models of the reference
// data (A atoms × C contexts, every atom linked to every context, 10% of
// context pairs linked), by algorithm. Besides time and memory it reports
// whether the result is exact, the width of the junction trees, BP sweeps
// (over every run), variables clamped (by conditioned BP or a cutset),
// branches solved, the share of Z a partial cutset left out, and the
// largest marginal error against the exact result where one exists
// (printed to 6 decimals, so errors below 5e-7 read as rounding), with the
// number of binary variables whose label (P(x=1) > P(x=0)) differs.
//
//	go test ./inference -run '^$' -bench FR3 -benchmem -count 5
func BenchmarkFR3(b *testing.B) {
	needVectors(b)
	for _, alg := range []string{"auto", "cbp", "bp"} {
		for _, size := range fr3Sizes {
			b.Run(alg+"/"+size, func(b *testing.B) {
				m := loadModel(b, fr3Path(size))
				var exact [][]float64
				if p := filepath.Join(vectors, "fr3", "fr3_"+size+".exact.MAR.json"); fileExists(p) {
					_, exact = marJSON(b, p)
				} else if fileExists(filepath.Join(vectors, "fr3", "fr3_"+size+".exact.MAR")) {
					_, exact = fr3MAR(b, size)
				}
				s, err := inference.New(alg, inference.Options{})
				if err != nil {
					b.Fatal(err)
				}
				res := solveLoop(b, s, m)
				reportMetrics(b, res.Report)
				if exact != nil {
					b.ReportMetric(maxDiff(res.Marginals, exact), "maxΔP")
					b.ReportMetric(float64(labelFlips(res.Marginals, exact)), "flips")
				}
			})
		}
	}
}

// BenchmarkGenerated solves generated FR3-like models (package
// internal/testgen/frgen: sparse, dense with 10% of context pairs linked, and
// contradiction-heavy) at three sizes with auto, and reports, besides the
// metrics of BenchmarkFR3, whether every method converged, whether a
// fallback was needed, and the time per factor and sweep (ns), which
// stays flat when the growth is linear in factors × sweeps. The largest
// take seconds each:
//
//	go test ./inference -run '^$' -bench Generated -benchmem -benchtime 1x -count 5
func BenchmarkGenerated(b *testing.B) {
	for _, kind := range frgen.Kinds {
		for _, size := range [][2]int{{100, 300}, {200, 600}, {500, 1500}} {
			b.Run(fmt.Sprintf("%s/%dx%d", kind, size[0], size[1]), func(b *testing.B) {
				m, err := frgen.Generate(kind, size[0], size[1], 1)
				if err != nil {
					b.Fatal(err)
				}
				res := solveLoop(b, inference.Auto{}, m)
				r := res.Report
				reportMetrics(b, r)
				converged, fallback := 0.0, 0.0
				if r.Converged {
					converged = 1
				}
				for _, p := range r.Parts {
					if len(p.Fallbacks) > 0 {
						fallback = 1
					}
				}
				b.ReportMetric(converged, "converged")
				b.ReportMetric(fallback, "fallback")
				if r.Iterations > 0 {
					perSweep := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(r.Iterations)
					b.ReportMetric(perSweep/float64(len(m.Factors)), "ns/factor-sweep")
				}
			})
		}
	}
}

// BenchmarkDecision is what auto spends deciding that the 2,000-variable
// dense model (500x1500) cannot be solved exactly: JunctionTree refuses it
// after the same steps (splitting into components, merging factors, the
// interaction graph, and the degeneracy bound that rules a tree and any
// cutset of up to 40 variables out). Compare with
// BenchmarkGenerated/dense/500x1500.
//
//	go test ./inference -run '^$' -bench Decision -count 5
func BenchmarkDecision(b *testing.B) {
	m, err := frgen.Generate(frgen.Dense, 500, 1500, 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := (inference.JunctionTree{}).Solve(context.Background(), m); err == nil {
			b.Fatal("the dense model was solved exactly")
		}
	}
}

// BenchmarkStar solves FR2 networks whose atoms all share one context (a
// long biography with a widely shared passage: a star of n atoms), by
// auto; the time per atom stays flat as n grows (issue 16).
//
//	go test ./inference -run '^$' -bench Star -benchmem -count 5
func BenchmarkStar(b *testing.B) {
	for _, n := range []int{10_000, 40_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := starModel(n)
			res := solveLoop(b, inference.Auto{}, m)
			if res.Report.Method != inference.MethodExact {
				b.Fatalf("report %+v, want exact", res.Report)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/atom")
		})
	}
}

// starModel is n atoms (prior 0.5), one context (prior 0.9) that entails
// each of them with probability 0.8.
func starModel(n int) *inference.Model {
	m := &inference.Model{Cards: make([]int, n+1)}
	for v := range m.Cards {
		m.Cards[v] = 2
		p := 0.5
		if v == n {
			p = 0.9
		}
		m.Factors = append(m.Factors, inference.Factor{Scope: []int{v}, Table: []float64{1 - p, p}})
	}
	for a := range n {
		m.Factors = append(m.Factors, inference.Factor{Scope: []int{n, a}, Table: []float64{0.5, 0.5, 0.2, 0.8}})
	}
	return m
}

func solveLoop(b *testing.B, s inference.Solver, m *inference.Model) *inference.Result {
	b.Helper()
	var res *inference.Result
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if res, err = s.Solve(context.Background(), m); err != nil {
			b.Fatal(err)
		}
	}
	return res
}

func reportMetrics(b *testing.B, r inference.Report) {
	exact := 1.0
	if r.BPComponents > 0 {
		exact = 0
	}
	b.ReportMetric(exact, "exact")
	b.ReportMetric(float64(r.Width), "width")
	b.ReportMetric(float64(r.Iterations), "sweeps")
	clamped, branches, missing := float64(r.Clamped), 0.0, 0.0
	for _, p := range r.Parts {
		clamped = max(clamped, float64(p.Cutset))
		branches += float64(p.Branches)
		missing = max(missing, p.Missing)
	}
	b.ReportMetric(clamped, "clamped")
	b.ReportMetric(branches, "branches")
	b.ReportMetric(missing, "missing")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// labelFlips counts binary variables labelled differently by a and b.
func labelFlips(a, b [][]float64) int {
	n := 0
	for v := range a {
		if len(a[v]) == 2 && (a[v][1] > a[v][0]) != (b[v][1] > b[v][0]) {
			n++
		}
	}
	return n
}
