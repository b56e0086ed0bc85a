package assess

import (
	"context"

	"github.com/factreasoner/factreasoner-go/nli"
)

// oneWay keeps, of each FR3 context pair the assessment asks in both
// directions, the direction whose premise is the longer text (the first
// listed, c_i → c_j in byte order of ids, when they are as long), and sets
// the other aside to be asked only if the first is not neutral
// (askReverse). A longer passage is the likelier to entail a shorter one
// than the reverse, and a contradiction is found from either side.
func (a *Assessment) oneWay() {
	index := make(map[[2]string]int, len(a.Pairs))
	for i, pr := range a.Pairs {
		index[[2]string{pr.PremiseID, pr.HypothesisID}] = i
	}
	drop := make([]bool, len(a.Pairs))
	for i, pr := range a.Pairs {
		if drop[i] || !a.Nodes.IsContext(pr.HypothesisID) {
			continue
		}
		j, ok := index[[2]string{pr.HypothesisID, pr.PremiseID}]
		if !ok || drop[j] || j < i {
			continue
		}
		first, second := i, j
		if len(a.Pairs[j].Premise) > len(a.Pairs[i].Premise) {
			first, second = j, i
		}
		drop[second] = true
		a.first = append(a.first, a.Pairs[first])
		a.second = append(a.second, a.Pairs[second])
		a.secondOwn = append(a.secondOwn, a.own[second])
	}
	pairs, own := a.Pairs[:0:0], a.own[:0:0]
	for i, pr := range a.Pairs {
		if !drop[i] {
			pairs, own = append(pairs, pr), append(own, a.own[i])
		}
	}
	a.Pairs, a.own = pairs, own
	a.Pruned += len(a.second)
}

// count sets Asked, Own and Other from Pairs.
func (a *Assessment) count() {
	var own []nli.Pair
	for i, pr := range a.Pairs {
		if a.own[i] {
			own = append(own, pr)
		}
	}
	a.Asked, a.Own = distinct(a.Pairs), distinct(own)
	a.Other = a.Asked - a.Own
}

// askReverse asks, for the assessments that set second directions aside
// (oneWay), those whose first direction was answered other than neutral,
// all in one batch, and adds them to the assessments' pairs; more, when
// set, is told how many.
func (p *Pipeline) askReverse(ctx context.Context, m *memo, out []*Assessment, more func(int)) error {
	var need []nli.Pair
	for _, a := range out {
		if len(a.second) == 0 {
			continue
		}
		res, err := m.Classify(ctx, a.first) // from memory
		if err != nil {
			return err
		}
		for i, r := range res {
			if r.Label != nli.Neutral {
				a.Pairs, a.own = append(a.Pairs, a.second[i]), append(a.own, a.secondOwn[i])
				a.Pruned--
				need = append(need, a.second[i])
			}
		}
		a.second, a.first, a.secondOwn = nil, nil, nil
		a.count()
	}
	if more != nil && len(need) > 0 {
		more(distinct(need))
	}
	_, err := m.Classify(ctx, need)
	return err
}
