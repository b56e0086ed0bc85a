package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/cachedir"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/sqlcache"
)

func retrieveCommand() *cli.Command {
	return &cli.Command{
		Name:      "retrieve",
		Usage:     "find contexts for the atoms of each record",
		ArgsUsage: "INPUT",
		Description: "For every atom that lists no contexts, retrieves up to --k passages from the knowledge\n" +
			"source and adds them as contexts c_<atom>_<rank> (rank 0 = best). Writes FactReasoner jsonl,\n" +
			"one record per input record in input order, to stdout or -o OUT.\n\n" +
			"Sources: --db KB.db, a knowledge base in FActScore's format (the record's topic is looked\n" +
			"up by exact title, its passages ranked by BM25 for topic + \" \" + atom, as FActScore);\n" +
			"--source wikipedia, the live Wikipedia API (a search for the atom, then the top pages'\n" +
			"plain text, cut to 4000 characters, as FactReasoner).",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "k", Value: 3, Usage: "passages per atom (FactReasoner: 3; FActScore: 5)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file (default stdout)"},
		}, retrieverFlags()...),
		Action: runRetrieve,
	}
}

// retrieverFlags are the knowledge-source flags shared by the commands that
// retrieve (retrieve, factscore, score). Each command has its own flag for
// the number of passages per atom.
func retrieverFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "db", Usage: "knowledge base `KB.db` in FActScore's SQLite format (fr kb build makes one)"},
		&cli.StringFlag{Name: "source", Value: "auto", Usage: "knowledge source: auto (db when --db is given, else none), db, wikipedia"},
		&cli.StringFlag{Name: "wikipedia-endpoint", Value: retrieve.DefaultWikipediaEndpoint, Usage: "MediaWiki api.php URL for --source wikipedia"},
		&cli.StringFlag{Name: "wikipedia-user-agent", DefaultText: "factreasoner-go/VERSION (project URL)",
			Usage: "User-Agent for Wikipedia, with your contact as Wikimedia asks; factreasoner-go/VERSION is added after it"},
		&cli.DurationFlag{Name: "wikipedia-interval", Value: retrieve.DefaultMinInterval, Usage: "least time between two Wikipedia requests"},
		&cli.StringFlag{Name: "retrieval-cache", Value: "auto", Usage: "retrieval results reused by later runs: an SQLite `FILE`, auto (" + sqlcache.Retrieval.DefaultFile() + " in the cache directory, $" + cachedir.EnvVar + " else ~/.cache/factreasoner-go) or off"},
		&cli.StringFlag{Name: "missing-topic", Value: "error", Usage: "when a record's topic is not a title of the knowledge base (or it has none): error (stop, as FActScore), or skip (warn and leave its atoms without contexts)"},
	}
}

// retrieverCloser is a retriever holding files open.
type retrieverCloser struct {
	retrieve.Retriever
	closers []io.Closer
}

func (r *retrieverCloser) Close() error {
	var errs []error
	for i := len(r.closers) - 1; i >= 0; i-- {
		errs = append(errs, r.closers[i].Close())
	}
	return errors.Join(errs...)
}

// newRetriever returns the knowledge source the flags describe, or nil when
// none is configured. The retriever it returns implements io.Closer; close
// it when done.
func newRetriever(c *cli.Context) (retrieve.Retriever, error) {
	switch p := c.String("missing-topic"); p {
	case "error", "skip":
	default:
		return nil, fmt.Errorf("--missing-topic: %q is not error or skip", p)
	}
	source := c.String("source")
	if source == "auto" {
		source = "none"
		if c.String("db") != "" {
			source = "db"
		}
	}
	var (
		r       retrieve.Retriever
		name    string
		closers []io.Closer
	)
	switch source {
	case "none":
		return nil, nil
	case "db":
		if c.String("db") == "" {
			return nil, errors.New("--source db needs --db KB.db")
		}
		db, err := retrieve.OpenDocDB(c.String("db"))
		if err != nil {
			return nil, fmt.Errorf("--db: %w", err)
		}
		br := retrieve.NewBM25Retriever(db)
		r, name, closers = br, br.Source(), []io.Closer{db}
	case "wikipedia":
		if c.String("db") != "" {
			return nil, errors.New("--db and --source wikipedia: choose one knowledge source")
		}
		w := retrieve.NewWikipedia(c.String("wikipedia-endpoint"))
		w.UserAgent = c.String("wikipedia-user-agent")
		w.MinInterval = c.Duration("wikipedia-interval")
		p, err := retryPolicy(c)
		if err != nil {
			return nil, err
		}
		w.Retry = p
		r, name = w, w.Source()
	default:
		return nil, fmt.Errorf("--source: %q is not auto, db or wikipedia", source)
	}
	cachePath, err := sqlcache.Resolve(c.String("retrieval-cache"), sqlcache.Retrieval)
	if err != nil {
		closeAll(closers)
		return nil, fmt.Errorf("--retrieval-cache: %w", err)
	}
	if cachePath != "" {
		cache, err := retrieve.OpenCache(cachePath)
		if err != nil {
			closeAll(closers)
			return nil, fmt.Errorf("--retrieval-cache: %w", err)
		}
		r = cache.Wrap(name, r)
		closers = append(closers, cache)
	}
	return &retrieverCloser{Retriever: r, closers: closers}, nil
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}

// closeRetriever closes what newRetriever opened.
func closeRetriever(r retrieve.Retriever) error {
	if cl, ok := r.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// fillContexts retrieves k passages for the atoms of in that have no
// contexts. A topic missing from the knowledge base stops the run, or with
// --missing-topic skip is reported on stderr and leaves those atoms
// without contexts. It returns the number of atoms retrieved for, and
// whether the record was skipped so.
func fillContexts(c *cli.Context, r retrieve.Retriever, in *instance.Instance, k int) (n int, skipped bool, err error) {
	n, err = retrieve.Fill(c.Context, r, in, k)
	if err == nil {
		return n, false, nil
	}
	missing := errors.Is(err, retrieve.ErrTopicNotFound) || errors.Is(err, retrieve.ErrNoTopic)
	if missing && c.String("missing-topic") == "skip" {
		fmt.Fprintf(c.App.ErrWriter, "fr: warning: line %d: %v; its atoms get no contexts\n", in.Line, err)
		return 0, true, nil
	}
	if missing {
		return 0, false, fmt.Errorf("%w (--missing-topic skip goes on without contexts)", err)
	}
	return 0, false, err
}

func runRetrieve(c *cli.Context) error {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	k := c.Int("k")
	if k < 1 {
		return fmt.Errorf("--k %d: want at least 1", k)
	}
	r, err := newRetriever(c)
	if err != nil {
		return err
	}
	if r == nil {
		return errors.New("retrieve: no knowledge source (give --db KB.db or --source wikipedia)")
	}
	defer closeRetriever(r)
	var out io.Writer = c.App.Writer
	if path := c.String("output"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("output: %w", err)
		}
		defer f.Close()
		out = f
	}
	w := jsonl.NewWriter(out)
	prog := newProgress(c.App.ErrWriter, "fr retrieve")
	var records, atoms, noAtoms, skipped int
	_, err = forEachInstance(c, input, false, func(in *instance.Instance) error {
		records++
		if len(in.Atoms) == 0 {
			noAtoms++
		}
		n, skip, err := fillContexts(c, r, in, k)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", input, in.Line, err)
		}
		atoms += n
		if skip {
			skipped++
		}
		if err := w.Write(in); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		prog.update(records, in.Line)
		return nil
	})
	msg := fmt.Sprintf("%d records, contexts retrieved for %d atoms", records, atoms)
	if noAtoms > 0 {
		msg += fmt.Sprintf("; %d records without atoms passed through (atomize them first)", noAtoms)
	}
	if skipped > 0 {
		msg += fmt.Sprintf("; %d records' topics not found, left without contexts", skipped)
	}
	prog.finish(msg)
	return err
}
