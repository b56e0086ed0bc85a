package summarize

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/prompts"
)

// Pair is one summary to write: a context with respect to a reference,
// the text of the atom it was retrieved for, or the question for a query
// context.
type Pair struct {
	// ContextID and RefID name the pair in errors: a context id, and an
	// atom id or "question".
	ContextID, RefID string
	// Context is the context's text (its NLI text, snippet and text
	// together); Reference the atom's text or the question.
	Context, Reference string
}

// Summary is what the model wrote about one pair.
type Summary struct {
	// Text is the summary as read from the answer (ReadSummary); "" when
	// the answer was None.
	Text string
	// Relevant reports a summary that says something about the reference
	// (not None, and Relevant(Text)). Only a relevant summary keeps its
	// context.
	Relevant bool
	// Probability is p_summary, exp(mean log probability of the tokens
	// that spell Text), or the fixed probability for an answer without
	// log probabilities. It is NaN for a summary that is not relevant:
	// nothing uses it.
	Probability float64
}

// DefaultFixedProbability is p_summary for a relevant summary whose answer
// came without log probabilities (a server that does not return them). It
// is the NLI stage's fixed probability (llmnli.DefaultFixedProbability),
// and near what summaries measure: IBM's recorded run has p_summary from
// 0.53 to 0.99, a median of 0.87 (the context priors of
// reference_factreasoner_output.json, divided by 0.9).
const DefaultFixedProbability = 0.9

// Options adjust an LLM summarizer.
type Options struct {
	// Method is how p_summary is measured: from the log probabilities of
	// the summary's tokens where the answer has them, and otherwise from
	// samples (llm.Auto, the zero value); always from samples
	// (llm.Sample); from log probabilities only (llm.Logprobs: an answer
	// without them is an error); or from them and else FixedProbability
	// (llm.Fixed). Sampling asks Samples more answers at temperature
	// llm.SampleTemperature, and p_summary is the share of them that are
	// relevant summaries (llm.SampleShare): how sure the model is that the
	// context says something about the atom. The summary's text, and
	// whether its context is kept, are always the temperature-0 answer's.
	Method llm.Method
	// Samples is the number of answers sampled (llm.Auto, llm.Sample); 0
	// means llm.DefaultSamples.
	Samples int
	// FixedProbability is llm.Fixed's p_summary for a relevant summary
	// whose answer came without log probabilities for it. Zero means
	// DefaultFixedProbability; a negative value makes such an answer an
	// error instead. Otherwise it must be in (0, 1]. Other methods take
	// none.
	FixedProbability float64
	// Log is told, once, when llm.Auto first samples because the endpoint
	// returned no log probabilities.
	Log io.Writer
	// Template, when set, is another system's prompt sent in place of
	// this package's, as one user message: a template of the atom and the
	// context ({{atom_text}}, {{context}}, as FactReasoner's).
	Template *prompts.Template
}

// LLM is FactReasoner's context summarizer over a chat model. It asks, for
// each pair, for a summary of what the context says about the reference,
// or None, and reads the answer with ReadSummary; an answer it cannot read
// is asked again with a reminder, as often as the client's Config.Reasks
// allows, and then is an *llm.UnreadableAnswerError, never cached and
// never taken as None. It is safe for concurrent use.
type LLM struct {
	client   *llm.Client
	rule     llmanswer.Rule
	method   llm.Method
	samples  int
	fixed    float64 // negative: an error
	template *prompts.Template
	log      io.Writer
	told     sync.Once

	answers, relevant, none, irrelevant, fromLogprobs, fixedRule, sampled, drawn, reasks, unreadable atomic.Int64
}

// NewLLM returns a summarizer asking client's model as opts say.
func NewLLM(client *llm.Client, opts Options) (*LLM, error) {
	rule, err := llmanswer.NewRule("summarize.Options", opts.Method, opts.Samples, opts.FixedProbability, DefaultFixedProbability,
		func(p float64) bool { return p > 0 && p <= 1 }, "in (0, 1]")
	if err != nil {
		return nil, fmt.Errorf("summarize: %w", err)
	}
	if t := opts.Template; t != nil {
		if _, err := t.Fill(map[string]string{"atom_text": "", "context": ""}); err != nil {
			return nil, fmt.Errorf("summarize: %w", err)
		}
	}
	s := &LLM{client: client, rule: rule, method: rule.Method, samples: rule.Samples, fixed: rule.Fixed, template: opts.Template, log: opts.Log}
	if s.log == nil {
		s.log = io.Discard
	}
	return s, nil
}

// Name names the summarizer for output records: the model, and the rule
// for answers without log probabilities when it is not the default (a
// record's priors depend on it).
func (s *LLM) Name() string {
	var notes []string
	if s.template != nil {
		notes = append(notes, "prompt "+s.template.Name)
	}
	if r := s.rule.Name(); r != "" {
		notes = append(notes, r)
	}
	if len(notes) == 0 {
		return s.client.Model()
	}
	return s.client.Model() + " (" + strings.Join(notes, ", ") + ")"
}

// instructions are the summarizer's rules, IBM FactReasoner's
// (INSTRUCTION_WITH_REF in src/fact_reasoner/core/summarizer.py) in this
// project's words, with its own examples.
const instructions = `You summarize a CONTEXT with respect to an ATOM, a short statement, so that the ATOM can be fact-checked against your summary alone.
- If the CONTEXT gives information about the ATOM or about what it is about, write a short summary of that information: what supports the ATOM, what contradicts it, and what the CONTEXT leaves open. The ATOM may turn out true, false or unverifiable.
- Keep only the information of the CONTEXT that bears on the ATOM. Add nothing, and do not judge the ATOM.
- State the information directly: do not refer to the CONTEXT ("according to the context", "the article says").
- If the CONTEXT says nothing about the ATOM or about what it is about, answer None, and nothing else: do not explain that the CONTEXT does not mention it.
Answer with the summary alone, or None.`

var examples = []struct{ atom, context, summary string }{
	{
		atom:    "Ruth Adair was born in the spring of 1948.",
		context: "Ruth Adair (1948-2011) was an American pianist. Born in Tulsa, she studied at the American Conservatory of Music and later taught there for two decades.",
		summary: "Ruth Adair was born in 1948, in Tulsa; the season of her birth is not given.",
	},
	{
		atom:    "The Hartwell Bridge crosses the River Thames.",
		context: "The Hartwell Bridge is a steel arch over the River Severn. It opened in 1932, when it had the longest span in Britain.",
		summary: "The Hartwell Bridge crosses the River Severn, not the Thames.",
	},
	{
		atom:    "Ruth Adair's recordings of Chopin won a Grammy.",
		context: "The Hartwell Bridge is a steel arch over the River Severn. It opened in 1932, when it had the longest span in Britain.",
		summary: "None",
	},
}

func message(reference, context string) string {
	return "ATOM: " + reference + "\n\nCONTEXT: " + context
}

const reminder = atomize.ReminderPrefix + " Answer with the summary alone, in a few sentences, or with None if the CONTEXT says nothing about the ATOM."

// maxTokens bounds an answer: a summary is a few sentences (IBM allows
// 500 new tokens).
const maxTokens = 512

// Summarize asks for the summary of every pair, as many at once as the
// client allows, and returns them in the order of pairs.
func (s *LLM) Summarize(ctx context.Context, pairs []Pair) ([]Summary, error) {
	base := []llm.Message{{Role: "system", Content: instructions}}
	for _, e := range examples {
		base = append(base,
			llm.Message{Role: "user", Content: message(e.atom, e.context)},
			llm.Message{Role: "assistant", Content: e.summary})
	}
	out := make([]Summary, len(pairs))
	err := s.client.Each(ctx, len(pairs), func(i int) llm.Request {
		return s.request(base, pairs[i])
	}, func(i int, r *llm.Response) error {
		sum, err := s.summary(ctx, base, pairs[i], r)
		if err != nil {
			return fmt.Errorf("summarizer: context %s → %s: %w", pairs[i].ContextID, pairs[i].RefID, err)
		}
		out[i] = sum
		return nil
	})
	if err != nil {
		llmanswer.CountUnreadable(err, &s.reasks, &s.unreadable)
		return nil, err
	}
	return out, nil
}

// read tells a readable answer from one that is not.
func read(r *llm.Response) error {
	if r.FinishReason == "length" {
		// Its last sentence, the one that may say "but not in summer",
		// is missing.
		return errors.New("the summary was cut off at the token limit")
	}
	_, err := ReadSummary(r.Content)
	return err
}

// request asks for the summary of a pair, after the messages of base, at
// temperature 0 with log probabilities.
func (s *LLM) request(base []llm.Message, p Pair) llm.Request {
	msgs := append(append([]llm.Message(nil), base...), llm.Message{Role: "user", Content: message(p.Reference, p.Context)})
	if s.template != nil { // Fill cannot fail: NewLLM checked the placeholders
		text, _ := s.template.Fill(map[string]string{"atom_text": p.Reference, "context": p.Context})
		msgs = []llm.Message{{Role: "user", Content: text}}
	}
	return llm.Request{
		Messages:  msgs,
		MaxTokens: maxTokens,
		Logprobs:  true,
		Read:      read,
		Reminder:  reminder,
		Stage:     "summarizer",
		Item:      fmt.Sprintf("context %s → %s", p.ContextID, p.RefID),
	}
}

// summary is the Summary of an answer Read accepted.
func (s *LLM) summary(ctx context.Context, base []llm.Message, pair Pair, r *llm.Response) (Summary, error) {
	rd, err := ReadSummary(r.Content)
	if err != nil { // Read accepted it: cannot happen
		return Summary{}, err
	}
	s.reasks.Add(int64(r.Reasks))
	s.answers.Add(1)
	out := Summary{Text: rd.Text, Probability: math.NaN()}
	switch {
	case rd.None:
		s.none.Add(1)
		return out, nil
	case !Relevant(rd.Text):
		s.irrelevant.Add(1)
		return out, nil
	}
	out.Relevant = true
	s.relevant.Add(1)
	p, _ := llmanswer.SpanProbability(r.Content, r.Tokens, rd.Start, rd.End)
	if s.method == llm.Sample || s.method == llm.Auto && math.IsNaN(p) {
		if s.method == llm.Auto {
			s.told.Do(func() {
				fmt.Fprintf(s.log, "llm summarizer: %s at %s answers without log probabilities: p_summary is the share of %d more answers at temperature %g that are relevant summaries (summarize.Options.Method)\n",
					s.client.Model(), s.client.Endpoint(), s.samples, llm.SampleTemperature)
			})
		}
		if out.Probability, err = s.sample(ctx, base, pair); err != nil {
			return Summary{}, err
		}
		return out, nil
	}
	p, fromTokens, err := llmanswer.Probability(p, s.fixed, s.client, r, "the summary")
	switch {
	case err != nil:
		return Summary{}, err
	case fromTokens:
		s.fromLogprobs.Add(1)
	default:
		s.fixedRule.Add(1)
	}
	out.Probability = p
	return out, nil
}

// sample is p_summary from samples: the share of Samples answers at a
// temperature above 0 that are relevant summaries.
func (s *LLM) sample(ctx context.Context, base []llm.Message, pair Pair) (float64, error) {
	req := s.request(base, pair)
	req.Logprobs, req.Temperature = false, llm.SampleTemperature
	rs, err := s.client.Sample(ctx, req, s.samples)
	if err != nil {
		return 0, err
	}
	k := 0
	for _, r := range rs {
		s.reasks.Add(int64(r.Reasks))
		if rd, err := ReadSummary(r.Content); err == nil && !rd.None && Relevant(rd.Text) {
			k++
		}
	}
	s.sampled.Add(1)
	s.drawn.Add(int64(len(rs)))
	return llm.SampleShare(k, len(rs)), nil
}

// Stats count an LLM summarizer's answers.
type Stats struct {
	Answers int64 // answers read, one per pair
	// Relevant summaries keep their context; None answers and Irrelevant
	// summaries (statements that the context says nothing, error pages)
	// drop it for their atom.
	Relevant, None, Irrelevant int64
	// FromLogprobs relevant summaries took p_summary from their tokens'
	// log probabilities; Fixed ones came without them and got
	// FixedProbability; Sampled ones took it from Samples answers drawn at
	// a temperature above 0.
	FromLogprobs, Fixed, Sampled, Samples int64
	// FixedProbability is the fixed rule's p_summary; negative when the
	// summarizer refuses answers without log probabilities.
	FixedProbability float64
	Reasks           int64 // re-asks for the answers counted here (llm.Usage also counts those of requests canceled when another failed)
	Unreadable       int64 // pairs whose answer stayed unreadable
}

// Stats returns the counts so far.
func (s *LLM) Stats() Stats {
	return Stats{
		Answers: s.answers.Load(), Relevant: s.relevant.Load(), None: s.none.Load(), Irrelevant: s.irrelevant.Load(),
		FromLogprobs: s.fromLogprobs.Load(), Fixed: s.fixedRule.Load(), Sampled: s.sampled.Load(), Samples: s.drawn.Load(), FixedProbability: s.fixed,
		Reasks: s.reasks.Load(), Unreadable: s.unreadable.Load(),
	}
}

func (s Stats) String() string {
	rule := llmanswer.OtherRules(s.FixedProbability, s.Fixed, s.Sampled, s.Samples)
	return fmt.Sprintf("%d answers: %d relevant summaries, %d None, %d irrelevant (no information, error pages); p_summary from token log probabilities for %d%s; %d re-asks, %d answers unreadable after re-asking",
		s.Answers, s.Relevant, s.None, s.Irrelevant, s.FromLogprobs, rule, s.Reasks, s.Unreadable)
}
