package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/hub"
	"github.com/factreasoner/factreasoner-go/internal/safefile"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
	"github.com/factreasoner/factreasoner-go/nli/nlimodel"
	"github.com/factreasoner/factreasoner-go/retry"
)

func modelsCommand() *cli.Command {
	return &cli.Command{
		Name:  "models",
		Usage: "fetch and list NLI models (ONNX cross-encoders) from a Hugging Face–compatible hub",
		Description: "Models are kept in the cache directory ($FACTREASONER_CACHE, else ~/.cache/factreasoner-go) under models/OWNER/NAME. " +
			"The hub is $HF_ENDPOINT (default https://huggingface.co). For private or gated repositories the token is $HF_TOKEN, " +
			"else the token file of `hf auth login` ($HF_TOKEN_PATH, else $HF_HOME/token, HF_HOME defaulting to ~/.cache/huggingface). " +
			"With HF_HUB_OFFLINE=1 nothing is downloaded: pull only confirms a model already pulled, or one in the Hugging Face cache " +
			"($HF_HUB_CACHE, else $HF_HOME/hub), which --nli-model REPO_ID also reads when the model is not pulled.",
		Subcommands: []*cli.Command{
			{
				Name:      "pull",
				Usage:     "download a model's ONNX graph, config and tokenizer (resumable, checked against the hub's hashes)",
				ArgsUsage: "REPO_ID",
				Description: examples(
					"# The default model of --nli auto and onnx.",
					"fr models pull Xenova/roberta-large-mnli",
				),
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "revision", Value: "main", Category: catHub, Usage: "branch, tag or commit"},
					&cli.StringFlag{Name: "onnx-file", Category: catHub, Usage: "the graph to fetch, e.g. onnx/model_quantized.onnx (default model.onnx, else onnx/model.onnx)"},
				},
				Action: modelsPull,
			},
			{
				Name:        "list",
				Usage:       "list the pulled models",
				Description: examples("fr models list"),
				Action:      modelsList,
			},
			{
				Name:      "tokenize",
				Usage:     "show the exact inputs an NLI model gets, to check them against a Python pipeline",
				ArgsUsage: "FILE",
				Description: "FILE (or - for standard input) is jsonl. A line {\"premise\": P, \"hypothesis\": H} gives every input the model gets for the pair, " +
					"in order: {\"chunks\": [{\"input_ids\", \"attention_mask\", \"token_type_ids\", \"premise_span\", \"hypothesis_span\"}, ...]} " +
					"(the spans are the premise's and hypothesis's token ranges [start, end) the chunk holds); a pair that fits the window is one chunk, " +
					"Hugging Face's tokenizer(P, H). A line {\"text\": T} gives {\"ids\", \"tokens\", \"offsets\"} of T alone, as " +
					"tokenizer(T, add_special_tokens=False) with return_offsets_mapping (offsets in characters). Only tokenizer.json and config.json are read.\n\n" +
					examples(
						"# pairs.jsonl: {\"premise\": \"Lanny Flaherty is an actor.\", \"hypothesis\": \"He acts.\"}",
						"fr models tokenize --nli-model cross-encoder/nli-deberta-v3-base pairs.jsonl",
					),
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "nli-model", DefaultText: nlimodel.Default, Category: catNLI,
						Usage: "the model: a directory, or a hub repository id (fr models pull)"},
					&cli.IntFlag{Name: "nli-max-length", Category: catNLIRuntime, Usage: "tokens per model input (0: the model's window), as fr score takes it"},
				},
				Before: withTemp,
				After:  removeTemp,
				Action: modelsTokenize,
			},
		},
	}
}

func modelsPull(c *cli.Context) error {
	if err := flagsBeforeArgs(c); err != nil {
		return err
	}
	if c.NArg() != 1 {
		return usagef("models pull: want one REPO_ID (e.g. %s), got %d arguments", nlimodel.Default, c.NArg())
	}
	repo := c.Args().First()
	store, err := nlimodel.Store()
	if err != nil {
		return err
	}
	client, err := hub.NewClientFromEnv()
	if err != nil {
		return err
	}
	// A download's attempts resume where the last one stopped, and a large
	// model takes a while: its deadline is hours, not a request's minutes.
	client.Retry = &retry.Policy{Retries: retry.DefaultRetries, MaxElapsed: 6 * time.Hour, Notify: retry.Printer(c.App.ErrWriter, "fr: ")}
	last := ""
	client.Progress = func(file string, done, total int64) {
		pct := ""
		if total > 0 {
			pct = fmt.Sprintf(" (%d%%)", done*100/total)
		}
		fmt.Fprintf(c.App.ErrWriter, "\rfr: %s: %s of %s%s   ", file, mib(done), mib(total), pct)
		last = file
	}
	m, err := nlimodel.Pull(c.Context, store, client, repo, hub.PullOptions{Revision: c.String("revision"), ONNX: c.String("onnx-file")})
	if last != "" {
		fmt.Fprintln(c.App.ErrWriter)
	}
	switch {
	case err != nil:
		return err
	case m.Cached:
		fmt.Fprintf(c.App.ErrWriter, "fr: %s at %s (%s) is in the Hugging Face cache %s; offline, nothing was downloaded or copied: --nli-model %s uses it there\n",
			m.Repo, m.Commit, m.ONNX, m.Dir, m.Name)
	default:
		fmt.Fprintf(c.App.ErrWriter, "fr: pulled %s at %s (%s, %s) into %s\n", m.Repo, m.Commit, m.ONNX, mib(m.Size), m.Dir)
	}
	fmt.Fprintln(c.App.Writer, m.Dir)
	return nil
}

func modelsList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("models list: takes no arguments, got %q (see %s --help)", c.Args().First(), c.Command.HelpName)
	}
	store, err := nlimodel.Store()
	if err != nil {
		return err
	}
	list, err := store.List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(c.App.ErrWriter, "fr: no models in %s; fetch one with fr models pull %s\n", store.Dir, nlimodel.Default)
		return nil
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "REPO\tCOMMIT\tONNX\tSIZE\tDIRECTORY")
	for _, m := range list {
		name := m.Repo
		if m.Repo == nlimodel.Default {
			name += " (default)"
		}
		commit := m.Commit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", name, commit, m.ONNX, mib(m.Size()), store.Path(m.Repo))
	}
	return w.Flush()
}

// mib formats a byte count.
func modelsTokenize(c *cli.Context) error {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	m, err := nlimodel.Resolve(c.String("nli-model"))
	if err != nil {
		return err
	}
	enc, err := crossenc.LoadEncoder(m.Dir, crossenc.EncoderOptions{MaxLength: c.Int("nli-max-length")})
	if err != nil {
		return err
	}
	f, err := safefile.OpenInput(input)
	if err != nil {
		return err
	}
	defer f.Close()
	name := c.Args().First() // not the copy of standard input or a pipe
	if name == "-" {
		name = "stdin"
	}
	return enc.TokenizeLines(c.Context, f, name, c.App.Writer)
}

func mib(n int64) string {
	if n < 0 {
		return "?"
	}
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
