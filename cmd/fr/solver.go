package main

import (
	"fmt"
	"math"
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
		&cli.StringFlag{Name: "algorithm", Value: inference.AlgorithmAuto, Usage: "native solver: auto (exact where the junction tree fits in --max-memory, loopy BP elsewhere), exact, or bp"},
		&cli.Int64Flag{Name: "max-memory", Value: inference.DefaultMaxBytes >> 20, Usage: "native solver: memory bound in MiB for the junction tree of one component"},
		&cli.Float64Flag{Name: "damping", Usage: "loopy BP: damping in (0, 1); 0 adapts it (none at first, raised when BP stalls); negative disables it"},
		&cli.Float64Flag{Name: "tolerance", Value: inference.DefaultTolerance, Usage: "loopy BP: stop when no message changes by more than this"},
		&cli.IntFlag{Name: "max-iterations", Value: inference.DefaultMaxIterations, Usage: "loopy BP: at most this many sweeps per run"},
		&cli.Float64Flag{Name: "clamp-budget", Value: float64(inference.DefaultClampBudget) / 1e6, Usage: "loopy BP: work allowed for conditioning on the variables that change its result most, in millions of message updates per component (about 0.15 s each on one core); 0 for plain loopy BP"},
		&cli.StringFlag{Name: "merlin-path", Usage: "merlin solver: the merlin binary (default: merlin on PATH)"},
		&cli.StringFlag{Name: "merlin-flags", Value: strings.Join(merlin.DefaultFlags(), " "), Usage: "merlin solver: options; each replaces the default of the same name"},
		&cli.DurationFlag{Name: "merlin-timeout", Usage: "merlin solver: time limit per run (0: none)"},
	}
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
		switch a := c.String("algorithm"); a {
		case inference.AlgorithmAuto, inference.AlgorithmExact, inference.AlgorithmBP:
		default:
			return nil, fmt.Errorf("--algorithm: unknown algorithm %q (want auto, exact or bp)", a)
		}
		if c.Int64("max-memory") <= 0 {
			return nil, fmt.Errorf("--max-memory: %d MiB is not positive", c.Int64("max-memory"))
		}
		if d := c.Float64("damping"); d >= 1 {
			return nil, fmt.Errorf("--damping: %v is not below 1", d)
		}
		if c.Float64("tolerance") <= 0 || c.Int("max-iterations") <= 0 {
			return nil, fmt.Errorf("--tolerance and --max-iterations must be positive")
		}
		cb := c.Float64("clamp-budget")
		if !(cb >= 0) {
			return nil, fmt.Errorf("--clamp-budget: %v is negative (0 turns conditioning off)", cb)
		}
		budget := int64(-1) // Native's value for "off"
		if cb > 0 {
			budget = max(1, int64(math.Round(cb*1e6)))
		}
		return inference.Native{
			Algorithm:     c.String("algorithm"),
			MaxBytes:      c.Int64("max-memory") << 20,
			Damping:       c.Float64("damping"),
			Tolerance:     c.Float64("tolerance"),
			MaxIterations: c.Int("max-iterations"),
			ClampBudget:   budget,
		}, nil
	case "merlin":
		for _, f := range []string{"algorithm", "max-memory", "damping", "tolerance", "max-iterations", "clamp-budget"} {
			if c.IsSet(f) {
				return nil, fmt.Errorf("--%s applies to --solver native only (give merlin's options in --merlin-flags)", f)
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

// describeReport says in one line what a solver did.
func describeReport(r inference.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Solver, r.Method)
	var details []string
	if r.Width > 0 || r.Method == "exact" || r.Method == "exact+bp" {
		details = append(details, fmt.Sprintf("width %d", r.Width))
	}
	if r.BPComponents > 0 {
		conv := "converged"
		if !r.Converged {
			conv = "NOT converged"
		}
		if r.Runs > 1 {
			details = append(details, fmt.Sprintf("%d variables clamped, %d branches, %d runs", r.Clamped, r.Branches, r.Runs))
		}
		details = append(details, fmt.Sprintf("%d sweeps, %s, residual %.2g, damping %g", r.Iterations, conv, r.Residual, r.Damping))
	}
	if r.Components > 1 {
		details = append(details, fmt.Sprintf("%d components, %d by bp", r.Components, r.BPComponents))
	}
	if len(details) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(details, "; "))
	}
	return b.String()
}
