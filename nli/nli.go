// Package nli defines natural language inference: given a premise and a
// hypothesis, does the premise entail, contradict or say nothing about the
// hypothesis, and with what probability. Backends implement Classifier (the
// subpackages lexical, onnxnli, remotenli and llmnli); this package holds
// the types they share (nlicache keeps their answers).
package nli

import (
	"context"
	"fmt"
)

// Label is an NLI verdict.
type Label uint8

// The three NLI labels. Neutral is the zero value: a pair nobody has
// classified says nothing.
const (
	Neutral Label = iota
	Entailment
	Contradiction
)

var labelNames = [...]string{"neutral", "entailment", "contradiction"}

func (l Label) String() string {
	if int(l) < len(labelNames) {
		return labelNames[l]
	}
	return fmt.Sprintf("Label(%d)", l)
}

// ParseLabel parses "entailment", "contradiction" or "neutral".
func ParseLabel(s string) (Label, error) {
	for i, n := range labelNames {
		if s == n {
			return Label(i), nil
		}
	}
	return Neutral, fmt.Errorf("unknown NLI label %q", s)
}

// MarshalText implements encoding.TextMarshaler.
func (l Label) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (l *Label) UnmarshalText(b []byte) error {
	v, err := ParseLabel(string(b))
	*l = v
	return err
}

// TextError is a text that a classifier cannot take (its tokenizer fails
// on it): the record that holds it fails, not the run (the other records
// are scored; --skip-invalid skips it).
type TextError struct {
	ID   string // the text's id (a context or atom id)
	Role string // "premise" or "hypothesis"
	Err  error
}

func (e *TextError) Error() string { return fmt.Sprintf("%s %s: %v", e.Role, e.ID, e.Err) }

func (e *TextError) Unwrap() error { return e.Err }

// Pair is one question put to an NLI model. The ids name the variables the
// texts belong to (a context id for the premise, an atom or context id for
// the hypothesis); backends that work on text ignore them.
type Pair struct {
	PremiseID    string
	HypothesisID string
	Premise      string
	Hypothesis   string
}

// Result is a model's answer for one pair.
type Result struct {
	Label       Label
	Probability float64 // probability of Label
	// Distribution is the full distribution indexed by Label, when the
	// backend has one (nil otherwise).
	Distribution []float64 `json:",omitempty"`
	// By names the backend that answered, where a classifier puts each
	// pair to one of several (package cascade); empty otherwise.
	By string `json:",omitempty"`
}

// Identity names a backend and its model. Caches key on it and output
// records report it.
type Identity struct {
	Backend string // "given", "lexical", "onnx", "llm", ...
	Model   string // model name or path; empty when the backend has none
}

func (id Identity) String() string {
	if id.Model == "" {
		return id.Backend
	}
	return id.Backend + ":" + id.Model
}

// Classifier labels premise/hypothesis pairs.
type Classifier interface {
	// Classify returns one Result per pair, in the order of pairs.
	Classify(ctx context.Context, pairs []Pair) ([]Result, error)
	// Identity names the backend and model.
	Identity() Identity
}

// Supported is the answer a grounding classifier's P(supported) makes
// (MiniCheck, HHEM, AlignScore: "supported / not supported", or one score).
// At 0.5 or above the premise entails the hypothesis with that probability.
// Below it, the pair is unsupported, whose label is unsupported: Neutral
// (the default: a classifier that finds no support has not seen a
// contradiction, only no evidence) or Contradiction, when a run takes "not
// supported" as evidence against; its probability is 1 − p. The
// distribution holds p for entailment and 1 − p for the unsupported label.
func Supported(p float64, unsupported Label) Result {
	dist := make([]float64, 3)
	dist[Entailment], dist[unsupported] = p, 1-p
	if p >= 0.5 {
		return Result{Label: Entailment, Probability: p, Distribution: dist}
	}
	return Result{Label: unsupported, Probability: 1 - p, Distribution: dist}
}

// ParseUnsupported reads the label a "not supported" answer gives:
// "neutral" (or "") or "contradiction".
func ParseUnsupported(s string) (Label, error) {
	switch s {
	case "", "neutral":
		return Neutral, nil
	case "contradiction":
		return Contradiction, nil
	}
	return Neutral, fmt.Errorf("%q: a pair that is not supported is neutral or a contradiction", s)
}
