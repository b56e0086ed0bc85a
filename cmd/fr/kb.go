package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/retry"
)

func kbCommand() *cli.Command {
	return &cli.Command{
		Name:  "kb",
		Usage: "knowledge bases in FActScore's SQLite format",
		Subcommands: []*cli.Command{{
			Name:      "build",
			Usage:     "build a knowledge base from documents",
			ArgsUsage: "DOCS...",
			Description: "Writes an SQLite file in FActScore's format, documents(title, text), the text being the\n" +
				"document's passages joined by ####SPECIAL####SEPARATOR####; fr retrieve, fr factscore and\n" +
				"fr score look documents up by the record's topic (exact title match).\n\n" +
				"DOCS are files or directories (their files, recursively, in name order):\n" +
				"  *.jsonl, *.json  one JSON object per line: {\"title\": ..., \"text\": \"...\" or [\"piece\", ...]}\n" +
				"  any other file   plain UTF-8 text; title = the file name without extension;\n" +
				"                   paragraphs (separated by blank lines) are its pieces\n" +
				"Documents with the same title are merged; repeated pieces are dropped. Passages of at\n" +
				"most --max-tokens RoBERTa tokens are filled with whole sentences; only a sentence longer\n" +
				"than a passage is cut, at word boundaries. Without --tokenizer, passages hold at most\n" +
				"3/4 as many words (192 for 256 tokens: RoBERTa averages 1.3 tokens per English word),\n" +
				"an approximation.\n\n" +
				"Beside FActScore's table, the file holds an index of every passage's words (tables kb_*),\n" +
				"which fr score and fr retrieve search for records without a topic (every record with\n" +
				"--kb-scope corpus); with --embed-model, also a vector per passage from an OpenAI-compatible\n" +
				"/v1/embeddings endpoint, for --retrieval dense or hybrid." +
				examples(
					"# A knowledge base of text files, passages sized by RoBERTa's tokenizer.",
					"fr kb build --tokenizer tokenizer.json -o kb.db articles/",
					"# The same with passage vectors from a local embeddings server (vLLM, TEI, Ollama).",
					"fr kb build --embed-model BAAI/bge-small-en-v1.5 --embed-endpoint http://localhost:8080/v1 -o kb.db articles/",
				),
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Category: catIO, Usage: "knowledge base file to write"},
				&cli.StringFlag{Name: "tokenizer", Category: catPassages, Usage: "a RoBERTa `tokenizer.json` (Hugging Face format) to size passages in tokens"},
				&cli.IntFlag{Name: "max-tokens", Value: retrieve.DefaultMaxTokens, Category: catPassages, Usage: "passage size in tokens"},
				&cli.BoolFlag{Name: "force", Category: catIO, Usage: "replace OUTPUT if it exists"},
				&cli.StringFlag{Name: "embed-model", Category: catPassages, Usage: "embedding model that embeds every passage, for fr score --retrieval dense or hybrid"},
				&cli.StringFlag{Name: "embed-endpoint", EnvVars: []string{"OPENAI_BASE_URL"}, Value: llm.DefaultBaseURL, Category: catPassages,
					Usage: "OpenAI-compatible API root, /v1 included, of --embed-model's /embeddings (key: $OPENAI_API_KEY)"},
				&cli.IntFlag{Name: "retries", Value: retry.DefaultRetries, Category: catPassages, Usage: "retries of an embeddings request after a 429, a 5xx, a timeout or a dropped connection"},
				firstByteFlag(catPassages),
			},
			Action: runKBBuild,
		}},
	}
}

func runKBBuild(c *cli.Context) error {
	if err := flagsBeforeArgs(c); err != nil {
		return err
	}
	if c.NArg() == 0 {
		return usagef("kb build: no DOCS given (see fr kb build --help)")
	}
	opts := retrieve.BuildOptions{MaxTokens: c.Int("max-tokens"), Overwrite: c.Bool("force")}
	if opts.MaxTokens < 1 {
		return usagef("--max-tokens %d: want at least 1", opts.MaxTokens)
	}
	// The documents are found (a missing file, a device refused) before
	// anything is said about the build.
	files, err := retrieve.DocumentFiles(c.Args().Slice())
	if err != nil {
		return err
	}
	if path := c.String("tokenizer"); path != "" {
		tok, err := retrieve.LoadHFTokenizer(path)
		if err != nil {
			return fmt.Errorf("--tokenizer: %w", err)
		}
		opts.Tokenizer = tok
	} else {
		fmt.Fprintf(c.App.ErrWriter, "fr kb build: no --tokenizer: passages are sized in words (at most %d), an approximation of %d RoBERTa tokens\n",
			int(float64(opts.MaxTokens)*retrieve.WordsPerToken), opts.MaxTokens)
	}
	if m := c.String("embed-model"); m != "" {
		policy := retryPolicy(c)
		policy.Notify = retry.Printer(c.App.ErrWriter, "fr kb build: ")
		client, err := llm.New(llm.Config{BaseURL: c.String("embed-endpoint"), APIKey: os.Getenv("OPENAI_API_KEY"), Model: m,
			Retry: policy, Secrets: knownSecrets(c)})
		if err != nil {
			return usagef("--embed-endpoint: %w", err)
		}
		defer client.Close()
		opts.Embedder, opts.EmbedModel = client, m
	}
	out := c.String("output")
	if err := notAnInput("-o", out, files...); err != nil {
		return err
	}
	start, last := time.Now(), time.Now()
	opts.Progress = func(p retrieve.BuildProgress) {
		if time.Since(last) < time.Second {
			return
		}
		last = time.Now()
		switch p.Stage {
		case retrieve.BuildRead:
			fmt.Fprintf(c.App.ErrWriter, "fr kb build: read %d documents (%s)\n", p.Done, p.File)
		case retrieve.BuildSplit:
			fmt.Fprintf(c.App.ErrWriter, "fr kb build: split %d of %d documents, %.1fs\n", p.Done, p.Total, time.Since(start).Seconds())
		case retrieve.BuildIndex:
			fmt.Fprintf(c.App.ErrWriter, "fr kb build: indexed %d of %d words, %.1fs\n", p.Done, p.Total, time.Since(start).Seconds())
		}
	}
	st, err := retrieve.Build(c.Context, out, files, opts)
	if errors.Is(err, os.ErrExist) {
		// Refused before any work, as every command's -o: a usage error
		// (exit status 2).
		return usagef("-o %s: the file exists; give --force to replace it, or another -o", out)
	}
	if err != nil {
		return err
	}
	embedded := ""
	if st.Embedded > 0 {
		embedded = fmt.Sprintf(", %d passages embedded by %s", st.Embedded, c.String("embed-model"))
	}
	fmt.Fprintf(c.App.ErrWriter, "fr kb build: wrote %s: %d documents, %d passages (%d pieces read, %d repeated pieces dropped, %d repeated titles merged, %d empty documents skipped); index of %d words%s; in %.1fs\n",
		out, st.Documents, st.Passages, st.Pieces, st.DuplicatePieces, st.RepeatedTitles, st.EmptyDocuments, st.Index.Terms, embedded, time.Since(start).Seconds())
	return nil
}

// firstByteFlag is --first-byte-timeout, in the given category.
func firstByteFlag(category string) cli.Flag {
	return &cli.DurationFlag{Name: "first-byte-timeout", Value: retry.DefaultFirstByte, Category: category,
		Usage: "time a server may take to start answering (0: no limit); one that says nothing is not asked again"}
}

// retryPolicy is the retry policy of --retries and --first-byte-timeout,
// which every HTTP client of the run shares.
func retryPolicy(c *cli.Context) *retry.Policy {
	p := &retry.Policy{Retries: c.Int("retries"), FirstByte: c.Duration("first-byte-timeout")}
	if p.FirstByte == 0 {
		p.FirstByte = -1 // no limit
	}
	return p
}
