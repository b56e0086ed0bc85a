package inference

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestNew(t *testing.T) {
	bp := LoopyBP{Damping: FixedDamping(0.5), Tolerance: 1e-6, MaxIterations: 50, MaxBytes: 1 << 20}
	o := Options{MaxBytes: 1 << 20, BP: bp, ClampBudget: 5000}
	o.BP.MaxBytes = 0 // Options.MaxBytes applies
	cases := []struct {
		name string
		o    Options
		want Solver
	}{
		{"auto", o, Auto{Exact: JunctionTree{MaxBytes: 1 << 20}, Approximate: ConditionedBP{BP: bp, Budget: 5000}}},
		{"auto", Options{Approximate: "bp", BP: bp}, Auto{Approximate: bp}},
		{"bp", Options{MaxBytes: 1 << 30, BP: bp}, bp},
		{"exact", o, JunctionTree{MaxBytes: 1 << 20}},
		{"bp", o, bp},
		{"cbp", o, ConditionedBP{BP: bp, Budget: 5000}},
		{"cbp", Options{}, ConditionedBP{}},
	}
	for _, c := range cases {
		got, err := New(c.name, c.o)
		if err != nil {
			t.Errorf("New(%q): %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("New(%q, %+v) = %#v, want %#v", c.name, c.o, got, c.want)
		}
	}
	for _, c := range []struct {
		name string
		o    Options
		err  string
	}{
		{"magic", Options{}, `unknown solver "magic"`},
		{"auto", Options{Approximate: "gibbs"}, `auto cannot approximate with "gibbs"`},
		{"bp", Options{BP: LoopyBP{Damping: FixedDamping(1)}}, "damping 1 is not in (0, 1)"},
		{"bp", Options{BP: LoopyBP{MaxIterations: -1}}, "-1 iterations"},
		{"exact", Options{MaxBytes: -1}, "negative"},
		{"cbp", Options{ClampBudget: -1}, "clamp budget -1 is negative"},
	} {
		if _, err := New(c.name, c.o); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("New(%q, %+v): err = %v, want %q", c.name, c.o, err, c.err)
		}
	}
}

func TestParseDamping(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Damping
	}{
		{"adaptive", AdaptiveDamping()},
		{"none", NoDamping()},
		{"0.5", FixedDamping(0.5)},
		{" 0.95 ", FixedDamping(0.95)},
	} {
		got, err := ParseDamping(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDamping(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if back, err := ParseDamping(got.String()); err != nil || back != got {
			t.Errorf("%v does not round-trip: %v, %v", got, back, err)
		}
	}
	if (Damping{}) != AdaptiveDamping() {
		t.Error("the zero Damping is not adaptive")
	}
	for _, in := range []string{"", "0", "1", "-0.5", "1.5", "NaN", "fast"} {
		if d, err := ParseDamping(in); err == nil {
			t.Errorf("ParseDamping(%q) = %v, want an error", in, d)
		}
	}
}

func TestParseClampBudget(t *testing.T) {
	for _, c := range []struct {
		in     string
		budget int64
		off    bool
	}{
		{"none", 0, true},
		{" none ", 0, true},
		{"150", 150_000_000, false},
		{"0.5", 500_000, false},
		{"1e-9", 1, false}, // at least one update
		{"1e12", 1e18, false},
	} {
		budget, off, err := ParseClampBudget(c.in)
		if err != nil || budget != c.budget || off != c.off {
			t.Errorf("ParseClampBudget(%q) = %d, %v, %v; want %d, %v", c.in, budget, off, err, c.budget, c.off)
		}
	}
	for _, in := range []string{"", "0", "-1", "NaN", "Inf", "1.1e12", "off"} {
		if b, off, err := ParseClampBudget(in); err == nil {
			t.Errorf("ParseClampBudget(%q) = %d, %v; want an error", in, b, off)
		}
	}
}

// TestAutoWithAnySolver: auto hands a component that does not fit to any
// Solver (here enumeration) and still assembles an exact result.
func TestAutoWithAnySolver(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	m := frModel(rng, 9, 0.8)
	r := checkAgainstEnumeration(t, "auto with enumeration", Auto{Exact: JunctionTree{MaxBytes: 8 * 8, Budget: time.Nanosecond}, Approximate: Enumeration{}}, m, 1e-9)
	if p := r.Report.Parts; r.Report.Method != MethodEnumeration || len(p) != 1 || p[0].Method != MethodEnumeration || !p[0].Exact {
		t.Errorf("report %+v, want the component handed to the approximate solver", r.Report)
	}
}
