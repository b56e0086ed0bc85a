package inference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// JunctionTree is the exact solver: each connected component is solved by
// two-pass propagation on a junction tree built along a greedy min-fill
// elimination order. A component whose tree does not fit in MaxBytes is an
// error. The zero value is ready to use.
type JunctionTree struct {
	// MaxBytes bounds the memory of one component's tables and messages
	// (estimated before any is allocated). Zero selects DefaultMaxBytes.
	MaxBytes int64
}

// Solve implements Solver.
func (j JunctionTree) Solve(ctx context.Context, m *Model) (*Result, error) {
	if j.MaxBytes < 0 {
		return nil, fmt.Errorf("junction tree: memory bound %d bytes is negative", j.MaxBytes)
	}
	return solveByComponents(ctx, m, j.withDefaults())
}

func (j JunctionTree) withDefaults() JunctionTree {
	if j.MaxBytes == 0 {
		j.MaxBytes = DefaultMaxBytes
	}
	return j
}

func (j JunctionTree) solveComponent(ctx context.Context, m *Model) (*componentResult, error) {
	t, err := j.plan(m)
	if err != nil {
		return nil, err
	}
	return t.solve(ctx)
}

// plan builds the junction tree of a component, or says why it does not
// fit in j.MaxBytes (an error wrapping errTooLarge).
func (j JunctionTree) plan(m *Model) (*junctionTree, error) {
	scopes, tables := mergeFactors(m)
	// The largest clique alone must fit in the memory bound.
	maxLog2 := math.Log2(float64(j.MaxBytes) / 8)
	e, ok := minFillOrder(interactionGraph(m), m.Cards, maxLog2)
	if !ok {
		return nil, fmt.Errorf("%w: exact inference needs a clique of 2^%.1f states or more (width %d or more along the min-fill order), more than the bound of %d MiB allows; raise the bound or use an approximate method",
			errTooLarge, e.log2States, e.width, j.MaxBytes>>20)
	}
	t := newJunctionTree(m.Cards, scopes, tables, e)
	if t.peakFloats*8 > j.MaxBytes {
		return nil, fmt.Errorf("%w: exact inference needs about %d MiB for its junction tree (width %d), more than the bound of %d MiB; raise the bound or use an approximate method",
			errTooLarge, t.peakFloats*8>>20, t.width, j.MaxBytes>>20)
	}
	return t, nil
}

// errTooLarge marks a component whose junction tree does not fit.
var errTooLarge = errors.New("too large")

// solve propagates and returns the component's result.
func (t *junctionTree) solve(ctx context.Context) (*componentResult, error) {
	logZ, marg, err := t.propagate(ctx)
	if err != nil {
		return nil, err
	}
	return &componentResult{logZ: logZ, marginals: marg, exact: true, width: t.width}, nil
}

// junctionTree is a clique tree built from an elimination order, for exact
// two-pass (Hugin-style) propagation. Tables and messages hold natural
// logarithms, so that products of thousands of factors neither underflow
// nor overflow; each clique is exponentiated relative to its own maximum
// only to sum out variables.
type junctionTree struct {
	cards  []int
	tables [][]float64 // log of each factor's table
	scopes [][]int
	nodes  []jtNode // children before parents; the last one is the root

	width      int   // largest clique size − 1
	maxStates  int   // joint states of the largest clique
	peakFloats int64 // float64s alive at the peak of propagation (estimate)
}

type jtNode struct {
	// vars is the clique: the separator with the parent first, then the
	// variables eliminated here, which change fastest.
	vars     []int
	nsep     int
	parent   int // index into nodes, -1 for the root
	children []int
	factors  []int // indices into tables
	states   int
	sepSize  int
}

// newJunctionTree builds the clique tree of a connected model (given by its
// domain sizes and factor scopes) along elimination order e. The buckets of
// the elimination are merged into their parent whenever the parent's
// clique is contained in the child's, so that no table is computed twice.
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
	for _, node := range t.nodes {
		t.width = max(t.width, len(node.vars)-1)
		t.maxStates = max(t.maxStates, node.states)
		seps += int64(node.sepSize)
	}
	// One clique table, every upward message, and the downward messages
	// of one family at a time (upward messages are dropped as the
	// downward ones replace them).
	t.peakFloats = int64(t.maxStates) + 2*seps
	return t
}

// propagate computes ln Z and the marginal of every variable.
func (t *junctionTree) propagate(ctx context.Context) (float64, [][]float64, error) {
	nodes := t.nodes
	up := make([][]float64, len(nodes))   // message to the parent, over its separator
	down := make([][]float64, len(nodes)) // message from the parent
	buf := make([]float64, t.maxStates)
	var odo odometer
	pos := make([]int, len(t.cards)) // position of a variable in the current clique
	marg := make([][]float64, len(t.cards))
	var outerSum, innerSum []float64

	// clique fills buf with the exponentiated log potential of node i times
	// its incoming messages, scaled so that its largest entry is 1, and
	// returns that scale (a log) with the table's layout.
	clique := func(i int, withDown bool) (*layout, []float64, float64) {
		node := &nodes[i]
		cards := make([]int, len(node.vars))
		for k, v := range node.vars {
			cards[k] = t.cards[v]
			pos[v] = k
		}
		lay := newLayout(cards)
		scope := func(vars []int) []int {
			s := make([]int, len(vars))
			for k, v := range vars {
				s[k] = pos[v]
			}
			return s
		}
		views := make([]*view, 0, len(node.factors)+len(node.children)+1)
		tabs := make([][]float64, 0, cap(views))
		for _, fi := range node.factors {
			views = append(views, lay.newView(scope(t.scopes[fi])))
			tabs = append(tabs, t.tables[fi])
		}
		for _, c := range node.children {
			cn := &nodes[c]
			views = append(views, lay.newView(scope(cn.vars[:cn.nsep])))
			tabs = append(tabs, up[c])
		}
		if withDown && node.parent >= 0 {
			views = append(views, lay.newView(scope(node.vars[:node.nsep])))
			tabs = append(tabs, down[i])
		}
		tab := buf[:lay.size]
		odo.sum(tab, lay, views, tabs)
		m := math.Inf(-1)
		for _, x := range tab {
			if x > m { // not max(): it is slower, handling NaN
				m = x
			}
		}
		if math.IsInf(m, -1) {
			return lay, tab, m
		}
		for j, x := range tab {
			tab[j] = math.Exp(x - m)
		}
		return lay, tab, m
	}
	sepScope := func(n *jtNode) []int {
		s := make([]int, n.nsep)
		for k, v := range n.vars[:n.nsep] {
			s[k] = pos[v]
		}
		return s
	}

	// Upward pass: children before parents. The root's table is its
	// belief already; it is kept for the downward pass.
	var rootLay *layout
	var rootTab []float64
	var rootMax float64
	for i := range nodes {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		node := &nodes[i]
		lay, tab, m := clique(i, false)
		if node.parent < 0 {
			rootLay, rootTab, rootMax = lay, tab, m
		}
		if math.IsInf(m, -1) {
			return math.Inf(-1), nil, errInconsistent
		}
		// The separator leads the clique: each of its states owns a
		// contiguous run of the table.
		msg := make([]float64, node.sepSize)
		run := node.states / node.sepSize
		for s := range msg {
			sum := 0.0
			for _, x := range tab[s*run : (s+1)*run] {
				sum += x
			}
			msg[s] = math.Log(sum) + m
		}
		up[i] = msg
	}
	root := len(nodes) - 1
	logZ := up[root][0]

	// Downward pass: parents before children.
	for i := len(nodes) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		node := &nodes[i]
		var lay *layout
		var tab []float64
		var m float64
		if node.parent < 0 {
			lay, tab, m = rootLay, rootTab, rootMax
			for k, v := range node.vars {
				pos[v] = k
			}
		} else {
			lay, tab, m = clique(i, true)
		}
		if math.IsInf(m, -1) {
			return math.Inf(-1), nil, errInconsistent
		}
		// The marginals of the variables eliminated here, from the sums of
		// the table over its inner blocks and over its outer assignments
		// (one pass instead of one per variable).
		outerSum = resize(outerSum, lay.size/lay.block)
		innerSum = resize(innerSum, lay.block)
		clear(innerSum)
		for o := range outerSum {
			blk := tab[o*lay.block : (o+1)*lay.block]
			s := 0.0
			for j, x := range blk {
				s += x
				innerSum[j] += x
			}
			outerSum[o] = s
		}
		for k := node.nsep; k < len(node.vars); k++ {
			v := node.vars[k]
			p := make([]float64, t.cards[v])
			if k < lay.outer {
				digitMarginal(p, outerSum, lay.cards[:lay.outer], k)
			} else {
				digitMarginal(p, innerSum, lay.cards[lay.outer:], k-lay.outer)
			}
			normalize(p)
			marg[v] = p
		}
		for _, c := range node.children {
			cn := &nodes[c]
			msg := make([]float64, cn.sepSize)
			odo.marginalize(msg, lay, lay.newView(sepScope(cn)), tab)
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
		down[i] = nil
		if i != root {
			up[i] = nil
		}
	}
	return logZ, marg, nil
}

// errInconsistent reports a model whose partition function is zero.
var errInconsistent = errors.New("the model is inconsistent: every assignment has probability 0")

// packLog2States bounds the tables packFactors makes (2^12 entries).
const packLog2States = 12

// packFactors replaces the factors of each clique by a few products over
// larger scopes. Every table of a clique costs one pass over the clique
// table, so a clique that collects hundreds of small factors (the root of
// a dense FR3 network does) is far cheaper with them multiplied into, say,
// five tables first. Packing is greedy and deterministic: factors with
// larger scopes first, each into the first pack whose scope stays within
// 2^packLog2States joint states.
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
			lay := newLayout(cards)
			views := make([]*view, len(pk.members))
			tabs := make([][]float64, len(pk.members))
			for j, fi := range pk.members {
				sc := make([]int, len(t.scopes[fi]))
				for k, v := range t.scopes[fi] {
					sc[k] = pos[v]
				}
				views[j] = lay.newView(sc)
				tabs[j] = t.tables[fi]
			}
			tab := make([]float64, lay.size)
			var odo odometer
			odo.sum(tab, lay, views, tabs)
			node.factors = append(node.factors, len(t.tables))
			t.tables = append(t.tables, tab)
			t.scopes = append(t.scopes, pk.vars)
		}
	}
}

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
