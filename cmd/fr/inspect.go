package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/printable"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "show why each atom came out true or false",
		ArgsUsage: "INPUT",
		Description: "For each atom: its id, P(true), predicted and gold label, its text, and the\n" +
			"relations that move it (context id, title or first words, type, probability),\n" +
			"strongest first. --atom shows one atom, or one context with every relation it is an end of.\n" +
			"An output line of fr score is shown as it was scored (its version, relations and marginals)." +
			examples(
				"# Why each atom of the shipped example's first record came out true or false.",
				"fr inspect --line 1 testdata/example.jsonl",
				"# One atom of a scored output, and that record's network as Graphviz DOT.",
				"fr inspect --line 1 --atom a10 --dot net.dot out.jsonl",
			),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "version", Value: "2", Category: catRun, Usage: "FactReasoner graph version: 1, 2 or 3"},
			&cli.StringFlag{Name: "atom", Category: catShow, Usage: "show only this atom (or context)"},
			&cli.BoolFlag{Name: "contexts", Category: catShow, Usage: "after the atoms, explain every context too (FR3's context–context relations included)"},
			&cli.IntFlag{Name: "line", Category: catShow, Usage: "inspect only the record that starts on this input line"},
			&cli.StringFlag{Name: "dot", Category: catIO, Usage: "write the network of the last record inspected as Graphviz DOT to this `FILE`"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Category: catIO, Usage: "output `FILE` (default stdout); an existing FILE is replaced only with --force"},
			&cli.BoolFlag{Name: "force", Category: catIO, Usage: "replace an existing -o FILE or --dot FILE"},
		}, runsOf("inspect").flags()...),
		Action: runInspect,
	}
}

func runInspect(c *cli.Context) (err error) {
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
	out, closeOut, err := openOutput(c, input)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeOut(err)) }()
	// The DOT file is refused before the work if it exists.
	var dot io.WriteCloser
	if path := c.String("dot"); path != "" {
		if err := notAnInput("--dot", path, input); err != nil {
			return err
		}
		if dot, err = createOutput(c, "--dot", path); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, closeOutput(dot, err)) }()
	}
	only, line := c.String("atom"), c.Int("line")
	var last *assess.Assessment
	found := false
	// The texts of records and pages are shown: what could command a
	// terminal in them is escaped.
	w := bufio.NewWriter(printable.Writer(out))
	err = instance.Scan(input, nil, func(in *instance.Instance) error {
		if line > 0 && in.Line != line {
			return nil
		}
		var a *assess.Assessment
		var err error
		if assess.IsRecorded(in) {
			a, err = assess.AssessmentOf(in) // an output line: as it was scored
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
		return assess.WriteExplanations(w, a, ex)
	})
	err = withFormatHint(err, input, formatFactReasoner, formatScored)
	// What was explained before an error is written.
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	switch {
	case line > 0 && last == nil:
		return fmt.Errorf("%s: no record starts on line %d", input, line)
	case only != "" && !found:
		return fmt.Errorf("%s: no atom %q, nor a context of that id", input, only)
	}
	if dot != nil && last != nil {
		return last.WriteDOT(dot)
	}
	return nil
}
