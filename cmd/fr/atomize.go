package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/pipeline"
	"github.com/factreasoner/factreasoner-go/progress"
)

func atomizeCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "skip-invalid", Usage: "report invalid records on stderr and go on"},
	}
	flags = append(flags, outputFlags()...)
	for _, f := range llmFlags() {
		switch f.Names()[0] {
		case "nli-prompt":
			continue
		case "atomizer":
			f = &cli.StringFlag{Name: "atomizer", Value: "llm", Usage: "llm, or sentences (one atom per sentence, no model)"}
		}
		flags = append(flags, f)
	}
	return &cli.Command{
		Name:      "atomize",
		Usage:     "split the responses of records without atoms into atoms",
		ArgsUsage: "INPUT",
		Description: "Writes the records of INPUT as FactReasoner jsonl, in input order, to stdout or -o OUT.\n" +
			"A record without atoms gets atoms a0, a1, ... from its output: `original` as the atomizer\n" +
			"wrote it, `text` as the reviser rewrote it to stand alone (the same text without --revise).\n" +
			"Records that have atoms are written as they are. Progress and the LLM usage go to stderr.\n" +
			"A record whose answer cannot be read stops the run, or with --skip-invalid is left out\n" +
			"(and the run fails at the end).",
		Flags:  flags,
		Action: runAtomize,
	}
}

func runAtomize(c *cli.Context) (err error) {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	p, err := pipeline.Open(c.Context, llmOptions(c))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, p.Close()) }()
	out, closeOut, err := openOutput(c)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeOut()) }()
	w := jsonl.NewWriter(out)
	prog := progress.New(c.App.ErrWriter, "fr atomize")
	var records, atomized, empty, skipped, failed int
	var skip func(*instance.Error)
	if c.Bool("skip-invalid") {
		skip = func(e *instance.Error) {
			skipped++
			fmt.Fprintf(c.App.ErrWriter, "fr: skipping invalid record: %v\n", e)
		}
	}
	err = instance.Scan(input, skip, func(in *instance.Instance) error {
		records++
		if len(in.Atoms) == 0 {
			atoms, err := atomize.Atoms(c.Context, p.Atomizer, p.Reviser, in.Output)
			switch {
			case errors.Is(err, atomize.ErrNoAtoms):
				fmt.Fprintf(c.App.ErrWriter, "fr atomize: %s:%d: %v; the record is written without atoms\n", input, in.Line, err)
				empty++
			case err != nil && c.Bool("skip-invalid") && pipeline.RecordFailure(err):
				fmt.Fprintf(c.App.ErrWriter, "fr: skipping failed record: %s:%d: %v\n", input, in.Line, err)
				failed++
				return nil
			case err != nil:
				return fmt.Errorf("%s:%d: %w", input, in.Line, err)
			default:
				in.Atoms = atoms
				atomized++
			}
		}
		if err := w.Write(in); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		prog.Update(records, in.Line)
		return nil
	})
	prog.Finish(fmt.Sprintf("%d records written: %d atomized, %d had atoms, %d without atoms to find; %s",
		records-failed, atomized, records-atomized-empty-failed, empty, skippedSummary(pipeline.ScoreStats{Invalid: skipped, Failed: failed})) + stopped(err))
	if err != nil {
		return err
	}
	return failedError(pipeline.ScoreStats{Failed: failed})
}
