package main

import (
	"bufio"
	"errors"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/batch"
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
	// The texts of records and pages are shown: what could command a
	// terminal in them is escaped.
	w := bufio.NewWriter(printable.Writer(out))
	o := batch.InspectOptions{Line: c.Int("line"), Atom: c.String("atom"), Contexts: c.Bool("contexts")}
	last, err := batch.InspectFile(c.Context, p.Pipeline, input, version, o, w)
	err = withFormatHint(err, input, batch.FormatInput, batch.FormatScored)
	// What was explained before an error is written.
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if dot != nil && last != nil {
		return last.WriteDOT(dot)
	}
	return nil
}
