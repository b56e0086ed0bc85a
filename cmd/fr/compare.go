package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/comparison"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/foreign"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/internal/printable"
	"github.com/factreasoner/factreasoner-go/progress"
	"github.com/factreasoner/factreasoner-go/score"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "run several FactReasoner versions on the same input and compare them",
		ArgsUsage: "INPUT | RUN...",
		Description: "NLI for each distinct pair is computed once and shared by the versions.\n" +
			"One row per version: mean precision, atom-level F1 against gold labels, mean F1@K,\n" +
			"MAE of precision against gold precision, mean E (entropy measure), Brier score,\n" +
			"accuracy, mean #S/#C/#U atoms (supported, contradicted, undecided), and the\n" +
			"Pearson and Spearman correlations of precision with gold precision, and how inference\n" +
			"went (each method with its count, responses not converged, the largest error indicator).\n\n" +
			"The gold measures count labeled atoms only: MAE and the correlations compare a\n" +
			"response's precision on its labeled atoms with its gold precision (the same atoms);\n" +
			"atom F1, accuracy and Brier are pooled over all labeled atoms of the file (Brier is\n" +
			"the mean of (P(true) − y)² over them, not a mean of per-response values). A value\n" +
			"that does not exist (a correlation of constant values, a gold measure of unlabeled\n" +
			"input) is null in json, n/a in markdown and an empty cell in csv.\n\n" +
			"Given output files of fr score instead (several, or one whose lines carry marginals),\n" +
			"it compares the results as they were recorded, scoring nothing again: one row per\n" +
			"run (version and NLI backend) found in them. A FactReasoner result file or an output\n" +
			"of fr factscore among them (told by content) is one row more, named by where it came\n" +
			"from, with this project's measures of its marginals or decisions (K: --k) and, as\n" +
			"\"its NAME\" columns, the values it records under names defined otherwise here.\n" +
			"Runs whose records answer different questions on the same input line, or that hold results\n" +
			"of different lines, are compared all the same, with a warning on stderr that says where." +
			examples(
				"# FR1, FR2 and FR3 on the shipped example, with the relations its records carry.",
				"fr compare --nli given testdata/example.jsonl",
				"# Two runs of fr score as they were recorded, as csv.",
				"fr compare --format csv -o table.csv fr2.jsonl fr3.jsonl",
			),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "versions", Value: "1,2,3", Category: catRun, Usage: "comma-separated versions; factscore, veriscore, factverify add those baselines"},
			&cli.Float64Flag{Name: "threshold", Value: factscore.DefaultThreshold, Category: catRun, Usage: "factscore row: entailment probability a context must exceed to support an atom"},
			&cli.StringFlag{Name: "format", Value: "markdown", Category: catIO, Usage: "table format: markdown, json or csv"},
			&cli.BoolFlag{Name: "skip-invalid", Category: catIO, Usage: "report invalid records and failed records on stderr, count them and go on"},
		}, append(outputFlags(), runsOf("compare").flags()...)...),
		Action: runCompare,
	}
}

func runCompare(c *cli.Context) (err error) {
	if err := flagsBeforeArgs(c); err != nil {
		return err
	}
	if c.NArg() == 0 {
		return usagef("compare: want an INPUT file, or output files of fr score (see fr compare --help)")
	}
	format := c.String("format")
	if !slices.Contains(comparison.Formats, format) {
		return usagef("--format: unknown format %q (want markdown, json or csv)", format)
	}
	paths, err := inputPaths(c)
	if err != nil {
		return err
	}
	input := paths[0]
	// Another system's run (a FactReasoner result file, an fr factscore
	// output) is compared as it was recorded, as an output of fr score is.
	other, err := foreign.Detect(input)
	if err != nil {
		return err
	}
	recorded := other != 0
	if !recorded {
		if recorded, err = batch.IsOutputFile(input, c.Bool("skip-invalid")); err != nil {
			return err
		}
	}
	out, closeOut, err := openOutput(c, paths...)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeOut(err)) }()
	if recorded || c.NArg() > 1 {
		// Nothing runs but the measures: every setting of a part is
		// refused, but K.
		const why = "applies to scoring an INPUT file; output files of fr score are compared as they were scored"
		if err := runsOf("compare").noParts(c, why, []string{"K"}, "versions", "threshold"); err != nil {
			return err
		}
		// --k is the K of the runs that do not record theirs (FactReasoner
		// result files, fr factscore outputs).
		k, err := score.ParseK(c.String("k"))
		if err != nil {
			return usagef("--k: %w", err)
		}
		prog := progress.New(c.App.ErrWriter, "fr compare")
		o := fileOptions(c, prog)
		o.Warn = func(msg string) { fmt.Fprintf(prog, "fr compare: warning: %s\n", msg) }
		rows, st, err := batch.CompareRecorded(paths, k, o)
		if err != nil {
			return err
		}
		prog.Finish(fmt.Sprintf("%d recorded results compared, %d invalid skipped", st.Scored, st.Invalid))
		return comparison.Write(printable.Writer(out), format, rows)
	}
	var (
		versions  []graph.Version
		baselines []string
		verifiers []assemble.Part // of the baselines, which read their settings
	)
	for _, s := range strings.Split(c.String("versions"), ",") {
		switch b := strings.ToLower(strings.TrimSpace(s)); b {
		case assemble.BaselineFActScore, assemble.BaselineVeriScore, assemble.BaselineFactVerify:
			if b == assemble.BaselineFActScore {
				if th := c.Float64("threshold"); th < 0 || th >= 1 {
					return usagef("--threshold %v: want a probability in [0, 1)", th)
				}
			}
			baselines = append(baselines, b)
			if b != assemble.BaselineFActScore {
				verifiers = append(verifiers, assemble.VerifierPart(b))
			}
			continue
		}
		v, err := graph.ParseVersion(s)
		if err != nil {
			return usagef("--versions: %w (or factscore, veriscore, factverify)", err)
		}
		versions = append(versions, v)
	}
	p, err := openPipeline(c, input, verifiers...)
	if err != nil {
		return err
	}
	defer p.Close()
	var bs []assess.Baseline
	for _, name := range baselines {
		b, err := p.OpenBaseline(name, c.Float64("threshold"))
		if err != nil {
			return err
		}
		bs = append(bs, b)
	}
	prog := progress.New(c.App.ErrWriter, "fr compare")
	rows, st, err := batch.CompareFile(c.Context, p.Pipeline, input, versions, bs, fileOptions(c, prog))
	if err != nil {
		return withFormatHint(err, input, batch.FormatInput, batch.FormatScored)
	}
	prog.Finish(fmt.Sprintf("%d records compared, %s", st.Scored, skippedSummary(st)))
	if err := comparison.Write(printable.Writer(out), format, rows); err != nil {
		return err
	}
	return failedError(st)
}
