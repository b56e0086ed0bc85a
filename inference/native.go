package inference

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Algorithms of the Native solver.
const (
	AlgorithmAuto  = "auto"  // exact where the junction tree fits, loopy BP elsewhere
	AlgorithmExact = "exact" // junction tree only; fails where it does not fit
	AlgorithmBP    = "bp"    // (conditioned) loopy belief propagation only
)

// Defaults of the Native solver.
const (
	DefaultMaxBytes      = 512 << 20
	DefaultTolerance     = 1e-9
	DefaultMaxIterations = 1000
)

// Native is the project's own solver. It splits the model into connected
// components and solves each one exactly with a junction tree over a
// min-fill elimination order when the tree's tables fit in MaxBytes, and
// with loopy belief propagation otherwise. Loopy BP is refined by
// conditioning on the variables that change its result most, within
// ClampBudget (see conditionedBP). Results are deterministic.
//
// The zero value is ready to use; zero fields take the defaults above.
type Native struct {
	// Algorithm is AlgorithmAuto (or ""), AlgorithmExact or AlgorithmBP.
	Algorithm string
	// MaxBytes bounds the memory of the junction tree's tables and
	// messages for one component (estimated before any is allocated).
	MaxBytes int64
	// Damping in (0, 1) mixes the previous message into each update of
	// loopy BP: m = Damping·old + (1−Damping)·new. Zero selects adaptive
	// damping: none at first, raised (0.5, 0.75, … up to 0.95) whenever
	// the residual stops falling. A negative value means no damping.
	Damping float64
	// Tolerance: loopy BP stops when no message entry changed by more than
	// this in a sweep.
	Tolerance float64
	// MaxIterations caps the number of sweeps of one loopy BP run.
	MaxIterations int
	// ClampBudget bounds the work of conditioning loopy BP on a
	// component, in message updates (sweeps × factor–variable edges)
	// summed over the runs after the first; one takes about 0.15 µs on
	// the machine of BENCHMARKS.md. Zero selects DefaultClampBudget; a
	// negative value turns conditioning off (plain loopy BP).
	ClampBudget int64
}

func (n Native) withDefaults() (Native, error) {
	switch n.Algorithm {
	case "":
		n.Algorithm = AlgorithmAuto
	case AlgorithmAuto, AlgorithmExact, AlgorithmBP:
	default:
		return n, fmt.Errorf("native solver: unknown algorithm %q (want auto, exact or bp)", n.Algorithm)
	}
	if n.MaxBytes <= 0 {
		n.MaxBytes = DefaultMaxBytes
	}
	switch {
	case n.Damping == 0:
		n.Damping = -1 // adaptive, see loopyBP.run
	case n.Damping < 0:
		n.Damping = 0
	case n.Damping >= 1 || math.IsNaN(n.Damping):
		return n, fmt.Errorf("native solver: damping %v is not below 1", n.Damping)
	}
	if n.Tolerance <= 0 {
		n.Tolerance = DefaultTolerance
	}
	if n.MaxIterations <= 0 {
		n.MaxIterations = DefaultMaxIterations
	}
	switch {
	case n.ClampBudget == 0:
		n.ClampBudget = DefaultClampBudget
	case n.ClampBudget < 0:
		n.ClampBudget = 0
	}
	return n, nil
}

// Name is the solver's name in reports: "native".
func (n Native) Name() string { return "native" }

// Solve implements Solver.
func (n Native) Solve(ctx context.Context, m *Model) (*Result, error) {
	n, err := n.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	res := &Result{Marginals: make([][]float64, len(m.Cards)), Report: Report{Solver: "native", Converged: true}}
	// Factors over no variable are constants of Z.
	for _, f := range m.Factors {
		if len(f.Scope) == 0 {
			res.LogZ += math.Log(f.Table[0])
		}
	}
	if math.IsInf(res.LogZ, -1) {
		return nil, fmt.Errorf("native solver: %w (a factor over no variable is 0)", errInconsistent)
	}
	var exact, bp int
	local := make([]int, len(m.Cards)) // scratch for subModel
	for _, comp := range Components(m) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(comp.Factors) == 0 {
			// A variable in no factor: uniform.
			v := comp.Vars[0]
			c := m.Cards[v]
			p := make([]float64, c)
			for x := range p {
				p[x] = 1 / float64(c)
			}
			res.Marginals[v] = p
			res.LogZ += math.Log(float64(c))
			continue
		}
		sub := subModel(m, comp, local)
		cr, err := n.solveComponent(ctx, sub)
		if err != nil {
			if len(comp.Vars) < len(m.Cards) {
				return nil, fmt.Errorf("native solver: component of variables %s: %w", varRange(comp.Vars), err)
			}
			return nil, fmt.Errorf("native solver: %w", err)
		}
		res.LogZ += cr.logZ
		for i, v := range comp.Vars {
			res.Marginals[v] = cr.marginals[i]
		}
		r := &res.Report
		if cr.exact {
			exact++
			r.Width = max(r.Width, cr.width)
		} else {
			bp++
			r.Iterations += cr.clamp.sweeps
			r.Residual = max(r.Residual, cr.stats.residual)
			r.Converged = r.Converged && cr.stats.converged
			r.Damping = max(r.Damping, cr.stats.damping)
			r.Clamped = max(r.Clamped, cr.clamp.clamped)
			r.Branches += cr.clamp.branches
			r.Runs += cr.clamp.runs
		}
	}
	r := &res.Report
	r.Components = exact + bp
	r.BPComponents = bp
	switch {
	case bp == 0:
		r.Method = "exact"
	case exact == 0:
		r.Method = "bp"
	default:
		r.Method = "exact+bp"
	}
	return res, nil
}

type componentResult struct {
	logZ      float64
	marginals [][]float64
	exact     bool
	width     int
	stats     bpStats
	clamp     clampStats
}

// solveComponent solves a connected model with at least one factor.
func (n Native) solveComponent(ctx context.Context, m *Model) (*componentResult, error) {
	scopes, tables := mergeFactors(m)
	if n.Algorithm != AlgorithmBP {
		// The largest clique alone must fit in the memory bound.
		maxLog2 := math.Log2(float64(n.MaxBytes) / 8)
		e, ok := minFillOrder(interactionGraph(m), m.Cards, maxLog2)
		var t *junctionTree
		if ok {
			t = newJunctionTree(m.Cards, scopes, tables, e)
			ok = t.peakFloats*8 <= n.MaxBytes
		}
		if ok {
			logZ, marg, err := t.propagate(ctx)
			if err != nil {
				return nil, err
			}
			return &componentResult{logZ: logZ, marginals: marg, exact: true, width: t.width}, nil
		}
		if n.Algorithm == AlgorithmExact {
			if t != nil {
				return nil, fmt.Errorf("exact inference needs about %d MiB for its junction tree (width %d), more than the bound of %d MiB; raise the bound or use loopy BP",
					t.peakFloats*8>>20, t.width, n.MaxBytes>>20)
			}
			return nil, fmt.Errorf("exact inference needs a clique of 2^%.1f states or more (width %d or more along the min-fill order), more than the bound of %d MiB allows; raise the bound or use loopy BP",
				e.log2States, e.width, n.MaxBytes>>20)
		}
	}
	b, err := newLoopyBP(m.Cards, scopes, tables)
	if err != nil {
		return nil, err
	}
	return conditionedBP(ctx, b, n.Damping, n.Tolerance, n.MaxIterations, n.ClampBudget)
}

// subModel returns the model of one component with its variables
// renumbered 0..len(comp.Vars)-1 in order. Tables are shared, not copied.
// local is scratch space with an entry per variable of m.
func subModel(m *Model, comp Component, local []int) *Model {
	sub := &Model{Cards: make([]int, len(comp.Vars)), Factors: make([]Factor, len(comp.Factors))}
	for i, v := range comp.Vars {
		local[v] = i
		sub.Cards[i] = m.Cards[v]
	}
	n := 0
	for _, fi := range comp.Factors {
		n += len(m.Factors[fi].Scope)
	}
	scopes := make([]int, n)
	for i, fi := range comp.Factors {
		f := m.Factors[fi]
		s := scopes[:len(f.Scope):len(f.Scope)]
		scopes = scopes[len(f.Scope):]
		for k, v := range f.Scope {
			s[k] = local[v]
		}
		sub.Factors[i] = Factor{Scope: s, Table: f.Table}
	}
	return sub
}

// mergeFactors multiplies factors over the same set of variables into one
// (in the scope order of the first), so that neither method sees the same
// interaction twice; loopy BP in particular would otherwise double count.
// It returns the logarithms of the tables: a product of thousands of
// small factors would underflow. Factors over no variable are dropped
// (the caller accounts for them).
func mergeFactors(m *Model) (scopes [][]int, logTables [][]float64) {
	// Keys: the sorted scope, as an array for short scopes (no allocation)
	// or as a string of varints.
	type short [4]int
	shortIndex := make(map[short]int, len(m.Factors))
	longIndex := map[string]int{}
	var sorted []int
	var key []byte
	entries := 0
	for _, f := range m.Factors {
		entries += len(f.Table)
	}
	flat := make([]float64, entries)
	for _, f := range m.Factors {
		if len(f.Scope) == 0 {
			continue
		}
		sorted = append(sorted[:0], f.Scope...)
		slices.Sort(sorted)
		var i int
		var ok bool
		if len(sorted) <= len(short{}) {
			k := short{-1, -1, -1, -1}
			copy(k[:], sorted)
			if i, ok = shortIndex[k]; !ok {
				shortIndex[k] = len(scopes)
			}
		} else {
			key = key[:0]
			for _, v := range sorted {
				key = binary.AppendUvarint(key, uint64(v))
			}
			if i, ok = longIndex[string(key)]; !ok {
				longIndex[string(key)] = len(scopes)
			}
		}
		if ok {
			addLogs(m.Cards, scopes[i], logTables[i], f)
			continue
		}
		lt := flat[:len(f.Table):len(f.Table)]
		flat = flat[len(f.Table):]
		for j, x := range f.Table {
			lt[j] = math.Log(x)
		}
		scopes = append(scopes, f.Scope)
		logTables = append(logTables, lt)
	}
	return scopes, logTables
}

// addLogs adds the log of f, whose scope is a permutation of scope, into
// dst, a log table over scope.
func addLogs(cards, scope []int, dst []float64, f Factor) {
	stride := make(map[int]int, len(f.Scope))
	s := 1
	for k := len(f.Scope) - 1; k >= 0; k-- {
		stride[f.Scope[k]] = s
		s *= cards[f.Scope[k]]
	}
	digits := make([]int, len(scope))
	idx := 0
	for i := range dst {
		dst[i] += math.Log(f.Table[idx])
		for k := len(scope) - 1; k >= 0; k-- {
			v := scope[k]
			digits[k]++
			if digits[k] < cards[v] {
				idx += stride[v]
				break
			}
			digits[k] = 0
			idx -= (cards[v] - 1) * stride[v]
		}
	}
}

// varRange describes a sorted list of variables briefly.
func varRange(vars []int) string {
	if len(vars) <= 6 {
		return fmt.Sprint(vars)
	}
	return fmt.Sprintf("[%d %d %d … %d] (%d variables)", vars[0], vars[1], vars[2], vars[len(vars)-1], len(vars))
}
