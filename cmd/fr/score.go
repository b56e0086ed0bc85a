package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/pipeline"
)

func scoreCommand() *cli.Command {
	return &cli.Command{
		Name:      "score",
		Usage:     "score each record of a FactReasoner jsonl file",
		ArgsUsage: "INPUT",
		Description: "Writes one JSON line per input record, in input order, to stdout or -o OUT.\n" +
			"With -o and an existing OUT, records already in OUT are skipped and the rest appended,\n" +
			"so an interrupted run can be resumed with the same command. An OUT written by another run\n" +
			"(other input records, version, NLI backend or model, pruning, K or solver) is refused.\n" +
			"--shard I/N scores the records whose input line modulo N is I; fr merge joins the shards' outputs.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "version", Value: "2", Usage: "FactReasoner graph version: 1, 2 or 3"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file (appended to and resumed if it exists and was written by the same run)"},
			&cli.BoolFlag{Name: "skip-invalid", Usage: "report invalid records, and records whose LLM answers cannot be read, on stderr, count them and go on; a run with such failed records still exits 1, one that only skipped invalid records exits 0"},
			&cli.BoolFlag{Name: "output-inputs", Value: true, Usage: "write the scored record's atoms, contexts and relations into each output line, so that it is an input line too"},
			&cli.BoolFlag{Name: "timings", Usage: "add elapsed_time (seconds per record) to each output line; the output then differs from run to run"},
			&cli.StringFlag{Name: "jobs", Aliases: []string{"j"}, Value: "auto", Usage: "records scored at once, `N` or auto (1 with --nli onnx, whose model already uses every core; else 2); the output stays in input order, byte for byte as with 1"},
			&cli.StringFlag{Name: "shard", Usage: "score one shard `I/N` of the input: the records whose input line modulo N is I (0 ≤ I < N); join the shards' outputs with fr merge"},
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
	jobs := 0 // auto
	if s := c.String("jobs"); s != "auto" {
		if jobs, err = strconv.Atoi(s); err != nil || jobs < 1 {
			return usagef("--jobs %q: want a number of records, 1 or more, or auto", s)
		}
	}
	var shard pipeline.Shard
	if s := c.String("shard"); s != "" {
		if shard, err = pipeline.ParseShard(s); err != nil {
			return usagef("--shard: %w", err)
		}
	}
	// Everything written to stderr from here on goes through the progress
	// display, so that a message is not written into the bar.
	prog := newProgress(c.App.ErrWriter, "fr score").withBar()
	c.App.ErrWriter = prog
	p, err := openPipeline(c, input)
	if err != nil {
		return err
	}
	defer p.Close()
	var out io.Writer = c.App.Writer
	var done jsonl.Done
	if path := c.String("output"); path != "" {
		f, d, err := p.OpenOutput(path, input, version, shard)
		if err != nil {
			return err
		}
		defer f.Close()
		out, done = f, d
		if len(done) > 0 {
			fmt.Fprintf(c.App.ErrWriter, "fr score: resuming %s: %d records already scored\n", path, len(done))
		}
	}
	o := fileOptions(c, prog)
	o.OmitInputs = !c.Bool("output-inputs")
	o.Timings = c.Bool("timings")
	if jobs == 0 {
		jobs = p.AutoJobs()
	}
	o.Jobs, o.Shard = jobs, shard
	st, err := p.ScoreFile(c.Context, input, version, out, done, o)
	summary := fmt.Sprintf("%d records scored (%d at a time), %s, %d already done", st.Scored, jobs, skippedSummary(st), st.Done)
	if shard.Count > 1 {
		summary += fmt.Sprintf(", %d in other shards (shard %s)", st.OtherShards, shard)
	}
	summary += fmt.Sprintf("; %d NLI pairs asked, %d pruned (--pairs-per-atom %s)", st.Pairs, st.Pruned, c.String("pairs-per-atom"))
	prog.finish(summary + stopped(err))
	if err != nil {
		return err
	}
	return failedError(st)
}

// progress shows how far long work has come on stderr: a plain line every
// few seconds (for logs and CI) or, withBar and when stderr is a terminal,
// a progress bar. A command with a bar writes everything else for stderr
// through it (it is an io.Writer), so that messages and the bar do not
// mix. It is safe for concurrent use.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	start  time.Time
	last   time.Time // of the last plain line
	every  time.Duration
	bar    *progressbar.ProgressBar // nil when stderr is not a terminal
	unit   string                   // what the bar counts: "pairs" or "records"
	cur    pipeline.Progress
}

// plainEvery is how often progress lines are written when stderr is not a
// terminal.
const plainEvery = 5 * time.Second

func newProgress(w io.Writer, prefix string) *progress {
	now := time.Now()
	return &progress{w: w, prefix: prefix, start: now, last: now, every: plainEvery}
}

// withBar shows a progress bar instead of plain lines when stderr is a
// terminal.
func (p *progress) withBar() *progress {
	if f, ok := p.w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.prefix),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("records"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// Write writes a message to stderr, above the bar.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Clear()
	}
	return p.w.Write(b)
}

// update reports the records done and the input line of the last.
func (p *progress) update(n, line int) { p.report(pipeline.Progress{Records: n, Line: line}) }

// report shows a run's progress.
func (p *progress) report(pr pipeline.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = pr
	if p.bar != nil {
		p.showBar(pr)
		return
	}
	if time.Since(p.last) < p.every {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "%s: %s, %.1fs\n", p.prefix, p.describe(pr, true), time.Since(p.start).Seconds())
}

// showBar updates the bar: it counts NLI pairs when the run asks any (they
// are where the time goes), else records, and spins until the totals are
// known.
func (p *progress) showBar(pr pipeline.Progress) {
	unit, n, total := "records", pr.Records, pr.RecordsTotal
	if pr.PairsTotal > 0 || pr.Pairs > 0 {
		unit, n, total = "pairs", pr.Pairs, pr.PairsTotal
	}
	if unit != p.unit {
		p.unit = unit
		p.bar.Reset()
		progressbar.OptionSetItsString(unit)(p.bar)
	}
	if !pr.Counted {
		total = -1
	}
	if p.bar.GetMax() != total {
		p.bar.ChangeMax(total)
	}
	desc := p.prefix + ": " + p.describe(pr, false)
	p.bar.Describe(desc)
	p.bar.Set(n)
}

// describe says what is done of what there is to do; with rates, the
// rate and time left too (the bar shows its own).
func (p *progress) describe(pr pipeline.Progress, rates bool) string {
	var b strings.Builder
	of := func(n, total int, what string) {
		if pr.Counted {
			fmt.Fprintf(&b, "%d/%d %s", n, total, what)
		} else {
			fmt.Fprintf(&b, "%d %s", n, what)
		}
	}
	of(pr.Records, pr.RecordsTotal, "records")
	// The rate and time left are of NLI pairs when the run asks any (they
	// are where the time goes), else of records.
	unit, done, total := "records", pr.Records, pr.RecordsTotal
	if pr.Pairs > 0 || pr.PairsTotal > 0 {
		b.WriteString(", ")
		of(pr.Pairs, pr.PairsTotal, "NLI pairs")
		unit, done, total = "pairs", pr.Pairs, pr.PairsTotal
	}
	if pr.Line > 0 {
		fmt.Fprintf(&b, " (at line %d)", pr.Line)
	}
	if !rates {
		return b.String()
	}
	elapsed := time.Since(p.start).Seconds()
	if done > 0 && elapsed > 0 {
		rate := float64(done) / elapsed
		fmt.Fprintf(&b, ", %.3g %s/s", rate, unit)
		if pr.Counted && total >= done {
			left := time.Duration(float64(total-done) / rate * float64(time.Second))
			fmt.Fprintf(&b, ", about %s left", left.Round(time.Second))
		}
	}
	return b.String()
}

// finish clears the bar and writes the summary of the work.
func (p *progress) finish(summary string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Clear()
	}
	fmt.Fprintf(p.w, "%s: %s in %.1fs\n", p.prefix, summary, time.Since(p.start).Seconds())
}
