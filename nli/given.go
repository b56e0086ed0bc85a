package nli

import (
	"context"

	"github.com/factreasoner/factreasoner-go/instance"
)

// Given answers from relations computed elsewhere (an instance's "relations"
// field, SPEC §2). It looks pairs up by id, premise id = relation source,
// hypothesis id = relation target, and ignores the texts, so it must not sit
// behind a Cache (which keys on texts).
//
// The answers:
//   - entailment, contradiction and neutral relations answer their own
//     label with their probability, for the direction listed;
//   - an equivalence answers Entailment with its probability for the listed
//     direction and, when no relation lists the reverse pair, for the reverse
//     too. Between two contexts FR3's rule (both directions entailment → an
//     equivalence edge with the larger probability) then rebuilds the
//     equivalence. An equivalence whose target is an atom answers Entailment
//     for (context, atom): the graph never asks the reverse (atom, context).
//   - a pair no relation lists is Neutral with probability 0. Zero marks
//     "no answer" rather than a confident neutral: FR3 keeps, of the two
//     directions of a context pair, the one with the higher probability, so
//     a relation listed for one direction must not lose to the unlisted
//     reverse direction. (Neutral answers never become factors, so the value
//     matters nowhere else.)
//
// When a relation lists the same (source, target) twice the first one wins;
// a relation listed explicitly wins over the reverse direction implied by an
// equivalence, wherever it stands in the list. NewGiven expects relations
// that passed instance validation; a relation of an unknown type answers
// Neutral.
type Given struct {
	answer map[[2]string]Result // (premise id, hypothesis id) → answer
}

// NewGiven returns a Given answering from rels.
func NewGiven(rels []instance.Relation) *Given {
	g := &Given{answer: make(map[[2]string]Result, len(rels))}
	// Explicit directions first, so that they win over implied ones.
	for _, r := range rels {
		k := [2]string{r.Source, r.Target}
		if _, ok := g.answer[k]; !ok {
			g.answer[k] = Result{Label: givenLabel(r.Type), Probability: r.Probability}
		}
	}
	for _, r := range rels {
		if r.Type != instance.TypeEquivalence {
			continue
		}
		k := [2]string{r.Target, r.Source}
		if _, ok := g.answer[k]; !ok {
			g.answer[k] = Result{Label: Entailment, Probability: r.Probability}
		}
	}
	return g
}

func givenLabel(typ string) Label {
	switch typ {
	case instance.TypeEntailment, instance.TypeEquivalence:
		return Entailment
	case instance.TypeContradiction:
		return Contradiction
	}
	return Neutral
}

// Identity reports the "given" backend, which has no model.
func (g *Given) Identity() Identity { return Identity{Backend: "given"} }

// Classify answers each pair from the relations, by ids.
func (g *Given) Classify(ctx context.Context, pairs []Pair) ([]Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]Result, len(pairs))
	for i, p := range pairs {
		// A missing pair leaves the zero Result: Neutral, probability 0.
		out[i] = g.answer[[2]string{p.PremiseID, p.HypothesisID}]
	}
	return out, nil
}
