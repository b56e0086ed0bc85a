package inference

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// denseFR3 is an FR3-shaped model like the reference's worst cases and
// internal/testgen/frgen's dense kind: every atom linked to every context, 10% of
// the context pairs linked (frgen imports this package, so tests here
// cannot use it).
func denseFR3(atoms, contexts int) *Model {
	rng := rand.New(rand.NewPCG(uint64(atoms), uint64(contexts)))
	n := atoms + contexts
	m := &Model{Cards: make([]int, n)}
	for v := range n {
		m.Cards[v] = 2
		m.Factors = append(m.Factors, Factor{Scope: []int{v}, Table: []float64{0.3, 0.7}})
	}
	for c := atoms; c < n; c++ {
		for a := range atoms {
			p := 0.55 + 0.44*rng.Float64()
			m.Factors = append(m.Factors, Factor{Scope: []int{c, a}, Table: []float64{0.5, 0.5, 1 - p, p}})
		}
		for d := c + 1; d < n; d++ {
			if rng.Float64() < 0.1 {
				m.Factors = append(m.Factors, Factor{Scope: []int{c, d}, Table: []float64{0.1, 0.9, 0.3, 0.7}})
			}
		}
	}
	return m
}

// BenchmarkPlan is auto's exact-or-approximate decision alone (the
// interaction graph, the degeneracy bound, min-fill and cutset planning
// where the bound does not rule them out) on dense FR3-shaped models:
// 2,000 variables take it to the bound's O(V+E). Compare with the
// solves of BenchmarkGenerated.
//
//	go test ./inference -run '^$' -bench Plan -count 5
func BenchmarkPlan(b *testing.B) {
	for _, size := range [][2]int{{20, 40}, {100, 300}, {500, 1500}} {
		b.Run(fmt.Sprintf("dense/%dx%d", size[0], size[1]), func(b *testing.B) {
			m := denseFR3(size[0], size[1])
			scopes, tables := mergeFactors(m)
			j := JunctionTree{}.withDefaults()
			for b.Loop() {
				if p := j.plan(m, scopes, tables); p.tree != nil || p.cutset != nil {
					b.Fatal("an exact plan")
				}
			}
		})
	}
}
