// Package inference computes marginals of discrete Markov networks. A Model
// is a set of variables with finite domains and nonnegative factors over
// them; a Solver turns it into per-variable marginal distributions.
package inference

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Model is a discrete Markov network (an undirected factor graph).
type Model struct {
	// Cards holds the domain size of each variable; variables are numbered
	// from 0.
	Cards   []int
	Factors []Factor
}

// Factor is a nonnegative function of the variables in Scope. Table lists
// its values with the LAST variable of the scope changing fastest (the UAI
// and merlin convention): for a binary scope (x, y) the order is
// f(0,0), f(0,1), f(1,0), f(1,1).
type Factor struct {
	Scope []int
	Table []float64
}

// Solver computes the marginals of a model.
type Solver interface {
	Solve(ctx context.Context, m *Model) (*Result, error)
}

// Result holds the marginals of every variable and what the solver did.
type Result struct {
	// Marginals[v][x] is P(variable v = x).
	Marginals [][]float64
	// LogZ is the natural log of the partition function, when the method
	// computes it (NaN otherwise).
	LogZ   float64
	Report Report
}

// Validate checks the structure of a model: domain sizes, scopes within
// range and without repeats, table sizes, nonnegative finite entries.
func (m *Model) Validate() error {
	for v, c := range m.Cards {
		if c < 1 {
			return fmt.Errorf("variable %d: domain size %d < 1", v, c)
		}
	}
	for i, f := range m.Factors {
		size := 1
		for k, v := range f.Scope {
			if v < 0 || v >= len(m.Cards) {
				return fmt.Errorf("factor %d: variable %d out of range [0, %d)", i, v, len(m.Cards))
			}
			if slices.Contains(f.Scope[:k], v) { // scopes are short
				return fmt.Errorf("factor %d: variable %d appears twice in the scope", i, v)
			}
			size *= m.Cards[v]
		}
		if len(f.Table) != size {
			return fmt.Errorf("factor %d: table has %d entries, scope needs %d", i, len(f.Table), size)
		}
		for j, x := range f.Table {
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("factor %d: entry %d is %v (want finite and >= 0)", i, j, x)
			}
		}
	}
	return nil
}

// WithEvidence returns a copy of m in which each observed variable is
// clamped to its value by an indicator factor, so that marginals are
// conditioned on the evidence.
func (m *Model) WithEvidence(ev map[int]int) (*Model, error) {
	out := &Model{Cards: append([]int(nil), m.Cards...), Factors: append([]Factor(nil), m.Factors...)}
	vars := make([]int, 0, len(ev))
	for v := range ev {
		vars = append(vars, v)
	}
	sort.Ints(vars) // deterministic factor order
	for _, v := range vars {
		x := ev[v]
		if v < 0 || v >= len(m.Cards) {
			return nil, fmt.Errorf("evidence: variable %d out of range [0, %d)", v, len(m.Cards))
		}
		if x < 0 || x >= m.Cards[v] {
			return nil, fmt.Errorf("evidence: value %d out of range for variable %d with %d states", x, v, m.Cards[v])
		}
		t := make([]float64, m.Cards[v])
		t[x] = 1
		out.Factors = append(out.Factors, Factor{Scope: []int{v}, Table: t})
	}
	return out, nil
}
