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

// Solver computes the marginals of a model, and says what it is with
// every setting that can change them (Identify: "bp[damping=0.5,…]", as
// libDAI's identify()). Output lines record the identity, so that a
// resumed run or a merge refuses results of another solver: a solver that
// cannot say what it is cannot be one.
type Solver interface {
	Solve(ctx context.Context, m *Model) (*Result, error)
	Identify() string
}

// Result holds the marginals of every variable and what the solver did.
type Result struct {
	// Marginals[v][x] is P(variable v = x).
	Marginals [][]float64
	// LogZ is the natural log of the partition function, when the method
	// computes it (NaN otherwise).
	LogZ float64
	// Errors[v], when the result is not exact, is how far v's marginal
	// may be from the truth: no state's probability is further off than
	// that, by a bound or a statistical estimate (Report.Parts says which;
	// see the ErrorBound and ErrorSampled methods). It is 0 for the
	// variables solved exactly, and Errors is nil when all were.
	Errors []float64
	Report Report
}

// Validate checks the structure of a model: domain sizes, scopes within
// range and without repeats, table sizes, nonnegative finite entries. It
// takes time linear in the model's size, however long a scope is.
func (m *Model) Validate() error {
	for v, c := range m.Cards {
		if c < 1 {
			return fmt.Errorf("variable %d: domain size %d < 1", v, c)
		}
	}
	var seen []int // seen[v] == i+1: v is in the scope of factor i (long scopes)
	for i, f := range m.Factors {
		size := 1
		for k, v := range f.Scope {
			if v < 0 || v >= len(m.Cards) {
				return fmt.Errorf("factor %d: variable %d out of range [0, %d)", i, v, len(m.Cards))
			}
			if len(f.Scope) <= 8 {
				if slices.Contains(f.Scope[:k], v) {
					return fmt.Errorf("factor %d: variable %d appears twice in the scope", i, v)
				}
			} else {
				if seen == nil {
					seen = make([]int, len(m.Cards))
				}
				if seen[v] == i+1 {
					return fmt.Errorf("factor %d: variable %d appears twice in the scope", i, v)
				}
				seen[v] = i + 1
			}
			// The table's length bounds the product, so it cannot overflow.
			if size > len(f.Table)/m.Cards[v] {
				return fmt.Errorf("factor %d: table has %d entries, its scope needs more", i, len(f.Table))
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

// memoryNeed estimates the bytes a native solver allocates for the
// component comp of m besides a junction tree's tables (bounded on their
// own): its marginals, its factors' log tables, and loopy BP's messages
// and beliefs. It counts entries, so that a variable of two billion
// states is seen for what it costs.
func (m *Model) memoryNeed(comp Component) int64 {
	var marg, entries, msgs int64
	for _, v := range comp.Vars {
		marg += int64(m.Cards[v])
	}
	for _, fi := range comp.Factors {
		f := m.Factors[fi]
		entries += int64(len(f.Table))
		if len(f.Scope) > 1 {
			for _, v := range f.Scope {
				msgs += int64(m.Cards[v])
			}
		}
	}
	return 8 * (3*marg + 2*entries + 2*msgs)
}

// minMemoryBound is the least memory bound applied to a model (not to a
// junction tree): allocations this small are never refused.
const minMemoryBound = 1 << 20

// withoutConstants returns m with every variable of domain size 1 taken
// out of the scopes (a table over a scope with such a variable lists the
// same entries in the same order without it). Such a variable is a
// constant: it then sits in no factor, and a factor over constants only
// becomes a factor over no variable.
func (m *Model) withoutConstants() *Model {
	has := false
	for _, c := range m.Cards {
		has = has || c == 1
	}
	if !has {
		return m
	}
	out := &Model{Cards: m.Cards, Factors: make([]Factor, len(m.Factors))}
	for i, f := range m.Factors {
		out.Factors[i] = f
		if !slices.ContainsFunc(f.Scope, func(v int) bool { return m.Cards[v] == 1 }) {
			continue
		}
		out.Factors[i].Scope = slices.DeleteFunc(slices.Clone(f.Scope), func(v int) bool { return m.Cards[v] == 1 })
	}
	return out
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
