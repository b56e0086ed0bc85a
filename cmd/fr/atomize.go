package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/progress"
)

func atomizeCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "skip-invalid", Category: catIO, Usage: "report invalid records on stderr and go on"},
	}
	flags = append(append(flags, outputFlags()...), runsOf("atomize").flags()...)
	return &cli.Command{
		Name:      "atomize",
		Usage:     "split the responses of records without atoms into atoms",
		ArgsUsage: "INPUT",
		Description: "Writes the records of INPUT as FactReasoner jsonl, in input order, to stdout or -o OUT.\n" +
			"A record without atoms gets atoms a0, a1, ... from its output: `original` as the atomizer\n" +
			"wrote it, `text` as the reviser rewrote it to stand alone (the same text without --revise).\n" +
			"Records that have atoms are written as they are. Progress and the LLM usage go to stderr.\n" +
			"A record whose answer cannot be read stops the run, or with --skip-invalid is left out\n" +
			"(and the run fails at the end)." +
			examples(
				"# One atom per sentence, without a model.",
				"fr atomize --atomizer sentences -o atoms.jsonl responses.jsonl",
				"# FactReasoner's atomizer and reviser, at a local model server.",
				"fr atomize --llm-base-url http://localhost:8000/v1 --llm-model MODEL -o atoms.jsonl responses.jsonl",
			),
		Flags:  flags,
		Action: runAtomize,
	}
}

func runAtomize(c *cli.Context) (err error) {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	o, err := runsOf("atomize").options(c)
	if err != nil {
		return err
	}
	p, err := assemble.Open(c.Context, o)
	if err != nil {
		return err
	}
	atOnce := false
	defer func() { err = errors.Join(err, closeRun(c, p, atOnce)) }()
	out, closeOut, err := openOutput(c, input)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeOut(err)) }()
	prog := progress.New(c.App.ErrWriter, "fr atomize")
	st, err := batch.AtomizeFile(c.Context, p.Pipeline, input, out, fileOptions(c, prog), func(err error) {
		fmt.Fprintf(c.App.ErrWriter, "fr atomize: %v; the record is written without atoms\n", err)
	})
	err = withFormatHint(err, input, batch.FormatInput, batch.FormatScored)
	atOnce = endedAtOnce(err, st.Atomized)
	finishRun(prog, fmt.Sprintf("%d records written: %d atomized, %d had atoms, %d without atoms to find; %s",
		st.Records-st.Failed, st.Atomized, st.Records-st.Atomized-st.NoAtoms-st.Failed, st.NoAtoms,
		skippedSummary(batch.ScoreStats{Invalid: st.Invalid, Failed: st.Failed})), err, atOnce)
	if err != nil {
		return err
	}
	return failedError(batch.ScoreStats{Failed: st.Failed})
}
