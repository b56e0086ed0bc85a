package paired

import (
	"fmt"
	"testing"
)

// BenchmarkMeanCI: one interval with the default 10000 resamples, over as
// many responses as the FactReasoner paper's sets (157: Biographies) and
// more.
func BenchmarkMeanCI(b *testing.B) {
	for _, n := range []int{157, 1000, 10000} {
		x := make([]float64, n)
		g := newGenerator(1, 1)
		for i := range x {
			x[i] = float64(g.next()%1000) / 1000
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				MeanCI(x, Options{})
			}
		})
	}
}

// BenchmarkPermutationTest: a sampled test (beyond ExactFlips pairs) and
// the largest exact one.
func BenchmarkPermutationTest(b *testing.B) {
	for _, n := range []int{ExactFlips, 157, 1000} {
		a, c := make([]float64, n), make([]float64, n)
		g := newGenerator(2, 2)
		for i := range a {
			a[i], c[i] = float64(g.next()%1000)/1000, float64(g.next()%1000)/1000
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				PermutationTest(a, c, Options{})
			}
		})
	}
}
