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
	"github.com/factreasoner/factreasoner-go/pipeline"
)

// solverFlags are the flags that choose and tune the inference engine;
// newSolver turns them into a Solver.
func solverFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "solver", Value: "native", Category: catInference, Usage: "inference engine: native, or merlin (an external binary)"},
		&cli.StringFlag{Name: "algorithm", Value: inference.NameAuto, Category: catInference, Usage: "native solver: " + tableNames(nativeAlgorithms(), func(a pipeline.Algorithm) string { return a.Name })},
		&cli.Int64Flag{Name: "max-memory", Value: inference.DefaultMaxBytes >> 20, Category: catInference, Usage: "memory bound of the inference on one component, in MiB"},
		&cli.DurationFlag{Name: "exact-budget", Value: inference.DefaultExactBudget, Category: catInference, Usage: "exact, auto: CPU time for cutset conditioning where a junction tree does not fit"},
		&cli.StringFlag{Name: "damping", Value: inference.AdaptiveDamping().String(), Category: catInference, Usage: "bp, cbp, auto: damping of the message updates: adaptive, none, or a number in (0, 1)"},
		&cli.Float64Flag{Name: "tolerance", Value: inference.DefaultTolerance, Category: catInference, Usage: "bp, cbp, auto: stop when no message changes by more than this"},
		&cli.IntFlag{Name: "max-iterations", Value: inference.DefaultMaxIterations, Category: catInference, Usage: "bp, cbp, auto: at most this many sweeps per BP run"},
		&cli.StringFlag{Name: "clamp-budget", Value: strconv.FormatFloat(float64(inference.DefaultClampBudget)/1e6, 'g', -1, 64), Category: catInference, Usage: "cbp, auto: millions of message updates per component for conditioning loopy BP, or none"},
		&cli.StringFlag{Name: "error-budget", Value: strconv.FormatFloat(float64(inference.DefaultErrorBudget)/1e6, 'g', -1, 64), Category: catInference, Usage: "bp, cbp, auto: millions of factor lookups per component for the error bars' sampler, or none"},
		&cli.StringFlag{Name: "merlin-path", Category: catInference, Usage: "merlin solver: the merlin binary (default: merlin on PATH)"},
		&cli.StringFlag{Name: "merlin-flags", Value: strings.Join(merlin.DefaultFlags(), " "), Category: catInference, Usage: "merlin solver: options; each replaces the default of the same name"},
		&cli.DurationFlag{Name: "merlin-timeout", Category: catInference, Usage: "merlin solver: time limit per run (0: none)"},
	}
}

// settingFlags are the flags that set each field of
// pipeline.InferenceOptions; an algorithm's Settings say which apply.
var settingFlags = []struct {
	setting string
	flags   []string
}{
	{"MaxBytes", []string{"max-memory"}},
	{"ExactBudget", []string{"exact-budget"}},
	{"Damping", []string{"damping"}},
	{"Tolerance", []string{"tolerance"}},
	{"MaxIterations", []string{"max-iterations"}},
	{"ClampBudget", []string{"clamp-budget"}},
	{"ErrorBudget", []string{"error-budget"}},
	{"Merlin", []string{"merlin-path", "merlin-flags", "merlin-timeout"}},
}

// nativeAlgorithms are the entries of pipeline.Algorithms that --solver
// native runs (all but merlin, which --solver merlin names).
func nativeAlgorithms() []pipeline.Algorithm {
	var out []pipeline.Algorithm
	for _, a := range pipeline.Algorithms() {
		if a.Name != "merlin" {
			out = append(out, a)
		}
	}
	return out
}

// newSolver returns the Solver the flags of solverFlags describe: the
// entry of pipeline.Algorithms that --solver and --algorithm name (merlin,
// or a native algorithm), with the settings of its flags. A flag of a
// setting the algorithm does not read is a mistake, said so.
func newSolver(c *cli.Context) (inference.Solver, error) {
	algorithms := pipeline.Names(nativeAlgorithms(), func(a pipeline.Algorithm) string { return a.Name })
	o := pipeline.InferenceOptions{Algorithm: c.String("algorithm")}
	switch name := c.String("solver"); name {
	case "native":
		if !slices.Contains(algorithms, o.Algorithm) {
			return nil, fmt.Errorf("--algorithm: unknown algorithm %q (want %s)", o.Algorithm, oneOf(algorithms))
		}
	case "merlin":
		if c.IsSet("algorithm") {
			return nil, fmt.Errorf("--algorithm applies to --solver native only (give merlin's options in --merlin-flags)")
		}
		o.Algorithm = "merlin"
	default:
		return nil, fmt.Errorf("--solver: unknown solver %q (want native or merlin)", name)
	}
	for _, sf := range settingFlags {
		var readers []string // the algorithms that read the setting
		for _, a := range pipeline.Algorithms() {
			if slices.Contains(a.Settings, sf.setting) {
				readers = append(readers, a.Name)
			}
		}
		if slices.Contains(readers, o.Algorithm) {
			continue
		}
		for _, f := range sf.flags {
			switch {
			case !c.IsSet(f):
			case o.Algorithm == "merlin":
				return nil, fmt.Errorf("--%s applies to --solver native only (give merlin's options in --merlin-flags)", f)
			case slices.Equal(readers, []string{"merlin"}):
				return nil, fmt.Errorf("--%s applies to --solver merlin only", f)
			default:
				return nil, fmt.Errorf("--%s does not apply to --algorithm %s (only to %s)", f, o.Algorithm, strings.Join(readers, ", "))
			}
		}
	}
	if o.Algorithm == "merlin" {
		o.Merlin = merlin.Solver{Path: c.String("merlin-path"), Flags: strings.Fields(c.String("merlin-flags")), Timeout: c.Duration("merlin-timeout")}
		return pipeline.OpenSolver(o)
	}
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
	o.Damping = d
	if o.Tolerance = c.Float64("tolerance"); !(o.Tolerance > 0) {
		return nil, fmt.Errorf("--tolerance: %v is not positive", o.Tolerance)
	}
	if o.MaxIterations = c.Int("max-iterations"); o.MaxIterations <= 0 {
		return nil, fmt.Errorf("--max-iterations: %d is not positive", o.MaxIterations)
	}
	budget, off, err := inference.ParseClampBudget(c.String("clamp-budget"))
	switch {
	case err != nil:
		return nil, fmt.Errorf("--clamp-budget: %w", err)
	case off && o.Algorithm == inference.NameConditionedBP:
		return nil, fmt.Errorf("--clamp-budget none: conditioned BP needs a budget (--algorithm bp is loopy BP without conditioning)")
	}
	o.ClampBudget, o.NoClamping = budget, off
	if o.ErrorBudget, err = inference.ParseErrorBudget(c.String("error-budget")); err != nil {
		return nil, fmt.Errorf("--error-budget: %w", err)
	}
	return pipeline.OpenSolver(o)
}

// oneOf writes names as "a, b or c".
func oneOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
