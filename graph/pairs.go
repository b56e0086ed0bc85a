package graph

import (
	"sort"

	"github.com/factreasoner/factreasoner-go/nli"
)

// Pairs lists the NLI questions a version asks, premise = context and
// hypothesis = atom (or, for FR3's context pairs, another context):
//
//	FR1: each atom with the text of each of its own contexts (Own)
//	FR2: every atom with every context
//	FR3: FR2's pairs, then every unordered pair of contexts in both
//	     directions, contexts taken in byte-sorted id order
//
// Atoms come in file order; for FR2 and FR3 contexts too. NumPairs counts
// them without listing them.
func Pairs(n Nodes) []nli.Pair {
	texts := n.Texts()
	if n.Version == FR1 {
		// The reference implementation passes context ids as premises here
		// (a bug); the paper means the texts, and so do we.
		var pairs []nli.Pair
		for i, a := range n.Atoms {
			for _, c := range n.own[i] {
				pairs = append(pairs, nli.Pair{PremiseID: n.Contexts[c].ID, HypothesisID: a.ID, Premise: texts[c], Hypothesis: a.Text})
			}
		}
		return pairs
	}
	pairs := make([]nli.Pair, 0, NumPairs(n))
	for _, a := range n.Atoms {
		for c, ctx := range n.Contexts {
			pairs = append(pairs, nli.Pair{PremiseID: ctx.ID, HypothesisID: a.ID, Premise: texts[c], Hypothesis: a.Text})
		}
	}
	if n.Version != FR3 {
		return pairs
	}
	return append(pairs, ContextPairs(n, func(i, j int) bool { return true })...)
}

// ContextPairs lists FR3's context pairs that keep selects, in both
// directions, in the order of Pairs: contexts in byte-sorted id order, for
// each i < j the pair c_i → c_j, then c_j → c_i. keep is given indexes in
// n.Contexts.
func ContextPairs(n Nodes, keep func(i, j int) bool) []nli.Pair {
	texts := n.Texts()
	order := make([]int, len(n.Contexts))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return n.Contexts[order[a]].ID < n.Contexts[order[b]].ID })
	var pairs []nli.Pair
	for x, i := range order {
		for _, j := range order[x+1:] {
			if !keep(i, j) {
				continue
			}
			ci, cj := n.Contexts[i], n.Contexts[j]
			pairs = append(pairs,
				nli.Pair{PremiseID: ci.ID, HypothesisID: cj.ID, Premise: texts[i], Hypothesis: texts[j]},
				nli.Pair{PremiseID: cj.ID, HypothesisID: ci.ID, Premise: texts[j], Hypothesis: texts[i]})
		}
	}
	return pairs
}

// NumPairs is the number of pairs Pairs lists, counted without listing
// them, so that a record's work can be bounded before it is allocated.
func NumPairs(n Nodes) int {
	if n.Version == FR1 {
		total := 0
		for _, own := range n.own {
			total += len(own)
		}
		return total
	}
	a, c := len(n.Atoms), len(n.Contexts)
	total := a * c
	if n.Version == FR3 {
		total += c * (c - 1)
	}
	return total
}

// Texts returns the NLI text of each context of n.Contexts, each computed
// once: pairs share them instead of building a premise per pair.
func (n Nodes) Texts() []string {
	texts := make([]string, len(n.Contexts))
	for i, c := range n.Contexts {
		texts[i] = c.NLIText()
	}
	return texts
}
