package graph

import (
	"sort"

	"github.com/factreasoner/factreasoner-go/instance"
)

// GivenRelations returns the relations of a version's network that an
// instance states itself, in its "relations" field (docs/formats.md), for NLI
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
//
// The work is proportional to the relations stated (and the record's
// size), not to the version's pairs: a record of 10,000 atoms and 10,000
// contexts has 10^8 pairs, and a few relations.
func GivenRelations(in *instance.Instance, n Nodes) []Relation {
	s := NewStated(in)
	// The variables that stand for each text: in FR1 several contexts
	// can share one (contexts are not deduplicated there).
	copies := make(map[string][]int, len(n.Contexts)) // canonical id -> indexes in n.Contexts
	for i, c := range n.Contexts {
		k := s.canon(c.ID)
		copies[k] = append(copies[k], i)
	}
	atomIndex := make(map[string]int, len(n.Atoms))
	for i, a := range n.Atoms {
		atomIndex[s.canon(a.ID)] = i
	}
	// FR1 asks each atom about its own contexts only: their positions.
	var ownPos []map[int]int
	if n.Version == FR1 {
		ownPos = make([]map[int]int, len(n.Atoms))
		for i, own := range n.own {
			ownPos[i] = make(map[int]int, len(own))
			for pos, c := range own {
				ownPos[i][c] = pos
			}
		}
	}
	type found struct {
		ids    [2]string
		answer answer
		order  [2]int // the pair's place among Pairs(n)'s atom pairs
	}
	var atomPairs, contextPairs []found
	// Stated is keyed by canonical ids; sorted for a deterministic walk.
	keys := make([][2]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a][0] != keys[b][0] {
			return keys[a][0] < keys[b][0]
		}
		return keys[a][1] < keys[b][1]
	})
	for _, k := range keys {
		ans := s.m[k]
		sources := copies[k[0]]
		if ai, ok := atomIndex[k[1]]; ok {
			for _, ci := range sources {
				order := [2]int{ai, ci}
				if ownPos != nil {
					pos, own := ownPos[ai][ci]
					if !own {
						continue
					}
					order[1] = pos
				}
				atomPairs = append(atomPairs, found{[2]string{n.Contexts[ci].ID, n.Atoms[ai].ID}, ans, order})
			}
			continue
		}
		if n.Version != FR3 {
			continue
		}
		for _, ci := range sources {
			for _, cj := range copies[k[1]] {
				if ci != cj {
					contextPairs = append(contextPairs, found{ids: [2]string{n.Contexts[ci].ID, n.Contexts[cj].ID}, answer: ans})
				}
			}
		}
	}
	sort.Slice(atomPairs, func(a, b int) bool {
		if atomPairs[a].order[0] != atomPairs[b].order[0] {
			return atomPairs[a].order[0] < atomPairs[b].order[0]
		}
		return atomPairs[a].order[1] < atomPairs[b].order[1]
	})
	ids := make([][2]string, 0, len(atomPairs)+2*len(contextPairs))
	answers := make([]answer, 0, cap(ids))
	for _, f := range atomPairs {
		ids, answers = append(ids, f.ids), append(answers, f.answer)
	}
	listed := make(map[[2]string]bool, len(contextPairs))
	for _, f := range contextPairs {
		listed[f.ids] = true
	}
	for _, f := range contextPairs {
		ids, answers = append(ids, f.ids), append(answers, f.answer)
		// The other direction, when not stated, is neutral: as Pairs
		// would have asked it.
		if back := [2]string{f.ids[1], f.ids[0]}; !listed[back] {
			listed[back] = true
			ids, answers = append(ids, back), append(answers, answer{})
		}
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
