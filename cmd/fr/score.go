package main

import (
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/jsonl"
)

func scoreCommand() *cli.Command {
	return &cli.Command{
		Name:      "score",
		Usage:     "score each record of a FactReasoner jsonl file",
		ArgsUsage: "INPUT",
		Description: "Writes one JSON line per input record, in input order, to stdout or -o OUT.\n" +
			"With -o and an existing OUT, records already in OUT are skipped and the rest appended,\n" +
			"so an interrupted run can be resumed with the same command. An OUT written by another run\n" +
			"(other input records, version, NLI backend or model, K or solver) is refused.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "version", Value: "2", Usage: "FactReasoner graph version: 1, 2 or 3"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file (appended to and resumed if it exists and was written by the same run)"},
			&cli.BoolFlag{Name: "skip-invalid", Usage: "report invalid records, and records whose LLM answers cannot be read, on stderr and go on (the run still fails at the end)"},
			&cli.BoolFlag{Name: "output-inputs", Value: true, Usage: "write the scored record's atoms, contexts and relations into each output line, so that it is an input line too"},
			&cli.BoolFlag{Name: "timings", Usage: "add elapsed_time (seconds per record) to each output line; the output then differs from run to run"},
		}, pipelineFlags()...),
		Action: runScore,
	}
}

func runScore(c *cli.Context) error {
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
	var out io.Writer = c.App.Writer
	var done jsonl.Done
	if path := c.String("output"); path != "" {
		f, d, err := p.OpenOutput(path, input, version)
		if err != nil {
			return err
		}
		defer f.Close()
		out, done = f, d
		if len(done) > 0 {
			fmt.Fprintf(c.App.ErrWriter, "fr score: resuming %s: %d records already scored\n", path, len(done))
		}
	}
	prog := newProgress(c.App.ErrWriter, "fr score")
	o := fileOptions(c, prog)
	o.OmitInputs = !c.Bool("output-inputs")
	o.Timings = c.Bool("timings")
	st, err := p.ScoreFile(c.Context, input, version, out, done, o)
	prog.finish(fmt.Sprintf("%d records scored, %s, %d already done", st.Scored, skippedSummary(st), st.Done))
	if err != nil {
		return err
	}
	return failedError(st)
}

// progress reports long work on stderr at most once a second.
type progress struct {
	w      io.Writer
	prefix string
	start  time.Time
	last   time.Time
}

func newProgress(w io.Writer, prefix string) *progress {
	now := time.Now()
	return &progress{w: w, prefix: prefix, start: now, last: now}
}

func (p *progress) update(n, line int) {
	if time.Since(p.last) < time.Second {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "%s: %d records (at line %d), %.1fs\n", p.prefix, n, line, time.Since(p.start).Seconds())
}

func (p *progress) finish(summary string) {
	fmt.Fprintf(p.w, "%s: %s in %.1fs\n", p.prefix, summary, time.Since(p.start).Seconds())
}
