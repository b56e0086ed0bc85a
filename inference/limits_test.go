package inference

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestConstants: variables of domain size 1 are constants: results match
// enumeration with them in scopes of every length, and a scope of 100,000
// of them (issue 16: hours and 22 GiB before) is a factor over nothing.
func TestConstants(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	for i := range 100 {
		m := generalModel(rng, 2+rng.IntN(9), 2+rng.IntN(15))
		// Make some variables constants, and put them into scopes.
		for v := range m.Cards {
			if rng.IntN(3) == 0 {
				m.Cards[v] = 1
			}
		}
		m = regenerateTables(rng, m)
		if !consistent(m) {
			continue
		}
		for name, s := range map[string]Solver{"auto": Auto{}, "exact": JunctionTree{}, "cbp": ConditionedBP{BP: LoopyBP{ErrorBudget: NoErrorEstimate}}} {
			r := checkAgainstEnumeration(t, fmt.Sprintf("model %d, %s", i, name), s, m, 1e-6)
			for v, c := range m.Cards {
				if c == 1 && (len(r.Marginals[v]) != 1 || r.Marginals[v][0] != 1) {
					t.Errorf("model %d, %s: constant %d has marginal %v", i, name, v, r.Marginals[v])
				}
			}
		}
	}

	const n = 100_000
	m := &Model{Cards: make([]int, n+1)}
	scope := make([]int, n+1)
	for v := range m.Cards {
		m.Cards[v] = 1
		scope[v] = v
	}
	m.Cards[n] = 2
	m.Factors = []Factor{{Scope: scope, Table: []float64{1, 3}}}
	r, err := Auto{}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Marginals[n]; math.Abs(p[0]-0.25) > 1e-12 || math.Abs(p[1]-0.75) > 1e-12 || r.Marginals[0][0] != 1 {
		t.Errorf("marginals %v and %v, want [0.25 0.75] and [1]", p, r.Marginals[0])
	}
}

// regenerateTables gives every factor a table of the size its scope now
// needs.
func regenerateTables(rng *rand.Rand, m *Model) *Model {
	for i, f := range m.Factors {
		size := 1
		for _, v := range f.Scope {
			size *= m.Cards[v]
		}
		t := make([]float64, size)
		for j := range t {
			t[j] = 0.1 + rng.Float64()
		}
		m.Factors[i].Table = t
	}
	return m
}

// TestMemoryBound: sizes are checked before anything per state is
// allocated. A variable of two billion states (a 23-byte UAI file, which
// made the solver allocate 17 GiB) is refused with the sizes, by every
// solver, and so is a component whose tables exceed the bound; the bound
// is the memory bound option.
func TestMemoryBound(t *testing.T) {
	huge := &Model{Cards: []int{2_000_000_000}}
	for name, s := range map[string]Solver{"auto": Auto{}, "exact": JunctionTree{}, "bp": LoopyBP{}, "cbp": ConditionedBP{}} {
		_, err := s.Solve(context.Background(), huge)
		if err == nil || !strings.Contains(err.Error(), "the marginals alone need 15259 MiB (2000000000 states in all), more than the memory bound of 512 MiB") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	// Domain sizes whose sum does not fit in an int64 (it once wrapped
	// negative, passed the check and panicked in make) are refused too.
	for _, cards := range [][]int{{math.MaxInt}, {1 << 62, 1 << 62}, {2, math.MaxInt - 1}} {
		for name, s := range map[string]Solver{"auto": Auto{}, "exact": JunctionTree{}, "bp": LoopyBP{}, "cbp": ConditionedBP{}} {
			_, err := s.Solve(context.Background(), &Model{Cards: cards})
			if err == nil || !strings.Contains(err.Error(), "the marginals alone need more than") {
				t.Errorf("%s, cards %v: err = %v", name, cards, err)
			}
		}
	}
	// 300 factors of 2^12 entries, logs and all: about 19 MiB, over a bound
	// of 16 MiB.
	m := &Model{Cards: make([]int, 24)}
	for v := range m.Cards {
		m.Cards[v] = 2
	}
	for i := range 300 {
		scope := make([]int, 12)
		for k := range scope {
			scope[k] = (i + k) % 24
		}
		tab := make([]float64, 1<<12)
		for j := range tab {
			tab[j] = 1
		}
		m.Factors = append(m.Factors, Factor{Scope: scope, Table: tab})
	}
	for name, s := range map[string]Solver{"auto": Auto{Exact: JunctionTree{MaxBytes: 16 << 20}}, "bp": LoopyBP{MaxBytes: 16 << 20}} {
		_, err := s.Solve(context.Background(), m)
		if err == nil || !strings.Contains(err.Error(), "the model needs about 19 MiB before inference starts (its tables, marginals and messages), more than the memory bound of 16 MiB") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// TestValidateLongScope: a scope of 100,000 variables is checked in
// linear time, repeats are found, and a product of domain sizes beyond
// any integer is reported, not wrapped around.
func TestValidateLongScope(t *testing.T) {
	const n = 100_000
	m := &Model{Cards: make([]int, n)}
	scope := make([]int, n)
	for v := range m.Cards {
		m.Cards[v] = 1
		scope[v] = v
	}
	m.Factors = []Factor{{Scope: scope, Table: []float64{1}}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	scope[n-1] = 0
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "variable 0 appears twice") {
		t.Errorf("repeat: err = %v", err)
	}
	scope[n-1] = n - 1
	for v := range 64 {
		m.Cards[v] = 4 // 4^64 = 2^128 entries
	}
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "table has 1 entries, its scope needs more") {
		t.Errorf("overflow: err = %v", err)
	}
}
