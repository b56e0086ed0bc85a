package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli/cascade"
	"github.com/factreasoner/factreasoner-go/pipeline"
	"github.com/factreasoner/factreasoner-go/progress"
	"github.com/factreasoner/factreasoner-go/score"
	"github.com/factreasoner/factreasoner-go/summarize"
)

// pipelineFlags are the flags shared by score, compare and inspect.
func pipelineFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "use-priors", Value: true, Category: catScoring, Usage: "fold each target's prior into its factor tables (false: the paper's Table 1)"},
		&cli.Float64Flag{Name: "atom-prior", Value: 0.5, Category: catScoring, Usage: "prior probability that an atom is true"},
		&cli.Float64Flag{Name: "context-prior", Value: 0.9, Category: catScoring, Usage: "prior probability that a context is true"},
		&cli.StringFlag{Name: "k", Value: "half", Category: catScoring, Usage: "K of F1@K: half (max(⌊n/2⌋,1) per response), median (median atom count of the input) or a number"},
		&cli.IntFlag{Name: "retrieve-k", Value: pipeline.DefaultTopK, Category: catRetrieval, Usage: "passages retrieved per atom for records without contexts (with --db or --source)"},
		queryContextsFlag("retrieve-k"),
		&cli.StringFlag{Name: "pairs-per-atom", Value: pipeline.PairsPerAtomName(pipeline.DefaultPairsPerAtom), Category: catScoring, Usage: "NLI pairs of each atom: its own contexts and its K best-matching others, `own+K` (or K); own or all"},
		&cli.Float64Flag{Name: "near-duplicates", Category: catScoring, DefaultText: "off",
			Usage: "contexts at least this similar (e.g. 0.92) are one variable in FR2 and FR3"},
		&cli.StringFlag{Name: "fr3-pairs", Value: "both", Category: catScoring, Usage: "FR3's context pairs: both (asked both ways, as FactReasoner) or one-way"},
		&cli.BoolFlag{Name: "summarize", Category: catSummaries, Usage: "summarize each context with respect to its atom by the LLM, as FactReasoner's summarizer"},
		&cli.BoolFlag{Name: "use-summaries", Category: catSummaries, Usage: "NLI reads the summaries the input's contexts carry (synthetic_summary); no model is asked"},
		&cli.StringFlag{Name: "summary-method", Value: "auto", Category: catSummaries,
			Usage: "how --summarize measures p_summary: auto, logprobs, sample or fixed (docs/llm.md)"},
		&cli.IntFlag{Name: "summary-samples", Value: llm.DefaultSamples, Category: catSummaries, Usage: "answers sampled per summary by --summary-method auto and sample"},
		&cli.Float64Flag{Name: "summary-fixed-probability", Value: summarize.DefaultFixedProbability, Category: catSummaries,
			Usage: "--summary-method fixed's p_summary of an answer without log probabilities (0: an error)"},
	}
	flags = append(flags, nliFlags()...)
	flags = append(flags, solverFlags()...)
	return append(flags, retrieverFlags()...)
}

// nliFlags choose the NLI backend; the onnx and llm backends' flags come
// with them.
func nliFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "nli", Value: "auto", Category: catNLI, Usage: "NLI backend: " + tableNames(pipeline.NLIBackends(), func(b pipeline.NLIBackend) string { return b.Name }) + "; FIRST,SECOND: a cascade"},
		&cli.Float64Flag{Name: "nli-cascade-below", Value: cascade.DefaultBelow, Category: catNLI, Usage: "--nli FIRST,SECOND: pairs whose FIRST answer is less sure than this go to SECOND"},
		&cli.StringFlag{Name: "cache", Value: "off", Category: catNLI, Usage: "NLI answers reused by later runs: an SQLite `FILE`, auto or off"},
	}
	return append(append(append(flags, onnxFlags()...), remoteFlags()...), llmFlags()...)
}

// versionArg parses the --version flag of score and inspect.
func versionArg(c *cli.Context) (graph.Version, error) {
	v, err := graph.ParseVersion(c.String("version"))
	if err != nil {
		return 0, usagef("--version: %w", err)
	}
	return v, nil
}

// openPipeline opens the pipeline of the flags of pipelineFlags, for the
// records of input (K median is computed over them).
func openPipeline(c *cli.Context, input string) (*pipeline.Pipeline, error) {
	o, err := pipelineOptions(c)
	if err != nil {
		return nil, err
	}
	if o.K.Name == "median" {
		var fo pipeline.FileOptions
		if c.Bool("skip-invalid") {
			fo.Invalid = func(*instance.Error) {} // reported by the run
		}
		if o.K.Value, err = pipeline.MedianAtoms(input, fo); err != nil {
			return nil, fmt.Errorf("--k median: %w", err)
		}
	}
	return pipeline.Open(c.Context, o)
}

// pipelineOptions maps the flags of pipelineFlags to the pipeline's
// options.
func pipelineOptions(c *cli.Context) (pipeline.Options, error) {
	o := nliOptions(c)
	o.Graph = graph.Options{UsePriors: c.Bool("use-priors"), AtomPrior: c.Float64("atom-prior"), ContextPrior: c.Float64("context-prior")}
	if err := o.Graph.Validate(); err != nil {
		return o, usagef("--atom-prior, --context-prior: %w", err)
	}
	var err error
	o.NearDuplicates = c.Float64("near-duplicates")
	if !(o.NearDuplicates >= 0 && o.NearDuplicates <= 1) {
		return o, usagef("--near-duplicates %v: want a similarity in (0, 1], or 0 for off", o.NearDuplicates)
	}
	switch m := c.String("fr3-pairs"); m {
	case "both":
	case "one-way":
		o.OneWayPairs = true
	default:
		return o, usagef("--fr3-pairs: %q is not both or one-way", m)
	}
	if o.PairsPerAtom, err = pipeline.ParsePairsPerAtom(c.String("pairs-per-atom")); err != nil {
		return o, usagef("--pairs-per-atom: %w", err)
	}
	switch {
	case c.Bool("summarize") && c.Bool("use-summaries"):
		return o, usagef("--summarize and --use-summaries: give one (--summarize summarizes the contexts afresh; --use-summaries reads the summaries they carry)")
	case c.Bool("summarize"):
		o.Summaries = pipeline.SummariesLLM
	case c.Bool("use-summaries"):
		o.Summaries = pipeline.SummariesGiven
	}
	o.SummaryMethod, o.SummaryFixedProbability = method(c, "summary-method", "summary-fixed-probability")
	o.SummarySamples = c.Int("summary-samples")
	if o.K, err = score.ParseK(c.String("k")); err != nil {
		return o, usagef("--k: %w", err)
	}
	if o.Solver, err = newSolver(c); err != nil {
		return o, asUsage(err)
	}
	if o.Retrieval, err = retrievalOptions(c, "retrieve-k"); err != nil {
		return o, err
	}
	o.Caches.Retrieval = c.String("retrieval-cache")
	return o, nil
}

// nliOptions maps the flags of nliFlags, and the LLM stages', to options.
func nliOptions(c *cli.Context) pipeline.Options {
	o := llmOptions(c)
	o.NLI = pipeline.NLIOptions{Backend: c.String("nli"), Model: c.String("nli-model"), ONNX: onnxOptions(c), Remote: remoteOptions(c),
		PositiveLabel: c.String("nli-positive-label"), Unsupported: c.String("nli-unsupported"), CascadeBelow: c.Float64("nli-cascade-below")}
	o.Caches.NLI = c.String("cache")
	return o
}

// fileOptions are the options of a run over a file: with --skip-invalid,
// invalid records and records that fail (an LLM answer that cannot be
// read) are reported and skipped; progress goes to stderr.
func fileOptions(c *cli.Context, prog *progress.Display) pipeline.FileOptions {
	o := pipeline.FileOptions{Progress: showProgress(prog)}
	if c.Bool("skip-invalid") {
		o.Invalid = func(e *instance.Error) { fmt.Fprintf(c.App.ErrWriter, "fr: skipping invalid record: %v\n", e) }
		o.Failed = func(err error) { fmt.Fprintf(c.App.ErrWriter, "fr: skipping failed record: %v\n", err) }
	}
	return o
}

// skippedSummary says how many records a run skipped, for its summary.
func skippedSummary(st pipeline.ScoreStats) string {
	s := fmt.Sprintf("%d invalid skipped, %d failed", st.Invalid, st.Failed)
	if st.EmptyContexts > 0 {
		s += fmt.Sprintf(", %d empty contexts dropped", st.EmptyContexts)
	}
	return s
}

// stopped ends the summary of a run that an error stopped: its counts are
// of the records before the error, which the summary would otherwise
// present as the whole run ("0 failed" when a record had failed).
func stopped(err error) string {
	if err == nil {
		return ""
	}
	return "; stopped by the error below, the records from there on not done"
}

// failedError is the error of a run that skipped failed records: it did
// not do all its work, so it must not exit 0.
func failedError(st pipeline.ScoreStats) error {
	if st.Failed == 0 {
		return nil
	}
	return fmt.Errorf("%d records failed (see above) and were not written; run the same command again (with -o, to resume) once the cause is fixed", st.Failed)
}

// showProgress shows a run's progress on the display.
func showProgress(prog *progress.Display) func(pipeline.Progress) {
	return func(pr pipeline.Progress) { prog.Report(progress.Status(pr)) }
}
