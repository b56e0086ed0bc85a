package main

import (
	"fmt"
	"io"

	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/urfave/cli/v2"
)

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "join the outputs of the shards of an fr score run (--shard I/N) into the output of a single run",
		ArgsUsage: "OUT...",
		Description: "Writes the lines of the outputs, as they are, in input order: byte for byte what one run\n" +
			"over the whole input writes. Outputs of different runs (version, solver or its settings, NLI\n" +
			"backend, model, pruning, priors, K), two results for one input line and a last line cut short are refused. With --input,\n" +
			"every record of the input must have a result: a missing one is named by its line." +
			examples(
				"# Two shards scored apart (fr score --shard 0/2 and 1/2), joined and checked against the input.",
				"fr merge --input in.jsonl -o out.jsonl out.0.jsonl out.1.jsonl",
			),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "input", Category: catIO, Usage: "the input `FILE` the shards scored: check that every record has a result"},
		}, outputFlags()...),
		Action: runMerge,
	}
}

func runMerge(c *cli.Context) error {
	if err := flagsBeforeArgs(c); err != nil {
		return err
	}
	if c.NArg() == 0 {
		return usagef("merge: want the output files of the shards (see %s --help)", c.Command.HelpName)
	}
	o := batch.MergeOptions{}
	if in := c.String("input"); in != "" {
		path, err := inputPath(c, in)
		if err != nil {
			return fmt.Errorf("--input: %w", err)
		}
		o.Input = path
	}
	paths, err := inputPaths(c)
	if err != nil {
		return err
	}
	if err := notAnInput("-o", c.String("output"), append(paths, o.Input)...); err != nil {
		return err
	}
	// The outputs are checked before the output file is created.
	m, err := batch.PlanMerge(paths, o)
	if err != nil {
		return err
	}
	if err := writeOutput(c, func(w io.Writer) error { _, err := m.WriteTo(w); return err }, append(paths, o.Input)...); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "fr merge: %d lines from %d outputs\n", m.Lines(), len(paths))
	return nil
}
