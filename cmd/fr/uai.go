package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/uai"
)

func uaiCommand() *cli.Command {
	return &cli.Command{
		Name:  "uai",
		Usage: "work with graphical models in the UAI format",
		Subcommands: []*cli.Command{{
			Name:      "solve",
			Usage:     "compute the marginals of a UAI model (MARKOV or BAYES)",
			ArgsUsage: "MODEL.uai",
			Description: "Prints ln Z and every variable's marginal to stdout in merlin's UAI output format\n" +
				"(PR, STATUS and MAR blocks, 6 decimals); says on stderr how they were computed.\n\n" +
				"A result that is not exact also gets an ERRORS block: the number of variables, then how\n" +
				"far each one's marginal may be from the truth (a bound, or a statistical estimate from\n" +
				"a Gibbs sampler: the solver's line on stderr says which), rounded up to 6 decimals.\n" +
				"stderr lists the variables whose label (most probable state) is within that error." +
				examples(
					"# Exact marginals of a model.",
					"fr uai solve --algorithm exact model.uai",
					"# Marginals given evidence, into a file.",
					"fr uai solve --evidence model.evid -o model.MAR model.uai",
				),
			Flags: append([]cli.Flag{
				&cli.StringFlag{Name: "evidence", Category: catIO, Usage: "evidence file (merlin's \"N v1 x1 …\" or the older one-sample layout)"},
			}, append(outputFlags(), runsOf("solve").flags()...)...),
			Action: runUAISolve,
		}},
	}
}

func runUAISolve(c *cli.Context) (err error) {
	if err := flagsBeforeArgs(c); err != nil {
		return err
	}
	if c.NArg() != 1 {
		return usagef("uai solve: want exactly one MODEL file, got %d arguments (see fr uai solve --help)", c.NArg())
	}
	o, err := runsOf("solve").options(c)
	if err != nil {
		return err
	}
	solver, err := assemble.OpenSolver(o.Inference)
	if err != nil {
		return err
	}
	path, err := inputPath(c, c.Args().First())
	if err != nil {
		return err
	}
	net, err := uai.ReadFile(path)
	if err != nil {
		return err
	}
	m := net.Model
	if ev := c.String("evidence"); ev != "" {
		if ev, err = inputPath(c, ev); err != nil {
			return fmt.Errorf("--evidence: %w", err)
		}
		obs, err := uai.ReadEvidenceFile(ev)
		if err != nil {
			return err
		}
		if m, err = m.WithEvidence(obs); err != nil {
			return fmt.Errorf("%s: %w", ev, err)
		}
	}
	out, closeOut, err := openOutput(c, path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeOut(err)) }()
	start := time.Now()
	res, err := solver.Solve(c.Context, m)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(c.App.ErrWriter, "fr uai solve: %s: %s in %v\n", path, res.Report.Summary(), time.Since(start).Round(time.Microsecond))
	if res.Report.Uncertain > 0 {
		var vars []string
		for v := range res.Marginals {
			if res.Uncertain(v) {
				vars = append(vars, strconv.Itoa(v))
			}
		}
		fmt.Fprintf(c.App.ErrWriter, "fr uai solve: %d labels uncertain (the most probable state could change within the error bar): variables %s\n", len(vars), strings.Join(vars, " "))
	}
	if !res.Report.Converged {
		fmt.Fprintf(c.App.ErrWriter, "fr uai solve: warning: an iterative method did not converge, even after its fallbacks; the marginals are rough (raise --max-iterations)\n")
	}
	return uai.WriteMAR(out, res)
}
