package graph

import (
	"fmt"
	"sort"

	"github.com/factreasoner/factreasoner-go/nli"
)

// RelationType is the kind of a relation that becomes a factor.
type RelationType uint8

// Relation types. Neutral NLI answers make no relation.
const (
	Entailment RelationType = iota + 1
	Contradiction
	Equivalence
)

var relationNames = [...]string{"", "entailment", "contradiction", "equivalence"}

func (t RelationType) String() string {
	if int(t) < len(relationNames) && t != 0 {
		return relationNames[t]
	}
	return fmt.Sprintf("RelationType(%d)", t)
}

// MarshalText implements encoding.TextMarshaler.
func (t RelationType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *RelationType) UnmarshalText(b []byte) error {
	for i, n := range relationNames {
		if i > 0 && string(b) == n {
			*t = RelationType(i)
			return nil
		}
	}
	return fmt.Errorf("unknown relation type %q (want entailment, contradiction or equivalence)", b)
}

// Relation is a directed, weighted logical relation between two variables:
// the source is a context, the target an atom or another context.
type Relation struct {
	Source      string       `json:"source"`
	Target      string       `json:"target"`
	Type        RelationType `json:"type"`
	Probability float64      `json:"probability"`
}

// Relations turns NLI answers into relations. results[i] answers pairs[i].
//
// A pair whose hypothesis is an atom becomes a relation unless it is
// neutral. Context pairs (FR3) are combined per unordered pair {c_i, c_j},
// c_i < c_j as byte strings: the direction with the higher probability is
// kept whatever its label (a tie keeps c_j → c_i); if both directions are
// entailments the relation is an equivalence with the larger probability;
// if the kept direction is neutral there is no relation.
//
// Atom relations come first, in pair order, then context relations in
// sorted (c_i, c_j) order.
func Relations(n Nodes, pairs []nli.Pair, results []nli.Result) ([]Relation, error) {
	if len(pairs) != len(results) {
		return nil, fmt.Errorf("graph: %d NLI results for %d pairs", len(results), len(pairs))
	}
	ids := make([][2]string, len(pairs))
	answers := make([]answer, len(pairs))
	for i, p := range pairs {
		ids[i] = [2]string{p.PremiseID, p.HypothesisID}
		answers[i].p = results[i].Probability
		switch results[i].Label {
		case nli.Entailment:
			answers[i].typ = Entailment
		case nli.Contradiction:
			answers[i].typ = Contradiction
		}
	}
	return combine(n, ids, answers), nil
}

// answer is what is known of one directed pair: the relation it makes (0
// for neutral) and its probability.
type answer struct {
	typ RelationType
	p   float64
}

// entails reports whether the answer says its premise entails its
// hypothesis (an equivalence does, in each direction).
func (a answer) entails() bool { return a.typ == Entailment || a.typ == Equivalence }

// combine turns answers for directed pairs (ids[i] = premise, hypothesis)
// into relations, by the rules of Relations.
func combine(n Nodes, ids [][2]string, answers []answer) []Relation {
	type key struct{ src, dst string }
	ctx := make(map[key]answer)
	var unordered []key // each {c_i, c_j} once, c_i < c_j
	var rels []Relation
	for i, id := range ids {
		a := answers[i]
		if n.IsContext(id[1]) {
			k := key{id[0], id[1]}
			u := k
			if u.src > u.dst {
				u.src, u.dst = u.dst, u.src
			}
			_, seenFwd := ctx[u]
			_, seenBwd := ctx[key{u.dst, u.src}]
			if !seenFwd && !seenBwd {
				unordered = append(unordered, u)
			}
			ctx[k] = a
			continue
		}
		if a.typ != 0 {
			rels = append(rels, Relation{Source: id[0], Target: id[1], Type: a.typ, Probability: a.p})
		}
	}
	sort.Slice(unordered, func(a, b int) bool {
		if unordered[a].src != unordered[b].src {
			return unordered[a].src < unordered[b].src
		}
		return unordered[a].dst < unordered[b].dst
	})
	for _, u := range unordered {
		fwd, okF := ctx[u]                 // c_i → c_j
		bwd, okB := ctx[key{u.dst, u.src}] // c_j → c_i
		if okF && okB && fwd.entails() && bwd.entails() {
			rels = append(rels, Relation{Source: u.dst, Target: u.src, Type: Equivalence, Probability: max(fwd.p, bwd.p)})
			if fwd.p > bwd.p {
				rels[len(rels)-1].Source, rels[len(rels)-1].Target = u.src, u.dst
			}
			continue
		}
		kept, src, dst := bwd, u.dst, u.src
		if !okB || (okF && fwd.p > bwd.p) {
			kept, src, dst = fwd, u.src, u.dst
		}
		if kept.typ != 0 {
			rels = append(rels, Relation{Source: src, Target: dst, Type: kept.typ, Probability: kept.p})
		}
	}
	return rels
}
