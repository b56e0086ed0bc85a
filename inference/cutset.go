package inference

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
)

// Exact inference by cutset conditioning.
//
// Where a component's junction tree does not fit in memory, clamping a few
// variables (the cutset) to each joint state in turn leaves a model whose
// tree does. Each such branch b is solved exactly, giving Z_b and the
// marginals P_b; then Z = Σ_b Z_b and P(u) = Σ_b Z_b P_b(u) / Z, exactly.
// The tree of the clamped model is the same in every branch (only the
// tables change), so it is built once; branches run on every core, each
// worker with its own scratch space, and are combined in branch order, so
// the result does not depend on the number of cores.
//
// The cutset is chosen greedily: the variable that sits in the most
// cliques over the memory bound (along a min-fill order of what is left)
// is clamped next, ties going to the higher degree, then the lower index.
// Once the tree fits, more variables are clamped while that lowers the
// estimated total work (branches × the tree's work), so that the choice
// does not stop at a tree that barely fits.

// cutset is a plan for conditioning a component.
type cutset struct {
	vars   []int // the clamped variables (component numbering), in branch-digit order
	cards  []int // their domain sizes
	free   []int // free[v]: v's index in the clamped model, or −1 for a clamped variable
	freeOf []int // the component variable of each variable of the clamped model
	tree   *junctionTree
	slices []factorSlice // one per factor of the clamped model
	consts []factorSlice // factors over clamped variables only
	tables [][]float64   // the component's factors' log tables
	count  int64         // branches: the product of cards
	cost   float64       // estimated table-entry operations of all branches
}

// factorSlice says how to read a factor of the clamped model (or a
// constant) out of a component factor's table in a branch.
type factorSlice struct {
	src     int     // the component factor
	digits  []int   // for each clamped variable of its scope, its index in cutset.vars
	strides []int   // and its stride in the source table
	offs    []int32 // offset in the source table of each entry of the clamped factor, clamped digits 0
}

// negligibleMass is the share of Z below which the heaviest branches stop.
const negligibleMass = 1e-9

// maxCutset bounds the variables clamped; 2^40 branches fit no budget.
const maxCutset = 40

// cutsetPlans returns plans of cutset conditioning for a component (given
// by its domain sizes and merged factors) whose clamped trees fit in
// maxBytes, for growing cutsets, the cheapest last. The variables are
// clamped in one greedy sequence: while the degeneracy lower bound says
// no tree can fit, the variable of highest degree in what is left; then
// the one in the most cliques over the bound along a min-fill order of
// what is left (ties to the higher degree, then the lower index). Plans
// are tried from the first that fits for a few more variables, while the
// estimated work falls or the leaves still get cheaper; none are returned
// when more than maxCutset variables would be needed. Plans stop once a
// branch costs less than budget/1024 (enough branches fit the budget) and
// its cliques are small enough to stay in cache.
func cutsetPlans(cards []int, scopes [][]int, tables [][]float64, maxBytes int64, budget float64) []*cutset {
	n := len(cards)
	adj := graphOf(n, scopes)
	degree := make([]int, n)
	for v := range n {
		degree[v] = len(adj[v])
	}
	maxLog2 := math.Log2(float64(maxBytes) / 8)
	minLog2 := math.Inf(1) // of the smallest domain
	for _, c := range cards {
		minLog2 = min(minLog2, math.Log2(float64(max(c, 2))))
	}
	// Clamping a variable lowers the degeneracy by one at most.
	if lb := degeneracy(adj); float64(lb+1-maxCutset)*minLog2 > maxLog2 {
		return nil
	}
	clamped := make([]bool, n)
	var vars []int
	var plans []*cutset
	best := math.Inf(1)
	// Planning is bounded (its work in adjacency steps, each about as
	// dear as a table-entry operation): twice what one order gets, and
	// no more than a fiftieth of the budget (but a million steps, about
	// a millisecond, at least).
	workLeft := min(2*orderWork(adj), max(int64(budget/50), 1_000_000))
	minFill := true
	for len(vars) <= maxCutset {
		free, freeOf := freeIndex(clamped)
		sub := make([][]int, len(freeOf))
		subCards := make([]int, len(freeOf))
		for i, v := range freeOf {
			subCards[i] = cards[v]
			for _, u := range adj[v] {
				if !clamped[u] {
					sub[i] = append(sub[i], free[u])
				}
			}
		}
		pick := -1
		workLeft -= int64(len(sub))
		for _, l := range sub {
			workLeft -= int64(len(l))
		}
		if workLeft < 0 {
			break
		}
		if lb := degeneracy(sub); float64(lb+1)*minLog2 > maxLog2 {
			// No tree fits yet: the highest degree left.
			for i := range sub {
				if pick < 0 || len(sub[i]) > len(sub[pick]) {
					pick = i
				}
			}
		} else {
			var e *elimination
			if minFill {
				e, _ = minFillOrder(cloneLists(sub), subCards, math.Inf(1), min(workLeft, orderWork(sub)))
				workLeft -= e.work
				// Where min-fill costs too much, min-degree from now on.
				minFill = !e.cut
			}
			if !minFill {
				e, _ = minDegreeOrder(cloneLists(sub), subCards, math.Inf(1))
				workLeft -= e.work
			}
			if fitsLog2(e.log2States, maxLog2) {
				c := newCutset(cards, scopes, tables, vars, free, freeOf, e)
				if c.tree.peakFloats*8 <= maxBytes {
					if len(plans) > 0 {
						last := plans[len(plans)-1]
						if c.effectiveCost() > 1.5*best && c.tree.cost > last.tree.cost/1.5 {
							break // more clamping no longer pays
						}
					}
					plans = append(plans, c)
					best = min(best, c.effectiveCost())
					if len(plans) >= 16 || c.tree.cost < budget/1024 && c.tree.maxStates <= 1<<18 {
						break
					}
				}
			}
			// The next variable: in the most cliques over the bound (once
			// the tree fits, in the most of the largest cliques).
			bound := maxLog2
			if fitsLog2(e.log2States, maxLog2) {
				bound = e.log2States - 1
			}
			score := make([]float64, len(freeOf))
			for step, v := range e.order {
				w := math.Log2(float64(subCards[v]))
				for _, u := range e.nbrs[step] {
					w += math.Log2(float64(subCards[u]))
				}
				if w > bound {
					score[v] += w - bound
					for _, u := range e.nbrs[step] {
						score[u] += w - bound
					}
				}
			}
			for i, v := range freeOf {
				if subCards[i] < 2 || score[i] == 0 {
					continue
				}
				if pick < 0 || score[i] > score[pick] || score[i] == score[pick] && degree[v] > degree[freeOf[pick]] {
					pick = i
				}
			}
		}
		if pick < 0 {
			// No clique stands out (the largest sits right at the bound):
			// the highest degree left.
			for i := range sub {
				if subCards[i] >= 2 && (pick < 0 || len(sub[i]) > len(sub[pick])) {
					pick = i
				}
			}
		}
		if pick < 0 {
			break
		}
		v := freeOf[pick]
		clamped[v] = true
		vars = append(vars, v)
	}
	return plans
}

// effectiveCost weighs the estimated work by how it runs: cliques over
// 2^18 states (2 MiB) no longer stay in cache and cost about half as much
// again per entry (measured on the FR3 15x30 model).
func (c *cutset) effectiveCost() float64 {
	if c.tree.maxStates > 1<<18 {
		return 1.5 * c.cost
	}
	return c.cost
}

func cloneLists(adj [][]int) [][]int {
	out := make([][]int, len(adj))
	for i, l := range adj {
		out[i] = slices.Clone(l)
	}
	return out
}

// graphOf returns the adjacency lists of the variables of the scopes.
func graphOf(n int, scopes [][]int) [][]int {
	m := &Model{Cards: make([]int, n), Factors: make([]Factor, len(scopes))}
	for i, s := range scopes {
		m.Factors[i].Scope = s
	}
	return interactionGraph(m)
}

// freeIndex numbers the variables that are not clamped.
func freeIndex(clamped []bool) (free, freeOf []int) {
	free = make([]int, len(clamped))
	for v, c := range clamped {
		if c {
			free[v] = -1
			continue
		}
		free[v] = len(freeOf)
		freeOf = append(freeOf, v)
	}
	return free, freeOf
}

// newCutset builds the tree of the clamped model and the slices of the
// factors.
func newCutset(cards []int, scopes [][]int, tables [][]float64, vars, free, freeOf []int, e *elimination) *cutset {
	c := &cutset{vars: slices.Clone(vars), free: free, freeOf: freeOf, tables: tables, count: 1}
	digit := make(map[int]int, len(vars))
	for k, v := range vars {
		c.cards = append(c.cards, cards[v])
		c.count *= int64(cards[v])
		digit[v] = k
	}
	subCards := make([]int, len(freeOf))
	for i, v := range freeOf {
		subCards[i] = cards[v]
	}
	var subScopes [][]int
	for fi, s := range scopes {
		sl := factorSlice{src: fi}
		var sub []int
		stride := make([]int, len(s))
		st := 1
		for k := len(s) - 1; k >= 0; k-- {
			stride[k] = st
			st *= cards[s[k]]
		}
		var subStride []int
		for k, v := range s {
			if d, ok := digit[v]; ok {
				sl.digits = append(sl.digits, d)
				sl.strides = append(sl.strides, stride[k])
			} else {
				sub = append(sub, free[v])
				subStride = append(subStride, stride[k])
			}
		}
		// Offsets of the clamped factor's entries (last variable fastest).
		size := 1
		for _, u := range sub {
			size *= subCards[u]
		}
		sl.offs = make([]int32, size)
		digits := make([]int, len(sub))
		off := 0
		for j := range size {
			sl.offs[j] = int32(off)
			for k := len(sub) - 1; k >= 0; k-- {
				digits[k]++
				if digits[k] < subCards[sub[k]] {
					off += subStride[k]
					break
				}
				digits[k] = 0
				off -= (subCards[sub[k]] - 1) * subStride[k]
			}
		}
		if len(sub) == 0 {
			c.consts = append(c.consts, sl)
			continue
		}
		c.slices = append(c.slices, sl)
		subScopes = append(subScopes, sub)
	}
	c.tree = newJunctionTree(subCards, subScopes, nil, e)
	// Each branch also reads its tables out of the factors' and hands its
	// result over (about 200 entries' worth, measured).
	perBranch := c.tree.cost + 200 + float64(len(c.consts))
	for _, sl := range c.slices {
		perBranch += float64(len(sl.offs))
	}
	c.cost = float64(c.count) * perBranch
	return c
}

// branchResult is one branch's contribution.
type branchResult struct {
	pos  int     // in the list of branches solved
	logZ float64 // −Inf for a branch of no weight
	marg [][]float64
	err  error
}

// solve solves the given branches (nil: every one) on up to workers
// goroutines and combines them in the order given, so that the result
// does not depend on the number of workers. It returns ln of the sum of
// the branches' Z; with logZ non-nil (as long as branches), it also
// stores each branch's ln Z there.
func (c *cutset) solve(ctx context.Context, branches []int64, workers int, logZ ...[]float64) (*componentResult, error) {
	count := c.count
	if branches != nil {
		count = int64(len(branches))
	}
	branch := func(pos int64) int64 {
		if branches == nil {
			return pos
		}
		return branches[pos]
	}
	workers = int(min(int64(max(workers, 1)), count))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int64)
	results := make(chan branchResult, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := c.tree.newWork()
			tabs := make([][]float64, len(c.slices))
			for i, sl := range c.slices {
				tabs[i] = make([]float64, len(sl.offs))
			}
			digits := make([]int, len(c.vars))
			for pos := range jobs {
				r := c.branch(ctx, branch(pos), digits, tabs, w)
				r.pos = int(pos)
				results <- r
			}
		}()
	}
	go func() {
		defer close(jobs)
		for pos := range count {
			select {
			case jobs <- pos:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	// Combine in order: a running maximum of ln Z_b, and sums scaled to it.
	n := len(c.free)
	acc := make([][]float64, n)
	for v := range n {
		if c.free[v] >= 0 {
			acc[v] = make([]float64, c.tree.cards[c.free[v]])
		}
	}
	clampedAcc := make([][]float64, len(c.vars))
	for k, card := range c.cards {
		clampedAcc[k] = make([]float64, card)
	}
	top, total := math.Inf(-1), 0.0
	pending := map[int]branchResult{}
	next := 0
	digits := make([]int, len(c.vars))
	var firstErr error
	for r := range results {
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
				cancel()
			}
			continue
		}
		pending[r.pos] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			b := branch(int64(next))
			if len(logZ) > 0 {
				logZ[0][next] = r.logZ
			}
			next++
			if math.IsInf(r.logZ, -1) {
				continue
			}
			if r.logZ > top {
				scale := math.Exp(top - r.logZ)
				total *= scale
				for _, p := range acc {
					for x := range p {
						p[x] *= scale
					}
				}
				for _, p := range clampedAcc {
					for x := range p {
						p[x] *= scale
					}
				}
				top = r.logZ
			}
			wgt := math.Exp(r.logZ - top)
			total += wgt
			for v, p := range acc {
				if p == nil {
					continue
				}
				for x, q := range r.marg[c.free[v]] {
					p[x] += wgt * q
				}
			}
			c.branchDigits(b, digits)
			for k, x := range digits {
				clampedAcc[k][x] += wgt
			}
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if total == 0 {
		return nil, errInconsistent
	}
	marg := make([][]float64, n)
	for v, p := range acc {
		if p != nil {
			for x := range p {
				p[x] /= total
			}
			marg[v] = p
		}
	}
	for k, v := range c.vars {
		p := clampedAcc[k]
		for x := range p {
			p[x] /= total
		}
		marg[v] = p
	}
	return &componentResult{logZ: top + math.Log(total), marginals: marg, report: ComponentReport{
		Method: MethodCutset, Exact: true, Converged: true, Width: c.tree.width, Cutset: len(c.vars), Branches: count, TotalBranches: c.count,
	}}, nil
}

// workers returns how many branches may run at once: one per core, as
// far as maxBytes allows each its own scratch space.
func (c *cutset) workers(maxBytes int64) int {
	w := runtime.GOMAXPROCS(0)
	if per := max(c.tree.peakFloats*8, 1); int64(w)*per > maxBytes {
		w = int(max(1, maxBytes/per))
	}
	return w
}

// heaviest returns up to limit branches in decreasing order of the
// product of q[k][x_k] over the clamped variables (ties to the lower
// branch), and the sum of those products: q holds, for each clamped
// variable, an estimate of its marginal, so the products estimate the
// branches' shares of Z. Best-first over ranks: each variable's states
// sorted by q, a branch's successors raise the rank of one variable at
// or after the last one raised, so every branch is met once, never
// before a heavier one.
func (c *cutset) heaviest(q [][]float64, limit int64) ([]int64, float64) {
	k := len(c.vars)
	sorted := make([][]int, k) // states by q, largest first
	logq := make([][]float64, k)
	for i := range k {
		sorted[i] = make([]int, c.cards[i])
		logq[i] = make([]float64, c.cards[i])
		for x := range sorted[i] {
			sorted[i][x] = x
			logq[i][x] = math.Log(q[i][x])
		}
		slices.SortStableFunc(sorted[i], func(a, b int) int { return cmp.Compare(q[i][b], q[i][a]) })
	}
	index := func(ranks []int) int64 {
		b := int64(0)
		for i, r := range ranks {
			b = b*int64(c.cards[i]) + int64(sorted[i][r])
		}
		return b
	}
	weight := func(ranks []int) float64 {
		w := 0.0
		for i, r := range ranks {
			w += logq[i][sorted[i][r]]
		}
		return w
	}
	h := &rankHeap{}
	root := make([]int, k)
	heap.Push(h, rankNode{ranks: root, logw: weight(root), index: index(root)})
	var out []int64
	mass := 0.0
	// Branches past all but negligibleMass of the estimate are not worth
	// their time.
	for h.Len() > 0 && int64(len(out)) < limit && mass < 1-negligibleMass {
		nd := heap.Pop(h).(rankNode)
		out = append(out, nd.index)
		mass += math.Exp(nd.logw)
		for i := nd.last; i < k; i++ {
			if nd.ranks[i]+1 < c.cards[i] {
				r := slices.Clone(nd.ranks)
				r[i]++
				heap.Push(h, rankNode{ranks: r, last: i, logw: weight(r), index: index(r)})
			}
		}
	}
	return out, mass
}

type rankNode struct {
	ranks []int
	last  int
	logw  float64
	index int64
}

type rankHeap []rankNode

func (h rankHeap) Len() int { return len(h) }
func (h rankHeap) Less(i, j int) bool {
	if h[i].logw != h[j].logw {
		return h[i].logw > h[j].logw
	}
	return h[i].index < h[j].index
}
func (h rankHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)   { *h = append(*h, x.(rankNode)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// branchDigits writes the clamped variables' states of branch b (the last
// variable changing fastest).
func (c *cutset) branchDigits(b int64, digits []int) {
	for k := len(c.vars) - 1; k >= 0; k-- {
		digits[k] = int(b % int64(c.cards[k]))
		b /= int64(c.cards[k])
	}
}

// branch solves branch b exactly.
func (c *cutset) branch(ctx context.Context, b int64, digits []int, tabs [][]float64, w *jtWork) branchResult {
	if err := ctx.Err(); err != nil {
		return branchResult{err: err}
	}
	c.branchDigits(b, digits)
	logZ := 0.0
	for _, sl := range c.consts {
		logZ += c.tables[sl.src][sl.base(digits)]
	}
	if math.IsInf(logZ, -1) {
		return branchResult{logZ: logZ}
	}
	for i, sl := range c.slices {
		src := c.tables[sl.src][sl.base(digits):]
		dst := tabs[i]
		for j, off := range sl.offs {
			dst[j] = src[off]
		}
	}
	z, marg, err := c.tree.propagate(ctx, tabs, w)
	if errors.Is(err, errInconsistent) {
		return branchResult{logZ: math.Inf(-1)}
	}
	if err != nil {
		return branchResult{err: err}
	}
	return branchResult{logZ: logZ + z, marg: marg}
}

// base returns the offset in the source table of the slice's first entry
// in the branch with the given digits.
func (sl *factorSlice) base(digits []int) int {
	off := 0
	for k, d := range sl.digits {
		off += digits[d] * sl.strides[k]
	}
	return off
}
