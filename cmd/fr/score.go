package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/comparison"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/progress"
	"github.com/factreasoner/factreasoner-go/score"
)

func scoreCommand() *cli.Command {
	return &cli.Command{
		Name:      "score",
		Usage:     "score each record of a FactReasoner jsonl file",
		ArgsUsage: "INPUT | --response R",
		Description: "Writes one JSON line per input record, in input order, to stdout or -o OUT.\n" +
			"With -o and an existing OUT, records already in OUT are skipped and the rest appended,\n" +
			"so an interrupted run can be resumed with the same command. An OUT written by another run\n" +
			"(other input records, version, NLI backend or model, pruning, K, solver or its settings, or priors) is refused.\n" +
			"--shard I/N scores the records whose input line modulo N is I; fr merge joins the shards' outputs.\n" +
			"--response R (with --query Q and --topic T) scores that one answer instead of an INPUT file, with\n" +
			"the same flags: its line goes to stdout (or -o), and its atoms with their P(true) to stderr." +
			examples(
				"# Score the shipped example with the NLI relations its records carry; the headline goes to stderr.",
				"fr score -o out.jsonl testdata/example.jsonl",
				"# Raw responses end to end with an LLM at a local server: atoms, Wikipedia passages, NLI, FR3.",
				"fr score --version 3 --nli llm --llm-base-url http://localhost:8000/v1 --llm-model MODEL --source wikipedia -o out.jsonl responses.jsonl",
				"# One answer from the command line, against a knowledge base.",
				`fr score --atomizer llm --llm-model MODEL --nli llm --db kb.db --topic "Marie Curie" --query "Who was Marie Curie?" --response "Marie Curie was a Polish physicist."`,
			),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "version", Value: "2", Category: catRun, Usage: "FactReasoner graph version: 1, 2 or 3"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Category: catIO, Usage: "output file (appended to and resumed if it exists and was written by the same run)"},
			&cli.BoolFlag{Name: "skip-invalid", Category: catIO, Usage: "report invalid records and failed records on stderr, count them and go on"},
			&cli.BoolFlag{Name: "output-inputs", Value: true, Category: catIO, Usage: "write each record's atoms, contexts and relations into its output line (an input line too)"},
			&cli.BoolFlag{Name: "timings", Category: catIO, Usage: "add elapsed_time (seconds per record) to each output line; the output then differs from run to run"},
			&cli.StringFlag{Name: "jobs", Aliases: []string{"j"}, Value: "auto", Category: catRun, Usage: "records scored at once, `N` or auto (1 with --nli onnx, else 2)"},
			&cli.StringFlag{Name: "shard", Category: catRun, Usage: "score one shard `I/N` of the input: the records whose input line modulo N is I"},
			&cli.StringFlag{Name: "response", Category: catIO, Usage: "score this one answer (`TEXT`) instead of an INPUT file"},
			&cli.StringFlag{Name: "query", Category: catIO, Usage: "with --response: the question it answers"},
			&cli.StringFlag{Name: "topic", Category: catIO, Usage: "with --response: its topic (what a knowledge base is searched under)"},
		}, runsOf("score").flags()...),
		Action: runScore,
	}
}

func runScore(c *cli.Context) (err error) {
	answer := c.IsSet("response") || c.IsSet("query") || c.IsSet("topic")
	var input string
	if answer {
		input, err = answerInput(c)
	} else {
		input, err = inputArg(c)
	}
	if err != nil {
		return err
	}
	version, err := versionArg(c)
	if err != nil {
		return err
	}
	jobs := 0 // auto
	if s := c.String("jobs"); s != "auto" {
		if jobs, err = strconv.Atoi(s); err != nil || jobs < 1 || jobs > batch.MaxJobs {
			return usagef("--jobs %q: want a number of records, 1 to %d, or auto", s, batch.MaxJobs)
		}
	}
	var shard batch.Shard
	if s := c.String("shard"); s != "" {
		if shard, err = batch.ParseShard(s); err != nil {
			return usagef("--shard: %w", err)
		}
	}
	if err := notAnInput("-o", c.String("output"), input); err != nil {
		return err
	}
	// Everything written to stderr from here on goes through the progress
	// display, so that a message is not written into the bar.
	prog := progress.New(c.App.ErrWriter, "fr score").WithBar()
	c.App.ErrWriter = prog
	p, err := openPipeline(c, input)
	if err != nil {
		return err
	}
	atOnce := false
	defer func() { closeRun(c, p, atOnce) }()
	var out io.Writer = c.App.Writer
	var line bytes.Buffer // the answer's line, for its summary
	var done jsonl.Done
	path := c.String("output")
	if path != "" && path != stdoutPath {
		f, d, openErr := batch.OpenOutput(p.Pipeline, path, input, version, shard)
		if openErr != nil {
			return openErr
		}
		defer func() { err = errors.Join(err, closeOutput(f, err)) }()
		out, done = f, d
		if len(done) > 0 {
			fmt.Fprintf(c.App.ErrWriter, "fr score: resuming %s: %d records already scored\n", path, len(done))
		}
	}
	if answer {
		out = io.MultiWriter(out, &line)
	}
	o := fileOptions(c, prog)
	o.OmitInputs = !c.Bool("output-inputs")
	o.Timings = c.Bool("timings")
	if jobs == 0 {
		jobs = p.AutoJobs()
	}
	o.Jobs, o.Shard = jobs, shard
	var all []score.Scores // of the records written, for the headline
	o.Scored = func(s score.Scores) {
		s.PerAtom, s.Predictions = nil, "" // the summary needs neither
		all = append(all, s)
	}
	st, err := batch.ScoreFile(c.Context, p.Pipeline, input, version, out, done, o)
	err = withFormatHint(err, input, batch.FormatInput, batch.FormatScored)
	summary := fmt.Sprintf("%d records scored (%d at a time), %s, %d already done", st.Scored, jobs, skippedSummary(st), st.Done)
	if shard.Count > 1 {
		summary += fmt.Sprintf(", %d in other shards (shard %s)", st.OtherShards, shard)
	}
	summary += fmt.Sprintf("; %d NLI pairs asked (%d own, %d added by similarity), %d pruned (--pairs-per-atom %s)", st.Pairs, st.Own, st.Other, st.Pruned, pairsPerAtomShown(c))
	atOnce = endedAtOnce(err, st.Scored+st.Done)
	finishRun(prog, summary, err, atOnce)
	if err != nil {
		return err
	}
	rows := []comparison.Row{{Version: version.String(), Summary: score.Summarize(all)}}
	if len(done) > 0 {
		// The result is the whole output, the records of the earlier
		// runs included.
		recorded, _, err := batch.CompareRecorded([]string{path}, p.K, batch.FileOptions{})
		if err != nil {
			return fmt.Errorf("reading %s back for the headline: %w", path, err)
		}
		rows = recorded
	}
	comparison.WriteHeadline(c.App.ErrWriter, "fr score", rows, p.K)
	if answer && line.Len() > 0 {
		if err := writeAnswer(c.App.ErrWriter, line.Bytes()); err != nil {
			return err
		}
	}
	return failedError(st)
}

// answerInput is the input file of fr score --response: one record, the
// answer with its --query and --topic, in a temporary file.
func answerInput(c *cli.Context) (string, error) {
	if err := flagsBeforeArgs(c); err != nil {
		return "", err
	}
	if c.NArg() > 0 {
		return "", usagef("score: --response scores the answer given; an INPUT file (%s) is not read with it", c.Args().First())
	}
	if strings.TrimSpace(c.String("response")) == "" {
		return "", usagef("score: --query and --topic go with --response, the answer to score (empty here)")
	}
	rec, err := json.Marshal(struct {
		Input  string `json:"input"`
		Output string `json:"output"`
		Topic  string `json:"topic,omitempty"`
	}{c.String("query"), c.String("response"), c.String("topic")})
	if err != nil {
		return "", err
	}
	return spoolInput(c, bytes.NewReader(append(rec, '\n')), "response")
}

// writeAnswer writes the summary of fr score --response's one line: its
// atoms with their P(true) and labels (assess.WriteBrief). A line
// written without its inputs (--output-inputs=false) has only its scores,
// which the headline gave.
func writeAnswer(w io.Writer, line []byte) error {
	in, err := instance.NewReader(bytes.NewReader(line), "response").Next()
	if err != nil {
		return err
	}
	if len(in.Atoms) == 0 && !assess.IsRecorded(in) {
		return nil
	}
	a, err := assess.AssessmentOf(in)
	if err != nil {
		return nil // written without its inputs: nothing to add to the headline
	}
	return assess.WriteBrief(w, a)
}

// pairsPerAtomShown is --pairs-per-atom as records write it ("own+3" for
// 3), so that the summary, the help and the output lines agree.
func pairsPerAtomShown(c *cli.Context) string {
	k, err := assess.ParsePairsPerAtom(c.String("pairs-per-atom"))
	if err != nil {
		return c.String("pairs-per-atom")
	}
	return assess.PairsPerAtomName(k)
}
