package pipeline

import (
	"context"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
)

// memo answers repeated pairs from memory, so that the versions of one
// instance share their NLI work. Text backends are keyed by the texts (a
// context repeated under two ids is asked about once); the given backend,
// which answers by id, by the ids too.
type memo struct {
	inner  nli.Classifier
	byID   bool
	answer map[nli.Pair]nli.Result
}

func newMemo(c nli.Classifier) *memo {
	_, byID := c.(*given)
	return &memo{inner: c, byID: byID, answer: make(map[nli.Pair]nli.Result)}
}

func (m *memo) key(p nli.Pair) nli.Pair {
	if m.byID {
		return p
	}
	return nli.Pair{Premise: p.Premise, Hypothesis: p.Hypothesis}
}

func (m *memo) Identity() nli.Identity { return m.inner.Identity() }

func (m *memo) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	var miss []nli.Pair
	queued := make(map[nli.Pair]bool)
	for _, p := range pairs {
		k := m.key(p)
		if _, ok := m.answer[k]; !ok && !queued[k] {
			queued[k] = true
			miss = append(miss, p)
		}
	}
	if len(miss) > 0 {
		res, err := m.inner.Classify(ctx, miss)
		if err != nil {
			return nil, err
		}
		for i, p := range miss {
			m.answer[m.key(p)] = res[i]
		}
	}
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		out[i] = m.answer[m.key(p)]
	}
	return out, nil
}

// given answers from an instance's own relations. Ids are first mapped to
// the first atom or context with the same text, so that a relation stated
// for one of several identical contexts holds for each of them (FR1 keeps
// such duplicates as separate variables; FR2 and FR3 merge them).
type given struct {
	alias map[string]string
	rels  *nli.Given
}

// RelationsClassifier answers from an instance's own relations (the given
// backend): by id, each id first mapped to the first atom or context with
// the same text. Every pair not listed is neutral.
func RelationsClassifier(in *instance.Instance) nli.Classifier { return newGiven(in) }

func newGiven(in *instance.Instance) *given {
	alias := graph.TextAlias(in)
	rels := make([]instance.Relation, len(in.Relations))
	for i, r := range in.Relations {
		r.Source, r.Target = resolve(alias, r.Source), resolve(alias, r.Target)
		rels[i] = r
	}
	return &given{alias: alias, rels: nli.NewGiven(rels)}
}

func resolve(alias map[string]string, id string) string {
	if k, ok := alias[id]; ok {
		return k
	}
	return id
}

func (g *given) Identity() nli.Identity { return g.rels.Identity() }

func (g *given) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	canon := make([]nli.Pair, len(pairs))
	for i, p := range pairs {
		p.PremiseID, p.HypothesisID = resolve(g.alias, p.PremiseID), resolve(g.alias, p.HypothesisID)
		canon[i] = p
	}
	return g.rels.Classify(ctx, canon)
}
