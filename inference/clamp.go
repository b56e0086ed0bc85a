package inference

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Conditioned ("clamped") loopy belief propagation.
//
// Loopy BP's fixed point carries the error of the Bethe approximation,
// which more sweeps do not remove: on the dense FR3 networks it stays 0.002
// from exact. Conditioning on a variable v splits the model into one model
// per state x of v, in which v's loops are cut; BP on each branch gives
// marginals b(·|v=x) and a Bethe estimate Z_x of the branch's partition
// function, and
//
//	P(u) ≈ Σ_x Z_x b(u|v=x) / Σ_x Z_x
//
// which is exact once every branch is a tree, and usually closer to exact
// before. Conditioning on k binary variables takes up to 2^k runs, so the
// variables are chosen by what they change and the work is bounded.
//
// Choosing. Cheap scores (degree, entropy, mutual information across
// factors) pick poorly on FR networks: the variables that matter most
// there are hubs whose BP belief is nearly certain but wrong by a factor of
// ten in its small probability. So every variable on a loop is tried
// instead: each of its states is clamped in turn, BP restarts from the
// first fixed point for lookaheadSweeps sweeps, and the variables are
// ranked by how far the combined marginals move from plain BP's. This
// lookahead is done once and fixes the order in which variables are
// clamped; a variable whose loops earlier ones have all cut is skipped.
// When the lookahead alone would take more than half of the budget,
// nothing is conditioned (plain loopy BP).
//
// Splitting. The branches form a tree whose leaves partition the states
// of the clamped variables. Leaves are split shallowest first, heaviest
// first within a depth (so that every branch of a level is refined before
// any goes deeper: the weights of light branches matter as much as the
// marginals of heavy ones), each child warm-started from its parent's
// messages, until the budget is spent, the order runs out, or only
// negligible leaves are left. A split that the budget cuts short is
// dropped, so every leaf that is combined is a finished run.
//
// The budget counts message updates: sweeps times factor–variable edges,
// summed over every run after the first, per component; computing a run's
// marginals and Bethe estimate counts as one more sweep.

// ConditionedBP is loopy BP conditioned on the variables that change its
// result most, within a budget of work per component (see above). The
// zero value is ready to use.
type ConditionedBP struct {
	// BP holds the options of every BP run.
	BP LoopyBP
	// Budget bounds the work of conditioning on a component, in message
	// updates (sweeps × factor–variable edges) summed over the runs after
	// the first (reading a run's result counts as resultSweeps sweeps); one
	// takes about 0.15 µs on the machine of BENCHMARKS.md.
	// Zero scales it with the component: clampScale times the updates of
	// the first run, and at least DefaultClampBudget.
	Budget int64
}

// clampScale is how many times the work of the first BP run the default
// budget allows conditioning, so that conditioning costs a fixed share of
// the solve at every size of model.
const clampScale = 2

// Solve implements Solver.
func (c ConditionedBP) Solve(ctx context.Context, m *Model) (*Result, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	return solveByComponents(ctx, m, c, c.BP.MaxBytes)
}

func (c ConditionedBP) validate() error {
	if err := c.BP.validate(); err != nil {
		return err
	}
	if c.Budget < 0 {
		return fmt.Errorf("conditioned BP: budget %d is negative", c.Budget)
	}
	return nil
}

func (c ConditionedBP) withDefaults() ConditionedBP {
	c.BP = c.BP.withDefaults()
	return c
}

func (c ConditionedBP) solveComponent(ctx context.Context, m *Model) (*componentResult, error) {
	scopes, tables := mergeFactors(m)
	b, err := newLoopyBP(m.Cards, scopes, tables)
	if err != nil {
		return nil, err
	}
	r, err := conditionedBP(ctx, b, nil, c.BP, c.budget())
	if err != nil {
		return nil, err
	}
	return r, sampledErrors(ctx, b, scopes, tables, r, c.BP.errorBudget(), false)
}

// budget returns the budget conditionedBP takes: the fixed one, or
// scaledBudget.
func (c ConditionedBP) budget() int64 {
	if c.Budget == 0 {
		return scaledBudget
	}
	return c.Budget
}

const (
	// DefaultClampBudget is the least budget of ConditionedBP by default.
	DefaultClampBudget = 2_000_000

	// scaledBudget asks conditionedBP for the scaled default budget.
	scaledBudget = -1

	// resultSweeps is what reading a run's marginals and Bethe estimate
	// costs, in sweeps (measured on the dense FR models, where a sweep of
	// the binary path costs one exp and one log per message).
	resultSweeps = 4

	// lookaheadSweeps is how long a trial clamp runs before its effect is
	// measured. Three sweeps from the fixed point rank the FR3 variables
	// as full runs do; one does not.
	lookaheadSweeps = 3

	// negligibleWeight: a leaf with less than this share of the estimated
	// Z is not split (it can move no marginal by much more), and a
	// variable none but one of whose states has at least this belief is
	// not a candidate for clamping.
	negligibleWeight = 1e-6
)

// bpBranch is a leaf of the conditioning tree: BP on the model with
// order[i] clamped to states[i] for every i < len(states).
type bpBranch struct {
	states []int
	logZ   float64 // Bethe estimate of ln Z of the branch
	marg   [][]float64
	msg    []float64 // the messages at the end of the run (loopyBP.snapshot)
	stats  bpStats
	final  bool // not to be split
}

// clampStats says what conditioning did.
type clampStats struct {
	clamped  int // variables clamped in the deepest leaf
	branches int // leaves combined
	runs     int // BP runs, the first and the lookahead included
	sweeps   int // over every run
}

// conditioner runs conditioned BP on one component.
type conditioner struct {
	b     *loopyBP
	opts  LoopyBP // with defaults
	left  int64   // message updates left in the budget
	edges int64   // message updates per sweep
	stats clampStats

	basePrior, baseLogPrior [][]float64 // the model's own priors
	clampPrior, clampLog    [][]float64 // per variable, allocated when first clamped
	clamped                 []int       // variables clamped now
}

// bpRoot is the first BP run on a component: its fixed point as a branch
// (b holds its messages), the method that reached it (MethodBP, or
// MethodDoubleLoop after a fallback) and what was tried before.
type bpRoot struct {
	branch *bpBranch
	method string
	tried  []string
}

// runRoot runs BP on b until it converges, falling back as runConverging
// says.
func runRoot(ctx context.Context, b *loopyBP, opts LoopyBP) (*bpRoot, error) {
	st, method, marg, tried, err := b.runConverging(ctx, opts)
	if err != nil {
		return nil, err
	}
	if marg == nil {
		if marg, err = b.marginals(); err != nil {
			return nil, err
		}
	}
	return &bpRoot{branch: &bpBranch{logZ: b.bethe(marg), marg: marg, stats: st}, method: method, tried: tried}, nil
}

// conditionedBP conditions loopy BP on b, from its first run root (nil:
// run it here), on the variables that change its result most, within
// budget message updates (see above). A budget of zero gives the first
// run's result; scaledBudget scales it with the first run.
func conditionedBP(ctx context.Context, b *loopyBP, root *bpRoot, opts LoopyBP, budget int64) (*componentResult, error) {
	c := &conditioner{
		b: b, opts: opts, left: budget,
		edges:        int64(len(b.edgeVar)),
		basePrior:    slices.Clone(b.prior),
		baseLogPrior: slices.Clone(b.logPrior),
		clampPrior:   make([][]float64, len(b.cards)),
		clampLog:     make([][]float64, len(b.cards)),
	}
	var err error
	if root == nil {
		if root, err = runRoot(ctx, b, opts); err != nil {
			return nil, err
		}
	}
	c.stats = clampStats{branches: 1, runs: 1, sweeps: root.branch.stats.iterations}
	if budget == scaledBudget {
		budget = max(DefaultClampBudget, clampScale*int64(root.branch.stats.iterations+resultSweeps)*c.edges)
		c.left = budget
	}
	// A split costs two runs, each up to about three times the first
	// (measured on the FR3 models: a clamp moves the fixed point far):
	// when what the lookahead leaves, half the budget, does not cover
	// that, the lookahead would be wasted.
	if 2*3*int64(root.branch.stats.iterations+resultSweeps)*c.edges > budget/2 {
		budget = 0
	}
	leaves := []*bpBranch{root.branch}
	var order []int
	if budget > 0 && c.edges > 0 {
		order, err = c.rank(ctx, root.branch)
		if err != nil {
			return nil, err
		}
		if leaves, err = c.split(ctx, root.branch, order); err != nil {
			return nil, err
		}
		c.clamp(nil, nil)
	}
	logZ, marg, st := combine(leaves)
	method := MethodConditionedBP
	if c.stats.clamped == 0 {
		method = root.method
	}
	return &componentResult{logZ: logZ, marginals: marg, report: ComponentReport{
		Method: method, Converged: st.converged, Iterations: c.stats.sweeps, Residual: st.residual, Damping: st.damping,
		Clamped: c.stats.clamped, Branches: int64(c.stats.branches), Runs: c.stats.runs, Spread: spread(leaves, order, marg),
		Fallbacks: root.tried,
	}}, nil
}

// clamp conditions the model on order[i] = states[i], releasing every
// other variable.
func (c *conditioner) clamp(order, states []int) {
	b := c.b
	for _, v := range c.clamped {
		b.prior[v], b.logPrior[v] = c.basePrior[v], c.baseLogPrior[v]
	}
	c.clamped = c.clamped[:0]
	for i, x := range states {
		v := order[i]
		if c.clampPrior[v] == nil {
			c.clampPrior[v] = make([]float64, b.cards[v])
			c.clampLog[v] = make([]float64, b.cards[v])
		}
		p, lp := c.clampPrior[v], c.clampLog[v]
		// The indicator of x times the prior: BP then sends v's factors
		// the point mass on x, which is conditioning, and the Bethe
		// estimate gains the prior's factor for x.
		for y := range p {
			p[y], lp[y] = 0, math.Inf(-1)
		}
		p[x], lp[x] = 1, 0
		if c.basePrior[v] != nil {
			p[x], lp[x] = c.basePrior[v][x], c.baseLogPrior[v][x]
		}
		b.prior[v], b.logPrior[v] = p, lp
		c.clamped = append(c.clamped, v)
	}
}

// start sets the messages to a snapshot for a warm start.
func (c *conditioner) start(msg []float64) {
	c.b.restore(msg)
}

// runBranch runs BP with the clamps and messages set, for at most maxIter
// sweeps and what the budget allows, and reports true when the budget
// ended the run before it converged. errInconsistent means that the branch
// has no weight.
func (c *conditioner) runBranch(ctx context.Context, damping float64, adaptive bool, maxIter int) (*bpBranch, bool, error) {
	// The marginals and the Bethe estimate cost about resultSweeps more.
	sweeps := min(int64(maxIter), c.left/c.edges-resultSweeps)
	if sweeps < 1 {
		return nil, true, nil
	}
	st, err := c.b.run(ctx, damping, adaptive, c.opts.Tolerance, int(sweeps), 0)
	c.left -= int64(st.iterations+resultSweeps) * c.edges
	c.stats.runs++
	c.stats.sweeps += st.iterations
	if err != nil {
		return nil, false, err
	}
	if !st.converged && st.iterations < maxIter {
		return nil, true, nil
	}
	marg, err := c.b.marginals()
	if err != nil {
		return nil, false, err
	}
	return &bpBranch{logZ: c.b.bethe(marg), marg: marg, stats: st}, false, nil
}

// rank tries every candidate variable (see the comment at the top) and
// returns the clamping order. When the lookahead of every candidate does
// not fit in half of the budget, it tries the candidates with the most
// factors that do (hubs, in FR networks). It returns nil when the model
// has no loop or not even one candidate fits.
func (c *conditioner) rank(ctx context.Context, root *bpBranch) ([]int, error) {
	b := c.b
	onLoop := b.loopVars(nil)
	var cands []int
	cost := make([]int64, len(b.cards))
	var total int64
	for v, ok := range onLoop {
		n := 0
		for _, p := range root.marg[v] {
			if p >= negligibleWeight {
				n++
			}
		}
		if ok && n > 1 {
			cands = append(cands, v)
			for _, p := range root.marg[v] {
				if p > 0 {
					cost[v] += (lookaheadSweeps + 1) * c.edges
				}
			}
			total += cost[v]
		}
	}
	if total > c.left/2 {
		slices.SortStableFunc(cands, func(u, v int) int { return cmp.Compare(len(b.varEdges[v]), len(b.varEdges[u])) })
		var kept []int
		total = 0
		for _, v := range cands {
			if total+cost[v] > c.left/2 {
				break
			}
			kept = append(kept, v)
			total += cost[v]
		}
		slices.Sort(kept)
		cands = kept
	}
	if len(cands) == 0 {
		return nil, nil
	}
	root.msg = b.snapshot() // b holds the first run's fixed point
	// A fixed damping (the first run's last), since adaptive damping
	// would not act within a few sweeps anyway.
	damping := root.stats.damping
	change := make([]float64, len(b.cards))
	var trial []*bpBranch
	for _, v := range cands {
		trial = trial[:0]
		for x, p := range root.marg[v] {
			if p == 0 {
				continue
			}
			c.clamp([]int{v}, []int{x})
			c.start(root.msg)
			t, cut, err := c.runBranch(ctx, damping, false, lookaheadSweeps)
			if errors.Is(err, errInconsistent) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if cut { // cannot happen: the cost was checked
				return nil, nil
			}
			trial = append(trial, t)
		}
		if len(trial) == 0 {
			continue
		}
		_, m, _ := combine(trial)
		for u, p := range m {
			for x := range p {
				change[v] = max(change[v], math.Abs(p[x]-root.marg[u][x]))
			}
		}
	}
	c.clamp(nil, nil)
	// The order: by change, largest first (ties to the lower index), each
	// variable only while it is still on a loop once those before it are
	// clamped; variables that change nothing beyond the tolerance are left.
	slices.SortStableFunc(cands, func(u, v int) int { return cmp.Compare(change[v], change[u]) })
	var order []int
	clamped := make([]bool, len(b.cards))
	onLoop = b.loopVars(clamped)
	for _, v := range cands {
		if change[v] <= c.opts.Tolerance || !onLoop[v] {
			continue
		}
		order = append(order, v)
		clamped[v] = true
		onLoop = b.loopVars(clamped)
	}
	return order, nil
}

// split grows the conditioning tree from root along order (see the comment
// at the top) and returns its leaves.
func (c *conditioner) split(ctx context.Context, root *bpBranch, order []int) ([]*bpBranch, error) {
	leaves := []*bpBranch{root}
	for {
		// The leaf to split: shallowest, then heaviest, then first.
		mx := math.Inf(-1)
		for _, l := range leaves {
			mx = max(mx, l.logZ)
		}
		total := 0.0
		for _, l := range leaves {
			total += math.Exp(l.logZ - mx)
		}
		best := -1
		for i, l := range leaves {
			if l.final || len(l.states) == len(order) || math.Exp(l.logZ-mx)/total < negligibleWeight {
				continue
			}
			if best < 0 || len(l.states) < len(leaves[best].states) ||
				len(l.states) == len(leaves[best].states) && l.logZ > leaves[best].logZ {
				best = i
			}
		}
		if best < 0 {
			return leaves, nil
		}
		parent := leaves[best]
		d := len(parent.states)
		v := order[d]
		var children []*bpBranch
		for x, p := range parent.marg[v] {
			if p == 0 {
				continue
			}
			states := append(slices.Clone(parent.states), x)
			c.clamp(order, states)
			c.start(parent.msg)
			damping, adaptive := c.opts.Damping.start()
			child, cut, err := c.runBranch(ctx, damping, adaptive, c.opts.MaxIterations)
			if errors.Is(err, errInconsistent) {
				continue // a branch of no weight
			}
			if err != nil {
				return nil, err
			}
			if cut {
				return leaves, nil
			}
			child.states = states
			child.msg = c.b.snapshot()
			children = append(children, child)
		}
		converged := true
		for _, ch := range children {
			converged = converged && ch.stats.converged
		}
		if len(children) == 0 || !converged {
			// BP saw no weight in any branch of a leaf it had found
			// consistent, or did not converge in one: keep the leaf
			// and clamp no deeper there.
			parent.final = true
			continue
		}
		parent.msg = nil
		leaves = slices.Replace(leaves, best, best+1, children...)
		c.stats.clamped = max(c.stats.clamped, d+1)
		c.stats.branches = len(leaves)
	}
}

// combine mixes the leaves' marginals weighted by their estimated Z, in
// log space, and returns ln of the total, the marginals, and the worst
// convergence of the runs.
func combine(leaves []*bpBranch) (float64, [][]float64, bpStats) {
	if len(leaves) == 1 {
		return leaves[0].logZ, leaves[0].marg, leaves[0].stats
	}
	mx := math.Inf(-1)
	for _, l := range leaves {
		mx = max(mx, l.logZ)
	}
	marg := make([][]float64, len(leaves[0].marg))
	for v, p := range leaves[0].marg {
		marg[v] = make([]float64, len(p))
	}
	total := 0.0
	st := bpStats{converged: true}
	for _, l := range leaves {
		w := math.Exp(l.logZ - mx)
		total += w
		for v, p := range l.marg {
			for x, q := range p {
				marg[v][x] += w * q
			}
		}
		st.iterations = max(st.iterations, l.stats.iterations)
		st.converged = st.converged && l.stats.converged
		st.residual = max(st.residual, l.stats.residual)
		st.damping = max(st.damping, l.stats.damping)
	}
	for _, p := range marg {
		for x := range p {
			p[x] /= total
		}
	}
	return mx + math.Log(total), marg, st
}

// spread is the largest weighted mean absolute difference between a
// variable's marginal in the leaves and the combined marginal (half the
// L1 distance), over the variables clamped in no leaf.
func spread(leaves []*bpBranch, order []int, marg [][]float64) float64 {
	if len(leaves) < 2 {
		return 0
	}
	depth := 0
	for _, l := range leaves {
		depth = max(depth, len(l.states))
	}
	clamped := make([]bool, len(marg))
	for _, v := range order[:depth] {
		clamped[v] = true
	}
	mx := math.Inf(-1)
	for _, l := range leaves {
		mx = max(mx, l.logZ)
	}
	total := 0.0
	for _, l := range leaves {
		total += math.Exp(l.logZ - mx)
	}
	worst := 0.0
	for v, p := range marg {
		if clamped[v] {
			continue
		}
		d := 0.0
		for _, l := range leaves {
			w := math.Exp(l.logZ-mx) / total
			for x, q := range l.marg[v] {
				d += w * math.Abs(q-p[x])
			}
		}
		worst = max(worst, d/2)
	}
	return worst
}

// loopVars reports which variables lie on a loop of the factor graph, or
// on a path between loops (its 2-core), once the variables marked in
// clamped (nil: none) are removed. Clamping any other variable leaves BP's
// result as it is.
func (b *loopyBP) loopVars(clamped []bool) []bool {
	n := len(b.cards)
	free := func(v int) bool { return clamped == nil || !clamped[v] }
	fdeg := make([]int, len(b.facs))       // free variables of each live factor
	vdeg := make([]int, n)                 // live factors of each free variable
	edgeFac := make([]int, len(b.edgeVar)) // the factor of each edge
	for fi, f := range b.facs {
		for k, v := range f.vars {
			edgeFac[f.edges[k]] = fi
			if free(v) {
				fdeg[fi]++
			}
		}
	}
	in := make([]bool, n)
	var queue []int // variables to remove
	dropFactor := func(fi int) {
		fdeg[fi] = 0
		for _, u := range b.facs[fi].vars {
			if in[u] {
				if vdeg[u]--; vdeg[u] == 1 {
					queue = append(queue, u)
				}
			}
		}
	}
	for v := range n {
		if !free(v) {
			continue
		}
		in[v] = true
		for _, e := range b.varEdges[v] {
			if fdeg[edgeFac[e]] >= 2 {
				vdeg[v]++
			}
		}
	}
	for v := range n {
		if in[v] && vdeg[v] <= 1 {
			queue = append(queue, v)
		}
	}
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if !in[v] {
			continue
		}
		in[v] = false
		for _, e := range b.varEdges[v] {
			if fi := edgeFac[e]; fdeg[fi] >= 2 {
				if fdeg[fi]--; fdeg[fi] == 1 {
					dropFactor(fi)
				}
			}
		}
	}
	return in
}
