// Package llmnli is the NLI backend that asks a chat model, over an
// OpenAI-compatible endpoint, whether a premise entails, contradicts or is
// neutral to a hypothesis, and takes the probability of its answer from the
// log probabilities of the answer's tokens (docs/nli.md).
//
// Two prompts: V1 asks for the bare label, and p = exp(mean log probability
// of the answer's tokens); V2 asks for brief reasoning and then the label in
// square brackets, and p = exp(mean log probability of the tokens between
// the last '[' and the ']' after it). Requests use temperature 0. Answers
// are read with ReadLabel, which also accepts the other shapes chat models
// write ("Answer: contradiction", "**Entailment**", a citation after the
// label).
//
// An answer that names no label is asked again with a reminder of the
// format, as often as the client's llm.Config.Reasks allows, and then is
// an *llm.UnreadableAnswerError. It is never taken as neutral, and never
// cached.
//
// Where the answer comes without log probabilities (Ollama's and
// Anthropic's OpenAI-compatible endpoints, many hosted reasoning models),
// the method (Options.Method) decides: by default (llm.Auto) the pair is
// asked again Samples times at temperature llm.SampleTemperature, and its
// label is the one most samples give, with the share of the samples that
// give it, corrected for their small number (llm.SampleShare), as its
// probability; llm.Sample does so for every pair; llm.Fixed gives such an
// answer a fixed probability, Options.FixedProbability
// (DefaultFixedProbability, 0.9, unless set); llm.Logprobs makes it an
// error. Stats say how many answers took their probability from which
// rule.
package llmnli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
	"github.com/factreasoner/factreasoner-go/internal/parallel"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/prompts"
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

// DefaultFixedProbability is the probability of a label read from an
// answer without log probabilities. It says "probably", not "certainly":
// labels read with their log probabilities are near 1 at temperature 0 (the
// median of the 15 relations of IBM's recorded Flaherty run is 0.9997), so
// a relation whose probability was not measured weighs less than one that
// was, and never outweighs it where two compete (FR3's two directions). It
// equals the default context prior, the trust FactReasoner puts in a
// retrieved passage.
const DefaultFixedProbability = 0.9

// Options adjust a Classifier.
type Options struct {
	Prompt Prompt // V1 when zero
	// Method is how a label's probability is measured: llm.Auto (the
	// zero value), llm.Logprobs, llm.Sample or llm.Fixed (see the package
	// comment).
	Method llm.Method
	// Samples is the number of answers sampled for a pair (llm.Auto,
	// llm.Sample); 0 means llm.DefaultSamples.
	Samples int
	// FixedProbability is llm.Fixed's probability of a label read from an
	// answer that came without log probabilities for it. Zero means
	// DefaultFixedProbability; a negative value makes such an answer an
	// error instead (as llm.Logprobs). Otherwise it must be above 0.5 (a
	// label believed less than its opposite is no evidence for it) and
	// below 1. Other methods take none.
	FixedProbability float64
	// Log is told, once, when llm.Auto first samples because the
	// endpoint returned no log probabilities.
	Log io.Writer
	// Template, when set, is another system's prompt sent in place of
	// this package's, as one user message: a template of the premise and
	// the hypothesis ({{premise_text}}, {{hypothesis_text}}), whose answer
	// Prompt reads (FactReasoner's nli-v1 and nli-v2, package prompts).
	Template *prompts.Template
}

// Classifier is the llm NLI backend. It is safe for concurrent use.
type Classifier struct {
	client   *llm.Client
	prompt   Prompt
	template *prompts.Template
	rule     llmanswer.Rule
	method   llm.Method // rule's
	samples  int        // rule's
	fixed    float64    // rule's: the fixed rule's probability; negative: an error
	log      io.Writer
	told     sync.Once

	answers, fromLogprobs, fixedRule, sampled, drawn, reasks, unreadable atomic.Int64
	byLabel                                                              [3]atomic.Int64
}

// New returns a classifier asking client's model as opts say.
func New(client *llm.Client, opts Options) (*Classifier, error) {
	p := opts.Prompt
	switch p {
	case 0:
		p = V1
	case V1, V2:
	default:
		return nil, fmt.Errorf("llmnli: unknown prompt %d", int(p))
	}
	rule, err := llmanswer.NewRule("llmnli.Options", opts.Method, opts.Samples, opts.FixedProbability, DefaultFixedProbability,
		func(p float64) bool { return p > 0.5 && p < 1 }, "above 0.5 and below 1")
	if err != nil {
		return nil, fmt.Errorf("llmnli: %w", err)
	}
	if t := opts.Template; t != nil {
		if _, err := t.Fill(map[string]string{"premise_text": "", "hypothesis_text": ""}); err != nil {
			return nil, fmt.Errorf("llmnli: %w", err)
		}
	}
	c := &Classifier{client: client, prompt: p, template: opts.Template, rule: rule, method: rule.Method, samples: rule.Samples, fixed: rule.Fixed, log: opts.Log}
	if c.log == nil {
		c.log = io.Discard
	}
	return c, nil
}

// Identity names the backend, the model and the prompt (answers to
// different prompts must not share a cache entry), and how probabilities
// are measured (a result cached under one rule must not be reused under
// another): the fixed method with the default probability, which was the
// only rule before there were others, adds nothing.
func (c *Classifier) Identity() nli.Identity {
	m := c.client.Model() + " (nli prompt " + c.prompt.String()
	if c.template != nil {
		m += ", " + c.template.Name
	}
	if r := c.rule.Name(); r != "" {
		m += ", " + r
	}
	return nli.Identity{Backend: "llm", Model: m + ")"}
}

// messages builds the conversation for one pair: the prompt's, or the
// template's one message (Fill cannot fail: New checked its placeholders).
func (c *Classifier) messages(premise, hypothesis string) []llm.Message {
	if c.template == nil {
		return c.prompt.messages(premise, hypothesis)
	}
	text, _ := c.template.Fill(map[string]string{"premise_text": premise, "hypothesis_text": hypothesis})
	return []llm.Message{{Role: "user", Content: text}}
}

// reminder asks again for an answer that named no label.
func (p Prompt) reminder() string {
	if p == V2 {
		return reminderPrefix + " End your answer with the label in square brackets: [entailment], [contradiction] or [neutral]."
	}
	return reminderPrefix + " Answer with exactly one word: entailment, contradiction or neutral."
}

// reminderPrefix opens every LLM stage's reminder (atomize.ReminderPrefix;
// this package does not import atomize).
const reminderPrefix = "Your last answer could not be read."

func (p Prompt) parse(content string, tokens []llm.Token) (Answer, error) {
	if p == V2 {
		return ParseV2(content, tokens)
	}
	return ParseV1(content, tokens)
}

// read tells a readable answer from one that is not.
func (c *Classifier) read(r *llm.Response) error {
	if c.prompt == V2 && r.FinishReason == "length" {
		// v2's label comes last: a label in reasoning cut off before its
		// end is not the answer.
		return errors.New("the answer was cut off at the token limit before its final [label]")
	}
	_, err := c.prompt.parse(r.Content, r.Tokens)
	return err
}

// request is the request about a pair: at temperature 0 with log
// probabilities, unless it samples.
func (c *Classifier) request(p nli.Pair, sample bool) llm.Request {
	r := llm.Request{
		Messages:  c.messages(p.Premise, p.Hypothesis),
		MaxTokens: c.prompt.maxTokens(),
		Logprobs:  !sample,
		Read:      c.read,
		Reminder:  c.prompt.reminder(),
		Stage:     "nli",
		Item:      "pair " + p.PremiseID + " → " + p.HypothesisID,
	}
	if sample {
		r.Temperature = llm.SampleTemperature
	}
	return r
}

// Classify asks about every pair, as many at once as the client allows.
func (c *Classifier) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	out := make([]nli.Result, len(pairs))
	var err error
	if c.method == llm.Sample {
		err = parallel.Do(ctx, len(pairs), 2*c.client.Concurrency(), func(ctx context.Context, i int) error {
			res, err := c.sample(ctx, pairs[i])
			if err != nil {
				return fmt.Errorf("nli: pair %s → %s: %w", pairs[i].PremiseID, pairs[i].HypothesisID, err)
			}
			out[i] = res
			return nil
		})
	} else {
		err = c.client.Each(ctx, len(pairs), func(i int) llm.Request { return c.request(pairs[i], false) }, func(i int, r *llm.Response) error {
			res, err := c.result(ctx, pairs[i], r)
			if err != nil {
				return fmt.Errorf("nli: pair %s → %s: %w", pairs[i].PremiseID, pairs[i].HypothesisID, err)
			}
			out[i] = res
			return nil
		})
	}
	if err != nil {
		llmanswer.CountUnreadable(err, &c.reasks, &c.unreadable)
		return nil, err
	}
	return out, nil
}

// result is the answer about pair p from the model's answer r at
// temperature 0: its label with the probability of its tokens, or, where
// they have none, with what the method says.
func (c *Classifier) result(ctx context.Context, p nli.Pair, r *llm.Response) (nli.Result, error) {
	a, err := c.prompt.parse(r.Content, r.Tokens)
	if err != nil { // Read accepted it: cannot happen
		return nli.Result{}, err
	}
	c.reasks.Add(int64(r.Reasks))
	if math.IsNaN(a.Probability) && c.method == llm.Auto {
		c.told.Do(func() {
			fmt.Fprintf(c.log, "llm nli: %s at %s answers without log probabilities: each such pair is asked %d more times at temperature %g, and its label's probability is its share of those answers (llmnli.Options.Method)\n",
				c.client.Model(), c.client.Endpoint(), c.samples, llm.SampleTemperature)
		})
		return c.sample(ctx, p)
	}
	prob, fromTokens, err := llmanswer.Probability(a.Probability, c.fixed, c.client, r, "the label")
	switch {
	case err != nil:
		return nli.Result{}, err
	case fromTokens:
		c.fromLogprobs.Add(1)
	default:
		c.fixedRule.Add(1)
	}
	c.answers.Add(1)
	c.byLabel[a.Label].Add(1)
	return nli.Result{Label: a.Label, Probability: prob}, nil
}

// sample asks about pair p Samples times at a temperature above 0: the
// label most answers give, and the share of the answers that give it
// (llm.SampleShare). A tie between the most given labels is neutral: the
// model leans neither way.
func (c *Classifier) sample(ctx context.Context, p nli.Pair) (nli.Result, error) {
	rs, err := c.client.Sample(ctx, c.request(p, true), c.samples)
	if err != nil {
		return nli.Result{}, err
	}
	var counts [3]int
	for _, r := range rs {
		a, err := c.prompt.parse(r.Content, r.Tokens)
		if err != nil { // Read accepted it: cannot happen
			return nli.Result{}, err
		}
		c.reasks.Add(int64(r.Reasks))
		counts[a.Label]++
	}
	label, top := Majority(counts)
	c.drawn.Add(int64(len(rs)))
	c.sampled.Add(1)
	c.answers.Add(1)
	c.byLabel[label].Add(1)
	return nli.Result{Label: label, Probability: llm.SampleShare(top, len(rs))}, nil
}

// Majority is the label most samples give, indexed by nli.Label in
// counts, with its count; a tie between the most given is neutral, with
// their count.
func Majority(counts [3]int) (nli.Label, int) {
	top := max(counts[0], counts[1], counts[2])
	label, n := nli.Neutral, 0
	for l, k := range counts {
		if k == top {
			label = nli.Label(l)
			n++
		}
	}
	if n > 1 {
		return nli.Neutral, top
	}
	return label, top
}

// Stats counts the answers read so far, and how.
type Stats struct {
	Answers       int64 // answers read, one per pair
	Entailment    int64
	Contradiction int64
	Neutral       int64
	// FromLogprobs answers took their probability from their tokens' log
	// probabilities (docs/nli.md); Fixed answers came without them and got
	// FixedProbability; Sampled pairs took it from Samples answers drawn at
	// a temperature above 0.
	FromLogprobs, Fixed, Sampled, Samples int64
	// FixedProbability is the fixed rule's probability; negative when the
	// classifier refuses answers without log probabilities.
	FixedProbability float64
	Reasks           int64 // re-asks for the answers counted here (llm.Usage also counts those of requests canceled when another failed)
	Unreadable       int64 // pairs whose answer stayed unreadable
}

// Stats returns the counts so far.
func (c *Classifier) Stats() Stats {
	return Stats{
		Answers:          c.answers.Load(),
		Entailment:       c.byLabel[nli.Entailment].Load(),
		Contradiction:    c.byLabel[nli.Contradiction].Load(),
		Neutral:          c.byLabel[nli.Neutral].Load(),
		FromLogprobs:     c.fromLogprobs.Load(),
		Fixed:            c.fixedRule.Load(),
		Sampled:          c.sampled.Load(),
		Samples:          c.drawn.Load(),
		FixedProbability: c.fixed,
		Reasks:           c.reasks.Load(),
		Unreadable:       c.unreadable.Load(),
	}
}

func (s Stats) String() string {
	rule := llmanswer.OtherRules(s.FixedProbability, s.Fixed, s.Sampled, s.Samples)
	return fmt.Sprintf("%d answers: %d entailment, %d contradiction, %d neutral; probability from token log probabilities for %d%s; %d re-asks, %d answers unreadable after re-asking",
		s.Answers, s.Entailment, s.Contradiction, s.Neutral, s.FromLogprobs, rule, s.Reasks, s.Unreadable)
}
