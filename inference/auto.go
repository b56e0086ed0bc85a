package inference

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Auto solves each connected component exactly where that fits the
// bounds of Exact (a junction tree within Exact.MaxBytes, or cutset
// conditioning within Exact.Budget), and approximately elsewhere:
//
//   - Where cutset conditioning fits in memory but not in the budget, the
//     budget is spent on the heaviest branches, ranked by loopy BP's
//     marginals of the clamped variables (a partial cutset), when they
//     are estimated to hold all but partialMaxMissing of Z: each of those
//     branches is exact, and the report says how much was left out.
//   - Elsewhere, Approximate (conditioned loopy BP by default), which
//     falls back to stronger damping and then to the convergent double
//     loop when BP does not converge.
//
// The zero value is ready to use.
type Auto struct {
	// Exact holds the options of exact inference.
	Exact JunctionTree
	// Approximate solves the components that are not solved exactly; nil
	// selects ConditionedBP{}. Any Solver will do: it is given one
	// component at a time.
	Approximate Solver
}

// partialMaxMissing is the largest share of Z a partial cutset may leave
// out (as estimated); beyond it conditioned BP is used instead, whose
// error on the dense FR3 models is of the order of 1e-2.
const partialMaxMissing = 1e-2

// Solve implements Solver.
func (a Auto) Solve(ctx context.Context, m *Model) (*Result, error) {
	if err := a.Exact.validate(); err != nil {
		return nil, err
	}
	switch s := a.Approximate.(type) {
	case nil:
		a.Approximate = ConditionedBP{}.withDefaults()
	case LoopyBP:
		if err := s.validate(); err != nil {
			return nil, err
		}
		a.Approximate = s.withDefaults()
	case ConditionedBP:
		if err := s.validate(); err != nil {
			return nil, err
		}
		a.Approximate = s.withDefaults()
	}
	a.Exact = a.Exact.withDefaults()
	return solveByComponents(ctx, m, a, a.Exact.MaxBytes)
}

func (a Auto) solveComponent(ctx context.Context, m *Model) (*componentResult, error) {
	scopes, tables := mergeFactors(m)
	p := a.Exact.plan(m, scopes, tables)
	if p.why == nil {
		return p.solve(ctx, a.Exact.MaxBytes)
	}
	var opts LoopyBP
	var budget int64
	switch s := a.Approximate.(type) {
	case LoopyBP:
		opts = s
	case ConditionedBP:
		opts, budget = s.BP, s.budget()
	default:
		return a.foreign(ctx, m)
	}
	b, err := newLoopyBP(m.Cards, scopes, tables)
	if err != nil {
		return nil, err
	}
	root, err := runRoot(ctx, b, opts)
	if err != nil {
		return nil, err
	}
	if r, err := a.partial(ctx, p.partial, root); r != nil || err != nil {
		return r, err
	}
	r, err := conditionedBP(ctx, b, root, opts, budget)
	if err != nil {
		return nil, err
	}
	return r, sampledErrors(ctx, b, scopes, tables, r, opts.errorBudget(), true)
}

// partial runs the heaviest branches of the plan whose affordable
// branches hold the most of Z by the estimate of BP's marginals, when
// they are estimated to hold all but partialMaxMissing of it; otherwise
// it returns nil.
//
// The estimate is checked against the branches solved: where BP misjudged
// a variable, the branches it thought light weigh more than it said. So
// the share left out is estimated as if every branch not solved weighed
// as much more than BP's estimate as the worst branch solved did (ρ, the
// largest ratio of a branch's exact share to its estimated share), and
// the result is dropped, for conditioned BP, when that share is over
// partialMaxMissing.
func (a Auto) partial(ctx context.Context, plans []*cutset, root *bpRoot) (*componentResult, error) {
	budget := a.Exact.Budget.Seconds() * workPerSecond
	var best *cutset
	var branches []int64
	mass := 0.0
	for _, c := range plans {
		limit := int64(min(budget/(c.cost/float64(c.count)), 1<<20))
		if limit < 1 {
			continue
		}
		q := make([][]float64, len(c.vars))
		for k, v := range c.vars {
			q[k] = root.branch.marg[v]
		}
		br, w := c.heaviest(q, limit)
		if w > mass {
			best, branches, mass = c, br, w
		}
	}
	if best == nil || 1-mass > partialMaxMissing {
		return nil, nil
	}
	logZ := make([]float64, len(branches))
	r, err := best.solve(ctx, branches, best.workers(a.Exact.MaxBytes), logZ)
	if errors.Is(err, errInconsistent) {
		return nil, nil // the branches BP found heaviest have no weight: BP misled
	}
	if err != nil {
		return nil, err
	}
	if int64(len(branches)) == best.count {
		return r, nil
	}
	q := make([][]float64, len(best.vars))
	for k, v := range best.vars {
		q[k] = root.branch.marg[v]
	}
	rho := 1.0
	for i, b := range branches {
		if est := brWeightOf(best, q, b) / mass; est > 0 {
			rho = max(rho, math.Exp(logZ[i]-r.logZ)/est)
		}
	}
	missing := (1 - mass) * rho / (mass + (1-mass)*rho)
	if !(missing <= partialMaxMissing) {
		return nil, nil
	}
	r.report.Method, r.report.Exact = MethodPartialCutset, false
	r.report.Missing = missing
	boundErrors(r, missing)
	return r, nil
}

// brWeightOf is BP's estimate of branch b's share of Z: the product of
// q[k][x_k].
func brWeightOf(c *cutset, q [][]float64, b int64) float64 {
	digits := make([]int, len(c.vars))
	c.branchDigits(b, digits)
	w := 1.0
	for k, x := range digits {
		w *= q[k][x]
	}
	return w
}

// foreign hands the component to a solver from outside the family.
func (a Auto) foreign(ctx context.Context, m *Model) (*componentResult, error) {
	res, err := a.Approximate.Solve(ctx, m)
	if err != nil {
		return nil, err
	}
	r := res.Report
	method := r.Method
	if method == "" {
		method = fmt.Sprintf("%T", a.Approximate)
	}
	return &componentResult{
		logZ:      res.LogZ, // NaN, when the solver does not compute it, makes the total NaN
		marginals: res.Marginals,
		report: ComponentReport{Method: method, Exact: r.BPComponents == 0 && r.Converged && !math.IsNaN(res.LogZ), Converged: r.Converged, Width: r.Width,
			Iterations: r.Iterations, Residual: r.Residual, Damping: r.Damping, Clamped: r.Clamped, Branches: int64(r.Branches), Runs: r.Runs},
	}, nil
}
