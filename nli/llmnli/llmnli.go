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
// An answer whose label comes without log probabilities (a server that
// does not return them) gets a fixed probability, Options.FixedProbability
// (DefaultFixedProbability, 0.9, unless set). Stats say how many answers
// took their probability from which rule.
package llmnli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
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
	// FixedProbability is the probability given to a label read from an
	// answer that came without log probabilities for it. Zero means
	// DefaultFixedProbability; a negative value makes such an answer an
	// error instead. Otherwise it must be above 0.5 (a label believed less
	// than its opposite is no evidence for it) and below 1.
	FixedProbability float64
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
	fixed    float64 // the fixed rule's probability; negative: an error

	answers, fromLogprobs, fixedRule, reasks, unreadable atomic.Int64
	byLabel                                              [3]atomic.Int64
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
	fixed := opts.FixedProbability
	switch {
	case fixed == 0:
		fixed = DefaultFixedProbability
	case fixed < 0:
		fixed = -1
	case !(fixed > 0.5 && fixed < 1):
		return nil, fmt.Errorf("llmnli: fixed probability %v is not above 0.5 and below 1", fixed)
	}
	if t := opts.Template; t != nil {
		if _, err := t.Fill(map[string]string{"premise_text": "", "hypothesis_text": ""}); err != nil {
			return nil, fmt.Errorf("llmnli: %w", err)
		}
	}
	return &Classifier{client: client, prompt: p, fixed: fixed, template: opts.Template}, nil
}

// Identity names the backend, the model and the prompt (answers to
// different prompts must not share a cache entry), and the rule for
// answers without log probabilities when it is not the default (a result
// cached under one fixed probability must not be reused under another).
func (c *Classifier) Identity() nli.Identity {
	m := c.client.Model() + " (nli prompt " + c.prompt.String()
	if c.template != nil {
		m += ", " + c.template.Name
	}
	switch {
	case c.fixed < 0:
		m += ", log probabilities required"
	case c.fixed != DefaultFixedProbability:
		m += fmt.Sprintf(", p %g without log probabilities", c.fixed)
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

// Classify asks about every pair, as many at once as the client allows.
func (c *Classifier) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	read := func(r *llm.Response) error {
		if c.prompt == V2 && r.FinishReason == "length" {
			// v2's label comes last: a label in reasoning cut off
			// before its end is not the answer.
			return errors.New("the answer was cut off at the token limit before its final [label]")
		}
		_, err := c.prompt.parse(r.Content, r.Tokens)
		return err
	}
	out := make([]nli.Result, len(pairs))
	err := c.client.Each(ctx, len(pairs), func(i int) llm.Request {
		return llm.Request{
			Messages:  c.messages(pairs[i].Premise, pairs[i].Hypothesis),
			MaxTokens: c.prompt.maxTokens(),
			Logprobs:  true,
			Read:      read,
			Reminder:  c.prompt.reminder(),
			Stage:     "nli",
			Item:      "pair " + pairs[i].PremiseID + " → " + pairs[i].HypothesisID,
		}
	}, func(i int, r *llm.Response) error {
		res, err := c.result(r)
		if err != nil {
			return fmt.Errorf("nli: pair %s → %s: %w", pairs[i].PremiseID, pairs[i].HypothesisID, err)
		}
		out[i] = res
		return nil
	})
	if err != nil {
		llmanswer.CountUnreadable(err, &c.reasks, &c.unreadable)
		return nil, err
	}
	return out, nil
}

func (c *Classifier) result(r *llm.Response) (nli.Result, error) {
	a, err := c.prompt.parse(r.Content, r.Tokens)
	if err != nil { // Read accepted it: cannot happen
		return nli.Result{}, err
	}
	c.reasks.Add(int64(r.Reasks))
	p, fromTokens, err := llmanswer.Probability(a.Probability, c.fixed, c.client, r, "the label")
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
	return nli.Result{Label: a.Label, Probability: p}, nil
}

// Stats counts the answers read so far, and how.
type Stats struct {
	Answers       int64 // answers read, one per pair
	Entailment    int64
	Contradiction int64
	Neutral       int64
	// FromLogprobs answers took their probability from their tokens' log
	// probabilities (docs/nli.md); Fixed answers came without them and got
	// FixedProbability.
	FromLogprobs, Fixed int64
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
		FixedProbability: c.fixed,
		Reasks:           c.reasks.Load(),
		Unreadable:       c.unreadable.Load(),
	}
}

func (s Stats) String() string {
	rule := fmt.Sprintf("fixed %g (no log probabilities) for %d", s.FixedProbability, s.Fixed)
	if s.FixedProbability < 0 {
		rule = "none other allowed"
	}
	return fmt.Sprintf("%d answers: %d entailment, %d contradiction, %d neutral; probability from token log probabilities for %d, %s; %d re-asks, %d answers unreadable after re-asking",
		s.Answers, s.Entailment, s.Contradiction, s.Neutral, s.FromLogprobs, rule, s.Reasks, s.Unreadable)
}
