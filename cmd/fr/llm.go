package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli/llmnli"
	"github.com/factreasoner/factreasoner-go/pipeline"
	"github.com/factreasoner/factreasoner-go/prompts"
	"github.com/factreasoner/factreasoner-go/retry"
)

// llmFlags configure the LLM stages: the endpoint (as OpenAI's clients take
// it from OPENAI_BASE_URL and OPENAI_API_KEY, flags overriding), the NLI
// prompt, the atomizer and the reviser.
func llmFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "llm-base-url", EnvVars: []string{"OPENAI_BASE_URL"}, Value: llm.DefaultBaseURL, Category: catLLM,
			Usage: "OpenAI-compatible API root, /v1 included (vLLM: http://localhost:8000/v1)"},
		&cli.StringFlag{Name: "llm-api-key", EnvVars: []string{"OPENAI_API_KEY"}, DefaultText: "none", Category: catLLM,
			Usage: "API key; prefer the environment variable (a flag shows in the process list)"},
		&cli.StringFlag{Name: "llm-model", Category: catLLM, Usage: "model name at the endpoint, e.g. gpt-4o-mini (required by the LLM stages)"},
		&cli.IntFlag{Name: "llm-concurrency", Value: 4, Category: catLLM, Usage: "most LLM requests in flight at once"},
		&cli.DurationFlag{Name: "llm-timeout", Value: 2 * time.Minute, Category: catLLM, Usage: "time limit of one LLM request attempt"},
		&cli.IntFlag{Name: "retries", Aliases: []string{"llm-retries"}, Value: retry.DefaultRetries, Category: catLLM, Usage: "retries of an HTTP request after a 429, a 5xx, a timeout or a dropped connection"},
		firstByteFlag(catLLM),
		&cli.IntFlag{Name: "llm-seed", Value: 42, Category: catLLM, Usage: "seed sent with every request (temperature is always 0)"},
		&cli.IntFlag{Name: "llm-reask", Value: 2, Category: catLLM, Usage: "times an answer that cannot be read is asked again before the record fails"},
		&cli.StringFlag{Name: "llm-cache", Value: "auto", Category: catLLM,
			Usage: "LLM answers reused by later runs: an SQLite `FILE`, auto or off"},
		&cli.StringFlag{Name: "nli-prompt", Value: "v1", Category: catNLI, Usage: "prompt of --nli llm: v1 (bare label) or v2 (reasoning, then [label])"},
		&cli.StringFlag{Name: "nli-method", Value: "auto", Category: catNLI,
			Usage: "how --nli llm measures a label's probability: auto, logprobs, sample or fixed (docs/nli.md)"},
		&cli.IntFlag{Name: "nli-samples", Value: llm.DefaultSamples, Category: catNLI, Usage: "answers sampled per pair by --nli-method auto (without log probabilities) and sample"},
		&cli.StringFlag{Name: "prompts", Value: prompts.Default, Category: catLLM,
			Usage: "prompts of the LLM stages: default (fr's), factreasoner (IBM FactReasoner's), or `STAGE=SET,...`"},
		&cli.Float64Flag{Name: "nli-fixed-probability", Value: llmnli.DefaultFixedProbability, Category: catNLI,
			Usage: "--nli-method fixed's probability of an answer without log probabilities (0: an error)"},
		&cli.StringFlag{Name: "atomizer", Category: catAtoms, Usage: "how records without atoms get them: " + atomizerUsage()},
		&cli.BoolFlag{Name: "revise", Value: true, DefaultText: "true with --atomizer llm, false with sentences", Category: catAtoms,
			Usage: "rewrite each atom with the LLM so that it stands alone (one request per atom)"},
		&cli.StringFlag{Name: "abstention", Value: string(factscore.AbstentionGeneric), Category: catAtoms,
			Usage: "rule that tells a record without atoms that declines to answer: generic, perplexity_ai or none"},
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
			Secrets:     knownSecrets(c),
		},
		Retry:      retryPolicy(c),
		LLMPrompt:  c.String("nli-prompt"),
		LLMSamples: c.Int("nli-samples"),
		Prompts:    c.String("prompts"),
		Atomizer:   c.String("atomizer"),
		Abstention: factscore.Abstention(c.String("abstention")),
		Caches:     pipeline.Caches{LLM: c.String("llm-cache")},
		Log:        &prefixLines{w: c.App.ErrWriter, prefix: "fr: "},
	}
	o.LLMMethod, o.LLMFixedProbability = method(c, "nli-method", "nli-fixed-probability")
	if c.IsSet("revise") {
		o.Revise = pipeline.ReviseOff
		if c.Bool("revise") {
			o.Revise = pipeline.ReviseOn
		}
	}
	return o
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

// method maps --nli-method and --nli-fixed-probability (or the
// summarizer's) to the pipeline's options: a fixed probability given
// alone chooses the fixed method, as it did before there were others, and
// is passed only with it (the library refuses it with another); 0, which
// turns the rule off, is the library's negative value.
func method(c *cli.Context, methodFlag, fixedFlag string) (string, float64) {
	m := c.String(methodFlag)
	if c.IsSet(fixedFlag) && !c.IsSet(methodFlag) {
		m = "fixed"
	}
	if m != "fixed" && !c.IsSet(fixedFlag) {
		return m, 0
	}
	p := c.Float64(fixedFlag)
	if p == 0 {
		p = -1
	}
	return m, p
}
