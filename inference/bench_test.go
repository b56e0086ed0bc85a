package inference_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/factreasoner/factreasoner-go/inference"
)

// BenchmarkFR3 solves the synthetic worst-case FR3 models of the reference
// data (A atoms × C contexts, every atom linked to every context, 10% of
// context pairs linked) with the native solver, by algorithm. Besides time
// and memory it reports the method chosen (exact = 1 for the junction
// tree), the induced width of exact solves, BP sweeps (over every run),
// variables clamped and runs of conditioned BP, and the largest
// marginal error against merlin's exact result where one exists
// (printed to 6 decimals, so errors below 5e-7 read as rounding), with the
// number of binary variables whose label (P(x=1) > P(x=0)) differs.
//
//	go test ./inference -run '^$' -bench FR3 -benchmem -count 5
func BenchmarkFR3(b *testing.B) {
	if _, err := os.Stat(vectors); err != nil {
		b.Skipf("reference data %s is absent: %v", vectors, err)
	}
	for _, alg := range []string{"auto", "cbp"} {
		for _, size := range fr3Sizes {
			b.Run(alg+"/"+size, func(b *testing.B) {
				m := loadModel(b, fr3Path(size))
				var exact [][]float64
				if _, err := os.Stat(filepath.Join(vectors, "fr3", "fr3_"+size+".exact.MAR.json")); err == nil {
					_, exact = marJSON(b, filepath.Join(vectors, "fr3", "fr3_"+size+".exact.MAR.json"))
				}
				s, err := inference.New(alg, inference.Options{})
				if err != nil {
					b.Fatal(err)
				}
				var res *inference.Result
				b.ReportAllocs()
				for b.Loop() {
					var err error
					if res, err = s.Solve(context.Background(), m); err != nil {
						b.Fatal(err)
					}
				}
				r := res.Report
				if r.Method == "exact" {
					b.ReportMetric(1, "exact")
					b.ReportMetric(float64(r.Width), "width")
				} else {
					b.ReportMetric(0, "exact")
					b.ReportMetric(float64(r.Iterations), "sweeps")
					b.ReportMetric(float64(r.Clamped), "clamped")
					b.ReportMetric(float64(r.Runs), "runs")
				}
				if exact != nil {
					b.ReportMetric(maxDiff(res.Marginals, exact), "maxΔP")
					b.ReportMetric(float64(labelFlips(res.Marginals, exact)), "flips")
				}
			})
		}
	}
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
