// Package cascade is the NLI backend that asks a cheap backend first and a
// dearer one only where the first is unsure: every pair goes to First, and
// the pairs whose answer has a probability below Below go to Second, whose
// answers replace First's there. Practitioners run such a hybrid to check
// with a small model (an ONNX cross-encoder, a grounding classifier) and
// pay for an LLM judge on the few pairs it cannot settle.
//
// Each answer says which backend gave it (nli.Result.By), so that a run
// can count, record by record, the pairs each answered; Stats counts them
// for the whole run, with the labels the second backend changed.
package cascade

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/nli"
)

// DefaultBelow is the threshold of a cascade when none is given: a first
// answer less sure than 0.8 goes to the second backend (see BENCHMARKS.md,
// "NLI cascade", for what other thresholds send and change).
const DefaultBelow = 0.8

// Classifier is a cascade of two NLI backends. It implements
// nli.Classifier and is safe for concurrent use.
type Classifier struct {
	first, second nli.Classifier
	below         float64

	pairs, sent, changed atomic.Int64
}

// New returns the cascade that asks first about every pair and second
// about those whose first answer's probability is below below, in (0, 1]
// (1 sends every pair that is not certain).
func New(first, second nli.Classifier, below float64) (*Classifier, error) {
	if first == nil || second == nil {
		return nil, errors.New("cascade: two backends are needed")
	}
	if !(below > 0 && below <= 1) {
		return nil, fmt.Errorf("cascade: threshold %v: want a probability above 0, at most 1", below)
	}
	if first.Identity().Backend == second.Identity().Backend {
		return nil, fmt.Errorf("cascade: both backends are %s: a cascade asks another backend about the pairs the first is unsure of", first.Identity().Backend)
	}
	return &Classifier{first: first, second: second, below: below}, nil
}

// Identity names both backends, in order, and the threshold: the answers
// depend on all three.
func (c *Classifier) Identity() nli.Identity {
	return nli.Identity{Backend: "cascade", Model: fmt.Sprintf("%s then %s below %g", c.first.Identity(), c.second.Identity(), c.below)}
}

// Backends returns the first and the second backend.
func (c *Classifier) Backends() (first, second nli.Classifier) { return c.first, c.second }

// Below returns the threshold.
func (c *Classifier) Below() float64 { return c.below }

// Classify asks the first backend about every pair and the second about
// those the first is unsure of.
func (c *Classifier) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	out, err := c.first.Classify(ctx, pairs)
	if err != nil {
		return nil, err
	}
	if len(out) != len(pairs) {
		return nil, fmt.Errorf("cascade: %s gave %d answers for %d pairs", c.first.Identity(), len(out), len(pairs))
	}
	first, second := c.first.Identity().Backend, c.second.Identity().Backend
	var unsure []int
	var ask []nli.Pair
	for i := range out {
		out[i].By = first
		if out[i].Probability < c.below {
			unsure = append(unsure, i)
			ask = append(ask, pairs[i])
		}
	}
	if len(ask) > 0 {
		res, err := c.second.Classify(ctx, ask)
		if err != nil {
			return nil, err
		}
		if len(res) != len(ask) {
			return nil, fmt.Errorf("cascade: %s gave %d answers for %d pairs", c.second.Identity(), len(res), len(ask))
		}
		changed := 0
		for k, i := range unsure {
			if res[k].Label != out[i].Label {
				changed++
			}
			out[i] = res[k]
			out[i].By = second
		}
		c.sent.Add(int64(len(ask)))
		c.changed.Add(int64(changed))
	}
	c.pairs.Add(int64(len(pairs)))
	return out, nil
}

// Stats counts what a cascade was asked.
type Stats struct {
	Pairs   int64 // pairs classified
	Second  int64 // of them, sent to the second backend
	Changed int64 // of those, the second gave another label than the first
}

// Stats returns the counts so far.
func (c *Classifier) Stats() Stats {
	return Stats{Pairs: c.pairs.Load(), Second: c.sent.Load(), Changed: c.changed.Load()}
}

// RunSummary says in one line what the cascade did ("" when it classified
// nothing), for the end of a run's log.
func (c *Classifier) RunSummary() string {
	s := c.Stats()
	if s.Pairs == 0 {
		return ""
	}
	return fmt.Sprintf("nli cascade: %d pairs: %d answered by %s, %d (%.1f%%) below %g sent to %s, which changed %d labels",
		s.Pairs, s.Pairs-s.Second, c.first.Identity().Backend, s.Second, 100*float64(s.Second)/float64(s.Pairs), c.below, c.second.Identity().Backend, s.Changed)
}

var _ nli.Classifier = (*Classifier)(nil)
