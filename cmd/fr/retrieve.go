package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/pipeline"
	"github.com/factreasoner/factreasoner-go/progress"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/retry"
)

func retrieveCommand() *cli.Command {
	return &cli.Command{
		Name:      "retrieve",
		Usage:     "find contexts for the atoms of each record",
		ArgsUsage: "INPUT",
		Description: "For every atom that lists no contexts, retrieves up to --k passages from the knowledge\n" +
			"sources and adds them as contexts c_<atom>_<rank> (rank 0 = best). Writes FactReasoner jsonl,\n" +
			"one record per input record in input order, to stdout or -o OUT.\n\n" +
			"Sources (--source, several at once as db,wikipedia,serper, merged in that order without\n" +
			"duplicates): db, a knowledge base --db KB.db in FActScore's format (the record's topic is\n" +
			"looked up by exact title, its passages ranked by BM25 for topic + \" \" + atom, as FActScore);\n" +
			"wikipedia, the live Wikipedia API (a search for the atom, then the top pages' plain text, cut\n" +
			"to 4000 characters, as FactReasoner); serper, Google results through the Serper API\n" +
			"($SERPER_API_KEY; title, link and snippet, as FactReasoner's web retrieval); searxng, a\n" +
			"SearXNG instance's JSON API (--searxng-url). --fetch-pages adds the main text of each web\n" +
			"result's page, cut to 4000 characters around the passage that best matches the atom." +
			examples(
				"# Passages of a local knowledge base (fr kb build makes one).",
				"fr retrieve --db kb.db -o contexts.jsonl atoms.jsonl",
				"# Three Wikipedia passages per atom.",
				"fr retrieve --source wikipedia --k 3 -o contexts.jsonl atoms.jsonl",
			),
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "k", Value: 3, Category: catRetrieval, Usage: "passages per atom (FactReasoner: 3; FActScore: 5)"},
			queryContextsFlag("k"),
			&cli.IntFlag{Name: "retries", Value: retry.DefaultRetries, Category: catRetrieval, Usage: "retries of an HTTP request after a 429, a 5xx, a timeout or a dropped connection"},
			firstByteFlag(catRetrieval),
		}, append(outputFlags(), append(retrieverFlags(), llmEndpointFlags()...)...)...),
		Action: runRetrieve,
	}
}

// retrieverFlags are the knowledge-source flags shared by the commands that
// retrieve (retrieve, factscore, score). Each command has its own flag for
// the number of passages per atom.
func retrieverFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "db", Category: catRetrieval, Usage: "knowledge base `KB.db` in FActScore's SQLite format (fr kb build makes one)"},
		&cli.StringFlag{Name: "source", Value: "auto", Category: catRetrieval, Usage: "knowledge sources, comma-separated: " +
			tableNames(pipeline.RetrievalSources(), func(s pipeline.RetrievalSource) string { return s.Name }) + "; auto or none"},
		&cli.StringFlag{Name: "k-per-source", Category: catRetrieval, Usage: "passages per atom of single sources, as `serper=5,wikipedia=3` (the others take the command's k)"},
		&cli.StringFlag{Name: "web-query", Value: "atom", Category: catWeb, Usage: "query of the web sources: atom (as FactReasoner) or topic, for topic + atom (as FActScore)"},
		&cli.StringFlag{Name: "wikipedia-endpoint", Value: retrieve.DefaultWikipediaEndpoint, Category: catWeb, Usage: "MediaWiki api.php URL for --source wikipedia"},
		&cli.StringFlag{Name: "wikipedia-user-agent", DefaultText: "factreasoner-go/VERSION (project URL)", Category: catWeb,
			Usage: "User-Agent for Wikipedia, with your contact as Wikimedia asks"},
		&cli.DurationFlag{Name: "wikipedia-interval", Value: retrieve.DefaultMinInterval, Category: catWeb, Usage: "least time between two Wikipedia requests"},
		&cli.StringFlag{Name: "serper-endpoint", Value: retrieve.DefaultSerperEndpoint, Category: catWeb, Usage: "Serper search URL for --source serper (the key is read from $" + retrieve.SerperKeyEnv + ")"},
		&cli.StringFlag{Name: "searxng-url", Category: catWeb, Usage: "SearXNG instance for --source searxng, as `http://localhost:8888`"},
		&cli.BoolFlag{Name: "fetch-pages", Category: catWeb, Usage: "use the main text of each serper or searxng result's page (robots.txt honoured)"},
		&cli.DurationFlag{Name: "page-timeout", Value: retrieve.DefaultPageTimeout, Category: catWeb, Usage: "time limit of one page with --fetch-pages"},
		&cli.DurationFlag{Name: "fetch-budget", Value: retrieve.DefaultFetchBudget, Category: catWeb, Usage: "time limit of all the pages of one search with --fetch-pages"},
		&cli.BoolFlag{Name: "fetch-private", Category: catWeb, Usage: "let --fetch-pages read pages on loopback and private network addresses (refused by default)"},
		&cli.StringFlag{Name: "retrieval-cache", Value: "auto", Category: catRetrieval, Usage: "retrieval results reused by later runs: an SQLite `FILE`, auto or off"},
		&cli.StringFlag{Name: "missing-topic", Value: "error", Category: catRetrieval, Usage: "a record whose topic is no title of the knowledge base: error (as FActScore) or skip"},
		&cli.StringFlag{Name: "kb-scope", Value: "topic", Category: catRetrieval, Usage: "passages of --db searched: topic (the topic's document, or all without topic) or corpus"},
		&cli.StringFlag{Name: "retrieval", Value: "bm25", Category: catRetrieval, Usage: "ranking of a search of every passage of --db: bm25, dense or hybrid"},
		&cli.StringFlag{Name: "embed-endpoint", EnvVars: []string{"OPENAI_BASE_URL"}, Value: llm.DefaultBaseURL, Category: catRetrieval,
			Usage: "API root, /v1 included, whose /embeddings embeds the queries of --retrieval dense or hybrid"},
		&cli.StringFlag{Name: "embed-model", DefaultText: "the knowledge base's", Category: catRetrieval, Usage: "embedding model of the queries; another than the knowledge base's is refused"},
		&cli.BoolFlag{Name: "query-builder", Category: catRetrieval, Usage: "the LLM (--llm-model) writes each atom's search queries, which every source is searched with"},
		&cli.StringFlag{Name: "source-priors", Category: catRetrieval, Usage: "`FILE` of context priors by web domain or knowledge base title"},
	}
}

// queryContextsFlag is the flag of the number of passages retrieved for the
// question, by default the command's flag for passages per atom (kFlag),
// as FactReasoner.
func queryContextsFlag(kFlag string) cli.Flag {
	return &cli.IntFlag{Name: "query-contexts", DefaultText: "--" + kFlag, Category: catRetrieval,
		Usage: "passages retrieved for the record's question, as contexts of every atom (0: none)"}
}

// retrievalOptions maps the flags of retrieverFlags, and the command's
// flag for passages per atom (kFlag), to the pipeline's options.
func retrievalOptions(c *cli.Context, kFlag string) (pipeline.RetrievalOptions, error) {
	o := pipeline.RetrievalOptions{
		Source: c.String("source"),
		DB:     c.String("db"),
		Wikipedia: pipeline.WikipediaOptions{
			Endpoint:    c.String("wikipedia-endpoint"),
			UserAgent:   c.String("wikipedia-user-agent"),
			MinInterval: c.Duration("wikipedia-interval"),
		},
		Serper:  pipeline.SerperOptions{Endpoint: c.String("serper-endpoint")},
		SearXNG: pipeline.SearXNGOptions{URL: c.String("searxng-url")},
		Pages: pipeline.PageOptions{
			Fetch:        c.Bool("fetch-pages"),
			Timeout:      c.Duration("page-timeout"),
			Budget:       c.Duration("fetch-budget"),
			AllowPrivate: c.Bool("fetch-private"),
		},
		Query:        c.String("web-query"),
		TopK:         c.Int(kFlag),
		Scope:        c.String("kb-scope"),
		Ranking:      c.String("retrieval"),
		Embed:        pipeline.EmbedOptions{BaseURL: c.String("embed-endpoint"), Model: c.String("embed-model")},
		QueryBuilder: c.Bool("query-builder"),
		SourcePriors: c.String("source-priors"),
	}
	if o.TopK < 1 {
		return o, usagef("--%s %d: want at least 1", kFlag, o.TopK)
	}
	if c.IsSet("query-contexts") {
		switch q := c.Int("query-contexts"); {
		case q == 0:
			o.QueryContexts = pipeline.NoQueryContexts
		case q > 0:
			o.QueryContexts = q
		default:
			return o, usagef("--query-contexts %d: want 0 or more", q)
		}
	}
	if o.Pages.Timeout <= 0 || o.Pages.Budget <= 0 {
		return o, usagef("--page-timeout and --fetch-budget: want durations above 0")
	}
	var err error
	if o.KPerSource, err = pipeline.ParseKPerSource(c.String("k-per-source")); err != nil {
		return o, usagef("--k-per-source: %w", err)
	}
	switch p := c.String("missing-topic"); p {
	case "error":
	case "skip":
		o.SkipMissingTopics = true
	default:
		return o, usagef("--missing-topic: %q is not error or skip", p)
	}
	return o, nil
}

func runRetrieve(c *cli.Context) (err error) {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	o := llmOptions(c) // the endpoint of --query-builder; retryPolicy's retries
	o.NLI = pipeline.NLIOptions{Backend: "given"}
	if o.Retrieval, err = retrievalOptions(c, "k"); err != nil {
		return err
	}
	o.Caches.Retrieval = c.String("retrieval-cache")
	if err := notAnInput("-o", c.String("output"), input); err != nil {
		return err // before the retriever's caches are opened
	}
	p, err := pipeline.Open(c.Context, o)
	if err != nil {
		return err
	}
	atOnce := false
	defer func() { closeRun(c, p, atOnce) }()
	if p.Retriever == nil {
		return usagef("retrieve: no knowledge source (give --db KB.db, or --source wikipedia, serper or searxng)")
	}
	out, closeOut, err := openOutput(c, input)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeOut(err)) }()
	prog := progress.New(c.App.ErrWriter, "fr retrieve")
	st, err := p.RetrieveFile(c.Context, input, out, pipeline.FileOptions{Progress: showProgress(prog)})
	err = withFormatHint(err, input, formatFactReasoner, formatScored)
	msg := fmt.Sprintf("%d records, contexts retrieved for %d atoms", st.Records, st.Atoms)
	if st.NoAtoms > 0 {
		msg += fmt.Sprintf("; %d records without atoms passed through (atomize them first)", st.NoAtoms)
	}
	if st.MissingTopics > 0 {
		msg += fmt.Sprintf("; %d records' topics not found, left without contexts", st.MissingTopics)
	}
	atOnce = endedAtOnce(err, st.Atoms)
	finishRun(prog, msg, nil, atOnce)
	return err
}

// llmEndpointFlags are the flags of the LLM endpoint (llmFlags' --llm-*)
// and --prompts, for a command whose only LLM stage is the query builder.
func llmEndpointFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range llmFlags() {
		if strings.HasPrefix(f.Names()[0], "llm-") || f.Names()[0] == "prompts" {
			out = append(out, f)
		}
	}
	return out
}
