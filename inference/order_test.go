package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// naiveMinFillOrder is the straightforward min-fill (a scan of every
// variable at each step, neighbours rescored from scratch), the reference
// for minFillOrder's order and cliques.
func naiveMinFillOrder(adj [][]int, cards []int, maxLog2States float64) (e *elimination, ok bool) {
	n := len(adj)
	log2c := make([]float64, n)
	for v, c := range cards {
		log2c[v] = math.Log2(float64(c))
	}
	// mark/stamp give O(1) membership tests against one adjacency list at a
	// time without clearing a set between tests.
	mark := make([]int, n)
	stamp := 0
	eliminated := make([]bool, n)
	fill := make([]int, n)
	weight := make([]float64, n)
	dirty := make([]bool, n)
	score := func(v int) {
		stamp++
		w := log2c[v]
		for _, u := range adj[v] {
			mark[u] = stamp
			w += log2c[u]
		}
		linked := 0 // ordered pairs of neighbours of v that are adjacent
		for _, a := range adj[v] {
			for _, u := range adj[a] {
				if mark[u] == stamp {
					linked++
				}
			}
		}
		d := len(adj[v])
		fill[v], weight[v], dirty[v] = (d*(d-1)-linked)/2, w, false
	}
	for v := range n {
		score(v)
	}
	e = &elimination{order: make([]int, 0, n), pos: make([]int, n), nbrs: make([][]int, 0, n)}
	for step := range n {
		best := -1
		for v := range n {
			if eliminated[v] {
				continue
			}
			if dirty[v] {
				score(v)
			}
			if best < 0 || fill[v] < fill[best] || (fill[v] == fill[best] && weight[v] < weight[best]) {
				best = v
			}
		}
		v := best
		if weight[v] > maxLog2States {
			// Report the clique that does not fit.
			e.log2States, e.width = weight[v], len(adj[v])
			return e, false
		}
		e.log2States = max(e.log2States, weight[v])
		ns := slices.Clone(adj[v])
		slices.Sort(ns)
		e.width = max(e.width, len(ns))
		e.order = append(e.order, v)
		e.pos[v] = step
		e.nbrs = append(e.nbrs, ns)
		eliminated[v] = true
		adj[v] = nil
		for _, a := range ns {
			adj[a] = slices.DeleteFunc(adj[a], func(u int) bool { return u == v })
			dirty[a] = true
		}
		// Connect the neighbours pairwise.
		added := false
		for i, a := range ns {
			stamp++
			for _, u := range adj[a] {
				mark[u] = stamp
			}
			for _, b := range ns[i+1:] {
				if mark[b] != stamp {
					adj[a] = append(adj[a], b)
					adj[b] = append(adj[b], a)
					added = true
				}
			}
		}
		if added {
			// A new edge (a, b) changes the fill of every common neighbour.
			for _, a := range ns {
				for _, u := range adj[a] {
					dirty[u] = true
				}
			}
		}
	}
	// Callers want each clique's other variables in elimination order.
	for _, ns := range e.nbrs {
		slices.SortFunc(ns, func(a, b int) int { return e.pos[a] - e.pos[b] })
	}
	return e, true
}

func cloneAdj(adj [][]int) [][]int {
	out := make([][]int, len(adj))
	for i, l := range adj {
		out[i] = slices.Clone(l)
	}
	return out
}

// TestMinFillMatchesNaive: the heap-based order equals the scan's, clique
// for clique, on random graphs of every density, stars and models with
// mixed domain sizes; and both give up at the same clique.
func TestMinFillMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for i := range 400 {
		var m *Model
		switch i % 4 {
		case 0:
			m = frModel(rng, 2+rng.IntN(40), rng.Float64())
		case 1:
			m = generalModel(rng, 2+rng.IntN(12), rng.IntN(30))
		case 2:
			m = star(2+rng.IntN(60), 1+rng.IntN(3))
		default:
			m = frModel(rng, 2+rng.IntN(60), 0.05)
		}
		adj := interactionGraph(m)
		bound := math.Inf(1)
		if i%5 == 0 {
			bound = float64(1 + rng.IntN(12))
		}
		want, wantOK := naiveMinFillOrder(cloneAdj(adj), m.Cards, bound)
		got, gotOK := minFillOrder(cloneAdj(adj), m.Cards, bound, 0)
		name := fmt.Sprintf("graph %d (%d variables, bound %v)", i, len(m.Cards), bound)
		if gotOK != wantOK || got.width != want.width || math.Abs(got.log2States-want.log2States) > 1e-9 {
			t.Fatalf("%s: ok %v width %d log2 %v, want ok %v width %d log2 %v", name, gotOK, got.width, got.log2States, wantOK, want.width, want.log2States)
		}
		same := len(got.nbrs) == len(want.nbrs)
		for k := range want.nbrs {
			same = same && slices.Equal(got.nbrs[k], want.nbrs[k])
		}
		if wantOK && (!reflect.DeepEqual(got.order, want.order) || !same) {
			t.Fatalf("%s: order %v, want %v", name, got.order, want.order)
		}
	}
}

// star is a hub (variable 0) linked to n−1 leaves, each leaf with extra
// more links to later hubs among the first few variables.
func star(n, hubs int) *Model {
	m := &Model{Cards: make([]int, n)}
	for v := range n {
		m.Cards[v] = 2
		m.Factors = append(m.Factors, Factor{Scope: []int{v}, Table: []float64{0.5, 0.5}})
	}
	for v := hubs; v < n; v++ {
		for h := range hubs {
			m.Factors = append(m.Factors, Factor{Scope: []int{h, v}, Table: []float64{1, 2, 3, 4}})
		}
	}
	return m
}

// TestDegeneracy: the lower bound against cliques, cycles, trees, and the
// width of an exhaustive search on small graphs.
func TestDegeneracy(t *testing.T) {
	clique := func(n int) [][]int {
		adj := make([][]int, n)
		for v := range n {
			for u := range n {
				if u != v {
					adj[v] = append(adj[v], u)
				}
			}
		}
		return adj
	}
	cycle := func(n int) [][]int {
		adj := make([][]int, n)
		for v := range n {
			adj[v] = []int{(v + 1) % n, (v + n - 1) % n}
		}
		return adj
	}
	for _, c := range []struct {
		name string
		adj  [][]int
		want int
	}{
		{"K1", clique(1), 0}, {"K2", clique(2), 1}, {"K7", clique(7), 6},
		{"C5", cycle(5), 2}, {"star", interactionGraph(star(50, 1)), 1},
		{"K(3,40)", interactionGraph(star(43, 3)), 3},
	} {
		if got := degeneracy(c.adj); got != c.want {
			t.Errorf("%s: degeneracy %d, want %d", c.name, got, c.want)
		}
	}
	// Never above the width of any order (min-fill's, here).
	rng := rand.New(rand.NewPCG(33, 34))
	for i := range 200 {
		m := frModel(rng, 2+rng.IntN(30), rng.Float64())
		adj := interactionGraph(m)
		e, _ := minFillOrder(cloneAdj(adj), m.Cards, math.Inf(1), 0)
		if lb := degeneracy(adj); lb > e.width {
			t.Fatalf("graph %d: degeneracy %d above the min-fill width %d", i, lb, e.width)
		}
	}
}
