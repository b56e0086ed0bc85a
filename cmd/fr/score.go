package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
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
			"(other input records, version, NLI backend or model, K or solver) is refused.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "version", Value: "2", Usage: "FactReasoner graph version: 1, 2 or 3"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file (appended to and resumed if it exists and was written by the same run)"},
			&cli.BoolFlag{Name: "skip-invalid", Usage: "report invalid records on stderr and go on"},
		}, pipelineFlags()...),
		Action: runScore,
	}
}

func runScore(c *cli.Context) error {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	version, err := graph.ParseVersion(c.String("version"))
	if err != nil {
		return fmt.Errorf("--version: %w", err)
	}
	cfg, closeCfg, err := newConfig(c, input)
	if err != nil {
		return err
	}
	defer closeCfg()

	var out io.Writer = c.App.Writer
	done := jsonl.Done{}
	if path := c.String("output"); path != "" {
		check := func(d jsonl.Done) error { return checkResume(c, cfg, version, input, path, d) }
		f, d, err := jsonl.Resume(path, "line", resumeFields, check)
		if err != nil {
			return err
		}
		defer f.Close()
		out, done = f, d
		if len(done) > 0 {
			fmt.Fprintf(c.App.ErrWriter, "fr score: resuming %s: %d records already scored\n", path, len(done))
		}
	}
	return scoreFile(c, cfg, version, input, out, done)
}

// resumeFields are the fields of an output line that the input record and
// the flags determine. A run resumes only into a file whose lines agree
// with it on each of them.
var resumeFields = []string{"input", "topic", "version", "nli_backend", "model_name", "solver", "k", "num_atoms", "num_contexts"}

// checkResume refuses to resume into out when one of its lines was not
// written by this run: for another input record (another input text or
// topic, or other atoms or contexts), another version, NLI backend or
// model, K or solver.
func checkResume(c *cli.Context, cfg *pipeline.Config, version graph.Version, input, out string, done jsonl.Done) error {
	if len(done) == 0 {
		return nil
	}
	advice := fmt.Sprintf("%s holds the results of another run: give a different -o, or remove the file to start again", out)
	f, err := os.Open(input)
	if err != nil {
		return err
	}
	defer f.Close()
	seen := make(map[int]bool, len(done))
	r := instance.NewReader(f, input)
	for {
		in, err := r.Next()
		if err == io.EOF {
			break
		}
		var ie *instance.Error
		if errors.As(err, &ie) && !errors.Is(err, instance.ErrEmpty) {
			continue // an invalid record: the run reports it
		}
		if err != nil {
			return err
		}
		st, ok := done[in.Line]
		if !ok {
			continue
		}
		seen[in.Line] = true
		if err := sameRun(c, cfg, version, in, st); err != nil {
			return fmt.Errorf("%s:%d: %w, for the record at %s:%d; %s", out, st.Line, err, input, in.Line, advice)
		}
	}
	var unseen []int // output lines whose input line is not a record
	byOut := make(map[int]int)
	for line, st := range done {
		if !seen[line] {
			unseen = append(unseen, st.Line)
			byOut[st.Line] = line
		}
	}
	if len(unseen) > 0 {
		first := slices.Min(unseen)
		return fmt.Errorf("%s:%d: holds the result of line %d of %s, which has no valid record there; %s", out, first, byOut[first], input, advice)
	}
	return nil
}

// sameRun compares an output line with what this run writes for in.
func sameRun(c *cli.Context, cfg *pipeline.Config, version graph.Version, in *instance.Instance, st jsonl.Stored) error {
	cl, err := cfg.ClassifierFor(in)
	if err != nil {
		return err
	}
	id := cl.Identity()
	for _, f := range []struct{ name, want string }{
		{"input", in.Input},
		{"topic", in.Topic},
		{"version", version.String()},
		{"nli_backend", id.Backend},
		{"model_name", pipeline.ModelName(id)},
	} {
		var got string
		if raw, ok := st.Fields[f.name]; ok && json.Unmarshal(raw, &got) != nil {
			got = string(raw)
		}
		if got != f.want {
			return fmt.Errorf("field %q is %s there but %s in this run", f.name, shortQuote(got), shortQuote(f.want))
		}
	}
	var solver struct {
		Solver string `json:"solver"`
	}
	json.Unmarshal(st.Fields["solver"], &solver)
	if want := c.String("solver"); solver.Solver != want {
		return fmt.Errorf("field %q is %s there but %s in this run", "solver.solver", shortQuote(solver.Solver), shortQuote(want))
	}
	var atoms int
	json.Unmarshal(st.Fields["num_atoms"], &atoms)
	if len(in.Atoms) > 0 && len(in.Contexts) > 0 {
		// Neither atomized nor retrieved for: the counts are known now.
		nodes := graph.SelectNodes(in, version)
		for _, f := range []struct {
			name string
			want int
		}{{"num_atoms", len(nodes.Atoms)}, {"num_contexts", len(nodes.Contexts)}} {
			var got int
			if json.Unmarshal(st.Fields[f.name], &got) != nil || got != f.want {
				return fmt.Errorf("field %q is %s there but %d in this run", f.name, st.Fields[f.name], f.want)
			}
		}
	}
	var k float64
	kErr := json.Unmarshal(st.Fields["k"], &k)
	want := cfg.K.Value
	if cfg.K.Half {
		want = float64(max(atoms/2, 1))
	}
	if kErr != nil || k != want {
		return fmt.Errorf("field %q is %s there but %s with --k %s", "k", st.Fields["k"], strconv.FormatFloat(want, 'g', -1, 64), cfg.K.Name)
	}
	return nil
}

// shortQuote quotes s for an error message, on one line and cut to 60
// characters.
func shortQuote(s string) string { return strconv.Quote(oneLine(s, 60)) }

// scoreFile scores the records of input not yet done and writes them to out.
func scoreFile(c *cli.Context, cfg *pipeline.Config, version graph.Version, input string, out io.Writer, done jsonl.Done) error {
	w := jsonl.NewWriter(out)
	prog := newProgress(c.App.ErrWriter, "fr score")
	scored := 0
	skipped, err := forEachInstance(c, input, c.Bool("skip-invalid"), func(in *instance.Instance) error {
		if _, ok := done[in.Line]; ok {
			return nil
		}
		a, err := cfg.Assess(c.Context, in, version)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", input, in.Line, err)
		}
		if err := w.Write(a.Record()); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		scored++
		prog.update(scored, in.Line)
		return nil
	})
	prog.finish(fmt.Sprintf("%d records scored, %d invalid skipped, %d already done", scored, skipped, len(done)))
	return err
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
