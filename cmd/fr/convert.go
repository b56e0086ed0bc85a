package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
)

func convertCommand() *cli.Command {
	return &cli.Command{
		Name:  "convert",
		Usage: "convert other formats to FactReasoner jsonl",
		Subcommands: []*cli.Command{{
			Name:      "factscore",
			Usage:     "convert FActScore's human-labeled format (input, output, topic, annotations)",
			ArgsUsage: "FILE",
			Description: "Atoms are the human atomic facts of the relevant sentences whose label is S or NS,\n" +
				"ids a0, a1, ... in order. Responses where the model abstained (no annotations) and\n" +
				"responses with no such fact are left out and counted on stderr." +
				examples(
					"fr convert factscore -o labeled.jsonl ChatGPT.jsonl",
				),
			Flags:  outputFlags(),
			Action: runConvertFActScore,
		}},
	}
}

func runConvertFActScore(c *cli.Context) (err error) {
	path, err := inputArg(c)
	if err != nil {
		return err
	}
	out, closeOut, err := openOutput(c, path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeOut(err)) }()
	w := jsonl.NewWriter(out)
	var written, abstained, empty, invalid int
	err = instance.ReadLabeled(path, func(line int, rec *instance.LabeledRecord) error {
		in := rec.Instance()
		switch {
		case rec.Abstained():
			abstained++
		case len(in.Atoms) == 0:
			empty++
		default:
			// Write only what fr score reads: a fact without text would
			// be refused there.
			if err := in.Validate(); err != nil {
				invalid++
				fmt.Fprintf(c.App.ErrWriter, "fr convert: %s:%d: left out: %v\n", path, line, err)
				return nil
			}
			written++
			return w.Write(in)
		}
		return nil
	})
	if err != nil {
		return withFormatHint(err, path, batch.FormatLabeled)
	}
	fmt.Fprintf(c.App.ErrWriter, "fr convert: %d responses written, %d abstained, %d without S/NS facts left out, %d invalid left out\n", written, abstained, empty, invalid)
	return nil
}
