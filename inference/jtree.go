package inference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// JunctionTree is the exact solver: each connected component is solved by
// two-pass propagation on a junction tree built along a greedy min-fill
// elimination order. Where the tree does not fit in MaxBytes, the
// component is solved by cutset conditioning (see cutset.go): a few
// variables are clamped to each of their joint states in turn, and each
// branch is solved by one reused tree, on every core. Conditioning that
// would take more than Budget is an error. The zero value is ready to use.
type JunctionTree struct {
	// MaxBytes bounds the memory of one component's tables and messages
	// (estimated before any is allocated), and of each concurrent branch
	// of cutset conditioning. Zero selects DefaultMaxBytes.
	MaxBytes int64
	// Budget bounds the CPU time of cutset conditioning on a component,
	// as estimated before it starts (from the tree's size; the estimate
	// does not depend on the machine, so neither does the choice). Zero
	// selects DefaultExactBudget. A tree that fits is always used.
	Budget time.Duration
}

// DefaultExactBudget is the default JunctionTree.Budget.
const DefaultExactBudget = 2 * time.Second

// workPerSecond converts the estimated work of a propagation (table-entry
// operations) into CPU time: about 1.7 ns each on the machine of
// BENCHMARKS.md, single-threaded.
const workPerSecond = 6e8

// Solve implements Solver.
func (j JunctionTree) Solve(ctx context.Context, m *Model) (*Result, error) {
	if err := j.validate(); err != nil {
		return nil, err
	}
	j = j.withDefaults()
	return solveByComponents(ctx, m, j, j.MaxBytes)
}

func (j JunctionTree) validate() error {
	if j.MaxBytes < 0 {
		return fmt.Errorf("junction tree: memory bound %d bytes is negative", j.MaxBytes)
	}
	if j.Budget < 0 {
		return fmt.Errorf("junction tree: exact budget %v is negative", j.Budget)
	}
	return nil
}

func (j JunctionTree) withDefaults() JunctionTree {
	if j.MaxBytes == 0 {
		j.MaxBytes = DefaultMaxBytes
	}
	if j.Budget == 0 {
		j.Budget = DefaultExactBudget
	}
	return j
}

func (j JunctionTree) solveComponent(ctx context.Context, m *Model) (*componentResult, error) {
	scopes, tables := mergeFactors(m)
	p := j.plan(m, scopes, tables)
	return p.solve(ctx, j.MaxBytes)
}

// exactPlan says how a component can be solved exactly: by one tree, by
// conditioning, or not within the bounds (why says why; partial lists the
// cutset plans that fit in memory but not in the budget).
type exactPlan struct {
	tree    *junctionTree
	cutset  *cutset
	partial []*cutset
	why     error // a *tooLarge
}

func (p exactPlan) solve(ctx context.Context, maxBytes int64) (*componentResult, error) {
	switch {
	case p.tree != nil:
		return p.tree.solve(ctx)
	case p.cutset != nil:
		return p.cutset.solve(ctx, nil, p.cutset.workers(maxBytes))
	}
	return nil, p.why
}

// plan decides how to solve a component exactly. The decision is cheap
// where no tree can fit: the degeneracy of the graph bounds its width from
// below in linear time, and min-fill stops at the first clique over the
// bound. A tree that fits is used, unless its cliques are large and
// clamping a few variables makes the work cheaper (in cache, and in
// parallel branches). Otherwise the cheapest cutset plan is used when its
// estimated time fits the budget.
func (j JunctionTree) plan(m *Model, scopes [][]int, tables [][]float64) exactPlan {
	maxLog2 := math.Log2(float64(j.MaxBytes) / 8)
	budget := j.Budget.Seconds() * workPerSecond
	adj := interactionGraph(m)
	minLog2 := math.Inf(1)
	for _, c := range m.Cards {
		minLog2 = min(minLog2, math.Log2(float64(max(c, 2))))
	}
	var why error
	if lb := degeneracy(adj); float64(lb+1)*minLog2 > maxLog2 {
		why = fmt.Errorf("exact inference needs a clique of %d variables or more (the graph's degeneracy is %d), more than the bound of %d MiB allows", lb+1, lb, j.MaxBytes>>20)
		if float64(lb+1-maxCutset)*minLog2 > maxLog2 {
			// Clamping a variable lowers the degeneracy by one at most.
			return exactPlan{why: tooLargef("%v, and no cutset of up to %d variables makes it fit; raise the bound or use an approximate method", why, maxCutset)}
		}
	} else if e, ok, order := elimOrder(adj, m.Cards, maxLog2); !ok {
		why = fmt.Errorf("exact inference needs a clique of 2^%.1f states or more (width %d or more along the %s order), more than the bound of %d MiB allows",
			e.log2States, e.width, order, j.MaxBytes>>20)
	} else if t := newJunctionTree(m.Cards, scopes, tables, e); t.peakFloats*8 > j.MaxBytes {
		why = fmt.Errorf("exact inference needs about %d MiB for its junction tree (width %d), more than the bound of %d MiB",
			t.peakFloats*8>>20, t.width, j.MaxBytes>>20)
	} else {
		if t.maxStates <= 1<<18 {
			return exactPlan{tree: t}
		}
		if best := cheapest(cutsetPlans(m.Cards, scopes, tables, j.MaxBytes, budget)); best != nil && len(best.vars) > 0 {
			return exactPlan{cutset: best}
		}
		return exactPlan{tree: t}
	}
	plans := cutsetPlans(m.Cards, scopes, tables, j.MaxBytes, budget)
	best := cheapest(plans)
	if best == nil {
		return exactPlan{why: tooLargef("%v, and no cutset of up to %d variables makes it fit; raise the bound or use an approximate method", why, maxCutset)}
	}
	if best.cost <= budget {
		return exactPlan{cutset: best}
	}
	secs := time.Duration(best.cost / workPerSecond * float64(time.Second)).Round(time.Second)
	return exactPlan{partial: plans, why: tooLargef("%v; cutset conditioning on %d variables (%d branches of width %d) would take about %v of CPU, more than the exact budget of %v; raise the budget or use an approximate method",
		why, len(best.vars), best.count, best.tree.width, secs, j.Budget)}
}

// elimOrder returns a min-fill elimination order of the graph adj (it is
// consumed), stopping at the first clique over 2^maxLog2 states, or, when
// min-fill takes more work than orderWork allows, a min-degree one; order
// names which.
func elimOrder(adj [][]int, cards []int, maxLog2 float64) (e *elimination, ok bool, order string) {
	copyAdj := cloneLists(adj)
	if e, ok = minFillOrder(adj, cards, maxLog2, orderWork(copyAdj)); !e.cut {
		return e, ok, "min-fill"
	}
	e, ok = minDegreeOrder(copyAdj, cards, maxLog2)
	return e, ok, "min-degree"
}

// cheapest returns the plan of least effective cost (nil for none).
func cheapest(plans []*cutset) *cutset {
	var best *cutset
	for _, c := range plans {
		if best == nil || c.effectiveCost() < best.effectiveCost() {
			best = c
		}
	}
	return best
}

// tooLarge says why a component cannot be solved exactly within the
// bounds.
type tooLarge struct{ msg string }

func (e *tooLarge) Error() string { return e.msg }

func tooLargef(format string, args ...any) error {
	return &tooLarge{msg: fmt.Sprintf(format, args...)}
}

// solve propagates and returns the component's result.
func (t *junctionTree) solve(ctx context.Context) (*componentResult, error) {
	logZ, marg, err := t.propagate(ctx, nil, nil)
	if err != nil {
		return nil, err
	}
	return &componentResult{logZ: logZ, marginals: marg, report: ComponentReport{Method: MethodExact, Exact: true, Converged: true, Width: t.width}}, nil
}

// junctionTree is a clique tree built from an elimination order, for exact
// two-pass (Hugin-style) propagation. Tables and messages hold natural
// logarithms, so that products of thousands of factors neither underflow
// nor overflow; each clique is exponentiated relative to its own maximum
// only to sum out variables.
//
// The tree holds structure only: the layouts of its cliques, where each
// factor and message sits in them, and which small factors are multiplied
// together first. The factors' tables are given to each propagation, so
// that cutset conditioning can reuse one tree for every branch (only the
// tables change) and run branches concurrently, each with its own jtWork.
type junctionTree struct {
	cards  []int
	scopes [][]int      // the factors' scopes
	tables [][]float64  // the factors' log tables, when the tree was built with them
	packs  []factorPack // products of a clique's small factors, made at each propagation
	nodes  []jtNode     // children before parents; roots have parent −1

	width      int     // largest clique size − 1
	maxStates  int     // joint states of the largest clique
	peakFloats int64   // float64s alive at the peak of propagation (estimate)
	cost       float64 // table-entry operations of one propagation (estimate)
}

type jtNode struct {
	// vars is the clique: the separator with the parent first, then the
	// variables eliminated here, which change fastest.
	vars     []int
	nsep     int
	parent   int // index into nodes, -1 for a root
	children []int
	factors  []int // indices into scopes, then packs (len(scopes)+p)
	states   int
	sepSize  int

	lay        *layout
	views      []*view // of each entry of factors
	childViews []*view // of each child's separator
	sepView    *view   // of the own separator (nil for a root)
}

// factorPack is a product of factors over a small joint scope.
type factorPack struct {
	lay     *layout
	members []int // indices into scopes
	views   []*view
}

// newJunctionTree builds the clique tree of a model (given by its domain
// sizes and factor scopes; it may be disconnected) along elimination
// order e. The buckets of the elimination are merged into their parent
// whenever the parent's clique is contained in the child's, so that no
// table is computed twice. logTables may be nil (then every propagation
// brings its own tables).
func newJunctionTree(cards []int, scopes [][]int, logTables [][]float64, e *elimination) *junctionTree {
	n := len(e.order)
	sep := e.nbrs
	elim := make([][]int, n)
	parent := make([]int, n)
	into := make([]int, n) // the step a bucket was merged into, or -1
	for i, v := range e.order {
		elim[i] = []int{v}
		parent[i] = -1
		if len(sep[i]) > 0 {
			parent[i] = e.pos[sep[i][0]]
		}
		into[i] = -1
	}
	find := func(i int) int {
		for into[i] >= 0 {
			i = into[i]
		}
		return i
	}
	for i := range n {
		p := parent[i]
		if p >= 0 && len(sep[i]) == len(sep[p])+len(elim[p]) {
			// The parent's clique equals this bucket's separator.
			elim[p] = append(elim[i], elim[p]...)
			into[i] = p
		}
	}
	t := &junctionTree{cards: cards, tables: logTables, scopes: scopes}
	index := make([]int, n)
	for i := range n {
		if into[i] >= 0 {
			continue
		}
		index[i] = len(t.nodes)
		vars := append(append([]int(nil), sep[i]...), elim[i]...)
		node := jtNode{vars: vars, nsep: len(sep[i]), parent: -1, states: 1, sepSize: 1}
		for k, v := range vars {
			node.states *= cards[v]
			if k < node.nsep {
				node.sepSize *= cards[v]
			}
		}
		t.nodes = append(t.nodes, node)
	}
	for i := range n {
		if into[i] >= 0 || parent[i] < 0 {
			continue
		}
		c, p := index[i], index[find(parent[i])]
		t.nodes[c].parent = p
		t.nodes[p].children = append(t.nodes[p].children, c)
	}
	for fi, s := range scopes {
		first := n
		for _, v := range s {
			first = min(first, e.pos[v])
		}
		if first < n {
			node := index[find(first)]
			t.nodes[node].factors = append(t.nodes[node].factors, fi)
		}
	}
	t.packFactors()
	var seps int64
	pos := make([]int, len(cards))
	for i := range t.nodes {
		node := &t.nodes[i]
		t.width = max(t.width, len(node.vars)-1)
		t.maxStates = max(t.maxStates, node.states)
		seps += int64(node.sepSize)
		t.layOut(node, pos)
		// Upward: each table added in, exp, sum out; downward: the same
		// plus the message from the parent, and a pass per child.
		k := float64(len(node.factors) + len(node.children))
		t.cost += float64(node.states) * (2*k + 7 + float64(len(node.children)))
	}
	for _, p := range t.packs {
		t.cost += float64(p.lay.size * len(p.members))
	}
	// One clique table, every upward message, and the downward messages
	// of one family at a time (upward messages are dropped as the
	// downward ones replace them).
	t.peakFloats = int64(t.maxStates) + 2*seps
	return t
}

// layOut computes the layout of a node's clique table and the views of
// the tables summed into it. pos is scratch with an entry per variable.
func (t *junctionTree) layOut(node *jtNode, pos []int) {
	cards := make([]int, len(node.vars))
	for k, v := range node.vars {
		cards[k] = t.cards[v]
		pos[v] = k
	}
	node.lay = newLayout(cards)
	scope := func(vars []int) []int {
		s := make([]int, len(vars))
		for k, v := range vars {
			s[k] = pos[v]
		}
		return s
	}
	node.views = make([]*view, len(node.factors))
	for k, fi := range node.factors {
		var vars []int
		if fi < len(t.scopes) {
			vars = t.scopes[fi]
		} else {
			p := t.packs[fi-len(t.scopes)]
			vars = make([]int, len(p.lay.cards))
			copy(vars, p.vars())
		}
		node.views[k] = node.lay.newView(scope(vars))
	}
	node.childViews = make([]*view, len(node.children))
	for k, c := range node.children {
		cn := &t.nodes[c]
		node.childViews[k] = node.lay.newView(scope(cn.vars[:cn.nsep]))
	}
	if node.parent >= 0 {
		node.sepView = node.lay.newView(scope(node.vars[:node.nsep]))
	}
}

// jtWork is the scratch space of one propagation at a time.
type jtWork struct {
	up, down     [][]float64 // messages to and from each node's parent
	buf          []float64   // a clique table
	packs        [][]float64 // the packs' tables
	views        []*view
	tabs         [][]float64
	odo          odometer
	outer, inner []float64
	rootMax      float64 // the scale of the last root's table, left in buf for the downward pass
}

func (t *junctionTree) newWork() *jtWork {
	w := &jtWork{
		up:    make([][]float64, len(t.nodes)),
		down:  make([][]float64, len(t.nodes)),
		buf:   make([]float64, t.maxStates),
		packs: make([][]float64, len(t.packs)),
	}
	for i, p := range t.packs {
		w.packs[i] = make([]float64, p.lay.size)
	}
	return w
}

// propagate computes ln Z and the marginal of every variable, given the
// log tables of the factors (nil: the tables the tree was built with).
func (t *junctionTree) propagate(ctx context.Context, tables [][]float64, w *jtWork) (float64, [][]float64, error) {
	if tables == nil {
		tables = t.tables
	}
	if w == nil {
		w = t.newWork()
	}
	for i, p := range t.packs {
		w.tabs = w.tabs[:0]
		for _, fi := range p.members {
			w.tabs = append(w.tabs, tables[fi])
		}
		w.odo.sum(w.packs[i], p.lay, p.views, w.tabs)
	}
	nodes := t.nodes
	up, down := w.up, w.down
	marg := make([][]float64, len(t.cards))

	// clique fills w.buf with the exponentiated log potential of node i
	// times its incoming messages, scaled so that its largest entry is 1,
	// and returns the table and that scale (a log).
	clique := func(i int, withDown bool) ([]float64, float64) {
		node := &nodes[i]
		w.views, w.tabs = w.views[:0], w.tabs[:0]
		for k, fi := range node.factors {
			w.views = append(w.views, node.views[k])
			if fi < len(tables) {
				w.tabs = append(w.tabs, tables[fi])
			} else {
				w.tabs = append(w.tabs, w.packs[fi-len(t.scopes)])
			}
		}
		for k, c := range node.children {
			w.views = append(w.views, node.childViews[k])
			w.tabs = append(w.tabs, up[c])
		}
		if withDown && node.parent >= 0 {
			w.views = append(w.views, node.sepView)
			w.tabs = append(w.tabs, down[i])
		}
		tab := w.buf[:node.lay.size]
		w.odo.sum(tab, node.lay, w.views, w.tabs)
		m := math.Inf(-1)
		for _, x := range tab {
			if x > m { // not max(): it is slower, handling NaN
				m = x
			}
		}
		if math.IsInf(m, -1) {
			return tab, m
		}
		for j, x := range tab {
			tab[j] = math.Exp(x - m)
		}
		return tab, m
	}

	// Upward pass: children before parents. The last root's table is its
	// belief already; it is kept for the downward pass.
	logZ := 0.0
	for i := range nodes {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		node := &nodes[i]
		tab, m := clique(i, false)
		if math.IsInf(m, -1) {
			return math.Inf(-1), nil, errInconsistent
		}
		// The separator leads the clique: each of its states owns a
		// contiguous run of the table.
		msg := resize(up[i], node.sepSize)
		run := node.states / node.sepSize
		for s := range msg {
			sum := 0.0
			for _, x := range tab[s*run : (s+1)*run] {
				sum += x
			}
			msg[s] = math.Log(sum) + m
		}
		up[i] = msg
		if node.parent < 0 {
			logZ += msg[0]
		}
		w.rootMax = m
	}

	// Downward pass: parents before children.
	last := len(nodes) - 1
	for i := last; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		node := &nodes[i]
		lay := node.lay
		var tab []float64
		var m float64
		if i == last {
			tab, m = w.buf[:lay.size], w.rootMax
		} else {
			tab, m = clique(i, true)
		}
		if math.IsInf(m, -1) {
			return math.Inf(-1), nil, errInconsistent
		}
		// The marginals of the variables eliminated here, from the sums of
		// the table over its inner blocks and over its outer assignments
		// (one pass instead of one per variable).
		w.outer = resize(w.outer, lay.size/lay.block)
		w.inner = resize(w.inner, lay.block)
		clear(w.inner)
		for o := range w.outer {
			blk := tab[o*lay.block : (o+1)*lay.block]
			s := 0.0
			for j, x := range blk {
				s += x
				w.inner[j] += x
			}
			w.outer[o] = s
		}
		for k := node.nsep; k < len(node.vars); k++ {
			v := node.vars[k]
			p := make([]float64, t.cards[v])
			if k < lay.outer {
				digitMarginal(p, w.outer, lay.cards[:lay.outer], k)
			} else {
				digitMarginal(p, w.inner, lay.cards[lay.outer:], k-lay.outer)
			}
			normalize(p)
			marg[v] = p
		}
		for k, c := range node.children {
			cn := &nodes[c]
			msg := resize(down[c], cn.sepSize)
			clear(msg)
			w.odo.marginalize(msg, lay, node.childViews[k], tab)
			for s, x := range msg {
				if u := up[c][s]; math.IsInf(u, -1) || x == 0 {
					// The child's side already rules this separator
					// state out; any value will do.
					msg[s] = math.Inf(-1)
				} else {
					msg[s] = math.Log(x) + m - u
				}
			}
			down[c] = msg
		}
	}
	return logZ, marg, nil
}

// errInconsistent reports a model whose partition function is zero.
var errInconsistent = errors.New("the model is inconsistent: every assignment has probability 0")

// packLog2States bounds the tables packFactors makes (2^12 entries).
const packLog2States = 12

// packFactors plans to replace the factors of each clique by a few
// products over larger scopes. Every table of a clique costs one pass over
// the clique table, so a clique that collects hundreds of small factors
// (the root of a dense FR3 network does) is far cheaper with them
// multiplied into, say, five tables first. Packing is greedy and
// deterministic: factors with larger scopes first, each into the first
// pack whose scope stays within 2^packLog2States joint states.
func (t *junctionTree) packFactors() {
	for i := range t.nodes {
		node := &t.nodes[i]
		if len(node.factors) < 2 {
			continue
		}
		fs := slices.Clone(node.factors)
		slices.SortStableFunc(fs, func(a, b int) int { return len(t.scopes[b]) - len(t.scopes[a]) })
		type pack struct {
			vars    []int
			log2    float64
			members []int
		}
		var packs []pack
	next:
		for _, fi := range fs {
			for p := range packs {
				pk := &packs[p]
				l := pk.log2
				var extra []int
				for _, v := range t.scopes[fi] {
					if !slices.Contains(pk.vars, v) {
						extra = append(extra, v)
						l += math.Log2(float64(t.cards[v]))
					}
				}
				if l <= packLog2States {
					pk.vars = append(pk.vars, extra...)
					pk.log2 = l
					pk.members = append(pk.members, fi)
					continue next
				}
			}
			l := 0.0
			for _, v := range t.scopes[fi] {
				l += math.Log2(float64(t.cards[v]))
			}
			packs = append(packs, pack{vars: slices.Clone(t.scopes[fi]), log2: l, members: []int{fi}})
		}
		if len(packs) == len(fs) {
			continue
		}
		node.factors = node.factors[:0]
		for _, pk := range packs {
			if len(pk.members) == 1 {
				node.factors = append(node.factors, pk.members[0])
				continue
			}
			cards := make([]int, len(pk.vars))
			pos := make(map[int]int, len(pk.vars))
			for k, v := range pk.vars {
				cards[k] = t.cards[v]
				pos[v] = k
			}
			fp := factorPack{lay: newLayout(cards), members: pk.members, views: make([]*view, len(pk.members))}
			fp.lay.vars = pk.vars
			for j, fi := range pk.members {
				sc := make([]int, len(t.scopes[fi]))
				for k, v := range t.scopes[fi] {
					sc[k] = pos[v]
				}
				fp.views[j] = fp.lay.newView(sc)
			}
			node.factors = append(node.factors, len(t.scopes)+len(t.packs))
			t.packs = append(t.packs, fp)
		}
	}
}

func (p *factorPack) vars() []int { return p.lay.vars }

// digitMarginal adds into dst the sums of tab (a table over variables of
// the given cards, last fastest) for each value of the variable at
// position k.
func digitMarginal(dst, tab []float64, cards []int, k int) {
	inner := 1
	for _, c := range cards[k+1:] {
		inner *= c
	}
	c := cards[k]
	clear(dst)
	for o := 0; o < len(tab); o += c * inner {
		for x := range c {
			s := 0.0
			for _, y := range tab[o+x*inner : o+(x+1)*inner] {
				s += y
			}
			dst[x] += s
		}
	}
}
