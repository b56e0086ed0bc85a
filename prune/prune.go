// Package prune chooses which of a record's NLI pairs are worth asking a
// model about. FactReasoner's FR2 and FR3 ask about every atom with every
// context (and FR3 every context with every other), though an atom is
// entailed or contradicted by few of them; the model's answers cost far more
// than ranking the contexts by a cheap relevance score first.
//
// Pruning never drops an atom's own evidence. The pairs FR1 asks, each
// atom with its own contexts (graph.Nodes.Own: those its list names, those
// whose id names it, and the question's contexts), are always asked, in
// every version; so are FR3's own context pairs (two own contexts of one
// atom). Pruning chooses only among the other pairs: each atom is also
// asked about the k other contexts that match it best under BM25 (Okapi,
// with rank_bm25's parameters; bm25.Index) over the record's own
// contexts, the atom's words as the query; for FR3 each context keeps, in
// the same way, the k other contexts its own words match best (among
// those it is not an own pair with), and a context pair is asked (in both
// directions) when either context keeps the other. A pruned pair is not
// asked: it is neutral, and makes no factor. So a record whose evidence
// sits on its own contexts scores the same pruned as with every pair.
//
// Words are lower-cased runs of letters and digits (Tokens): the contexts
// of FactReasoner's Wikipedia retrieval are lower-cased and have spaces
// around punctuation, while atoms are written as sentences, so splitting on
// whitespace alone would not match "Flaherty," with "flaherty".
package prune

import (
	"github.com/factreasoner/factreasoner-go/bm25"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/nli"
)

// Tokens splits text into the words BM25 compares: maximal runs of letters
// and digits, lower-cased.
func Tokens(text string) []string { return bm25.Words(text) }

// Selection is the pairs of a version that are asked.
type Selection struct {
	// Pairs are the pairs asked, in the order of graph.Pairs; Own[i]
	// reports whether Pairs[i] is an own pair (always asked) rather than
	// one added by similarity (or, with every pair asked, any other).
	Pairs []nli.Pair
	Own   []bool
	// Pruned is the number of the version's pairs left out.
	Pruned int
}

// All asks every pair, as FactReasoner does.
const All = -1

// Select returns the pairs of the version of n to ask when each atom keeps
// its own contexts and its k best-matching other contexts, and each
// context (FR3) its own partners and its k most similar other contexts
// (see the package comment). k = 0 asks the own pairs only; k < 0 (All)
// asks every pair. Ties keep the context that comes first in n.Contexts,
// so the choice is deterministic. FR1 asks its own pairs only, whatever k.
func Select(n graph.Nodes, k int) Selection {
	own := n.Own()
	total := graph.NumPairs(n)
	if n.Version == graph.FR1 {
		s := Selection{Pairs: graph.Pairs(n)}
		s.Own = make([]bool, len(s.Pairs))
		for i := range s.Own {
			s.Own[i] = true
		}
		return s
	}
	var r *ranker // built when first needed
	rank := func() *ranker {
		if r == nil {
			r = newRanker(n)
		}
		return r
	}
	texts := n.Texts()
	var s Selection
	isOwn := make([]bool, len(n.Contexts))
	keep := make([]bool, len(n.Contexts))
	for ai, a := range n.Atoms {
		for i := range isOwn {
			isOwn[i], keep[i] = false, k < 0
		}
		for _, c := range own[ai] {
			isOwn[c], keep[c] = true, true
		}
		if others := len(n.Contexts) - len(own[ai]); k > 0 && others > 0 {
			var cands []int
			for i := range n.Contexts {
				if !isOwn[i] {
					cands = append(cands, i)
				}
			}
			for _, i := range best(rank().bm25.Scores(Tokens(a.Text)), cands, k) {
				keep[i] = true
			}
		}
		for i, c := range n.Contexts {
			if keep[i] {
				s.Pairs = append(s.Pairs, nli.Pair{PremiseID: c.ID, HypothesisID: a.ID, Premise: texts[i], Hypothesis: a.Text})
				s.Own = append(s.Own, isOwn[i])
			}
		}
	}
	if n.Version == graph.FR3 {
		partners := ownPartners(own, len(n.Contexts))
		kept := make([]map[int]bool, len(n.Contexts)) // i -> the partners i keeps by similarity
		if k > 0 {
			for i := range n.Contexts {
				var cands []int
				for j := range n.Contexts {
					if j != i && !partners[i][j] {
						cands = append(cands, j)
					}
				}
				if len(cands) == 0 {
					continue
				}
				kept[i] = make(map[int]bool)
				for _, j := range best(rank().bm25.Scores(rank().ctx[i]), cands, k) {
					kept[i][j] = true
				}
			}
		}
		pairs := graph.ContextPairs(n, func(i, j int) bool {
			return k < 0 || partners[i][j] || kept[i][j] || kept[j][i]
		})
		for _, p := range pairs {
			i, _ := n.ContextIndex(p.PremiseID)
			j, _ := n.ContextIndex(p.HypothesisID)
			s.Pairs = append(s.Pairs, p)
			s.Own = append(s.Own, partners[i][j])
		}
	}
	s.Pruned = total - len(s.Pairs)
	return s
}

// ownPartners returns, for each context, the contexts it makes an own pair
// with: the other own contexts of each atom it is an own context of.
func ownPartners(own [][]int, contexts int) []map[int]bool {
	partners := make([]map[int]bool, contexts)
	for _, cs := range own {
		for _, i := range cs {
			for _, j := range cs {
				if i == j {
					continue
				}
				if partners[i] == nil {
					partners[i] = make(map[int]bool)
				}
				partners[i][j] = true
			}
		}
	}
	return partners
}

// ranker scores a record's contexts for a query with BM25.
type ranker struct {
	bm25 *bm25.Index
	ctx  [][]string // tokens of each context
}

func newRanker(n graph.Nodes) *ranker {
	r := &ranker{ctx: make([][]string, len(n.Contexts))}
	for i, t := range n.Texts() {
		r.ctx[i] = Tokens(t)
	}
	r.bm25 = bm25.NewOkapi(r.ctx)
	return r
}

// best returns the k candidates (indexes into scores) with the highest
// scores, ties broken by the smaller index (bm25.TopK's order).
func best(scores []float64, cands []int, k int) []int {
	if len(cands) <= k {
		return cands
	}
	sub := make([]float64, len(cands))
	for j, c := range cands {
		sub[j] = scores[c]
	}
	top := bm25.TopK(sub, k)
	for j, i := range top {
		top[j] = cands[i]
	}
	return top
}

// Estimate is an upper bound of the number of pairs Select(n, k) lists,
// computed without listing them, so that a record's work can be bounded
// before it is allocated.
func Estimate(n graph.Nodes, k int) int {
	if k < 0 || n.Version == graph.FR1 {
		return graph.NumPairs(n)
	}
	c := len(n.Contexts)
	total := 0
	for _, own := range n.Own() {
		total += min(c, len(own)+k)
	}
	if n.Version == graph.FR3 {
		ownPairs := 0
		for _, own := range n.Own() {
			ownPairs += len(own) * (len(own) - 1) / 2
		}
		total += 2 * min(c*(c-1)/2, ownPairs+c*k)
	}
	return total
}
