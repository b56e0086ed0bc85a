package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

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
				"responses with no such fact are left out and counted on stderr.",
			Flags:  []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file (default stdout)"}},
			Action: runConvertFActScore,
		}},
	}
}

func runConvertFActScore(c *cli.Context) error {
	path, err := inputArg(c)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	out := c.App.Writer
	if o := c.String("output"); o != "" {
		of, err := os.Create(o)
		if err != nil {
			return err
		}
		defer of.Close()
		out = of
	}
	w := jsonl.NewWriter(out)
	br := bufio.NewReader(f)
	var written, abstained, empty int
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			rec, perr := instance.ParseLabeled(line)
			if perr != nil {
				return fmt.Errorf("%s:%d: %w", path, n, perr)
			}
			switch in := rec.Instance(); {
			case rec.Abstained():
				abstained++
			case len(in.Atoms) == 0:
				empty++
			default:
				if err := w.Write(in); err != nil {
					return err
				}
				written++
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "fr convert: %d responses written, %d abstained, %d without S/NS facts left out\n", written, abstained, empty)
	return nil
}
