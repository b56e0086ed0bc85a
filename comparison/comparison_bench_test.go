package comparison

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/factreasoner/factreasoner-go/score"
)

// benchRows are rows of a comparison of runs over n labeled responses of
// 30 atoms each, with random marginals: the rows' intervals are computed
// by Summarize, as fr compare's are.
func benchRows(rows, n int) []Row {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]Row, rows)
	lines := make([]int, n)
	for i := range lines {
		lines[i] = i + 1
	}
	for r := range out {
		all := make([]score.Scores, n)
		for i := range all {
			atoms := make([]score.Atom, 30)
			for j := range atoms {
				gold := "S"
				if j%3 == 0 {
					gold = "NS"
				}
				atoms[j] = score.Atom{ID: fmt.Sprintf("a%d", j), PTrue: rng.Float64(), Gold: gold}
			}
			all[i] = score.Compute(atoms, score.K{Half: true})
		}
		out[r] = Summarize(fmt.Sprintf("R%d", r), all, lines, false)
	}
	return out
}

// BenchmarkCompareStatistics: the statistics of a comparison table, per
// row (its intervals: score.Summarize) and for the table (the paired tests
// of every pair of rows, every measure), for the paper's sizes (157
// responses: Biographies) and larger.
func BenchmarkCompareStatistics(b *testing.B) {
	for _, n := range []int{157, 1000, 5000} {
		rows := benchRows(6, n)
		b.Run(fmt.Sprintf("intervals/%d", n), func(b *testing.B) {
			for b.Loop() {
				score.Summarize(rows[0].scores)
			}
		})
		b.Run(fmt.Sprintf("tests-6-rows/%d", n), func(b *testing.B) {
			for b.Loop() {
				PairedTests(rows)
			}
		})
	}
}
