package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/factreasoner/factreasoner-go/report"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write a self-contained HTML report of fr score output files",
		ArgsUsage: "RUN.jsonl [RUN2.jsonl ...]",
		Description: "Writes one HTML file (to stdout or -o FILE) that opens offline in a browser: per response the\n" +
			"text with its atoms coloured by P(true), the evidence of each atom and context, and the network;\n" +
			"a summary with precision, F1@K and entropy and, with gold labels, a reliability diagram, ECE,\n" +
			"the confusion matrix and Pr against gold Pr. Several runs of the same input are shown side by side,\n" +
			"a FactReasoner result file or an fr factscore output among them (told by content).\n" +
			"Output lines that do not record their atoms, contexts and relations need --input, the file\n" +
			"that was scored." +
			examples(
				"# One run, opened offline in a browser.",
				"fr report -o report.html out.jsonl",
				"# Two runs of the same input side by side, with the summary plots as files.",
				"fr report --title \"FR2 and FR3\" --plots plots -o report.html fr2.jsonl fr3.jsonl",
			),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Category: catIO, Usage: "write the report to this file (refused if it exists, unless --force)"},
			&cli.BoolFlag{Name: "force", Category: catIO, Usage: "replace the -o file and the --plots files if they exist"},
			&cli.StringFlag{Name: "plots", Category: catIO, Usage: "also write the summary plots as SVG and PNG files into this directory"},
			&cli.StringFlag{Name: "input", Category: catIO, Usage: "the input file the runs were scored from, for output lines without their atoms and contexts"},
			&cli.StringFlag{Name: "layout", Value: "auto", Category: catReport, Usage: "network layout: auto (graphviz when dot is installed, else built-in), graphviz or built-in"},
			&cli.StringFlag{Name: "title", Category: catReport, Usage: "the report's title"},
			&cli.IntFlag{Name: "excerpt", Value: 600, Category: catReport, Usage: "characters of each context's text kept as its evidence excerpt (the bulk of a large report)"},
		},
		Action: runReport,
	}
}

func runReport(c *cli.Context) error {
	if err := flagsBeforeArgs(c); err != nil {
		return err
	}
	if c.NArg() == 0 {
		return usagef("report: give at least one output file of fr score (see fr report --help)")
	}
	layout, err := report.ParseLayout(c.String("layout"))
	if err != nil {
		return usagef("--layout: %w", err)
	}
	if c.Int("excerpt") < 1 {
		return usagef("--excerpt %d: want at least 1", c.Int("excerpt"))
	}
	out, force := c.String("output"), c.Bool("force")
	if err := notAnInput("-o", out, append(c.Args().Slice(), c.String("input"))...); err != nil {
		return err
	}
	if out == stdoutPath {
		out = "" // the command's stdout, asked for
	} else if out == "" && c.App.Writer == os.Stdout {
		// A terminal, not any character device: > /dev/null is a
		// redirection too.
		if term.IsTerminal(int(os.Stdout.Fd())) {
			return errors.New("report: give -o FILE or redirect stdout: the report is an HTML file")
		}
	}
	if out != "" && !force {
		// Fail before the work, not after it; the write checks again. A
		// device (/dev/null) is written as it is.
		if st, err := os.Stat(out); err == nil && st.Mode().IsRegular() {
			return usagef("-o %s: the file exists; give --force to replace it, or another -o", out)
		}
	}
	start := time.Now()
	var inputs *report.Inputs
	if path := c.String("input"); path != "" {
		path, err := inputPath(c, path)
		if err != nil {
			return fmt.Errorf("--input: %w", err)
		}
		if inputs, err = report.ReadInputs(path); err != nil {
			return fmt.Errorf("--input: %w", err)
		}
	}
	var runs []*report.Run
	for _, arg := range c.Args().Slice() {
		path, err := inputPath(c, arg)
		if err != nil {
			return err
		}
		run, err := report.ReadRun(c.Context, path, inputs)
		if err != nil {
			return err
		}
		runs = append(runs, run)
	}
	rep, err := report.New(runs, report.Options{Title: c.String("title"), ExcerptRunes: c.Int("excerpt")})
	if err != nil {
		return err
	}
	runsWord := "runs"
	if len(runs) == 1 {
		runsWord = "run"
	}
	fmt.Fprintf(c.App.ErrWriter, "fr report: %d %s, %d responses read in %.1fs\n", len(runs), runsWord, len(rep.Lines), time.Since(start).Seconds())
	for _, note := range rep.Notes() {
		fmt.Fprintf(c.App.ErrWriter, "fr report: %s\n", note)
	}
	var size int64
	write := func(w io.Writer) error {
		cw := &countingWriter{w: w}
		err := rep.WriteHTML(c.Context, cw, layout)
		size = cw.n
		return err
	}
	if out == "" {
		err = write(c.App.Writer)
	} else {
		err = report.WriteFile(out, force, func(f *os.File) error { return write(f) })
	}
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w (use --force to replace it)", err)
	}
	if err != nil {
		return err
	}
	where := "stdout"
	if out != "" {
		where = out
	}
	fmt.Fprintf(c.App.ErrWriter, "fr report: wrote %s (%s, networks laid out by %s) in %.1fs\n", where, megabytes(size), layout.Name(), time.Since(start).Seconds())
	if dir := c.String("plots"); dir != "" {
		paths, err := rep.WritePlots(dir, force)
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("--plots: %w (use --force to replace it)", err)
		}
		if err != nil {
			return fmt.Errorf("--plots: %w", err)
		}
		fmt.Fprintf(c.App.ErrWriter, "fr report: wrote %s\n", strings.Join(paths, ", "))
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func megabytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
