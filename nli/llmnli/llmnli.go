// Package llmnli is the NLI backend that asks a chat model, over an
// OpenAI-compatible endpoint, whether a premise entails, contradicts or is
// neutral to a hypothesis, and takes the probability of its answer from the
// log probabilities of the answer's tokens (SPEC §7).
//
// Two prompts: V1 asks for the bare label, and p = exp(mean log probability
// of the answer's tokens); V2 asks for brief reasoning and then the label in
// square brackets, and p = exp(mean log probability of the tokens between
// the last '[' and the ']' after it). Requests use temperature 0.
//
// An answer that names no valid label is taken as neutral with probability
// 0 (so that, where two directions of a pair compete, a garbled answer never
// outweighs a real one) and counted in Stats. An answer that names a label
// but comes without log probabilities for it is an error: the server does
// not return them (see the README's "Using an LLM endpoint" for servers that do), and
// a made-up probability would silently change every factor.
package llmnli

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
)

// Prompt selects the prompt and its rule for the probability.
type Prompt int

const (
	V1 Prompt = 1 + iota // bare label
	V2                   // reasoning, then [label]
)

// ParsePrompt parses "v1" or "v2".
func ParsePrompt(s string) (Prompt, error) {
	switch strings.ToLower(s) {
	case "v1", "1":
		return V1, nil
	case "v2", "2":
		return V2, nil
	}
	return 0, fmt.Errorf("unknown NLI prompt %q (want v1 or v2)", s)
}

func (p Prompt) String() string { return fmt.Sprintf("v%d", int(p)) }

// maxTokens bounds an answer's length: a label takes a few tokens, brief
// reasoning a few hundred.
func (p Prompt) maxTokens() int {
	if p == V2 {
		return 1024
	}
	return 16
}

// Classifier is the llm NLI backend. It is safe for concurrent use.
type Classifier struct {
	client *llm.Client
	prompt Prompt

	answers, noLabel atomic.Int64
	byLabel          [3]atomic.Int64
}

// New returns a classifier asking client's model with the given prompt.
func New(client *llm.Client, p Prompt) *Classifier {
	return &Classifier{client: client, prompt: p}
}

// Identity names the backend, the model and the prompt (answers to
// different prompts must not share a cache entry).
func (c *Classifier) Identity() nli.Identity {
	return nli.Identity{Backend: "llm", Model: c.client.Model() + " (nli prompt " + c.prompt.String() + ")"}
}

// Classify asks about every pair, as many at once as the client allows.
func (c *Classifier) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	out := make([]nli.Result, len(pairs))
	err := c.client.Each(ctx, len(pairs), func(i int) llm.Request {
		return llm.Request{
			Messages:  c.prompt.messages(pairs[i].Premise, pairs[i].Hypothesis),
			MaxTokens: c.prompt.maxTokens(),
			Logprobs:  true,
		}
	}, func(i int, r *llm.Response) error {
		res, err := c.result(r)
		if err != nil {
			return fmt.Errorf("pair %s → %s: %w", pairs[i].PremiseID, pairs[i].HypothesisID, err)
		}
		out[i] = res
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *Classifier) result(r *llm.Response) (nli.Result, error) {
	var a Answer
	if c.prompt == V2 {
		a = ParseV2(r.Content, r.Tokens)
	} else {
		a = ParseV1(r.Content, r.Tokens)
	}
	c.answers.Add(1)
	if !a.Valid {
		c.noLabel.Add(1)
		c.byLabel[nli.Neutral].Add(1)
		return nli.Result{Label: nli.Neutral, Probability: 0}, nil
	}
	if math.IsNaN(a.Probability) {
		what := "no token log probabilities"
		if r.Tokens != nil {
			what = "token log probabilities that do not cover the label"
		}
		return nli.Result{}, fmt.Errorf("model %s at %s answered %q with %s; the llm NLI backend needs them (logprobs: true; see the README, \"Using an LLM endpoint\", for servers that return them)",
			c.client.Model(), c.client.Endpoint(), clip(r.Content), what)
	}
	c.byLabel[a.Label].Add(1)
	return nli.Result{Label: a.Label, Probability: a.Probability}, nil
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return "…" + s[len(s)-80:]
	}
	return s
}

// Stats counts the answers parsed so far.
type Stats struct {
	Answers       int64
	Entailment    int64
	Contradiction int64
	Neutral       int64 // valid neutral answers and answers with no label
	NoLabel       int64 // answers that named no valid label
}

// Stats returns the counts so far.
func (c *Classifier) Stats() Stats {
	return Stats{
		Answers:       c.answers.Load(),
		Entailment:    c.byLabel[nli.Entailment].Load(),
		Contradiction: c.byLabel[nli.Contradiction].Load(),
		Neutral:       c.byLabel[nli.Neutral].Load(),
		NoLabel:       c.noLabel.Load(),
	}
}

func (s Stats) String() string {
	return fmt.Sprintf("%d answers: %d entailment, %d contradiction, %d neutral (%d of them named no valid label and were taken as neutral)",
		s.Answers, s.Entailment, s.Contradiction, s.Neutral, s.NoLabel)
}
