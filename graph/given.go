package graph

import (
	"github.com/factreasoner/factreasoner-go/instance"
)

// GivenRelations returns the relations of a version's network that an
// instance states itself, in its "relations" field (SPEC §2), for NLI
// computed elsewhere. They stand in for an NLI model's answers: the
// version's pairs (Pairs(n)) are looked up among them, and every pair that
// no relation lists is neutral. n must have been selected from in.
//
// A relation stated for an atom or context holds for every atom or context
// with the same text (NLI text for contexts): ids are mapped to the first
// of each text before they are compared, so FR1, which keeps repeated
// contexts as separate variables, gives each copy the relation. When a
// (source, target) pair is listed twice the first wins. An equivalence
// holds in both directions unless the reverse is listed explicitly, and
// stays an equivalence. Context pairs of FR3 are combined as NLI answers
// are (see Relations), an equivalence counting as an entailment in each
// direction.
func GivenRelations(in *instance.Instance, n Nodes) []Relation {
	s := NewStated(in)
	pairs := Pairs(n)
	ids := make([][2]string, len(pairs))
	answers := make([]answer, len(pairs))
	for i, p := range pairs {
		ids[i] = [2]string{p.PremiseID, p.HypothesisID}
		answers[i] = s.answer(p.PremiseID, p.HypothesisID)
	}
	return combine(n, ids, answers)
}

// Stated indexes the relations an instance states itself, by the ids of
// their ends, with the rules of GivenRelations: text aliases, the first of
// a repeated pair, equivalences in both directions.
type Stated struct {
	alias map[string]string
	m     map[[2]string]answer
}

// NewStated indexes the relations of in.
func NewStated(in *instance.Instance) *Stated {
	s := &Stated{alias: TextAlias(in), m: make(map[[2]string]answer, len(in.Relations))}
	for _, r := range in.Relations { // explicit directions first: they win
		k := [2]string{s.canon(r.Source), s.canon(r.Target)}
		if _, ok := s.m[k]; !ok {
			s.m[k] = answer{typ: givenType(r.Type), p: r.Probability}
		}
	}
	for _, r := range in.Relations {
		if r.Type != instance.TypeEquivalence {
			continue
		}
		k := [2]string{s.canon(r.Target), s.canon(r.Source)}
		if _, ok := s.m[k]; !ok {
			s.m[k] = answer{typ: Equivalence, p: r.Probability}
		}
	}
	return s
}

func (s *Stated) canon(id string) string {
	if k, ok := s.alias[id]; ok {
		return k
	}
	return id
}

// answer is what is stated from source to target. An unlisted pair is
// neutral with probability 0, so that of the two directions of an FR3
// context pair a listed one always wins.
func (s *Stated) answer(source, target string) answer {
	return s.m[[2]string{s.canon(source), s.canon(target)}]
}

// Relation returns the relation stated from source to target, if one that
// makes a factor is (not a neutral one).
func (s *Stated) Relation(source, target string) (Relation, bool) {
	a := s.answer(source, target)
	if a.typ == 0 {
		return Relation{}, false
	}
	return Relation{Source: source, Target: target, Type: a.typ, Probability: a.p}, true
}

// givenType is the relation a stated type makes; 0 for neutral.
func givenType(typ string) RelationType {
	switch typ {
	case instance.TypeEntailment:
		return Entailment
	case instance.TypeContradiction:
		return Contradiction
	case instance.TypeEquivalence:
		return Equivalence
	}
	return 0
}
