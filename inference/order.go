package inference

import (
	"container/heap"
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
	// cut says that the order was abandoned for taking more work than
	// allowed; work is the work it took (adjacency entries visited).
	cut  bool
	work int64
}

// orderWork is the work minFillOrder may take on a graph, in adjacency
// entries visited: generous where the width is small (an order of width
// w costs about w² per variable), and what keeps the decision between
// exact and approximate inference near-linear where it is not.
func orderWork(adj [][]int) int64 {
	w := int64(len(adj))
	for _, l := range adj {
		w += int64(len(l))
	}
	return 10_000_000 + 100*w
}

// interactionGraph returns the adjacency lists of the variables of a
// component model: u and v are adjacent when a factor holds both.
func interactionGraph(m *Model) [][]int {
	n := len(m.Cards)
	adj := make([][]int, n)
	mark := make([]int, n) // mark[u] == v+1 when u is already listed as a neighbour of v
	// Build per variable from the factors containing it, so that each list
	// is filled without duplicates in one pass.
	// The lists are cut from one array, sized by a first count (growing
	// them one append at a time cost 0.19 s on the dense 500x1500 model).
	count := make([]int, n)
	total := 0
	for _, f := range m.Factors {
		for _, v := range f.Scope {
			count[v]++
		}
		total += len(f.Scope)
	}
	flat := make([]int, total)
	byVar := make([][]int, n)
	for v, c := range count {
		byVar[v] = flat[:0:c]
		flat = flat[c:]
	}
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

// log2Fixed is the scale of the fixed-point log2 weights of minFillOrder:
// integers add exactly, so weights kept up to date step by step equal
// weights recomputed from scratch, and ties break the same either way.
const log2Fixed = 1 << 32

// fitsLog2 reports whether a clique of 2^log2States joint states (as
// minFillOrder measures it) is within 2^maxLog2States, the way
// minFillOrder decides it.
func fitsLog2(log2States, maxLog2States float64) bool {
	return int64(math.Round(log2States*log2Fixed)) <= int64(math.Floor(maxLog2States*log2Fixed))
}

// pairCost is what a pair test in the edge map costs against a step along
// an adjacency list (measured: a map lookup, against an array index).
const pairCost = 16

// minFillOrder computes a greedy min-fill elimination order of the
// interaction graph adj (it is consumed). Ties go to the variable whose
// clique has fewer joint states, then to the lower index, so the order is
// deterministic. It gives up, returning ok == false, as soon as a clique
// would have more than 2^maxLog2States joint states: the caller then knows
// exact inference along this order does not fit (e.width and e.log2States
// then describe that clique). It also gives up, with e.cut set, after
// visiting more than maxWork adjacency entries (0: no limit).
//
// The cost is near-linear where eliminations add no edges: the candidates
// sit in a heap; an eliminated variable stays in its neighbours' lists
// until a list is half stale; and eliminating a simplicial variable (one
// whose neighbours are already pairwise adjacent, such as an atom that
// only one context links to) updates its neighbours' fill in constant
// time each. So a star of n leaves costs O(n log n), not O(n²).
func minFillOrder(adj [][]int, cards []int, maxLog2States float64, maxWork int64) (e *elimination, ok bool) {
	return greedyOrder(adj, cards, maxLog2States, maxWork, false)
}

// minDegreeOrder is minFillOrder choosing the variable of fewest
// neighbours instead: a worse order as a rule, but one that costs about
// the size of its cliques, where min-fill's scoring can take far longer
// (dense graphs of a few hundred variables). Its width bounds the
// treewidth from above.
func minDegreeOrder(adj [][]int, cards []int, maxLog2States float64) (e *elimination, ok bool) {
	return greedyOrder(adj, cards, maxLog2States, 0, true)
}

// greedyOrder is minFillOrder, or minDegreeOrder with byDegree.
func greedyOrder(adj [][]int, cards []int, maxLog2States float64, maxWork int64, byDegree bool) (e *elimination, ok bool) {
	var work int64
	n := len(adj)
	log2c := make([]int64, n)
	for v, c := range cards {
		log2c[v] = int64(math.Round(math.Log2(float64(c)) * log2Fixed))
	}
	limit := int64(math.MaxInt64)
	if maxLog2States*log2Fixed < math.MaxInt64/2 {
		limit = int64(math.Floor(maxLog2States * log2Fixed))
	}
	// mark/stamp give O(1) membership tests against one adjacency list at a
	// time without clearing a set between tests.
	mark := make([]int, n)
	stamp := 0
	eliminated := make([]bool, n)
	deg := make([]int, n) // live neighbours
	fill := make([]int64, n)
	weight := make([]int64, n)
	version := make([]uint32, n)
	for v := range n {
		deg[v] = len(adj[v])
	}
	// live drops eliminated variables from v's list once they are half of it.
	live := func(v int) []int {
		if l := adj[v]; len(l) > 2*deg[v]+8 {
			adj[v] = slices.DeleteFunc(l, func(u int) bool { return eliminated[u] })
		}
		return adj[v]
	}
	// edges holds every edge of the elimination graph (eliminated
	// variables' too, never asked about), for adjacency tests in O(1).
	edges := make(map[uint64]struct{}, n)
	key := func(a, b int) uint64 {
		if a > b {
			a, b = b, a
		}
		return uint64(a)<<32 | uint64(b)
	}
	for v, l := range adj {
		work += pairCost * int64(len(l)) / 2
		for _, u := range l {
			if u > v {
				edges[key(u, v)] = struct{}{}
			}
		}
	}
	adjacent := func(a, b int) bool {
		_, ok := edges[key(a, b)]
		return ok
	}
	var ns []int // scratch: live neighbours
	score := func(v int) {
		w := log2c[v]
		work += int64(len(adj[v]))
		ns = ns[:0]
		around := int64(0) // entries in the neighbours' lists
		for _, u := range live(v) {
			if !eliminated[u] {
				ns = append(ns, u)
				w += log2c[u]
				around += int64(len(adj[u]))
			}
		}
		d := int64(len(ns))
		if byDegree {
			fill[v], weight[v] = d, w
			return
		}
		var linked int64 // pairs of neighbours of v that are adjacent
		switch {
		case d < 2:
		case pairCost*d*(d-1)/2 <= around:
			// Few neighbours (an atom between two shared contexts): test
			// each pair, rather than walk the contexts' long lists.
			work += pairCost * d * (d - 1) / 2
			for i, a := range ns {
				for _, b := range ns[i+1:] {
					if adjacent(a, b) {
						linked++
					}
				}
			}
		default:
			// Many neighbours with short lists (a shared context itself).
			stamp++
			for _, u := range ns {
				mark[u] = stamp
			}
			work += around
			for _, a := range ns {
				for _, u := range live(a) {
					if mark[u] == stamp && !eliminated[u] {
						linked++
					}
				}
			}
			linked /= 2
		}
		fill[v], weight[v] = d*(d-1)/2-linked, w
	}
	h := &candidates{}
	push := func(v int) {
		version[v]++
		heap.Push(h, candidate{fill: fill[v], weight: weight[v], v: v, version: version[v]})
	}
	for v := range n {
		score(v)
		h.items = append(h.items, candidate{fill: fill[v], weight: weight[v], v: v})
	}
	heap.Init(h)
	e = &elimination{order: make([]int, 0, n), pos: make([]int, n), nbrs: make([][]int, 0, n)}
	dirty := make([]bool, n)
	var dirtyList []int
	for step := range n {
		if maxWork > 0 && work > maxWork {
			e.cut, e.work = true, work
			return e, false
		}
		var v int
		for {
			c := heap.Pop(h).(candidate)
			if !eliminated[c.v] && c.version == version[c.v] {
				v = c.v
				break
			}
		}
		if weight[v] > limit {
			// Report the clique that does not fit.
			e.log2States, e.width, e.work = float64(weight[v])/log2Fixed, deg[v], work
			return e, false
		}
		e.log2States = max(e.log2States, float64(weight[v])/log2Fixed)
		clique := make([]int, 0, deg[v])
		for _, u := range adj[v] {
			if !eliminated[u] {
				clique = append(clique, u)
			}
		}
		slices.Sort(clique)
		e.width = max(e.width, len(clique))
		e.order = append(e.order, v)
		e.pos[v] = step
		e.nbrs = append(e.nbrs, clique)
		eliminated[v] = true
		adj[v] = nil
		if fill[v] == 0 && !byDegree {
			// Simplicial: no edge is added. A neighbour a loses the pairs
			// (v, b) with b not adjacent to v: every neighbour of a but v
			// outside v's own neighbours, deg(a) − deg(v) of them.
			for _, a := range clique {
				fill[a] -= int64(deg[a] - len(clique))
				weight[a] -= log2c[v]
				deg[a]--
				push(a)
			}
			continue
		}
		for _, a := range clique {
			deg[a]--
		}
		// Connect the neighbours pairwise.
		work += int64(len(clique) * len(clique))
		for i, a := range clique {
			for _, b := range clique[i+1:] {
				if !adjacent(a, b) {
					edges[key(a, b)] = struct{}{}
					adj[a] = append(adj[a], b)
					adj[b] = append(adj[b], a)
					deg[a]++
					deg[b]++
				}
			}
		}
		// A new edge (a, b) changes the fill of every common neighbour,
		// and each neighbour lost v. By degree, only the clique changed.
		for _, a := range clique {
			if byDegree {
				if !dirty[a] {
					dirty[a] = true
					dirtyList = append(dirtyList, a)
				}
				continue
			}
			work += int64(len(adj[a]))
			for _, u := range adj[a] {
				if !eliminated[u] && !dirty[u] {
					dirty[u] = true
					dirtyList = append(dirtyList, u)
				}
			}
			if !dirty[a] {
				dirty[a] = true
				dirtyList = append(dirtyList, a)
			}
		}
		for _, u := range dirtyList {
			dirty[u] = false
			score(u)
			push(u)
		}
		dirtyList = dirtyList[:0]
	}
	e.work = work
	// Callers want each clique's other variables in elimination order.
	for _, ns := range e.nbrs {
		slices.SortFunc(ns, func(a, b int) int { return e.pos[a] - e.pos[b] })
	}
	return e, true
}

// candidate is a heap entry of minFillOrder; entries whose version is
// behind the variable's are stale.
type candidate struct {
	fill, weight int64
	v            int
	version      uint32
}

type candidates struct{ items []candidate }

func (h *candidates) Len() int { return len(h.items) }
func (h *candidates) Less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	if a.fill != b.fill {
		return a.fill < b.fill
	}
	if a.weight != b.weight {
		return a.weight < b.weight
	}
	return a.v < b.v
}
func (h *candidates) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *candidates) Push(x any)    { h.items = append(h.items, x.(candidate)) }
func (h *candidates) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// degeneracy returns the largest minimum degree met while removing a
// variable of minimum degree repeatedly: every elimination order has a
// clique of more variables than that, so it bounds the treewidth from
// below. It takes O(V + E) time (a bucket queue), which is what makes the
// exact-or-approximate decision cheap on models far too dense for a
// junction tree.
func degeneracy(adj [][]int) int {
	n := len(adj)
	deg := make([]int, n)
	maxDeg := 0
	for v, l := range adj {
		deg[v] = len(l)
		maxDeg = max(maxDeg, deg[v])
	}
	// Buckets as doubly linked lists over the variables.
	head := make([]int, maxDeg+1)
	for d := range head {
		head[d] = -1
	}
	next, prev := make([]int, n), make([]int, n)
	insert := func(v int) {
		d := deg[v]
		next[v], prev[v] = head[d], -1
		if head[d] >= 0 {
			prev[head[d]] = v
		}
		head[d] = v
	}
	remove := func(v int) {
		if prev[v] >= 0 {
			next[prev[v]] = next[v]
		} else {
			head[deg[v]] = next[v]
		}
		if next[v] >= 0 {
			prev[next[v]] = prev[v]
		}
	}
	for v := range n {
		insert(v)
	}
	removed := make([]bool, n)
	best, d := 0, 0
	for range n {
		d = max(0, d-1) // a removal lowers degrees by one at most
		for head[d] < 0 {
			d++
		}
		v := head[d]
		remove(v)
		removed[v] = true
		best = max(best, d)
		for _, u := range adj[v] {
			if !removed[u] {
				remove(u)
				deg[u]--
				insert(u)
			}
		}
	}
	return best
}
