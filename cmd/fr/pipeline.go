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
)

// pipelineFlags are the flags shared by score, compare and inspect.
func pipelineFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "nli", Value: "auto", Usage: "NLI backend: auto (given when a record has relations, else lexical), given, lexical"},
		&cli.BoolFlag{Name: "use-priors", Value: true, Usage: "fold the target's prior into the factor tables (the reference's default); false gives the paper's Table 1"},
		&cli.Float64Flag{Name: "atom-prior", Value: 0.5, Usage: "prior probability that an atom is true"},
		&cli.Float64Flag{Name: "context-prior", Value: 0.9, Usage: "prior probability that a context is true"},
		&cli.StringFlag{Name: "k", Value: "half", Usage: "K of F1@K: half (max(⌊n/2⌋,1) per response), median (median atom count of the input) or a number"},
		&cli.StringFlag{Name: "cache", Usage: "persistent NLI cache (SQLite file) for text backends"},
	}, solverFlags()...)
}

// inputArg returns the single INPUT argument.
func inputArg(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", fmt.Errorf("%s: want exactly one INPUT file, got %d arguments (see fr %s --help)", c.Command.Name, c.NArg(), c.Command.Name)
	}
	return c.Args().First(), nil
}

// newConfig builds the pipeline the flags describe. The returned function
// releases what the pipeline holds open (caches).
func newConfig(c *cli.Context, input string) (*pipeline.Config, func() error, error) {
	cfg := &pipeline.Config{
		Graph: graph.Options{UsePriors: c.Bool("use-priors"), AtomPrior: c.Float64("atom-prior"), ContextPrior: c.Float64("context-prior")},
	}
	if err := cfg.Graph.Validate(); err != nil {
		return nil, nil, err
	}
	solver, err := newSolver(c)
	if err != nil {
		return nil, nil, err
	}
	cfg.Solver = solver
	k, err := score.ParseK(c.String("k"))
	if err != nil {
		return nil, nil, fmt.Errorf("--k: %w", err)
	}
	if k.Name == "median" {
		if k.Value, err = medianAtoms(input); err != nil {
			return nil, nil, fmt.Errorf("--k median: %w", err)
		}
	}
	cfg.K = k
	closer := func() error { return nil }
	switch backend := c.String("nli"); backend {
	case "given":
		cfg.Given = pipeline.GivenAlways
	case "auto", "lexical":
		var cl nli.Classifier = nli.NewLexical()
		if backend == "auto" {
			cfg.Given = pipeline.GivenWhenPresent
			cl = &warnFirstUse{Classifier: cl, w: c.App.ErrWriter,
				msg: "fr: warning: no NLI model configured; records without relations use the lexical fallback (rough word overlap). " +
					"For real results give the records relations (--nli given) or use an NLI model."}
		}
		cfg.Classifier = cl
	default:
		return nil, nil, fmt.Errorf("--nli: unknown backend %q (want auto, given or lexical)", backend)
	}
	if path := c.String("cache"); path != "" && cfg.Classifier != nil {
		cache, err := nli.OpenCache(path, cfg.Classifier)
		if err != nil {
			return nil, nil, fmt.Errorf("--cache: %w", err)
		}
		cfg.Classifier = cache
		closer = cache.Close
	}
	return cfg, closer, nil
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
