package inference_test

import (
	"testing"

	"github.com/factreasoner/factreasoner-go/inference"
)

// TestIdentify: a solver's identity carries every setting, with defaults
// filled in (the zero value and its defaults given explicitly identify
// alike), and differs when a setting does.
func TestIdentify(t *testing.T) {
	bp, err := inference.New(inference.NameLoopyBP, inference.Options{BP: inference.LoopyBP{Damping: inference.FixedDamping(0.5), Tolerance: 1e-3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    inference.Solver
		want string
	}{
		{bp, "bp[damping=0.5,tol=0.001,maxiter=1000,maxmem=536870912,errbudget=300000000]"},
		{inference.LoopyBP{}, "bp[damping=adaptive,tol=1e-09,maxiter=1000,maxmem=536870912,errbudget=300000000]"},
		{inference.JunctionTree{}, "exact[maxmem=536870912,budget=2s]"},
		{inference.ConditionedBP{Budget: 7}, "cbp[budget=7,damping=adaptive,tol=1e-09,maxiter=1000,maxmem=536870912,errbudget=300000000]"},
		{inference.Enumeration{}, "enumeration[maxstates=4194304]"},
		{inference.Auto{}, "auto[maxmem=536870912,budget=2s,approx=cbp[budget=scaled,damping=adaptive,tol=1e-09,maxiter=1000,maxmem=536870912,errbudget=300000000]]"},
	} {
		if got := tc.s.Identify(); got != tc.want {
			t.Errorf("%T: %s, want %s", tc.s, got, tc.want)
		}
	}
	zero, _ := inference.New(inference.NameJunctionTree, inference.Options{})
	explicit, _ := inference.New(inference.NameJunctionTree, inference.Options{MaxBytes: inference.DefaultMaxBytes, ExactBudget: inference.DefaultExactBudget})
	if zero.Identify() != explicit.Identify() {
		t.Errorf("defaults identify otherwise: %s, %s", zero.Identify(), explicit.Identify())
	}
	other, _ := inference.New(inference.NameLoopyBP, inference.Options{BP: inference.LoopyBP{Damping: inference.FixedDamping(0.5), Tolerance: 1e-4}})
	if other.Identify() == bp.Identify() {
		t.Error("another tolerance identifies alike")
	}
}
