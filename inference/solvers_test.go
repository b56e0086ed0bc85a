package inference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// frModel is an FR-shaped network: binary variables with unary priors and
// pairwise factors taken from docs/inference.md's tables with random probabilities.
func frModel(rng *rand.Rand, n int, density float64) *Model {
	m := &Model{Cards: make([]int, n)}
	for v := range n {
		m.Cards[v] = 2
		p := []float64{0.5, 0.9}[rng.IntN(2)]
		m.Factors = append(m.Factors, Factor{Scope: []int{v}, Table: []float64{1 - p, p}})
	}
	for a := range n {
		for b := range n {
			if a == b || rng.Float64() >= density/2 {
				continue
			}
			p := min(max(rng.Float64(), 1e-6), 1-1e-6)
			pt := []float64{0.5, 0.9}[rng.IntN(2)]
			var t []float64
			switch rng.IntN(3) {
			case 0: // entailment
				t = []float64{1 - pt, pt, 1 - p, p}
			case 1: // contradiction
				t = []float64{1 - pt, pt, p, 1 - p}
			default: // equivalence
				t = []float64{p, 1 - p, 1 - p, p}
			}
			m.Factors = append(m.Factors, Factor{Scope: []int{a, b}, Table: t})
		}
	}
	return m
}

// generalModel has domains of 1 to 4 states, factors of arity 1 to 4 with
// unsorted scopes, repeated scopes, some zero entries, and some variables
// in no factor. Its joint state space stays at most maxStates.
func generalModel(rng *rand.Rand, n, nf int) *Model {
	m := &Model{Cards: make([]int, n)}
	for v := range n {
		m.Cards[v] = 1 + rng.IntN(4)
		if rng.IntN(3) > 0 {
			m.Cards[v] = 2
		}
	}
	for range nf {
		k := 1 + rng.IntN(min(4, n))
		scope := rng.Perm(n)[:k]
		size := 1
		for _, v := range scope {
			size *= m.Cards[v]
		}
		t := make([]float64, size)
		for i := range t {
			t[i] = rng.ExpFloat64()
			if rng.IntN(10) == 0 {
				t[i] = 0
			}
		}
		t[rng.IntN(size)] = 1 + rng.Float64() // never all zero
		m.Factors = append(m.Factors, Factor{Scope: scope, Table: t})
	}
	return m
}

func diff(a, b [][]float64) float64 {
	d := 0.0
	for v := range a {
		if len(a[v]) != len(b[v]) {
			return math.Inf(1)
		}
		for x := range a[v] {
			d = max(d, math.Abs(a[v][x]-b[v][x]))
		}
	}
	return d
}

// checkAgainstEnumeration solves m with s and compares with brute force.
func checkAgainstEnumeration(t *testing.T, name string, s Solver, m *Model, tol float64) *Result {
	t.Helper()
	want, err := Enumeration{}.Solve(context.Background(), m)
	if err != nil {
		t.Fatalf("%s: enumeration: %v", name, err)
	}
	got, err := s.Solve(context.Background(), m)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if d := diff(got.Marginals, want.Marginals); d > tol {
		t.Errorf("%s: max |ΔP| = %g against enumeration, want ≤ %g", name, d, tol)
	}
	if math.Abs(got.LogZ-want.LogZ) > tol*max(1, math.Abs(want.LogZ)) {
		t.Errorf("%s: ln Z = %.12f, enumeration %.12f", name, got.LogZ, want.LogZ)
	}
	return got
}

// isZeroFree reports whether every enumeration would be well defined
// (no component with Z = 0).
func consistent(m *Model) bool {
	_, err := Enumeration{}.Solve(context.Background(), m)
	return err == nil
}

// TestExactMatchesEnumeration is the solver-versus-brute-force check:
// hundreds of seeded random models, FR-shaped and general.
func TestExactMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		n := 1 + rng.IntN(14)
		var m *Model
		kind := "fr"
		if i%2 == 0 {
			m = frModel(rng, n, 0.1+0.8*rng.Float64())
		} else {
			kind = "general"
			m = generalModel(rng, min(n, 10), rng.IntN(3*n+1))
		}
		if !consistent(m) {
			continue
		}
		name := fmt.Sprintf("%s model %d (%d variables, %d factors)", kind, i, len(m.Cards), len(m.Factors))
		r := checkAgainstEnumeration(t, name+" exact", JunctionTree{}, m, 1e-9)
		if r.Report.Method != "exact" || !r.Report.Converged {
			t.Errorf("%s: report %+v, want method exact", name, r.Report)
		}
		checkAgainstEnumeration(t, name+" auto", Auto{}, m, 1e-9)
	}
}

// TestExactWithEvidence conditions random models and compares with
// enumeration of the clamped model.
func TestExactWithEvidence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 100 {
		m := generalModel(rng, 2+rng.IntN(9), 4+rng.IntN(20))
		ev := map[int]int{}
		for range 1 + rng.IntN(3) {
			v := rng.IntN(len(m.Cards))
			ev[v] = rng.IntN(m.Cards[v])
		}
		mm, err := m.WithEvidence(ev)
		if err != nil {
			t.Fatal(err)
		}
		if !consistent(mm) {
			if _, err := (Auto{}).Solve(context.Background(), mm); err == nil || !strings.Contains(err.Error(), "inconsistent") {
				t.Errorf("model %d: inconsistent evidence gave err = %v", i, err)
			}
			continue
		}
		r := checkAgainstEnumeration(t, fmt.Sprintf("model %d with evidence %v", i, ev), Auto{}, mm, 1e-9)
		for v, x := range ev {
			if r.Marginals[v][x] != 1 {
				t.Errorf("model %d: observed variable %d = %d has marginal %v", i, v, x, r.Marginals[v])
			}
		}
	}
}

// randomTree returns a model whose factor graph is a tree (or, with
// several roots, a forest): each factor joins one variable already placed
// and up to two new ones.
func randomTree(rng *rand.Rand, n int, pairwise bool) *Model {
	m := &Model{Cards: []int{2 + rng.IntN(2)}}
	for len(m.Cards) < n {
		scope := []int{rng.IntN(len(m.Cards))}
		if rng.IntN(8) == 0 {
			scope = nil // start another tree of the forest
		}
		k := 1
		if !pairwise {
			k = 1 + rng.IntN(2)
		}
		for range k {
			if len(m.Cards) == n {
				break
			}
			scope = append(scope, len(m.Cards))
			m.Cards = append(m.Cards, 1+rng.IntN(3))
		}
		rng.Shuffle(len(scope), func(i, j int) { scope[i], scope[j] = scope[j], scope[i] })
		m.Factors = append(m.Factors, randomFactor(rng, m, scope))
	}
	for v := range m.Cards {
		if rng.IntN(2) == 0 {
			m.Factors = append(m.Factors, randomFactor(rng, m, []int{v}))
		}
	}
	return m
}

func randomFactor(rng *rand.Rand, m *Model, scope []int) Factor {
	size := 1
	for _, v := range scope {
		size *= m.Cards[v]
	}
	t := make([]float64, size)
	for i := range t {
		t[i] = 0.05 + rng.Float64()
	}
	return Factor{Scope: scope, Table: t}
}

// TestBPExactOnTrees: on tree-structured factor graphs loopy BP converges
// to the exact marginals, and its Bethe ln Z is exact.
func TestBPExactOnTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 100 {
		m := randomTree(rng, 2+rng.IntN(12), i%2 == 0)
		r := checkAgainstEnumeration(t, fmt.Sprintf("tree %d", i), ConditionedBP{BP: LoopyBP{Tolerance: 1e-13}}, m, 1e-9)
		if !r.Report.Converged || r.Report.Method != MethodBP {
			t.Errorf("tree %d: report %+v", i, r.Report)
		}
	}
}

// TestBPOnLoopyFR: on small loopy FR networks BP converges. Plain loopy
// BP is an approximation: on small, dense, strongly coupled networks its
// fixed point can be far from exact, so only convergence is asserted for
// it, and that its error bars cover its error. Conditioned BP, which the
// default budget lets clamp until (almost) every loop is cut, is asserted
// to be close to exact.
func TestBPOnLoopyFR(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	worst, worstPlain := 0.0, 0.0
	for i := range 50 {
		m := frModel(rng, 6+rng.IntN(8), 0.3)
		want, err := Enumeration{}.Solve(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int64{-1, 0} {
			var s Solver = ConditionedBP{BP: LoopyBP{ErrorBudget: NoErrorEstimate}}
			if budget < 0 {
				s = LoopyBP{}
			}
			got, err := s.Solve(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Report.Converged {
				t.Errorf("model %d, budget %d: BP did not converge: %+v", i, budget, got.Report)
			}
			d := diff(got.Marginals, want.Marginals)
			if budget < 0 {
				worstPlain = max(worstPlain, d)
				for v, p := range got.Marginals {
					bar := 0.0 // none: BP converged on a tree
					if got.Errors != nil {
						bar = got.Errors[v]
					}
					if e := math.Abs(p[1] - want.Marginals[v][1]); e > bar+1e-9 {
						t.Errorf("model %d, variable %d: BP is %.3g from exact, outside its error bar %.3g", i, v, e, bar)
					}
				}
				continue
			}
			worst = max(worst, d)
			if d > 1e-5 {
				t.Errorf("model %d: conditioned BP is %g from exact (report %+v)", i, d, got.Report)
			}
		}
	}
	t.Logf("largest error over 50 loopy FR networks: %.4g conditioned, %.4g plain", worst, worstPlain)
}

// TestMixedMethods: a memory bound too small for one component's tree but
// not for another's makes auto mix methods and say so: the dense
// component is solved exactly by cutset conditioning, or, when the exact
// budget does not allow that either, by conditioned BP; exact refuses.
func TestMixedMethods(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	dense := frModel(rng, 10, 1) // one dense component, width 9
	m := &Model{Cards: append([]int{2, 2, 3}, dense.Cards...)}
	m.Factors = append(m.Factors, Factor{Scope: []int{1, 0}, Table: []float64{1, 2, 3, 4}})
	for _, f := range dense.Factors {
		s := make([]int, len(f.Scope))
		for k, v := range f.Scope {
			s[k] = v + 3
		}
		m.Factors = append(m.Factors, Factor{Scope: s, Table: f.Table})
	}
	small := Auto{Exact: JunctionTree{MaxBytes: 8 * 64}}
	r := checkAgainstEnumeration(t, "mixed, cutset", small, m, 1e-9)
	if p := r.Report.Parts; r.Report.Method != "exact+cutset" || len(p) != 1 || p[0].First != 3 || p[0].Variables != 10 ||
		p[0].Method != MethodCutset || !p[0].Exact || p[0].Cutset == 0 || p[0].Branches != 1<<p[0].Cutset {
		t.Errorf("report %+v, want the dense component (variables 3–12) by cutset conditioning", r.Report)
	}

	small.Exact.Budget = time.Nanosecond
	r, err := small.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	want := Report{Solver: "native", Method: "exact+cbp", Width: 1, Iterations: r.Report.Iterations, Converged: true,
		Residual: r.Report.Residual, Damping: r.Report.Damping, Clamped: r.Report.Clamped, Branches: r.Report.Branches,
		Runs: r.Report.Runs, Components: 2, BPComponents: 1, Parts: r.Report.Parts, MaxError: r.Report.Parts[0].Error}
	if !reflect.DeepEqual(r.Report, want) {
		t.Errorf("report %+v, want %+v", r.Report, want)
	}
	// Error bars on the approximate component only.
	for v, e := range r.Errors {
		if (v >= 3) != (e > 0) {
			t.Errorf("variable %d: error bar %v", v, e)
		}
	}
	if p := r.Report.Parts; len(p) != 1 || p[0].First != 3 || p[0].Variables != 10 || p[0].Method != MethodConditionedBP || p[0].Exact || !p[0].Converged {
		t.Errorf("parts %+v, want the dense component (variables 3–12) by cbp, converged", p)
	}
	// Variable 2 is in no factor: uniform.
	if !reflect.DeepEqual(r.Marginals[2], []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}) {
		t.Errorf("free variable: %v, want uniform", r.Marginals[2])
	}
	if _, err := small.Exact.Solve(context.Background(), m); err == nil || !strings.Contains(err.Error(), "more than the exact budget of 1ns") {
		t.Errorf("exact under a tiny bound and budget: err = %v, want a budget error", err)
	}
	if _, err := (JunctionTree{MaxBytes: 8}).Solve(context.Background(), m); err == nil || !strings.Contains(err.Error(), "no cutset of up to 40 variables makes it fit") {
		t.Errorf("exact under a bound of one entry: err = %v, want a bound error", err)
	}
	checkAgainstEnumeration(t, "mixed, exact", Auto{}, m, 1e-9)
}

// TestManyFactorsNoUnderflow: thousands of small factors (Z far below the
// smallest float64) on a chain and on one pair, against a log-space
// forward–backward written independently here.
func TestManyFactorsNoUnderflow(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 3000
	m := &Model{Cards: make([]int, n)}
	for v := range n {
		m.Cards[v] = 2
		m.Factors = append(m.Factors, Factor{Scope: []int{v}, Table: []float64{1e-3 * rng.Float64(), 1e-3 * rng.Float64()}})
		if v > 0 {
			t := make([]float64, 4)
			for i := range t {
				t[i] = 1e-4 * (0.1 + rng.Float64())
			}
			m.Factors = append(m.Factors, Factor{Scope: []int{v - 1, v}, Table: t})
		}
	}
	// Forward–backward in log space.
	lse := func(a, b float64) float64 { mx := max(a, b); return mx + math.Log(math.Exp(a-mx)+math.Exp(b-mx)) }
	un := make([][2]float64, n)
	pair := make([][4]float64, n)
	for _, f := range m.Factors {
		if len(f.Scope) == 1 {
			un[f.Scope[0]] = [2]float64{math.Log(f.Table[0]), math.Log(f.Table[1])}
		} else {
			v := f.Scope[1]
			for i := range 4 {
				pair[v][i] = math.Log(f.Table[i])
			}
		}
	}
	fwd := make([][2]float64, n)
	bwd := make([][2]float64, n)
	fwd[0] = un[0]
	for v := 1; v < n; v++ {
		for y := range 2 {
			fwd[v][y] = un[v][y] + lse(fwd[v-1][0]+pair[v][0*2+y], fwd[v-1][1]+pair[v][1*2+y])
		}
	}
	for v := n - 2; v >= 0; v-- {
		for x := range 2 {
			bwd[v][x] = lse(pair[v+1][x*2+0]+un[v+1][0]+bwd[v+1][0], pair[v+1][x*2+1]+un[v+1][1]+bwd[v+1][1])
		}
	}
	logZ := lse(fwd[n-1][0], fwd[n-1][1])
	for alg, s := range map[string]Solver{"exact": JunctionTree{}, "bp": ConditionedBP{}} {
		r, err := s.Solve(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.LogZ-logZ) > 1e-9*math.Abs(logZ) {
			t.Errorf("%s: ln Z = %.6f, want %.6f", alg, r.LogZ, logZ)
		}
		worst := 0.0
		for v := range n {
			p1 := math.Exp(fwd[v][1] + bwd[v][1] - logZ)
			worst = max(worst, math.Abs(r.Marginals[v][1]-p1))
		}
		if worst > 1e-9 {
			t.Errorf("%s: max |ΔP| = %g against forward–backward", alg, worst)
		}
	}

	// 2000 factors over the same two variables.
	pm := &Model{Cards: []int{2, 3}}
	sum := make([]float64, 6)
	for i := range 2000 {
		f := Factor{Scope: []int{0, 1}, Table: make([]float64, 6)}
		if i%2 == 1 {
			f.Scope = []int{1, 0}
		}
		for j := range f.Table {
			f.Table[j] = 1e-3 * (0.5 + rng.Float64())
		}
		for x := range 2 {
			for y := range 3 {
				if i%2 == 0 {
					sum[x*3+y] += math.Log(f.Table[x*3+y])
				} else {
					sum[x*3+y] += math.Log(f.Table[y*2+x])
				}
			}
		}
		pm.Factors = append(pm.Factors, f)
	}
	mx := math.Inf(-1)
	for _, s := range sum {
		mx = max(mx, s)
	}
	z := 0.0
	for _, s := range sum {
		z += math.Exp(s - mx)
	}
	r, err := Auto{}.Solve(context.Background(), pm)
	if err != nil {
		t.Fatal(err)
	}
	if want := mx + math.Log(z); math.Abs(r.LogZ-want) > 1e-9*math.Abs(want) {
		t.Errorf("same-pair factors: ln Z = %.6f, want %.6f", r.LogZ, want)
	}
	p0 := (math.Exp(sum[0]-mx) + math.Exp(sum[1]-mx) + math.Exp(sum[2]-mx)) / z
	if math.Abs(r.Marginals[0][0]-p0) > 1e-9 {
		t.Errorf("same-pair factors: P(x0 = 0) = %v, want %v", r.Marginals[0][0], p0)
	}
}

// TestConstantFactorsAndFreeVariables: factors over no variable scale Z;
// free variables are uniform and count their states in Z.
func TestConstantFactorsAndFreeVariables(t *testing.T) {
	m := &Model{Cards: []int{3, 2}, Factors: []Factor{{Scope: nil, Table: []float64{2}}, {Scope: []int{1}, Table: []float64{1, 3}}}}
	r, err := Auto{}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Log(2 * 3 * 4); math.Abs(r.LogZ-want) > 1e-12 {
		t.Errorf("ln Z = %v, want %v", r.LogZ, want)
	}
	if want := [][]float64{{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.25, 0.75}}; diff(r.Marginals, want) > 1e-15 {
		t.Errorf("marginals %v, want %v", r.Marginals, want)
	}
	m.Factors[0].Table[0] = 0
	if _, err := (Auto{}).Solve(context.Background(), m); err == nil {
		t.Error("a zero constant factor: no error")
	}
}

func TestInconsistentModel(t *testing.T) {
	m := &Model{Cards: []int{2, 2}, Factors: []Factor{
		{Scope: []int{0, 1}, Table: []float64{0, 1, 1, 0}}, // x0 != x1
		{Scope: []int{0}, Table: []float64{1, 0}},
		{Scope: []int{1}, Table: []float64{1, 0}},
	}}
	for alg, s := range map[string]Solver{"exact": JunctionTree{}, "bp": ConditionedBP{}} {
		_, err := s.Solve(context.Background(), m)
		if err == nil || !strings.Contains(err.Error(), "inconsistent") {
			t.Errorf("%s: err = %v, want inconsistent", alg, err)
		}
	}
}

// TestDeterministic: the same model solved twice gives identical bits.
func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	m := frModel(rng, 40, 0.5)
	bp := LoopyBP{ErrorBudget: 20_000_000}
	for alg, s := range map[string]Solver{"auto": Auto{Approximate: ConditionedBP{BP: bp}}, "bp": ConditionedBP{BP: bp}} {
		a, err := s.Solve(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := s.Solve(context.Background(), m)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ", alg)
		}
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := frModel(rand.New(rand.NewPCG(1, 1)), 5, 0.5)
	for alg, s := range map[string]Solver{"exact": JunctionTree{}, "bp": ConditionedBP{}} {
		if _, err := s.Solve(ctx, m); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", alg, err)
		}
	}
}

func TestBadOptions(t *testing.T) {
	m := &Model{Cards: []int{2}}
	for _, s := range []Solver{LoopyBP{Damping: FixedDamping(1)}, ConditionedBP{BP: LoopyBP{Damping: FixedDamping(0)}},
		Auto{Approximate: LoopyBP{Tolerance: -1}}, JunctionTree{MaxBytes: -1}, ConditionedBP{Budget: -1}} {
		if _, err := s.Solve(context.Background(), m); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if _, err := New("magic", Options{}); err == nil {
		t.Error("New(magic): no error")
	}
	bad := &Model{Cards: []int{2}, Factors: []Factor{{Scope: []int{0}, Table: []float64{1}}}}
	if _, err := (Auto{}).Solve(context.Background(), bad); err == nil {
		t.Error("invalid model: no error")
	}
}
