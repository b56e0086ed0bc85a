package graph

import (
	"github.com/factreasoner/factreasoner-go/nli"
)

// Pairs lists the NLI questions a version asks, premise = context and
// hypothesis = atom (or, for FR3's context pairs, another context):
//
//	FR1: each atom with the text of each context retrieved for it
//	FR2: every atom with every context
//	FR3: FR2's pairs, then every unordered pair of contexts in both
//	     directions, contexts taken in byte-sorted id order
//
// Atoms come in file order; for FR2 and FR3 contexts too.
func Pairs(n Nodes) []nli.Pair {
	var pairs []nli.Pair
	if n.Version == FR1 {
		// The reference implementation passes context ids as premises here
		// (a bug); the paper means the texts, and so do we.
		for _, a := range n.Atoms {
			seen := make(map[string]bool, len(a.Contexts))
			for _, id := range a.Contexts {
				c, ok := n.Context(id)
				if !ok || seen[id] {
					continue
				}
				seen[id] = true
				pairs = append(pairs, nli.Pair{PremiseID: c.ID, HypothesisID: a.ID, Premise: c.NLIText(), Hypothesis: a.Text})
			}
		}
		return pairs
	}
	pairs = make([]nli.Pair, 0, len(n.Atoms)*len(n.Contexts))
	for _, a := range n.Atoms {
		for _, c := range n.Contexts {
			pairs = append(pairs, nli.Pair{PremiseID: c.ID, HypothesisID: a.ID, Premise: c.NLIText(), Hypothesis: a.Text})
		}
	}
	if n.Version != FR3 {
		return pairs
	}
	ids := n.sortedContextIDs()
	for i := range ids {
		ci, _ := n.Context(ids[i])
		for j := i + 1; j < len(ids); j++ {
			cj, _ := n.Context(ids[j])
			pairs = append(pairs,
				nli.Pair{PremiseID: ci.ID, HypothesisID: cj.ID, Premise: ci.NLIText(), Hypothesis: cj.NLIText()},
				nli.Pair{PremiseID: cj.ID, HypothesisID: ci.ID, Premise: cj.NLIText(), Hypothesis: ci.NLIText()})
		}
	}
	return pairs
}
