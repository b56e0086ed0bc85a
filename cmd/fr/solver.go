package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/merlin"
)

// solverFlags are the flags that choose and tune the inference engine;
// newSolver turns them into a Solver.
func solverFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "solver", Value: "native", Usage: "inference engine: native, or merlin (an external binary)"},
		&cli.StringFlag{Name: "algorithm", Value: inference.NameAuto, Usage: "native solver: auto (exact where the junction tree fits in --max-memory, conditioned loopy BP elsewhere), exact (junction tree), bp (loopy BP) or cbp (conditioned loopy BP)"},
		&cli.Int64Flag{Name: "max-memory", Value: inference.DefaultMaxBytes >> 20, Usage: "memory bound in MiB: for the tables, messages and marginals of one component, checked before any is allocated, and for its junction tree (and each branch of cutset conditioning running at once)"},
		&cli.DurationFlag{Name: "exact-budget", Value: inference.DefaultExactBudget, Usage: "exact, auto: CPU time allowed for exact inference by cutset conditioning on a component whose junction tree does not fit, as estimated beforehand (auto spends it on the heaviest branches when all do not fit)"},
		&cli.StringFlag{Name: "damping", Value: inference.AdaptiveDamping().String(), Usage: "bp, cbp, auto: damping of the message updates: adaptive (none at first, raised when BP stalls), none, or a number in (0, 1)"},
		&cli.Float64Flag{Name: "tolerance", Value: inference.DefaultTolerance, Usage: "bp, cbp, auto: stop when no message changes by more than this"},
		&cli.IntFlag{Name: "max-iterations", Value: inference.DefaultMaxIterations, Usage: "bp, cbp, auto: at most this many sweeps per BP run"},
		&cli.StringFlag{Name: "clamp-budget", Value: strconv.FormatFloat(float64(inference.DefaultClampBudget)/1e6, 'g', -1, 64), Usage: "cbp, auto: work allowed for conditioning loopy BP on the variables that change its result most, in millions of message updates per component (about 0.15 s each on one core); none: auto approximates with plain loopy BP"},
		&cli.StringFlag{Name: "error-budget", Value: strconv.FormatFloat(float64(inference.DefaultErrorBudget)/1e6, 'g', -1, 64), Usage: "bp, cbp, auto: work allowed for the Gibbs sampler that gives each approximate marginal its error bar, in millions of factor lookups per component (updating a variable looks each of its factors up; about 4 ms per million on one core; auto may spend twice more where a label is within its bar); none: no error bars"},
		&cli.StringFlag{Name: "merlin-path", Usage: "merlin solver: the merlin binary (default: merlin on PATH)"},
		&cli.StringFlag{Name: "merlin-flags", Value: strings.Join(merlin.DefaultFlags(), " "), Usage: "merlin solver: options; each replaces the default of the same name"},
		&cli.DurationFlag{Name: "merlin-timeout", Usage: "merlin solver: time limit per run (0: none)"},
	}
}

// nativeFlags lists, for each native flag, the algorithms it applies to.
var nativeFlags = []struct {
	name string
	algs []string
}{
	{"max-memory", []string{inference.NameAuto, inference.NameJunctionTree, inference.NameLoopyBP, inference.NameConditionedBP}},
	{"exact-budget", []string{inference.NameAuto, inference.NameJunctionTree}},
	{"damping", []string{inference.NameAuto, inference.NameLoopyBP, inference.NameConditionedBP}},
	{"tolerance", []string{inference.NameAuto, inference.NameLoopyBP, inference.NameConditionedBP}},
	{"max-iterations", []string{inference.NameAuto, inference.NameLoopyBP, inference.NameConditionedBP}},
	{"clamp-budget", []string{inference.NameAuto, inference.NameConditionedBP}},
	{"error-budget", []string{inference.NameAuto, inference.NameLoopyBP, inference.NameConditionedBP}},
}

// newSolver returns the Solver the flags of solverFlags describe.
func newSolver(c *cli.Context) (inference.Solver, error) {
	switch name := c.String("solver"); name {
	case "native":
		for _, f := range []string{"merlin-path", "merlin-flags", "merlin-timeout"} {
			if c.IsSet(f) {
				return nil, fmt.Errorf("--%s applies to --solver merlin only", f)
			}
		}
		return newNativeSolver(c)
	case "merlin":
		if c.IsSet("algorithm") {
			return nil, fmt.Errorf("--algorithm applies to --solver native only (give merlin's options in --merlin-flags)")
		}
		for _, f := range nativeFlags {
			if c.IsSet(f.name) {
				return nil, fmt.Errorf("--%s applies to --solver native only (give merlin's options in --merlin-flags)", f.name)
			}
		}
		return merlin.Solver{
			Path:    c.String("merlin-path"),
			Flags:   strings.Fields(c.String("merlin-flags")),
			Timeout: c.Duration("merlin-timeout"),
		}, nil
	default:
		return nil, fmt.Errorf("--solver: unknown solver %q (want native or merlin)", name)
	}
}

// newNativeSolver maps the native flags to the options of inference.New.
func newNativeSolver(c *cli.Context) (inference.Solver, error) {
	alg := c.String("algorithm")
	switch alg {
	case inference.NameAuto, inference.NameJunctionTree, inference.NameLoopyBP, inference.NameConditionedBP:
	default:
		return nil, fmt.Errorf("--algorithm: unknown algorithm %q (want auto, exact, bp or cbp)", alg)
	}
	for _, f := range nativeFlags {
		if c.IsSet(f.name) && !slices.Contains(f.algs, alg) {
			return nil, fmt.Errorf("--%s does not apply to --algorithm %s (only to %s)", f.name, alg, strings.Join(f.algs, ", "))
		}
	}
	var o inference.Options
	switch mib := c.Int64("max-memory"); {
	case mib <= 0:
		return nil, fmt.Errorf("--max-memory: %d MiB is not positive", mib)
	case mib > math.MaxInt64>>20:
		return nil, fmt.Errorf("--max-memory: %d MiB is too large", mib)
	default:
		o.MaxBytes = mib << 20
	}
	if o.ExactBudget = c.Duration("exact-budget"); o.ExactBudget <= 0 {
		return nil, fmt.Errorf("--exact-budget: %v is not positive", o.ExactBudget)
	}
	d, err := inference.ParseDamping(c.String("damping"))
	if err != nil {
		return nil, fmt.Errorf("--damping: %w", err)
	}
	o.BP.Damping = d
	if o.BP.Tolerance = c.Float64("tolerance"); !(o.BP.Tolerance > 0) {
		return nil, fmt.Errorf("--tolerance: %v is not positive", o.BP.Tolerance)
	}
	if o.BP.MaxIterations = c.Int("max-iterations"); o.BP.MaxIterations <= 0 {
		return nil, fmt.Errorf("--max-iterations: %d is not positive", o.BP.MaxIterations)
	}
	budget, off, err := inference.ParseClampBudget(c.String("clamp-budget"))
	switch {
	case err != nil:
		return nil, fmt.Errorf("--clamp-budget: %w", err)
	case off && alg == inference.NameConditionedBP:
		return nil, fmt.Errorf("--clamp-budget none: conditioned BP needs a budget (--algorithm bp is loopy BP without conditioning)")
	case off:
		o.Approximate = inference.NameLoopyBP
	default:
		o.ClampBudget = budget
	}
	if o.ErrorBudget, err = inference.ParseErrorBudget(c.String("error-budget")); err != nil {
		return nil, fmt.Errorf("--error-budget: %w", err)
	}
	return inference.New(alg, o)
}
