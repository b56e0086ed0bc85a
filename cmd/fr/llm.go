package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/internal/cachedir"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli/llmnli"
	"github.com/factreasoner/factreasoner-go/pipeline"
	"github.com/factreasoner/factreasoner-go/retry"
	"github.com/factreasoner/factreasoner-go/sqlcache"
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
		&cli.IntFlag{Name: "retries", Aliases: []string{"llm-retries"}, Value: retry.DefaultRetries, Usage: "retries of a request after a rate limit (429), server error (5xx), timeout or dropped connection (not a refused one, nor a name that does not resolve: those fail at once), for every HTTP client of the run (LLM endpoint, remote NLI server, Wikipedia, search engines, web pages)"},
		&cli.IntFlag{Name: "llm-seed", Value: 42, Usage: "seed sent with every request (temperature is always 0)"},
		&cli.IntFlag{Name: "llm-reask", Value: 2, Usage: "times an answer that cannot be read is asked again, with a reminder of the format, before the record fails"},
		&cli.StringFlag{Name: "llm-cache", Value: "auto",
			Usage: "LLM answers reused by later runs: an SQLite `FILE`, auto (" + sqlcache.LLM.DefaultFile() + " in the cache directory, $" + cachedir.EnvVar + " else ~/.cache/factreasoner-go) or off"},
		&cli.StringFlag{Name: "nli-prompt", Value: "v1", Usage: "prompt of --nli llm: v1 (bare label; p from its tokens) or v2 (reasoning, then [label]; p from the label's tokens)"},
		&cli.Float64Flag{Name: "nli-fixed-probability", Value: llmnli.DefaultFixedProbability,
			Usage: "probability of an --nli llm label whose answer came without log probabilities (above 0.5, below 1); 0 makes such an answer an error"},
		&cli.StringFlag{Name: "atomizer", Usage: "how records without atoms get them: " + atomizerUsage()},
		&cli.BoolFlag{Name: "revise", Value: true, DefaultText: "true with --atomizer llm, false with sentences",
			Usage: "rewrite each atom with the LLM so that it stands alone (one request per atom)"},
	}
}

// llmOptions maps the flags of llmFlags to the pipeline's options: the
// endpoint, its cache, the NLI prompt, the atomizer and the reviser.
func llmOptions(c *cli.Context) pipeline.Options {
	o := pipeline.Options{
		LLM: llm.Config{
			BaseURL:     c.String("llm-base-url"),
			APIKey:      c.String("llm-api-key"),
			Model:       c.String("llm-model"),
			Seed:        c.Int("llm-seed"),
			Concurrency: c.Int("llm-concurrency"),
			Timeout:     c.Duration("llm-timeout"),
			Reasks:      c.Int("llm-reask"),
		},
		Retry:               &retry.Policy{Retries: c.Int("retries")},
		LLMPrompt:           c.String("nli-prompt"),
		LLMFixedProbability: fixedProbability(c.Float64("nli-fixed-probability")),
		Atomizer:            c.String("atomizer"),
		Caches:              pipeline.Caches{LLM: c.String("llm-cache")},
		Log:                 &prefixLines{w: c.App.ErrWriter, prefix: "fr: "},
	}
	if c.IsSet("revise") {
		o.Revise = pipeline.ReviseOff
		if c.Bool("revise") {
			o.Revise = pipeline.ReviseOn
		}
	}
	return o
}

// fixedProbability maps --nli-fixed-probability (and
// --summary-fixed-probability), where 0 turns the rule off, to the
// pipeline's option, where a negative value does.
func fixedProbability(p float64) float64 {
	if p == 0 {
		return -1
	}
	return p
}
