package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/pipeline"
	"github.com/factreasoner/factreasoner-go/score"
	"github.com/factreasoner/factreasoner-go/sqlcache"
)

// pipelineFlags are the flags shared by score, compare and inspect.
func pipelineFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "use-priors", Value: true, Usage: "fold the target's prior into the factor tables (the reference's default); false gives the paper's Table 1"},
		&cli.Float64Flag{Name: "atom-prior", Value: 0.5, Usage: "prior probability that an atom is true"},
		&cli.Float64Flag{Name: "context-prior", Value: 0.9, Usage: "prior probability that a context is true"},
		&cli.StringFlag{Name: "k", Value: "half", Usage: "K of F1@K: half (max(⌊n/2⌋,1) per response), median (median atom count of the input) or a number"},
		&cli.IntFlag{Name: "retrieve-k", Value: pipeline.DefaultTopK, Usage: "passages retrieved per atom for records without contexts (with --db or --source)"},
	}
	flags = append(flags, nliFlags()...)
	flags = append(flags, solverFlags()...)
	return append(flags, retrieverFlags()...)
}

// nliFlags choose the NLI backend; the onnx and llm backends' flags come
// with them.
func nliFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "nli", Value: "auto", Usage: "NLI backend: auto (given when a record has relations, else onnx when a model is available, else lexical), " +
			"given, onnx (an MNLI cross-encoder, see --nli-model), llm (an OpenAI-compatible endpoint, see --llm-*), lexical"},
		&cli.StringFlag{Name: "cache", Value: "off", Usage: "NLI answers of text backends reused by later runs: an SQLite `FILE`, auto (" + sqlcache.NLI.DefaultFile() + " in the cache directory) or off"},
	}
	return append(append(flags, onnxFlags()...), llmFlags()...)
}

// inputArg returns the single INPUT argument.
func inputArg(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", fmt.Errorf("%s: want exactly one INPUT file, got %d arguments (see fr %s --help)", c.Command.Name, c.NArg(), c.Command.Name)
	}
	return c.Args().First(), nil
}

// newClassifier returns the NLI backend of the flags of nliFlags and when a
// record's own relations replace it. The returned function releases what
// the backend holds open and reports its usage.
func newClassifier(c *cli.Context) (nli.Classifier, pipeline.GivenMode, func() error, error) {
	var (
		cl   nli.Classifier
		mode = pipeline.GivenNever
		err  error
	)
	// closer ends a run (with the backend's summary), abort one that fails
	// before it starts.
	closer := func() error { return finishLLM(c) }
	abort := func() error { return closeLLM(c) }
	backend := c.String("nli")
	if backend == "auto" {
		mode = pipeline.GivenWhenPresent
		if onnxAvailable(c) {
			backend = "onnx"
		}
	}
	switch backend {
	case "given":
		mode = pipeline.GivenAlways
	case "auto", "lexical":
		cl = nli.NewLexical()
		if backend == "auto" {
			cl = &warnFirstUse{Classifier: cl, w: c.App.ErrWriter,
				msg: "fr: warning: no NLI model configured; records without relations use the lexical fallback (rough word overlap). " +
					"For real results give the records relations (--nli given), use an NLI model (fr models pull " + defaultNLIModel +
					", then --nli onnx) or an LLM (--nli llm)."}
		}
	case "onnx":
		model, err := newONNXClassifier(c)
		if err != nil && c.String("nli") == "auto" && !c.IsSet("nli-model") {
			// The default model was pulled but cannot run here (no ONNX
			// Runtime, say): auto falls back rather than fail.
			fmt.Fprintf(c.App.ErrWriter, "fr: warning: --nli auto cannot use %s: %v\n", defaultNLIModel, err)
			cl = &warnFirstUse{Classifier: nli.NewLexical(), w: c.App.ErrWriter,
				msg: "fr: warning: records without relations use the lexical fallback (rough word overlap)."}
			break
		}
		if err != nil {
			return nil, 0, nil, fmt.Errorf("--nli onnx: %w", err)
		}
		cl = model
		closer = func() error {
			onnxSummary(c, model)
			return model.Close()
		}
		abort = model.Close
	case "llm":
		if cl, err = newLLMClassifier(c); err != nil {
			return nil, 0, nil, errors.Join(err, closeLLM(c))
		}
	default:
		return nil, 0, nil, fmt.Errorf("--nli: unknown backend %q (want auto, given, onnx, llm or lexical)", backend)
	}
	path, err := sqlcache.Resolve(c.String("cache"), sqlcache.NLI)
	if err != nil {
		return nil, 0, nil, errors.Join(fmt.Errorf("--cache: %w", err), abort())
	}
	if path != "" && cl != nil {
		cache, err := nli.OpenCache(path, cl)
		if err != nil {
			return nil, 0, nil, errors.Join(fmt.Errorf("--cache: %w", err), abort())
		}
		cl = cache
		inner := closer
		closer = func() error { return errors.Join(cache.Close(), inner()) }
	}
	return cl, mode, closer, nil
}

// newConfig builds the pipeline the flags describe. The returned function
// releases what the pipeline holds open (caches, knowledge sources).
func newConfig(c *cli.Context, input string) (cfg *pipeline.Config, release func() error, err error) {
	cfg = &pipeline.Config{
		Graph: graph.Options{UsePriors: c.Bool("use-priors"), AtomPrior: c.Float64("atom-prior"), ContextPrior: c.Float64("context-prior")},
		TopK:  c.Int("retrieve-k"),
		Warn:  func(msg string) { fmt.Fprintln(c.App.ErrWriter, "fr: warning:", msg) },
	}
	if err := cfg.Graph.Validate(); err != nil {
		return nil, nil, err
	}
	if cfg.TopK < 1 {
		return nil, nil, fmt.Errorf("--retrieve-k %d: want at least 1", cfg.TopK)
	}
	if cfg.Solver, err = newSolver(c); err != nil {
		return nil, nil, err
	}
	if cfg.K, err = score.ParseK(c.String("k")); err != nil {
		return nil, nil, fmt.Errorf("--k: %w", err)
	}
	if cfg.K.Name == "median" {
		if cfg.K.Value, err = medianAtoms(input); err != nil {
			return nil, nil, fmt.Errorf("--k median: %w", err)
		}
	}
	var closeNLI func() error
	if cfg.Classifier, cfg.Given, closeNLI, err = newClassifier(c); err != nil {
		return nil, nil, err
	}
	if cfg.Atomizer, cfg.Reviser, err = newAtomizer(c); err != nil {
		return nil, nil, errors.Join(err, closeNLI())
	}
	if cfg.Retriever, err = newRetriever(c); err != nil {
		return nil, nil, errors.Join(err, closeNLI())
	}
	cfg.SkipMissingTopics = c.String("missing-topic") == "skip"
	release = func() error { return errors.Join(closeRetriever(cfg.Retriever), closeNLI()) }
	return cfg, release, nil
}

// medianAtoms is the median atom count of the records of a file.
func medianAtoms(path string) (float64, error) {
	ins, err := instance.ReadFile(path)
	if err != nil {
		return 0, err
	}
	counts := make([]int, len(ins))
	for i, in := range ins {
		if len(in.Atoms) == 0 {
			return 0, fmt.Errorf("%s:%d: the record has no atoms; the median needs every record's atoms (run fr atomize first)", path, in.Line)
		}
		counts[i] = len(in.Atoms)
	}
	return score.Median(counts), nil
}

// warnFirstUse prints a warning the first time its classifier is used.
type warnFirstUse struct {
	nli.Classifier
	w    io.Writer
	msg  string
	once sync.Once
}

func (c *warnFirstUse) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	c.once.Do(func() { fmt.Fprintln(c.w, c.msg) })
	return c.Classifier.Classify(ctx, pairs)
}

// forEachInstance reads the records of a file and calls fn for each valid
// one. An invalid record stops the run, or with skipInvalid is reported on
// stderr and skipped.
func forEachInstance(c *cli.Context, path string, skipInvalid bool, fn func(*instance.Instance) error) (skipped int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := instance.NewReader(f, path)
	for {
		in, err := r.Next()
		if err == io.EOF {
			return skipped, nil
		}
		var ie *instance.Error
		if errors.As(err, &ie) && skipInvalid && !errors.Is(err, instance.ErrEmpty) {
			fmt.Fprintf(c.App.ErrWriter, "fr: skipping invalid record: %v\n", err)
			skipped++
			continue
		}
		if err != nil {
			return skipped, err
		}
		if err := fn(in); err != nil {
			return skipped, err
		}
	}
}
