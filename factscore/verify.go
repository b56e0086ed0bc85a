package factscore

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

// Claim is one atom to verify with its evidence.
type Claim struct {
	ID       string
	Text     string
	Evidence []instance.Context // best first
}

// Decision is a verifier's verdict on a claim.
type Decision struct {
	ID        string `json:"id"`
	Atom      string `json:"atom"`
	Supported bool   `json:"supported"`
	// NoEvidence marks a claim that had no passages: it is not supported,
	// and no verifier was asked.
	NoEvidence bool `json:"no_evidence,omitempty"`
	// Answer is the LLM's answer (LLM verifier).
	Answer string `json:"answer,omitempty"`
	// Entailment is the highest probability of entailment over the
	// evidence, and Context the context that gave it (NLI verifier).
	Entailment *float64 `json:"entailment,omitempty"`
	Context    string   `json:"context,omitempty"`
	// Label is the claim's gold label, when known (set by callers).
	Label string `json:"label,omitempty"`
	// Verdict is a three-label verifier's reading of the answer
	// (LabelVerifier: VeriScore's and FactVerify's prompts): VerdictS
	// (supported), VerdictC (contradicted) or VerdictU (neither:
	// unverifiable, inconclusive). Supported is Verdict == VerdictS.
	Verdict string `json:"verdict,omitempty"`
}

// The verdicts of a three-label verifier, as FactReasoner's baselines
// name them in their predictions.
const (
	VerdictS = "S"
	VerdictC = "C"
	VerdictU = "U"
)

// Verifier decides which claims about a topic are supported by their
// evidence. It returns one decision per claim, in order.
type Verifier interface {
	Verify(ctx context.Context, topic string, claims []Claim) ([]Decision, error)
	// Name names the verifier and its model for output records.
	Name() string
}

// Generator is a language model: it completes a prompt (FActScore asks at
// temperature 0 and reads the text of the answer).
type Generator interface {
	Generate(ctx context.Context, prompt string) (string, error)
}

// LLMVerifier verifies each claim by asking a language model FActScore's
// question (Prompt) and reading its answer with ReadVerdict.
//
// When the Generator can also take an llm.Request (an *llm.Client can), an
// answer ReadVerdict refuses is asked again with a reminder, as often as
// the client's llm.Config.Reasks allows, and is never cached; otherwise it
// is reported at once. Either way it ends as an *llm.UnreadableAnswerError,
// never as a verdict. An LLMVerifier must not be copied after first use.
type LLMVerifier struct {
	Generator Generator
	Model     string // the model's name, for output records

	answers, reasks, unreadable atomic.Int64
}

// Name implements Verifier.
func (v *LLMVerifier) Name() string { return "llm:" + v.Model }

// Verify implements Verifier. The topic is required: the prompt asks about
// it.
func (v *LLMVerifier) Verify(ctx context.Context, topic string, claims []Claim) ([]Decision, error) {
	if topic == "" {
		return nil, fmt.Errorf("no topic: the FActScore prompt asks about the record's topic")
	}
	out := make([]Decision, len(claims))
	for i, c := range claims {
		out[i] = Decision{ID: c.ID, Atom: c.Text}
		if len(c.Evidence) == 0 {
			out[i].NoEvidence = true
			continue
		}
		answer, err := v.ask(ctx, c.ID, Prompt(topic, c.Text, passages(c.Evidence)))
		if err != nil {
			if llmanswer.CountUnreadable(err, &v.reasks, &v.unreadable) {
				return nil, err
			}
			return nil, fmt.Errorf("atom %s: %w", c.ID, err)
		}
		out[i].Answer = answer
		out[i].Supported, _ = ReadVerdict(answer) // ask read it
		v.answers.Add(1)
	}
	return out, nil
}

// completer is a Generator that also takes an llm.Request, and with it a
// check of the answer before it is returned or cached: *llm.Client.
type completer interface {
	Complete(ctx context.Context, req llm.Request) (*llm.Response, error)
}

// verdictReminder asks again for an answer that could not be read. It
// opens as every LLM stage's reminder does (atomize.ReminderPrefix).
const verdictReminder = "Your last answer could not be read. Answer True or False."

// ask asks the verifier's question about one atom and returns an answer
// ReadVerdict reads.
func (v *LLMVerifier) ask(ctx context.Context, id, prompt string) (string, error) {
	if c, ok := v.Generator.(completer); ok {
		// The request Generate would send, so that answers cached by
		// either are shared.
		r, err := c.Complete(ctx, llm.Request{
			Messages:  []llm.Message{{Role: "user", Content: prompt}},
			MaxTokens: llm.GenerateMaxTokens,
			Read:      func(r *llm.Response) error { _, err := ReadVerdict(r.Content); return err },
			Reminder:  verdictReminder,
			Stage:     "factscore verifier",
			Item:      "atom " + id,
		})
		if err != nil {
			return "", err
		}
		v.reasks.Add(int64(r.Reasks))
		return r.Content, nil
	}
	answer, err := v.Generator.Generate(ctx, prompt)
	if err != nil {
		return "", err
	}
	if _, err := ReadVerdict(answer); err != nil {
		quote := answer
		if r := []rune(quote); len(r) > llm.QuoteLen {
			quote = string(r[:llm.QuoteLen]) + "…"
		}
		return "", &llm.UnreadableAnswerError{Stage: "factscore verifier", Item: "atom " + id, Answer: quote, Attempts: 1, Err: err}
	}
	return answer, nil
}

// ReadVerdict reads a verifier's answer by FActScore's published rule
// (ParseAnswer, docs/scores.md) once the reasoning in <think> blocks is set
// aside. An empty answer, or one that is only reasoning, is an error: it
// is no answer at all, where the published rule would find it supported.
func ReadVerdict(answer string) (bool, error) {
	text, err := llmanswer.Body(answer)
	if err != nil {
		return false, err
	}
	return ParseAnswer(text), nil
}

// VerifierStats counts an LLMVerifier's answers.
type VerifierStats struct {
	Answers    int64 // answers read, one per atom with evidence
	Reasks     int64 // re-asks for the answers counted here (llm.Usage also counts those of requests canceled when another failed)
	Unreadable int64 // atoms whose answer stayed unreadable
}

func (s VerifierStats) String() string {
	return fmt.Sprintf("%d answers; %d re-asks, %d answers unreadable after re-asking", s.Answers, s.Reasks, s.Unreadable)
}

// Stats returns the counts so far.
func (v *LLMVerifier) Stats() VerifierStats {
	return VerifierStats{Answers: v.answers.Load(), Reasks: v.reasks.Load(), Unreadable: v.unreadable.Load()}
}

// passages turns contexts into the prompt's passages; a context without
// text (a web search result) shows its snippet.
func passages(cs []instance.Context) []retrieve.Passage {
	ps := make([]retrieve.Passage, len(cs))
	for i, c := range cs {
		text := c.Text
		if text == "" {
			text = c.Snippet
		}
		ps[i] = retrieve.Passage{Title: c.Title, Text: text}
	}
	return ps
}

// DefaultThreshold is the NLI verifier's default: a claim is supported when
// some passage entails it with probability above one half, that is, when
// entailment is the more likely reading of some passage.
const DefaultThreshold = 0.5

// NLIVerifier verifies claims with an NLI model: a claim is supported iff
// some passage (premise) entails it (hypothesis) with probability above
// Threshold. The probability of entailment is the model's distribution's
// entailment entry when it gives one, else its probability when its label
// is entailment, else 0.
type NLIVerifier struct {
	Classifier nli.Classifier
	Threshold  float64
}

// Name implements Verifier.
func (v *NLIVerifier) Name() string { return "nli:" + v.Classifier.Identity().String() }

// Verify implements Verifier: all pairs of a response go to the classifier
// in one call.
func (v *NLIVerifier) Verify(ctx context.Context, topic string, claims []Claim) ([]Decision, error) {
	var pairs []nli.Pair
	for _, c := range claims {
		for _, e := range c.Evidence {
			pairs = append(pairs, nli.Pair{PremiseID: e.ID, HypothesisID: c.ID, Premise: e.NLIText(), Hypothesis: c.Text})
		}
	}
	var results []nli.Result
	if len(pairs) > 0 {
		var err error
		if results, err = v.Classifier.Classify(ctx, pairs); err != nil {
			return nil, err
		}
		if len(results) != len(pairs) {
			return nil, fmt.Errorf("NLI %s gave %d results for %d pairs", v.Classifier.Identity(), len(results), len(pairs))
		}
	}
	k := 0 // results are in the order decide asks for them
	return decide(claims, v.Threshold, func(Claim, instance.Context) float64 {
		k++
		return entailment(results[k-1])
	}), nil
}

// decide makes each claim's decision from its best-entailed passage:
// entailed(c, e) is the probability that passage e entails claim c, asked
// for claim by claim and passage by passage in order. A claim is supported
// when the best exceeds threshold.
func decide(claims []Claim, threshold float64, entailed func(Claim, instance.Context) float64) []Decision {
	out := make([]Decision, len(claims))
	for i, c := range claims {
		out[i] = Decision{ID: c.ID, Atom: c.Text}
		if len(c.Evidence) == 0 {
			out[i].NoEvidence = true
			continue
		}
		best, bestCtx := -1.0, ""
		for _, e := range c.Evidence {
			if p := entailed(c, e); p > best {
				best, bestCtx = p, e.ID
			}
		}
		out[i].Entailment = &best
		out[i].Context = bestCtx
		out[i].Supported = best > threshold
	}
	return out
}

// RelationVerifier verifies claims with relations computed elsewhere (a
// record's own "relations"): a claim is supported iff an entailment or
// equivalence relation from one of its passages has probability above
// Threshold. It decides as NLIVerifier would with a model that answered
// those relations, and neutral for every other pair.
type RelationVerifier struct {
	// Relation returns the relation from a context to an atom, if any.
	Relation  func(contextID, atomID string) (graph.Relation, bool)
	Threshold float64
}

// Name implements Verifier.
func (v *RelationVerifier) Name() string { return "nli:given" }

// Verify implements Verifier.
func (v *RelationVerifier) Verify(ctx context.Context, topic string, claims []Claim) ([]Decision, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return decide(claims, v.Threshold, func(c Claim, e instance.Context) float64 {
		if r, ok := v.Relation(e.ID, c.ID); ok && (r.Type == graph.Entailment || r.Type == graph.Equivalence) {
			return r.Probability
		}
		return 0
	}), nil
}

// entailment is a result's probability of entailment.
func entailment(r nli.Result) float64 {
	if int(nli.Entailment) < len(r.Distribution) {
		return r.Distribution[nli.Entailment]
	}
	if r.Label == nli.Entailment {
		return r.Probability
	}
	return 0
}

// Claims are the claims of a record: each atom with the contexts it lists,
// in order (the retriever's rank, best first).
func Claims(in *instance.Instance) []Claim {
	byID := make(map[string]instance.Context, len(in.Contexts))
	for _, c := range in.Contexts {
		byID[c.ID] = c
	}
	claims := make([]Claim, len(in.Atoms))
	for i, a := range in.Atoms {
		claims[i] = Claim{ID: a.ID, Text: a.Text}
		for _, id := range a.Contexts {
			claims[i].Evidence = append(claims[i].Evidence, byID[id])
		}
	}
	return claims
}

// Score verifies a record's atoms and scores the response. A record with
// no atoms responded with no facts (NewResult). The decisions carry the
// atoms' gold labels.
func Score(ctx context.Context, v Verifier, in *instance.Instance, gamma int) (Result, []Decision, error) {
	if len(in.Atoms) == 0 {
		return NewResult(0, 0, gamma), nil, nil
	}
	ds, err := v.Verify(ctx, in.Topic, Claims(in))
	if err != nil {
		return Result{}, nil, err
	}
	if len(ds) != len(in.Atoms) {
		return Result{}, nil, fmt.Errorf("verifier %s gave %d decisions for %d atoms", v.Name(), len(ds), len(in.Atoms))
	}
	supported := 0
	for i := range ds {
		ds[i].Label = in.Atoms[i].Label
		if ds[i].Supported {
			supported++
		}
	}
	return NewResult(supported, len(ds), gamma), ds, nil
}
