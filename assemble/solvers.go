package assemble

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/merlin"
)

// InferenceOptions choose and tune the inference engine (OpenSolver);
// zero values take the engines' defaults.
type InferenceOptions struct {
	// Engine is the engine of the algorithm: "native" (or "", package
	// inference) or "merlin"; Algorithm names an entry of Algorithms of
	// that engine ("" is the engine's first: auto, merlin).
	Engine    string
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
	Engine      string // as InferenceOptions.Engine names it
	Description string
	// Settings are the InferenceOptions it reads (Setting): their values
	// enter the solver's identity, and another one given is a mistake a
	// program can point out (Given.Options).
	Settings []Setting
	Open     func(InferenceOptions) (inference.Solver, error)
}

// The settings of the native algorithms.
var (
	maxMemory = Setting{Path: "Inference.MaxBytes", Kind: Int, Default: strconv.FormatInt(inference.DefaultMaxBytes>>20, 10), Identifies: true, Group: GroupInference,
		Usage: "memory bound of the inference on one component, in MiB",
		Details: "Bounds the tables, messages and marginals of one component, checked before any is allocated, and its junction tree " +
			"(and each branch of cutset conditioning running at once).",
		Set: mib(func(o *Options) *int64 { return &o.Inference.MaxBytes })}
	exactBudget = Setting{Path: "Inference.ExactBudget", Kind: Duration, Default: inference.DefaultExactBudget.String(), Identifies: true, Group: GroupInference,
		Usage: "exact, auto: CPU time for cutset conditioning where a junction tree does not fit",
		Details: "CPU time allowed for exact inference by cutset conditioning on a component whose junction tree does not fit, " +
			"as estimated beforehand; auto spends it on the heaviest branches when all do not fit.",
		Set: positive(func(o *Options) *time.Duration { return &o.Inference.ExactBudget }, time.ParseDuration)}
	bpSettings = []Setting{maxMemory,
		{Path: "Inference.Damping", Default: inference.AdaptiveDamping().String(), Identifies: true, Group: GroupInference,
			Usage: "bp, cbp, auto: damping of the message updates: adaptive, none, or a number in (0, 1)", Details: "adaptive: none at first, raised when BP stalls.",
			Set: func(o *Options, text string) (err error) {
				o.Inference.Damping, err = inference.ParseDamping(text)
				return err
			}},
		{Path: "Inference.Tolerance", Kind: Float, Default: strconv.FormatFloat(inference.DefaultTolerance, 'g', -1, 64), Identifies: true, Group: GroupInference,
			Usage: "bp, cbp, auto: stop when no message changes by more than this",
			Set:   positive(func(o *Options) *float64 { return &o.Inference.Tolerance }, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })},
		{Path: "Inference.MaxIterations", Kind: Int, Default: strconv.Itoa(inference.DefaultMaxIterations), Identifies: true, Group: GroupInference,
			Usage: "bp, cbp, auto: at most this many sweeps per BP run",
			Set:   positive(func(o *Options) *int { return &o.Inference.MaxIterations }, strconv.Atoi)},
		{Path: "Inference.ErrorBudget", Default: strconv.FormatFloat(float64(inference.DefaultErrorBudget)/1e6, 'g', -1, 64), Identifies: true, Group: GroupInference,
			Usage: "bp, cbp, auto: millions of factor lookups per component for the error bars' sampler, or none",
			Details: "Work allowed for the Gibbs sampler that gives approximate marginals their error bars (the error of each marginal " +
				"in the output), in millions of factor lookups per component; none: no error bars. Where the budget cannot pay for the " +
				"sampler's least run, every error is unknown (a bar of 1).",
			Set: func(o *Options, text string) (err error) {
				o.Inference.ErrorBudget, err = inference.ParseErrorBudget(text)
				return err
			}},
	}
	clampBudget = Setting{Path: "Inference.ClampBudget", Default: strconv.FormatFloat(float64(inference.DefaultClampBudget)/1e6, 'g', -1, 64), Identifies: true, Group: GroupInference,
		Usage: "cbp, auto: millions of message updates per component for conditioning loopy BP, or none",
		Details: "Work allowed for conditioning loopy BP on the variables that change its result most, in millions of message " +
			"updates per component (about 0.15 s each on one core); none: auto approximates with plain loopy BP.",
		Set: func(o *Options, text string) (err error) {
			o.Inference.ClampBudget, o.Inference.NoClamping, err = inference.ParseClampBudget(text)
			return err
		}}
)

// Algorithms is the table of the inference engines: the native family
// (package inference) and merlin.
func Algorithms() []Algorithm {
	return []Algorithm{
		{Name: inference.NameAuto, Engine: inferenceNative, Settings: append([]Setting{exactBudget, clampBudget}, bpSettings...), Open: nativeSolver(inference.NameAuto),
			Description: "exact where the junction tree fits in the memory bound, conditioned loopy BP elsewhere"},
		{Name: inference.NameJunctionTree, Engine: inferenceNative, Settings: []Setting{maxMemory, exactBudget}, Open: nativeSolver(inference.NameJunctionTree),
			Description: "exact: a junction tree per component, cutset conditioning where it does not fit"},
		{Name: inference.NameLoopyBP, Engine: inferenceNative, Settings: bpSettings, Open: nativeSolver(inference.NameLoopyBP),
			Description: "loopy belief propagation"},
		{Name: inference.NameConditionedBP, Engine: inferenceNative, Settings: append([]Setting{clampBudget}, bpSettings...), Open: nativeSolver(inference.NameConditionedBP),
			Description: "loopy BP conditioned on the variables that change its result most"},
		{Name: "merlin", Engine: "merlin", Open: func(o InferenceOptions) (inference.Solver, error) { return o.Merlin, nil },
			Description: "the merlin binary (an external program; weighted mini-buckets at i-bound 6 by default)",
			Settings: []Setting{
				{Path: "Inference.Merlin.Path", Group: GroupInference, Usage: "merlin solver: the merlin binary (default: merlin on PATH)"},
				{Path: "Inference.Merlin.Flags", Default: strings.Join(merlin.DefaultFlags(), " "), Identifies: true, Group: GroupInference,
					Usage: "merlin solver: options; each replaces the default of the same name",
					Set: func(o *Options, text string) error {
						o.Inference.Merlin.Flags = strings.Fields(text)
						return nil
					}},
				{Path: "Inference.Merlin.Timeout", Kind: Duration, Group: GroupInference, Usage: "merlin solver: time limit per run (0: none)"},
			}},
	}
}

// OpenSolver returns the solver that o describes.
func OpenSolver(o InferenceOptions) (inference.Solver, error) {
	a, err := algorithmOf(o)
	if err != nil {
		return nil, err
	}
	return a.Open(o)
}

// algorithmOf is the entry of Algorithms that o chooses.
func algorithmOf(o InferenceOptions) (Algorithm, error) {
	table := Algorithms()
	engine := o.engine()
	var engines, names []string
	for _, a := range table {
		if !slices.Contains(engines, a.Engine) {
			engines = append(engines, a.Engine)
		}
		if a.Engine == engine {
			names = append(names, a.Name)
		}
	}
	if len(names) == 0 {
		return Algorithm{}, optionErr("Inference.Engine", fmt.Errorf("unknown solver %q (want %s)", engine, oneOf(engines)))
	}
	name := o.algorithm()
	i := slices.IndexFunc(table, func(a Algorithm) bool { return a.Name == name && a.Engine == engine })
	if i < 0 {
		return Algorithm{}, optionErr("Inference.Algorithm", fmt.Errorf("unknown algorithm %q (want %s)", name, oneOf(names)))
	}
	return table[i], nil
}

// nativeSolver opens a native solver by its inference.New name.
func nativeSolver(name string) func(InferenceOptions) (inference.Solver, error) {
	return func(o InferenceOptions) (inference.Solver, error) {
		if o.NoClamping && name == inference.NameConditionedBP {
			return nil, optionErr("Inference.ClampBudget", fmt.Errorf("none: conditioned BP needs a clamp budget (%s is loopy BP without conditioning)", inference.NameLoopyBP))
		}
		opts := inference.Options{MaxBytes: o.MaxBytes, ExactBudget: o.ExactBudget, ClampBudget: o.ClampBudget, ErrorBudget: o.ErrorBudget,
			BP: inference.LoopyBP{Damping: o.Damping, Tolerance: o.Tolerance, MaxIterations: o.MaxIterations}}
		if o.NoClamping {
			opts.Approximate, opts.ClampBudget = inference.NameLoopyBP, 0
		}
		return inference.New(name, opts)
	}
}
