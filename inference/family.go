package inference

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The native solvers form a family, as in libDAI: one type per algorithm,
// each with its own typed options whose zero values are the defaults, and
// New to build one by name (for command lines and configuration files).
//
//	JunctionTree   exact: a junction tree per connected component
//	LoopyBP        loopy belief propagation
//	ConditionedBP  loopy BP conditioned on the variables that matter most
//	Auto           exact where the junction tree fits, approximate elsewhere
//
// Every one splits the model into connected components first. The merlin
// package provides an external solver behind the same Solver interface.

// Names of the native solvers, as New takes them.
const (
	NameAuto          = "auto"
	NameJunctionTree  = "exact"
	NameLoopyBP       = "bp"
	NameConditionedBP = "cbp"
)

// Options collects the options of every native solver, for New; each
// solver reads those that apply to it (zero values take the defaults).
type Options struct {
	// MaxBytes is JunctionTree.MaxBytes, for exact and auto, and
	// LoopyBP.MaxBytes (for bp, cbp and auto's BP) unless BP sets one.
	MaxBytes int64
	// ExactBudget is JunctionTree.Budget, for exact and auto.
	ExactBudget time.Duration
	// BP holds loopy BP's options, for bp, cbp and auto.
	BP LoopyBP
	// ClampBudget is ConditionedBP.Budget, for cbp and auto.
	ClampBudget int64
	// Approximate names the method auto uses where the junction tree does
	// not fit: cbp (the default, also "") or bp.
	Approximate string
	// ErrorBudget is LoopyBP.ErrorBudget, for bp, cbp and auto, unless BP
	// sets one.
	ErrorBudget int64
}

// New returns the native solver called name (NameAuto, NameJunctionTree,
// NameLoopyBP or NameConditionedBP) with the options that apply to it. It
// rejects unknown names and invalid options.
func New(name string, o Options) (Solver, error) {
	if o.MaxBytes < 0 {
		return nil, fmt.Errorf("inference: memory bound %d bytes is negative", o.MaxBytes)
	}
	if o.BP.MaxBytes == 0 {
		o.BP.MaxBytes = o.MaxBytes
	}
	if o.BP.ErrorBudget == 0 {
		o.BP.ErrorBudget = o.ErrorBudget
	}
	if err := o.BP.validate(); err != nil {
		return nil, err
	}
	if o.ExactBudget < 0 {
		return nil, fmt.Errorf("inference: exact budget %v is negative", o.ExactBudget)
	}
	if o.ClampBudget < 0 {
		return nil, fmt.Errorf("inference: clamp budget %d is negative", o.ClampBudget)
	}
	cbp := ConditionedBP{BP: o.BP, Budget: o.ClampBudget}
	switch name {
	case NameAuto:
		a := Auto{Exact: JunctionTree{MaxBytes: o.MaxBytes, Budget: o.ExactBudget}}
		switch o.Approximate {
		case "", NameConditionedBP:
			a.Approximate = cbp
		case NameLoopyBP:
			a.Approximate = o.BP
		default:
			return nil, fmt.Errorf("inference: auto cannot approximate with %q (want %s or %s)", o.Approximate, NameConditionedBP, NameLoopyBP)
		}
		return a, nil
	case NameJunctionTree:
		return JunctionTree{MaxBytes: o.MaxBytes, Budget: o.ExactBudget}, nil
	case NameLoopyBP:
		return o.BP, nil
	case NameConditionedBP:
		return cbp, nil
	}
	return nil, fmt.Errorf("inference: unknown solver %q (want %s, %s, %s or %s)", name, NameAuto, NameJunctionTree, NameLoopyBP, NameConditionedBP)
}

// ParseClampBudget reads a clamp budget (Options.ClampBudget) as command
// lines give it, in millions of message updates ("0.5" is 500,000), or
// "none": no conditioning, off is then true (auto then approximates with
// plain loopy BP: Options.Approximate NameLoopyBP). A budget is positive,
// at most 1e12 millions, and at least one update.
func ParseClampBudget(s string) (budget int64, off bool, err error) {
	return parseMillions(s, "message updates")
}

// ParseErrorBudget reads an error budget (Options.ErrorBudget) as command
// lines give it, in millions of factor lookups (LoopyBP.ErrorBudget), or
// "none", which turns the error bars off (NoErrorEstimate).
func ParseErrorBudget(s string) (int64, error) {
	budget, off, err := parseMillions(s, "factor lookups")
	if off {
		return NoErrorEstimate, nil
	}
	return budget, err
}

// parseMillions reads a positive number of millions of what (at most
// 1e12 millions, at least one), or "none" (off).
func parseMillions(s, what string) (n int64, off bool, err error) {
	s = strings.TrimSpace(s)
	if s == "none" {
		return 0, true, nil
	}
	m, err := strconv.ParseFloat(s, 64)
	if err != nil || !(m > 0) || m > 1e12 {
		return 0, false, fmt.Errorf("%q is not a positive number of millions of %s, or none", s, what)
	}
	return max(1, int64(math.Round(m*1e6))), false, nil
}

// Damping says how loopy BP mixes the previous message into each update:
// m = d·old + (1−d)·new. The zero value is adaptive damping.
type Damping struct {
	kind  dampingKind
	value float64
}

type dampingKind uint8

const (
	dampingAdaptive dampingKind = iota
	dampingNone
	dampingFixed
)

// AdaptiveDamping starts without damping (fastest when BP converges at
// all) and moves the damping halfway to 1 (0.5, 0.75, … at most 0.95)
// whenever the residual has not reached a new low for a while.
func AdaptiveDamping() Damping { return Damping{} }

// NoDamping uses each new message as it is.
func NoDamping() Damping { return Damping{kind: dampingNone} }

// FixedDamping uses d, in (0, 1), in every update.
func FixedDamping(d float64) Damping { return Damping{kind: dampingFixed, value: d} }

// ParseDamping reads "adaptive", "none" or a number in (0, 1).
func ParseDamping(s string) (Damping, error) {
	switch strings.TrimSpace(s) {
	case "adaptive":
		return AdaptiveDamping(), nil
	case "none":
		return NoDamping(), nil
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return Damping{}, fmt.Errorf("damping %q: want adaptive, none or a number in (0, 1)", s)
	}
	dd := FixedDamping(d)
	if err := dd.validate(); err != nil {
		return Damping{}, err
	}
	return dd, nil
}

// String returns the form ParseDamping reads.
func (d Damping) String() string {
	switch d.kind {
	case dampingNone:
		return "none"
	case dampingFixed:
		return strconv.FormatFloat(d.value, 'g', -1, 64)
	}
	return "adaptive"
}

func (d Damping) validate() error {
	if d.kind == dampingFixed && !(d.value > 0 && d.value < 1) {
		return fmt.Errorf("damping %v is not in (0, 1) (use none for no damping)", d.value)
	}
	return nil
}

// start returns the damping of the first sweep and whether it adapts.
func (d Damping) start() (float64, bool) {
	switch d.kind {
	case dampingNone:
		return 0, false
	case dampingFixed:
		return d.value, false
	}
	return 0, true
}

// validate checks the options of loopy BP.
func (b LoopyBP) validate() error {
	if err := b.Damping.validate(); err != nil {
		return fmt.Errorf("loopy BP: %w", err)
	}
	if b.Tolerance < 0 || math.IsNaN(b.Tolerance) {
		return fmt.Errorf("loopy BP: tolerance %v is negative", b.Tolerance)
	}
	if b.MaxIterations < 0 {
		return fmt.Errorf("loopy BP: %d iterations is negative", b.MaxIterations)
	}
	if b.MaxBytes < 0 {
		return fmt.Errorf("loopy BP: memory bound %d bytes is negative", b.MaxBytes)
	}
	if b.ErrorBudget < 0 && b.ErrorBudget != NoErrorEstimate {
		return fmt.Errorf("loopy BP: error budget %d is negative (NoErrorEstimate turns the error bars off)", b.ErrorBudget)
	}
	return nil
}
