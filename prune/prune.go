// Package prune chooses which of a record's NLI pairs are worth asking a
// model about. FactReasoner's FR2 and FR3 ask about every atom with every
// context (and FR3 every context with every other), though an atom is
// entailed or contradicted by few of them; the model's answers cost far more
// than ranking the contexts by a cheap relevance score first.
//
// Each atom keeps the k contexts that match it best under BM25 (Okapi, with
// rank_bm25's parameters; retrieve.BM25) over the record's own contexts,
// the atom's words as the query. For FR3 each context keeps, in the same
// way, the k other contexts its own words match best, and a context pair is
// asked (in both directions) when either context keeps the other. A pruned
// pair is not asked: it is neutral, and makes no factor.
//
// Words are lower-cased runs of letters and digits (Tokens): the contexts
// of FactReasoner's Wikipedia retrieval are lower-cased and have spaces
// around punctuation, while atoms are written as sentences, so splitting on
// whitespace alone would not match "Flaherty," with "flaherty".
package prune

import (
	"strings"
	"unicode"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

// Tokens splits text into the words BM25 compares: maximal runs of letters
// and digits, lower-cased.
func Tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Pairs returns the pairs (of graph.Pairs(n)) to ask when each atom keeps
// its k best-matching contexts and each context its k most similar other
// contexts, in the order of pairs, and the number of pairs left out. An
// atom's candidates are the contexts pairs ask about it (all of them for
// FR2 and FR3, its own for FR1). Ties keep the context that comes first in
// n.Contexts, so the choice is deterministic. k <= 0 keeps every pair.
func Pairs(n graph.Nodes, pairs []nli.Pair, k int) (kept []nli.Pair, pruned int) {
	if k <= 0 {
		return pairs, 0
	}
	r := newRanker(n)
	// The candidates of each hypothesis, in pair order.
	cands := make(map[string][]int)
	var hyps []string
	for _, p := range pairs {
		i, ok := r.index[p.PremiseID]
		if !ok {
			continue // not a kept context: not ranked, kept below
		}
		if _, seen := cands[p.HypothesisID]; !seen {
			hyps = append(hyps, p.HypothesisID)
		}
		cands[p.HypothesisID] = append(cands[p.HypothesisID], i)
	}
	keep := make(map[[2]string]bool)
	for _, h := range hyps {
		c := cands[h]
		if len(c) <= k {
			for _, i := range c {
				keep[[2]string{n.Contexts[i].ID, h}] = true
			}
			continue
		}
		scores := r.scores(h)
		sub := make([]float64, len(c))
		for j, i := range c {
			sub[j] = scores[i]
		}
		for _, j := range bestOf(sub, c, k) {
			keep[[2]string{n.Contexts[c[j]].ID, h}] = true
		}
	}
	kept = make([]nli.Pair, 0, min(len(pairs), len(hyps)*k))
	for _, p := range pairs {
		_, ranked := r.index[p.PremiseID]
		switch {
		case !ranked:
			kept = append(kept, p)
		case r.isContext(p.HypothesisID):
			// A context pair is asked both ways or not at all, so that
			// graph.Relations can combine the two directions.
			if keep[[2]string{p.PremiseID, p.HypothesisID}] || keep[[2]string{p.HypothesisID, p.PremiseID}] {
				kept = append(kept, p)
			}
		case keep[[2]string{p.PremiseID, p.HypothesisID}]:
			kept = append(kept, p)
		}
	}
	return kept, len(pairs) - len(kept)
}

// ranker scores a record's contexts for a query with BM25.
type ranker struct {
	bm25  *retrieve.BM25
	index map[string]int // context id -> index in n.Contexts
	atoms map[string]string
	ctx   [][]string // tokens of each context
}

func newRanker(n graph.Nodes) *ranker {
	r := &ranker{index: make(map[string]int, len(n.Contexts)), atoms: make(map[string]string, len(n.Atoms)), ctx: make([][]string, len(n.Contexts))}
	for i, c := range n.Contexts {
		r.index[c.ID] = i
		r.ctx[i] = Tokens(c.NLIText())
	}
	for _, a := range n.Atoms {
		r.atoms[a.ID] = a.Text
	}
	r.bm25 = retrieve.NewBM25Okapi(r.ctx)
	return r
}

func (r *ranker) isContext(id string) bool {
	_, ok := r.index[id]
	return ok
}

// scores are the BM25 scores of every context for the hypothesis h (an
// atom's words, or another context's); a context never matches itself.
func (r *ranker) scores(h string) []float64 {
	if i, ok := r.index[h]; ok {
		s := r.bm25.Scores(r.ctx[i])
		s[i] = 0
		return s
	}
	return r.bm25.Scores(Tokens(r.atoms[h]))
}

// bestOf returns the positions in scores of the k highest, ties broken by
// the smaller context index (order[j] is the context index of scores[j]).
func bestOf(scores []float64, order []int, k int) []int {
	best := make([]int, 0, k+1)
	for j := range scores {
		pos := len(best)
		for pos > 0 && better(scores, order, j, best[pos-1]) {
			pos--
		}
		if pos >= k {
			continue
		}
		best = append(best, 0)
		copy(best[pos+1:], best[pos:])
		best[pos] = j
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}

// better reports whether candidate a ranks above candidate b.
func better(scores []float64, order []int, a, b int) bool {
	if scores[a] != scores[b] {
		return scores[a] > scores[b]
	}
	return order[a] < order[b]
}
