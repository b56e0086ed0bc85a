package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/internal/cachedir"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/llmnli"
)

// llmFlags configure the LLM stages: the endpoint (as OpenAI's clients take
// it from OPENAI_BASE_URL and OPENAI_API_KEY, flags overriding), the NLI
// prompt, the atomizer and the reviser.
func llmFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "llm-base-url", EnvVars: []string{"OPENAI_BASE_URL"}, Value: llm.DefaultBaseURL,
			Usage: "OpenAI-compatible API root, /v1 included (vLLM: http://localhost:8000/v1, Ollama: http://localhost:11434/v1)"},
		&cli.StringFlag{Name: "llm-api-key", EnvVars: []string{"OPENAI_API_KEY"}, DefaultText: "none",
			Usage: "API key; prefer the environment variable (a flag shows in the process list)"},
		&cli.StringFlag{Name: "llm-model", Usage: "model name at the endpoint, e.g. gpt-4o-mini (required by the LLM stages)"},
		&cli.IntFlag{Name: "llm-concurrency", Value: 4, Usage: "most LLM requests in flight at once"},
		&cli.DurationFlag{Name: "llm-timeout", Value: 2 * time.Minute, Usage: "time limit of one LLM request attempt"},
		&cli.IntFlag{Name: "llm-retries", Value: 5, Usage: "retries of a request after a rate limit (429), server error (5xx), timeout or network error"},
		&cli.IntFlag{Name: "llm-seed", Value: 42, Usage: "seed sent with every request (temperature is always 0)"},
		&cli.IntFlag{Name: "llm-reask", Value: 2, Usage: "times an answer that cannot be read is asked again, with a reminder of the format, before the record fails"},
		&cli.StringFlag{Name: "llm-cache", DefaultText: "llm-answers.sqlite in the cache directory",
			Usage: "SQLite file of LLM answers reused by later runs; off disables (cache directory: $FACTREASONER_CACHE, else ~/.cache/factreasoner-go)"},
		&cli.StringFlag{Name: "nli-prompt", Value: "v1", Usage: "prompt of --nli llm: v1 (bare label; p from its tokens) or v2 (reasoning, then [label]; p from the label's tokens)"},
		&cli.Float64Flag{Name: "nli-fixed-probability", Value: llmnli.DefaultFixedProbability,
			Usage: "probability of an --nli llm label whose answer came without log probabilities (above 0.5, below 1); 0 makes such an answer an error"},
		&cli.StringFlag{Name: "atomizer", Usage: "how records without atoms get them: llm or sentences (one atom per sentence, no model)"},
		&cli.BoolFlag{Name: "revise", Value: true, DefaultText: "true with --atomizer llm, false with sentences",
			Usage: "rewrite each atom with the LLM so that it stands alone (one request per atom)"},
	}
}

// llmRun holds the LLM stages of one run, so that the NLI backend, the
// atomizer and the reviser share one client (one concurrency limit, one
// cache, one usage count) and the summary can report on all of them.
type llmRun struct {
	client     *llm.Client
	classifier *llmnli.Classifier
	atomizer   *atomize.LLM
	reviser    *atomize.LLMReviser
}

const llmRunKey = "llm-run"

// llmState returns the run's LLM state, kept in the app's metadata.
func llmState(c *cli.Context) *llmRun {
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	r, ok := c.App.Metadata[llmRunKey].(*llmRun)
	if !ok {
		r = &llmRun{}
		c.App.Metadata[llmRunKey] = r
	}
	return r
}

// llmClient returns the run's client, making it on first use.
func llmClient(c *cli.Context) (*llm.Client, error) {
	run := llmState(c)
	if run.client != nil {
		return run.client, nil
	}
	model := c.String("llm-model")
	if strings.TrimSpace(model) == "" {
		return nil, fmt.Errorf("--llm-model is required by the LLM stages: the model name at the endpoint %s, e.g. gpt-4o-mini (see the README, \"Using an LLM endpoint\")", c.String("llm-base-url"))
	}
	cachePath := c.String("llm-cache")
	switch strings.ToLower(cachePath) {
	case "off", "none":
		cachePath = ""
	case "":
		p, err := cachedir.Path("llm-answers.sqlite")
		if err != nil {
			return nil, fmt.Errorf("--llm-cache: %w", err)
		}
		cachePath = p
	}
	client, err := llm.New(llm.Config{
		BaseURL:     c.String("llm-base-url"),
		APIKey:      c.String("llm-api-key"),
		Model:       model,
		Seed:        c.Int("llm-seed"),
		Concurrency: c.Int("llm-concurrency"),
		Timeout:     c.Duration("llm-timeout"),
		Retries:     c.Int("llm-retries"),
		Reasks:      c.Int("llm-reask"),
		CachePath:   cachePath,
		Retrying: func(err error, attempt int, wait time.Duration) {
			fmt.Fprintf(c.App.ErrWriter, "fr: %v; attempt %d failed, retrying in %v\n", err, attempt, wait.Round(time.Millisecond))
		},
	})
	if err != nil {
		return nil, err
	}
	run.client = client
	return client, nil
}

// newLLMClassifier returns the llm NLI backend the flags describe.
func newLLMClassifier(c *cli.Context) (nli.Classifier, error) {
	prompt, err := llmnli.ParsePrompt(c.String("nli-prompt"))
	if err != nil {
		return nil, fmt.Errorf("--nli-prompt: %w", err)
	}
	client, err := llmClient(c)
	if err != nil {
		return nil, err
	}
	fixed := c.Float64("nli-fixed-probability")
	if fixed == 0 {
		fixed = -1 // no fixed probability: answers without log probabilities are errors
	}
	cl, err := llmnli.New(client, llmnli.Options{Prompt: prompt, FixedProbability: fixed})
	if err != nil {
		return nil, fmt.Errorf("--nli-fixed-probability: %w", err)
	}
	run := llmState(c)
	run.classifier = cl
	return cl, nil
}

// newAtomizer returns the atomizer the flags describe, and the reviser when
// revising; both nil when no --atomizer is given.
func newAtomizer(c *cli.Context) (atomize.Atomizer, atomize.Reviser, error) {
	name := c.String("atomizer")
	revise := c.Bool("revise")
	var a atomize.Atomizer
	switch name {
	case "":
		return nil, nil, nil
	case "sentences":
		a = atomize.Sentences{}
		if !c.IsSet("revise") {
			revise = false
		}
	case "llm":
		client, err := llmClient(c)
		if err != nil {
			return nil, nil, err
		}
		llmState(c).atomizer = atomize.NewLLM(client)
		a = llmState(c).atomizer
	default:
		return nil, nil, fmt.Errorf("--atomizer: unknown atomizer %q (want llm or sentences)", name)
	}
	if !revise {
		return a, nil, nil
	}
	client, err := llmClient(c)
	if err != nil {
		return nil, nil, fmt.Errorf("--revise: %w", err)
	}
	llmState(c).reviser = atomize.NewLLMReviser(client)
	return a, llmState(c).reviser, nil
}

// finishLLM prints the run summary of the LLM stages on stderr (token
// usage, answers without a valid label, revisions kept) and closes the
// client's cache. It does nothing when no LLM stage was configured.
func finishLLM(c *cli.Context) error {
	run := llmState(c)
	if run.client == nil {
		return nil
	}
	w := c.App.ErrWriter
	fmt.Fprintf(w, "fr: llm %s at %s: %s\n", run.client.Model(), run.client.Endpoint(), run.client.Usage())
	if run.classifier != nil {
		fmt.Fprintf(w, "fr: llm nli: %s\n", run.classifier.Stats())
	}
	if run.atomizer != nil {
		fmt.Fprintf(w, "fr: llm atomizer: %s\n", run.atomizer.Stats())
	}
	if run.reviser != nil {
		fmt.Fprintf(w, "fr: llm reviser: %s\n", run.reviser.Stats())
	}
	err := run.client.Close()
	run.client = nil
	return err
}

// closeLLM closes the client's cache without a summary, for runs that stop
// before they start.
func closeLLM(c *cli.Context) error {
	run := llmState(c)
	if run.client == nil {
		return nil
	}
	err := run.client.Close()
	run.client = nil
	return err
}
