package inference

import (
	"context"
	"errors"
	"fmt"
)

// Auto solves each connected component exactly with a junction tree where
// the tree fits in Exact.MaxBytes, and with an approximate method
// elsewhere. The zero value is ready to use.
type Auto struct {
	// Exact holds the junction tree's options.
	Exact JunctionTree
	// Approximate solves the components whose junction tree does not fit;
	// nil selects ConditionedBP{}. Any Solver will do: it is given one
	// component at a time.
	Approximate Solver
}

// Solve implements Solver.
func (a Auto) Solve(ctx context.Context, m *Model) (*Result, error) {
	if a.Exact.MaxBytes < 0 {
		return nil, fmt.Errorf("auto: memory bound %d bytes is negative", a.Exact.MaxBytes)
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
		if err := s.BP.validate(); err != nil {
			return nil, err
		}
		if s.Budget < 0 {
			return nil, fmt.Errorf("conditioned BP: budget %d is negative", s.Budget)
		}
		a.Approximate = s.withDefaults()
	}
	a.Exact = a.Exact.withDefaults()
	return solveByComponents(ctx, m, a)
}

func (a Auto) solveComponent(ctx context.Context, m *Model) (*componentResult, error) {
	t, err := a.Exact.plan(m)
	if err == nil {
		return t.solve(ctx)
	}
	if !errors.Is(err, errTooLarge) {
		return nil, err
	}
	if s, ok := a.Approximate.(componentSolver); ok {
		return s.solveComponent(ctx, m)
	}
	// Another kind of solver: given the component as a model.
	res, err := a.Approximate.Solve(ctx, m)
	if err != nil {
		return nil, err
	}
	r := res.Report
	return &componentResult{
		logZ:      res.LogZ, // NaN, when the solver does not compute it, makes the total NaN
		marginals: res.Marginals,
		stats:     bpStats{iterations: r.Iterations, converged: r.Converged, residual: r.Residual, damping: r.Damping},
		clamp:     clampStats{clamped: r.Clamped, branches: max(1, r.Branches), runs: max(1, r.Runs), sweeps: r.Iterations},
	}, nil
}
