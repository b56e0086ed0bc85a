package inference

import (
	"context"
	"fmt"
	"math"
)

// Enumeration is an exact solver that sums over every joint assignment of
// each connected component of the model. Its cost is exponential in the
// size of the largest component; it is the reference the other solvers are
// tested against, and it refuses components with more than MaxStates joint
// assignments (default 1<<22).
type Enumeration struct {
	MaxStates int
}

// NameEnumeration names Enumeration in reports and identities.
const NameEnumeration = "enumeration"

// defaultMaxStates is Enumeration's bound when MaxStates is 0.
const defaultMaxStates = 1 << 22

// Solve implements Solver.
func (e Enumeration) Solve(ctx context.Context, m *Model) (*Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	limit := e.MaxStates
	if limit <= 0 {
		limit = defaultMaxStates
	}
	res := &Result{Marginals: make([][]float64, len(m.Cards)), Report: Report{Solver: "native", Method: NameEnumeration, Converged: true}}
	for _, comp := range Components(m) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		states := 1
		for _, v := range comp.Vars {
			states *= m.Cards[v]
			if states > limit {
				return nil, fmt.Errorf("enumeration: a component of %d variables has more than %d joint states", len(comp.Vars), limit)
			}
		}
		logZ, marg := enumerate(m, comp, states)
		if math.IsInf(logZ, -1) {
			return nil, fmt.Errorf("enumeration: the model is inconsistent (every assignment of variables %v has probability 0)", comp.Vars)
		}
		res.LogZ += logZ
		for i, v := range comp.Vars {
			res.Marginals[v] = marg[i]
		}
		if w := len(comp.Vars) - 1; w > res.Report.Width {
			res.Report.Width = w
		}
	}
	return res, nil
}

// enumerate returns ln Z of a component and the marginals of its variables.
func enumerate(m *Model, comp Component, states int) (float64, [][]float64) {
	pos := make(map[int]int, len(comp.Vars))
	for i, v := range comp.Vars {
		pos[v] = i
	}
	x := make([]int, len(comp.Vars))
	logw := make([]float64, states)
	maxw := math.Inf(-1)
	for s := 0; s < states; s++ {
		// Decode s with the last variable changing fastest.
		r := s
		for i := len(comp.Vars) - 1; i >= 0; i-- {
			c := m.Cards[comp.Vars[i]]
			x[i] = r % c
			r /= c
		}
		lw := 0.0
		for _, fi := range comp.Factors {
			f := m.Factors[fi]
			idx := 0
			for _, v := range f.Scope {
				idx = idx*m.Cards[v] + x[pos[v]]
			}
			lw += math.Log(f.Table[idx])
		}
		logw[s] = lw
		if lw > maxw {
			maxw = lw
		}
	}
	marg := make([][]float64, len(comp.Vars))
	for i, v := range comp.Vars {
		marg[i] = make([]float64, m.Cards[v])
	}
	if math.IsInf(maxw, -1) {
		return maxw, marg // every assignment has zero weight
	}
	z := 0.0
	for s := 0; s < states; s++ {
		w := math.Exp(logw[s] - maxw)
		z += w
		r := s
		for i := len(comp.Vars) - 1; i >= 0; i-- {
			c := m.Cards[comp.Vars[i]]
			marg[i][r%c] += w
			r /= c
		}
	}
	for i := range marg {
		for j := range marg[i] {
			marg[i][j] /= z
		}
	}
	return maxw + math.Log(z), marg
}
