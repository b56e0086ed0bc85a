package inference

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Defaults of the native solvers' options (a zero option takes its default).
const (
	DefaultMaxBytes      = 512 << 20
	DefaultTolerance     = 1e-9
	DefaultMaxIterations = 1000
)

// componentSolver is implemented by the native solvers: it solves one
// connected component (renumbered from 0) with at least one factor.
type componentSolver interface {
	solveComponent(ctx context.Context, m *Model) (*componentResult, error)
}

type componentResult struct {
	logZ      float64
	marginals [][]float64
	errors    []float64       // error bars, nil when exact (see Result.Errors)
	report    ComponentReport // First and Variables are the caller's to fill in
}

// solveByComponents validates m, splits it into connected components,
// solves each one with s and assembles the result and its report.
// Factors over no variable and variables in no factor are handled here.
//
// Variables of domain size 1 are taken as the constants they are. Before
// anything per state is allocated, the marginals of the whole model, and
// each component's tables, marginals and messages (see memoryNeed), are
// checked against maxBytes (or minMemoryBound, if larger).
func solveByComponents(ctx context.Context, m *Model, s componentSolver, maxBytes int64) (*Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	bound := max(maxBytes, minMemoryBound)
	// The states of all marginals, summed without overflow: a domain size
	// near the int64 limit once wrapped the sum negative past this check.
	var marg int64
	for _, c := range m.Cards {
		if int64(c) > math.MaxInt64/8-marg {
			return nil, fmt.Errorf("native solver: the marginals alone need more than %d states in all, more than the memory bound of %s", int64(math.MaxInt64/8), mib(bound))
		}
		marg += int64(c)
	}
	if marg > bound/8 {
		return nil, fmt.Errorf("native solver: the marginals alone need %s (%d states in all), more than the memory bound of %s", mib(8*marg), marg, mib(bound))
	}
	m = m.withoutConstants()
	res := &Result{Marginals: make([][]float64, len(m.Cards)), Report: Report{Solver: NativeName, Converged: true}}
	// Factors over no variable are constants of Z.
	for _, f := range m.Factors {
		if len(f.Scope) == 0 {
			res.LogZ += math.Log(f.Table[0])
		}
	}
	if math.IsInf(res.LogZ, -1) {
		return nil, fmt.Errorf("native solver: %w (a factor over no variable is 0)", errInconsistent)
	}
	comps := Components(m)
	for _, comp := range comps {
		if need := m.memoryNeed(comp); need > bound {
			what := "the model"
			if len(comp.Vars) < len(m.Cards) {
				what = "the component of variables " + varRange(comp.Vars)
			}
			return nil, fmt.Errorf("native solver: %s needs about %s before inference starts (its tables, marginals and messages), more than the memory bound of %s", what, mib(need), mib(bound))
		}
	}
	local := make([]int, len(m.Cards)) // scratch for subModel
	for _, comp := range comps {
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
		sub := m
		if len(comp.Vars) < len(m.Cards) || len(comp.Factors) < len(m.Factors) {
			sub = subModel(m, comp, local)
		} // else the component is the model, numbered as it is: no copy
		cr, err := s.solveComponent(ctx, sub)
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
		if cr.errors != nil {
			if res.Errors == nil {
				res.Errors = make([]float64, len(m.Cards))
			}
			for i, v := range comp.Vars {
				res.Errors[v] = cr.errors[i]
			}
		}
		cr.report.First, cr.report.Variables = comp.Vars[0], len(comp.Vars)
		res.Report.add(cr.report, cr.report.Method == MethodExact)
	}
	if res.Report.Method == "" {
		res.Report.Method = MethodExact // no factor over two variables or more
	}
	return res, nil
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
	// Factors over one or two variables (most) are matched by firstPair;
	// longer scopes by a key: the sorted scope as an array for short
	// scopes (no allocation), or as a string of varints.
	type short [4]int
	first := firstPair(m)
	shortIndex := map[short]int{}
	longIndex := map[string]int{}
	// First the structure: the merged factor of each factor (−1 for none),
	// numbered in the order of their first factors, and where each chunk
	// of factors starts among them and in the flat table array. Then the
	// logarithms of the first factors' tables, chunk by chunk on every
	// core, and last the factors that multiply into earlier ones, in
	// order: each merged table sees the same operations in the same order
	// whatever the number of workers.
	target := make([]int, len(m.Factors))
	type chunkStart struct{ merged, entry int }
	starts := make([]chunkStart, 0, (len(m.Factors)+sumChunk-1)/sumChunk)
	var merges []int // the factors that multiply into an earlier one
	var sorted []int
	var key []byte
	n, entries := 0, 0
	for fi, f := range m.Factors {
		if fi%sumChunk == 0 {
			starts = append(starts, chunkStart{n, entries})
		}
		target[fi] = -1
		if len(f.Scope) == 0 {
			continue
		}
		var i int
		var ok bool
		if first != nil && len(f.Scope) <= 2 {
			if j := first[fi]; j != fi {
				i, ok = target[j], true
			}
		} else {
			sorted = append(sorted[:0], f.Scope...)
			slices.Sort(sorted)
			if len(sorted) <= len(short{}) {
				k := short{-1, -1, -1, -1}
				copy(k[:], sorted)
				if i, ok = shortIndex[k]; !ok {
					shortIndex[k] = n
				}
			} else {
				key = key[:0]
				for _, v := range sorted {
					key = binary.AppendUvarint(key, uint64(v))
				}
				if i, ok = longIndex[string(key)]; !ok {
					longIndex[string(key)] = n
				}
			}
		}
		if ok {
			target[fi] = i
			merges = append(merges, fi)
			continue
		}
		target[fi] = n
		n++
		entries += len(f.Table)
	}
	scopes = make([][]int, n)
	logTables = make([][]float64, n)
	flat := make([]float64, entries)
	chunkDo(len(m.Factors), entries >= parallelEntries, func(c, lo, hi int) {
		st := starts[c]
		for fi := lo; fi < hi; fi++ {
			if target[fi] != st.merged {
				continue // over no variable, or merged into an earlier one
			}
			f := m.Factors[fi]
			lt := flat[st.entry : st.entry+len(f.Table) : st.entry+len(f.Table)]
			for j, x := range f.Table {
				lt[j] = math.Log(x)
			}
			scopes[st.merged], logTables[st.merged] = f.Scope, lt
			st.merged++
			st.entry += len(f.Table)
		}
	})
	for _, fi := range merges {
		i := target[fi]
		addLogs(m.Cards, scopes[i], logTables[i], m.Factors[fi])
	}
	return scopes, logTables
}

// firstPair returns, for each factor over one or two variables, the first
// factor over the same variables (itself, if none comes before), found by
// listing the factors under their smallest variable: no hashing, which
// for the 864,587 factors of the dense 500x1500 model cost 0.3 s. It
// returns nil for a model of 2^31 variables or more.
func firstPair(m *Model) []int {
	n := len(m.Cards)
	if n >= 1<<31 {
		return nil
	}
	// The factors of each smallest variable, in order (counting sort).
	start := make([]int32, n+1)
	lo := func(f Factor) int {
		if len(f.Scope) == 2 {
			return min(f.Scope[0], f.Scope[1])
		}
		return f.Scope[0]
	}
	for _, f := range m.Factors {
		if k := len(f.Scope); k == 1 || k == 2 {
			start[lo(f)+1]++
		}
	}
	for v := range n {
		start[v+1] += start[v]
	}
	byLo := make([]int32, start[n])
	fill := slices.Clone(start[:n])
	for fi, f := range m.Factors {
		if k := len(f.Scope); k == 1 || k == 2 {
			u := lo(f)
			byLo[fill[u]] = int32(fi)
			fill[u]++
		}
	}
	first := make([]int, len(m.Factors))
	seen := make([]int32, n+1)  // seen[w]: 1 + the first factor of (u, w) for the u at hand, or 0
	stamp := make([]int32, n+1) // which u seen[w] is for, plus 1
	for u := range n {
		for _, fi := range byLo[start[u]:start[u+1]] {
			f := m.Factors[fi]
			w := n // the other variable; n for a unary factor
			if len(f.Scope) == 2 {
				w = max(f.Scope[0], f.Scope[1])
			}
			if stamp[w] == int32(u+1) {
				first[fi] = int(seen[w]) - 1
				continue
			}
			stamp[w], seen[w] = int32(u+1), fi+1
			first[fi] = int(fi)
		}
	}
	return first
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

// mib formats a number of bytes in MiB, rounded up.
func mib(bytes int64) string {
	return fmt.Sprintf("%d MiB", (bytes+1<<20-1)>>20)
}

// varRange describes a sorted list of variables briefly.
func varRange(vars []int) string {
	if len(vars) <= 6 {
		return fmt.Sprint(vars)
	}
	return fmt.Sprintf("[%d %d %d … %d] (%d variables)", vars[0], vars[1], vars[2], vars[len(vars)-1], len(vars))
}

// NativeName is the name the project's own solvers report (Report.Solver),
// whichever algorithm solved the model.
const NativeName = "native"

// Name is the solver's name in reports: NativeName.
func (JunctionTree) Name() string { return NativeName }

// Name is the solver's name in reports: NativeName.
func (LoopyBP) Name() string { return NativeName }

// Name is the solver's name in reports: NativeName.
func (ConditionedBP) Name() string { return NativeName }

// Name is the solver's name in reports: NativeName.
func (Auto) Name() string { return NativeName }
