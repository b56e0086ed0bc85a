package pipeline

import (
	"fmt"
	"slices"
	"time"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/merlin"
)

// InferenceOptions choose and tune the inference engine (OpenSolver);
// zero values take the engines' defaults.
type InferenceOptions struct {
	// Algorithm is the name of an entry of Algorithms; "" is auto.
	Algorithm string
	// The native solvers' settings (inference.Options): the memory bound,
	// exact inference's CPU budget, loopy BP's damping, tolerance and
	// sweeps, conditioning's budget, or none (NoClamping: auto then
	// approximates with plain loopy BP).
	MaxBytes      int64
	ExactBudget   time.Duration
	Damping       inference.Damping
	Tolerance     float64
	MaxIterations int
	ClampBudget   int64
	NoClamping    bool
	// ErrorBudget bounds the sampler that gives approximate marginals
	// their error bars (inference.Options.ErrorBudget; zero: the default,
	// inference.NoErrorEstimate: none).
	ErrorBudget int64
	// Merlin runs the merlin binary (the merlin algorithm).
	Merlin merlin.Solver
}

// Algorithm is an entry of the table of inference engines.
type Algorithm struct {
	Name        string // as InferenceOptions.Algorithm names it
	Description string
	// Settings are the InferenceOptions fields it reads; another one set
	// is a mistake a program can point out.
	Settings []string
	Open     func(InferenceOptions) (inference.Solver, error)
}

// Algorithms is the table of the inference engines: the native family
// (package inference) and merlin.
func Algorithms() []Algorithm {
	bp := []string{"MaxBytes", "Damping", "Tolerance", "MaxIterations", "ErrorBudget"}
	return []Algorithm{
		{Name: inference.NameAuto, Settings: append([]string{"ExactBudget", "ClampBudget", "NoClamping"}, bp...), Open: nativeSolver(inference.NameAuto),
			Description: "exact where the junction tree fits in the memory bound, conditioned loopy BP elsewhere"},
		{Name: inference.NameJunctionTree, Settings: []string{"MaxBytes", "ExactBudget"}, Open: nativeSolver(inference.NameJunctionTree),
			Description: "exact: a junction tree per component, cutset conditioning where it does not fit"},
		{Name: inference.NameLoopyBP, Settings: bp, Open: nativeSolver(inference.NameLoopyBP),
			Description: "loopy belief propagation"},
		{Name: inference.NameConditionedBP, Settings: append([]string{"ClampBudget"}, bp...), Open: nativeSolver(inference.NameConditionedBP),
			Description: "loopy BP conditioned on the variables that change its result most"},
		{Name: "merlin", Settings: []string{"Merlin"}, Open: func(o InferenceOptions) (inference.Solver, error) { return o.Merlin, nil },
			Description: "the merlin binary (an external program; weighted mini-buckets at i-bound 6 by default)"},
	}
}

// OpenSolver returns the solver that o describes.
func OpenSolver(o InferenceOptions) (inference.Solver, error) {
	name := o.Algorithm
	if name == "" {
		name = inference.NameAuto
	}
	table := Algorithms()
	i := slices.IndexFunc(table, func(a Algorithm) bool { return a.Name == name })
	if i < 0 {
		return nil, optionErr("Inference.Algorithm", fmt.Errorf("unknown algorithm %q (want %s)", name, oneOf(Names(table, func(a Algorithm) string { return a.Name }))))
	}
	return table[i].Open(o)
}

// nativeSolver opens a native solver by its inference.New name.
func nativeSolver(name string) func(InferenceOptions) (inference.Solver, error) {
	return func(o InferenceOptions) (inference.Solver, error) {
		if o.NoClamping && name == inference.NameConditionedBP {
			return nil, optionErr("Inference.NoClamping", fmt.Errorf("conditioned BP needs a clamp budget (%s is loopy BP without conditioning)", inference.NameLoopyBP))
		}
		opts := inference.Options{MaxBytes: o.MaxBytes, ExactBudget: o.ExactBudget, ClampBudget: o.ClampBudget, ErrorBudget: o.ErrorBudget,
			BP: inference.LoopyBP{Damping: o.Damping, Tolerance: o.Tolerance, MaxIterations: o.MaxIterations}}
		if o.NoClamping {
			opts.Approximate, opts.ClampBudget = inference.NameLoopyBP, 0
		}
		return inference.New(name, opts)
	}
}
