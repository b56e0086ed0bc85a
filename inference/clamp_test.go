package inference

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// ring is a cycle of n binary variables with strong random couplings and
// priors, and a tail of two variables hanging off variable 0.
func ring(rng *rand.Rand, n int) *Model {
	m := &Model{Cards: make([]int, n+2)}
	for v := range m.Cards {
		m.Cards[v] = 2
		p := 0.05 + 0.9*rng.Float64()
		m.Factors = append(m.Factors, Factor{Scope: []int{v}, Table: []float64{1 - p, p}})
	}
	pair := func(u, v int) {
		a, b := 0.05+rng.Float64(), 0.05+rng.Float64()
		m.Factors = append(m.Factors, Factor{Scope: []int{u, v}, Table: []float64{a * 8, b, b, a * 8}})
	}
	for v := range n {
		pair(v, (v+1)%n)
	}
	pair(0, n)
	pair(n, n+1)
	return m
}

func TestLoopVars(t *testing.T) {
	m := ring(rand.New(rand.NewPCG(1, 2)), 5)
	scopes, tables := mergeFactors(m)
	b, err := newLoopyBP(m.Cards, scopes, tables)
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, true, true, true, true, false, false}
	if got := b.loopVars(nil); !reflect.DeepEqual(got, want) {
		t.Errorf("loop variables %v, want %v", got, want)
	}
	clamped := make([]bool, len(m.Cards))
	clamped[2] = true
	if got := b.loopVars(clamped); !reflect.DeepEqual(got, make([]bool, len(m.Cards))) {
		t.Errorf("with variable 2 clamped: loop variables %v, want none", got)
	}
}

// TestConditionedBPCutsLoop: clamping one variable of a single cycle leaves
// trees, on which BP is exact: so are the combined marginals and ln Z.
func TestConditionedBPCutsLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 20 {
		m := ring(rng, 3+rng.IntN(8))
		r := checkAgainstEnumeration(t, "ring", ConditionedBP{BP: LoopyBP{Tolerance: 1e-13, ErrorBudget: NoErrorEstimate}}, m, 1e-9)
		if rep := r.Report; rep.Clamped != 1 || rep.Branches != 2 || !rep.Converged {
			t.Errorf("ring %d: report %+v, want one variable clamped, two branches", i, rep)
		}
	}
}

// TestConditionedBPBudget: a budget too small for the lookahead gives plain
// loopy BP, bit for bit; a larger one only ever adds branches.
func TestConditionedBPBudget(t *testing.T) {
	m := frModel(rand.New(rand.NewPCG(5, 6)), 12, 0.6)
	plain, err := LoopyBP{}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	small, err := ConditionedBP{Budget: 100}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, small) || plain.Report.Runs != 1 || plain.Report.Branches != 1 {
		t.Errorf("tiny budget: %+v, want plain BP %+v", small.Report, plain.Report)
	}
	last := 1
	for _, budget := range []int64{20_000, 50_000, 100_000, 1_000_000} {
		r, err := ConditionedBP{Budget: budget}.Solve(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if r.Report.Branches < last {
			t.Errorf("budget %d: %d branches, fewer than %d with a smaller budget", budget, r.Report.Branches, last)
		}
		last = r.Report.Branches
	}
	if last < 4 {
		t.Errorf("the largest budget gave only %d branches", last)
	}
}

// TestConditionedBPGeneral: on general loopy models (any domain sizes and
// arities, zero entries) conditioned BP gives distributions or reports an
// inconsistent model, never NaNs.
func TestConditionedBPGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 100 {
		m := generalModel(rng, 3+rng.IntN(8), 6+rng.IntN(16))
		r, err := ConditionedBP{BP: LoopyBP{MaxIterations: 200}}.Solve(context.Background(), m)
		if err != nil {
			if consistent(m) && !errors.Is(err, errInconsistent) {
				t.Errorf("model %d: %v", i, err)
			}
			continue
		}
		for v, p := range r.Marginals {
			s := 0.0
			for _, x := range p {
				if math.IsNaN(x) || x < 0 {
					t.Fatalf("model %d: variable %d has marginal %v", i, v, p)
				}
				s += x
			}
			if math.Abs(s-1) > 1e-9 {
				t.Errorf("model %d: variable %d has marginal %v (sum %v)", i, v, p, s)
			}
		}
		if math.IsNaN(r.LogZ) {
			t.Errorf("model %d: ln Z is NaN", i)
		}
	}
}
