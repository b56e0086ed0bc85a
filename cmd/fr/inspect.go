package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/pipeline"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "show why each atom came out true or false",
		ArgsUsage: "INPUT",
		Description: "For each atom: its id, P(true), predicted and gold label, its text, and the\n" +
			"relations that move it (context id, title or first words, type, probability),\n" +
			"strongest first. --atom shows one atom, or one context with every relation it is an end of.\n" +
			"An output line of fr score is shown as it was scored (its version, relations and marginals).",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "version", Value: "2", Category: catRun, Usage: "FactReasoner graph version: 1, 2 or 3"},
			&cli.StringFlag{Name: "atom", Category: catShow, Usage: "show only this atom (or context)"},
			&cli.BoolFlag{Name: "contexts", Category: catShow, Usage: "after the atoms, explain every context too (FR3's context–context relations included)"},
			&cli.IntFlag{Name: "line", Category: catShow, Usage: "inspect only the record that starts on this input line"},
			&cli.StringFlag{Name: "dot", Category: catIO, Usage: "write the network as Graphviz DOT to this file (the last record inspected)"},
		}, pipelineFlags()...),
		Action: runInspect,
	}
}

func runInspect(c *cli.Context) error {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	version, err := versionArg(c)
	if err != nil {
		return err
	}
	p, err := openPipeline(c, input)
	if err != nil {
		return err
	}
	defer p.Close()
	only, line := c.String("atom"), c.Int("line")
	var last *pipeline.Assessment
	found := false
	w := bufio.NewWriter(c.App.Writer)
	defer w.Flush()
	err = instance.Scan(input, nil, func(in *instance.Instance) error {
		if line > 0 && in.Line != line {
			return nil
		}
		var a *pipeline.Assessment
		var err error
		if pipeline.IsRecorded(in) {
			a, err = pipeline.AssessmentOf(in) // an output line: as it was scored
		} else {
			a, err = p.Assess(c.Context, in, version)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", input, in.Line, err)
		}
		last = a
		ex := a.Explain(only)
		found = found || len(ex) > 0
		if only == "" && c.Bool("contexts") {
			ex = append(ex, a.ExplainContexts()...)
		}
		return pipeline.WriteExplanations(w, a, ex)
	})
	if err != nil {
		return err
	}
	switch {
	case line > 0 && last == nil:
		return fmt.Errorf("%s: no record starts on line %d", input, line)
	case only != "" && !found:
		return fmt.Errorf("%s: no atom %q, nor a context of that id", input, only)
	}
	if path := c.String("dot"); path != "" && last != nil {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := last.WriteDOT(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}
