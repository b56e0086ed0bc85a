package inference

import (
	"math"
	"slices"
)

// elimination is a variable elimination order and the cliques it induces.
type elimination struct {
	order []int   // order[i] is the i-th variable eliminated
	pos   []int   // pos[v] is the step at which v is eliminated
	nbrs  [][]int // nbrs[i]: neighbours of order[i] when it is eliminated (its clique minus itself), sorted by step
	// width is the induced width: the largest clique size minus one.
	width int
	// log2States is log2 of the largest clique's number of joint states.
	log2States float64
}

// interactionGraph returns the adjacency lists of the variables of a
// component model: u and v are adjacent when a factor holds both.
func interactionGraph(m *Model) [][]int {
	n := len(m.Cards)
	adj := make([][]int, n)
	mark := make([]int, n) // mark[u] == v+1 when u is already listed as a neighbour of v
	// Build per variable from the factors containing it, so that each list
	// is filled without duplicates in one pass.
	byVar := make([][]int, n)
	for fi, f := range m.Factors {
		for _, v := range f.Scope {
			byVar[v] = append(byVar[v], fi)
		}
	}
	for v := range n {
		mark[v] = v + 1
		for _, fi := range byVar[v] {
			for _, u := range m.Factors[fi].Scope {
				if mark[u] != v+1 {
					mark[u] = v + 1
					adj[v] = append(adj[v], u)
				}
			}
		}
	}
	return adj
}

// minFillOrder computes a greedy min-fill elimination order of the
// interaction graph adj (it is consumed). Ties go to the variable whose
// clique has fewer joint states, then to the lower index, so the order is
// deterministic. It gives up, returning ok == false, as soon as a clique
// would have more than 2^maxLog2States joint states: the caller then knows
// exact inference along this order does not fit (e.width and e.log2States
// then describe that clique).
func minFillOrder(adj [][]int, cards []int, maxLog2States float64) (e *elimination, ok bool) {
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
