package assess

import (
	"context"
	"fmt"

	"github.com/factreasoner/factreasoner-go/nli"
)

// NLIRound is how many pairs the memo puts to the classifier at once. A
// record's pairs go in rounds, so that a run can show its progress inside a
// record (an FR3 biography asks about a thousand pairs: minutes of model
// time). Rounds are fixed in size, so the same record is always asked in
// the same batches and the answers do not depend on how a run is
// scheduled. 32 pairs is two full batches of the onnx backend and eight
// rounds of the llm client's default four requests in flight; see
// BENCHMARKS.md ("Progress inside a record") for what smaller rounds cost.
const NLIRound = 32

// memo answers repeated pairs from memory, so that the versions of one
// instance (and the FActScore baseline) share their NLI work. It is keyed
// by the texts: a context repeated under two ids is asked about once.
type memo struct {
	inner  nli.Classifier
	answer map[[2]string]nli.Result
	round  int // pairs asked at once
	// answered, when set, is told after each round how many pairs it
	// answered.
	answered func(pairs int)
}

func newMemo(c nli.Classifier) *memo {
	return &memo{inner: c, answer: make(map[[2]string]nli.Result), round: NLIRound}
}

func key(p nli.Pair) [2]string { return [2]string{p.Premise, p.Hypothesis} }

// distinct is the number of distinct text pairs among pairs: what a fresh
// memo asks its classifier about.
func distinct(pairs []nli.Pair) int {
	seen := make(map[[2]string]bool, len(pairs))
	for _, p := range pairs {
		seen[key(p)] = true
	}
	return len(seen)
}

// answeredBy counts the distinct text pairs of pairs by the backend that
// answered them (nli.Result.By); nil when no answer says.
func answeredBy(pairs []nli.Pair, results []nli.Result) map[string]int {
	var by map[string]int
	seen := make(map[[2]string]bool, len(pairs))
	for i, p := range pairs {
		if results[i].By == "" || seen[key(p)] {
			continue
		}
		seen[key(p)] = true
		if by == nil {
			by = map[string]int{}
		}
		by[results[i].By]++
	}
	return by
}

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
	for lo := 0; lo < len(miss); lo += m.round {
		round := miss[lo:min(lo+m.round, len(miss))]
		res, err := m.inner.Classify(ctx, round)
		if err != nil {
			return nil, err
		}
		if len(res) != len(round) {
			return nil, fmt.Errorf("%s gave %d answers for %d pairs", m.inner.Identity(), len(res), len(round))
		}
		for i, p := range round {
			m.answer[key(p)] = res[i]
		}
		if m.answered != nil {
			m.answered(len(round))
		}
	}
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		out[i] = m.answer[key(p)]
	}
	return out, nil
}
