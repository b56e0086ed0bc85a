package pipeline

import (
	"context"
	"fmt"

	"github.com/factreasoner/factreasoner-go/nli"
)

// memo answers repeated pairs from memory, so that the versions of one
// instance (and the FActScore baseline) share their NLI work. It is keyed
// by the texts: a context repeated under two ids is asked about once.
type memo struct {
	inner  nli.Classifier
	answer map[[2]string]nli.Result
}

func newMemo(c nli.Classifier) *memo {
	return &memo{inner: c, answer: make(map[[2]string]nli.Result)}
}

func key(p nli.Pair) [2]string { return [2]string{p.Premise, p.Hypothesis} }

func (m *memo) Identity() nli.Identity { return m.inner.Identity() }

func (m *memo) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	var miss []nli.Pair
	queued := make(map[[2]string]bool)
	for _, p := range pairs {
		k := key(p)
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
		if len(res) != len(miss) {
			return nil, fmt.Errorf("%s gave %d answers for %d pairs", m.inner.Identity(), len(res), len(miss))
		}
		for i, p := range miss {
			m.answer[key(p)] = res[i]
		}
	}
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		out[i] = m.answer[key(p)]
	}
	return out, nil
}
