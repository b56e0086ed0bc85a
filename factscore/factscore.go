// Package factscore computes FActScore (Min et al., EMNLP 2023): the share
// of a response's atomic facts that a verifier finds supported by a
// knowledge source, times a length penalty for responses with few facts,
// averaged over the responses that answered.
//
// The verification prompt and the rule that reads the verifier's answer are
// FActScore's, character for character (Prompt, ParseAnswer). Verifiers are
// an LLM (LLMVerifier, over any Generator) or an NLI model (NLIVerifier,
// over any nli.Classifier). Gold scores come from human labels
// (GoldLabeled, GoldInstance).
package factscore

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/pystr"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

// DefaultGamma is FActScore's length-penalty constant γ.
const DefaultGamma = 10

// Prompt is FActScore's verification prompt for an atom about a topic,
// given its passages best first. The passages are listed best last:
//
//	Answer the question about {topic} based on the given context.
//
//	Title: {title}
//	Text: {text}
//
//	...
//
//	Input: {atom} True or False?
//	Output:
//
// A period ends the context block when its last character is not ASCII
// punctuation. The markers <s> and </s> are removed from passage texts and
// surrounding whitespace from the whole, as in FActScore's code.
func Prompt(topic, atom string, passages []retrieve.Passage) string {
	var context strings.Builder
	for i := len(passages) - 1; i >= 0; i-- {
		p := passages[i]
		text := strings.ReplaceAll(strings.ReplaceAll(p.Text, "<s>", ""), "</s>", "")
		context.WriteString("Title: " + p.Title + "\nText: " + text + "\n\n")
	}
	definition := "Answer the question about " + topic + " based on the given context.\n\n" + pystr.Strip(context.String())
	if r := []rune(definition); !pystr.IsPunct(r[len(r)-1]) {
		definition += "."
	}
	return pystr.Strip(definition) + "\n\nInput: " + pystr.Strip(atom) + " True or False?\nOutput:"
}

// negativeKeywords make an answer that says neither "true" nor "false" a
// "not supported".
var negativeKeywords = [...]string{"not", "cannot", "unknown", "information"}

// ParseAnswer reads a verifier's answer by FActScore's rule. In lower
// case: an answer holding "true" and not "false" is supported; "false" and
// not "true", not supported. Holding both, it is supported when the LAST
// "true" comes after the last "false" (docs/scores.md). FActScore's code compares
// the first occurrences (str.index), which reads a model that echoes the
// question ("True or False? True") as not supported; the answer a model
// ends on is its verdict. Holding neither, it is supported unless one of
// the words not, cannot, unknown, information appears, as a word once
// ASCII punctuation is removed. Substrings count for "true" and "false"
// ("untrue" holds "true"), as in the original.
func ParseAnswer(answer string) bool {
	a := strings.ToLower(answer)
	t, f := strings.LastIndex(a, "true"), strings.LastIndex(a, "false")
	switch {
	case t >= 0 && f < 0:
		return true
	case f >= 0 && t < 0:
		return false
	case t >= 0 && f >= 0:
		return t > f
	}
	words := pystr.Fields(strings.Map(func(r rune) rune {
		if pystr.IsPunct(r) {
			return -1
		}
		return r
	}, a))
	for _, w := range words {
		for _, k := range negativeKeywords {
			if w == k {
				return false
			}
		}
	}
	return true
}

// Penalty is FActScore's length penalty for a response with the given
// number of facts: exp(1 − γ/facts) when facts < γ, else 1. γ = 0 turns it
// off.
func Penalty(facts, gamma int) float64 {
	if gamma <= 0 || facts >= gamma {
		return 1
	}
	return math.Exp(1 - float64(gamma)/float64(facts))
}

// Result is one response's score. The zero Result is a response that
// abstained.
type Result struct {
	// Responded is false for a response that abstained (in FActScore's
	// labeled format: its annotations are null); such a response counts in
	// the respond ratio only. A response that answered but has no facts
	// (every sentence irrelevant, say) responded: it is reported with 0
	// facts and left out of the mean scores.
	Responded bool    `json:"responded"`
	Facts     int     `json:"num_facts"`
	Supported int     `json:"num_supported"`
	InitScore float64 `json:"init_score"` // Supported / Facts; 0 without facts
	Penalty   float64 `json:"penalty"`
	Score     float64 `json:"score"` // InitScore × Penalty
}

// Record is FActScore's result for one input record, as fr factscore
// writes it, one JSON line each: the record's input line, topic and
// question, its score and the decision on each of its facts.
type Record struct {
	Line  int    `json:"line"`
	Topic string `json:"topic,omitempty"`
	Input string `json:"input,omitempty"`
	// Abstained marks a response that declined to answer (by the
	// Abstention rule): it did not respond.
	Abstained bool `json:"abstained,omitempty"`
	Result
	Decisions []Decision `json:"decisions"`
}

// Scored reports whether the response counts in the mean scores: it
// responded and has at least one fact.
func (r Result) Scored() bool { return r.Responded && r.Facts > 0 }

// NewResult scores a response that responded, with the given counts. A
// response with no facts gets no score (its InitScore, Penalty and Score
// stay 0; FActScore would average an empty list, NaN) and is left out of
// the means; a response that abstained is the zero Result, not this.
func NewResult(supported, facts, gamma int) Result {
	if facts == 0 {
		return Result{Responded: true}
	}
	init := float64(supported) / float64(facts)
	p := Penalty(facts, gamma)
	return Result{Responded: true, Facts: facts, Supported: supported, InitScore: init, Penalty: p, Score: init * p}
}

// Summary is the dataset-level result, FActScore's output.
type Summary struct {
	FActScore    float64 // mean Score over scored responses
	InitScore    float64 // mean InitScore (no length penalty) over scored responses
	RespondRatio float64 // Responded / Responses
	// FactsPerResponse is the mean Facts over responding responses, those
	// without facts included (as FActScore's num_facts_per_response).
	FactsPerResponse float64
	Responses        int
	Responded        int // responses that did not abstain
	Scored           int // responding responses with at least one fact: the means' count
	Gamma            int
}

// MarshalJSON writes the summary with FActScore's field names; a mean
// over no response is null.
func (s Summary) MarshalJSON() ([]byte, error) {
	mean := func(v float64, n int) *float64 {
		if n == 0 {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		FActScore        *float64 `json:"factscore"`
		InitScore        *float64 `json:"init_score"`
		RespondRatio     *float64 `json:"respond_ratio"`
		FactsPerResponse *float64 `json:"facts_per_response"`
		Responses        int      `json:"responses"`
		Responded        int      `json:"responded"`
		Scored           int      `json:"scored"`
		Gamma            int      `json:"gamma"`
	}{mean(s.FActScore, s.Scored), mean(s.InitScore, s.Scored), mean(s.RespondRatio, s.Responses),
		mean(s.FactsPerResponse, s.Responded), s.Responses, s.Responded, s.Scored, s.Gamma})
}

// Aggregate accumulates per-response results into a Summary.
type Aggregate struct {
	gamma                        int
	responses, responded, scored int
	score, init, facts           float64
}

// NewAggregate starts an aggregate for results computed with gamma.
func NewAggregate(gamma int) *Aggregate { return &Aggregate{gamma: gamma} }

// Add counts one response.
func (a *Aggregate) Add(r Result) {
	a.responses++
	if !r.Responded {
		return
	}
	a.responded++
	a.facts += float64(r.Facts)
	if !r.Scored() {
		return
	}
	a.scored++
	a.score += r.Score
	a.init += r.InitScore
}

// Summary returns the dataset-level result so far.
func (a *Aggregate) Summary() Summary {
	s := Summary{Responses: a.responses, Responded: a.responded, Scored: a.scored, Gamma: a.gamma}
	if a.responses > 0 {
		s.RespondRatio = float64(a.responded) / float64(a.responses)
	}
	if a.responded > 0 {
		s.FactsPerResponse = a.facts / float64(a.responded)
	}
	if a.scored > 0 {
		n := float64(a.scored)
		s.FActScore, s.InitScore = a.score/n, a.init/n
	}
	return s
}
