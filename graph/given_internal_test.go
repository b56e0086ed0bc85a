package graph

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
)

// givenByPairs is GivenRelations as the definition says it: every pair of
// the version looked up among the stated relations. It costs the
// version's pairs; GivenRelations, the relations.
func givenByPairs(in *instance.Instance, n Nodes) []Relation {
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

// randomStated is a small record with repeated texts (atoms and contexts),
// contexts named for atoms and for the question, and relations of every
// type, some repeated, some with tied or zero probabilities.
func randomStated(rng *rand.Rand) *instance.Instance {
	in := &instance.Instance{Output: "x"}
	na, nc := 1+rng.IntN(5), 1+rng.IntN(7)
	for i := range na {
		in.Atoms = append(in.Atoms, instance.Atom{ID: fmt.Sprintf("a%d", i), Text: fmt.Sprintf("atom %d", rng.IntN(na))})
	}
	for i := range nc {
		var id string
		switch rng.IntN(3) {
		case 0:
			id = fmt.Sprintf("c_a%d_%d", rng.IntN(na), i)
		case 1:
			id = fmt.Sprintf("c_q_%d", i)
		default:
			id = fmt.Sprintf("c%d", i)
		}
		in.Contexts = append(in.Contexts, instance.Context{ID: id, Text: fmt.Sprintf("context %d", rng.IntN(nc))})
	}
	for i := range in.Atoms {
		for range rng.IntN(3) {
			in.Atoms[i].Contexts = append(in.Atoms[i].Contexts, in.Contexts[rng.IntN(nc)].ID)
		}
	}
	types := []string{"entailment", "contradiction", "equivalence", "neutral"}
	probs := []float64{0, 0.5, 0.5, 0.7, 0.9, 1}
	for range rng.IntN(12) {
		src := in.Contexts[rng.IntN(nc)].ID
		var dst string
		if rng.IntN(2) == 0 {
			dst = in.Atoms[rng.IntN(na)].ID
		} else {
			dst = in.Contexts[rng.IntN(nc)].ID
		}
		if dst == src {
			continue
		}
		in.Relations = append(in.Relations, instance.Relation{Source: src, Target: dst, Type: types[rng.IntN(4)], Probability: probs[rng.IntN(len(probs))]})
	}
	return in
}

// TestGivenRelationsByRelations: GivenRelations, which walks the stated
// relations, gives exactly what looking up every pair of the version gives,
// on random records in every version.
func TestGivenRelationsByRelations(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 25))
	for i := range 3000 {
		in := randomStated(rng)
		if err := in.Validate(); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		for _, v := range []Version{FR1, FR2, FR3} {
			n := SelectNodes(in, v)
			got, want := GivenRelations(in, n), givenByPairs(in, n)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("record %d, %s: %+v\n got %v\nwant %v", i, v, in, got, want)
			}
		}
	}
}

// TestGivenRelationsLargeRecord: a record at the limits, 10,000 atoms and
// 10,000 contexts with a relation each, gets its relations without the
// 10^8 pairs of FR2 (6.4 GB of them, which killed the run): the memory
// allocated stays proportional to the record.
func TestGivenRelationsLargeRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a record of 10,000 atoms and contexts")
	}
	const n = instance.MaxAtoms
	in := &instance.Instance{Output: "x"}
	for i := range n {
		in.Atoms = append(in.Atoms, instance.Atom{ID: fmt.Sprintf("a%d", i), Text: fmt.Sprintf("atom %d", i)})
		in.Contexts = append(in.Contexts, instance.Context{ID: fmt.Sprintf("c_a%d_0", i), Text: fmt.Sprintf("context %d", i)})
		in.Relations = append(in.Relations, instance.Relation{Source: fmt.Sprintf("c_a%d_0", i), Target: fmt.Sprintf("a%d", i), Type: "entailment", Probability: 0.9})
	}
	for _, v := range []Version{FR1, FR2, FR3} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rels := GivenRelations(in, SelectNodes(in, v))
		runtime.ReadMemStats(&after)
		if len(rels) != n {
			t.Errorf("%s: %d relations, want %d", v, len(rels), n)
		}
		if mb := float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20); mb > 100 {
			t.Errorf("%s: %.0f MB allocated for %d relations", v, mb, n)
		}
	}
}
