package graph_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
)

// TestGivenRelations: the rules for stated relations: the first of a
// repeated (source, target) wins, an equivalence holds both ways unless the
// reverse is listed, stays an equivalence (towards an atom too), neutral
// relations make no factor, and FR3 combines context pairs as it combines
// NLI answers.
func TestGivenRelations(t *testing.T) {
	in := &instance.Instance{
		Output: "x",
		Atoms:  []instance.Atom{{ID: "a0", Text: "zero", Contexts: []string{"c1", "c2"}}, {ID: "a1", Text: "one", Contexts: []string{"c5"}}, {ID: "a2", Text: "two"}},
		Contexts: []instance.Context{
			{ID: "c1", Text: "one"}, {ID: "c2", Text: "two"}, {ID: "c3", Text: "three"}, {ID: "c4", Text: "four"},
			{ID: "c5", Text: "one"}, // the text of c1: c1's relations hold for it
		},
		Relations: []instance.Relation{
			{Source: "c1", Target: "a0", Type: "entailment", Probability: 0.9},
			{Source: "c1", Target: "a1", Type: "contradiction", Probability: 0.8},
			{Source: "c2", Target: "a0", Type: "neutral", Probability: 0.7},
			{Source: "c1", Target: "c2", Type: "equivalence", Probability: 0.6},
			{Source: "c2", Target: "a1", Type: "equivalence", Probability: 0.95},
			{Source: "c1", Target: "a0", Type: "contradiction", Probability: 0.99}, // repeated: the first wins
			{Source: "c4", Target: "c3", Type: "contradiction", Probability: 0.55}, // explicit reverse beats...
			{Source: "c3", Target: "c4", Type: "equivalence", Probability: 0.65},   // ...the direction implied here
		},
	}
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		v    graph.Version
		want []graph.Relation
	}{
		{graph.FR1, []graph.Relation{
			{Source: "c1", Target: "a0", Type: graph.Entailment, Probability: 0.9},
			{Source: "c5", Target: "a1", Type: graph.Contradiction, Probability: 0.8},
		}},
		{graph.FR2, []graph.Relation{
			{Source: "c1", Target: "a0", Type: graph.Entailment, Probability: 0.9},
			{Source: "c1", Target: "a1", Type: graph.Contradiction, Probability: 0.8},
			{Source: "c2", Target: "a1", Type: graph.Equivalence, Probability: 0.95},
		}},
		{graph.FR3, []graph.Relation{
			{Source: "c1", Target: "a0", Type: graph.Entailment, Probability: 0.9},
			{Source: "c1", Target: "a1", Type: graph.Contradiction, Probability: 0.8},
			{Source: "c2", Target: "a1", Type: graph.Equivalence, Probability: 0.95},
			{Source: "c2", Target: "c1", Type: graph.Equivalence, Probability: 0.6}, // a tie keeps c_j → c_i
			{Source: "c3", Target: "c4", Type: graph.Equivalence, Probability: 0.65},
		}},
	}
	for _, tc := range tests {
		got := graph.GivenRelations(in, graph.SelectNodes(in, tc.v))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.v, got, tc.want)
		}
	}
}

// TestGivenRoundTrip: the graph's relations are the listed ones. FR3 keeps
// an equivalence, and a relation listed in one direction only rather than
// the unlisted reverse.
func TestGivenRoundTrip(t *testing.T) {
	in := &instance.Instance{
		Output: "x",
		Atoms:  []instance.Atom{{ID: "a0", Text: "atom zero"}, {ID: "a1", Text: "atom one"}},
		Contexts: []instance.Context{
			{ID: "c1", Text: "one"}, {ID: "c2", Text: "two"}, {ID: "c3", Text: "three"}, {ID: "c4", Text: "four"},
		},
		Relations: []instance.Relation{
			{Source: "c1", Target: "a0", Type: "entailment", Probability: 0.9},
			{Source: "c2", Target: "a1", Type: "contradiction", Probability: 0.8},
			{Source: "c3", Target: "a1", Type: "neutral", Probability: 0.9},
			{Source: "c1", Target: "c2", Type: "equivalence", Probability: 0.7},
			{Source: "c4", Target: "c3", Type: "contradiction", Probability: 0.6}, // c3 < c4: the reverse of the sorted pair
			{Source: "c2", Target: "c4", Type: "entailment", Probability: 0.3},
		},
	}
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	got := graph.GivenRelations(in, graph.SelectNodes(in, graph.FR3))
	want := []graph.Relation{
		{Source: "c1", Target: "a0", Type: graph.Entailment, Probability: 0.9},
		{Source: "c2", Target: "a1", Type: graph.Contradiction, Probability: 0.8},
		{Source: "c2", Target: "c1", Type: graph.Equivalence, Probability: 0.7},
		{Source: "c2", Target: "c4", Type: graph.Entailment, Probability: 0.3},
		{Source: "c4", Target: "c3", Type: graph.Contradiction, Probability: 0.6},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("relations\n got %v\nwant %v", got, want)
	}
}

func ExampleGivenRelations() {
	in := &instance.Instance{
		Output:   "Ada Lovelace was a mathematician.",
		Atoms:    []instance.Atom{{ID: "a0", Text: "Ada Lovelace was a mathematician."}},
		Contexts: []instance.Context{{ID: "c_a0_0", Text: "Ada Lovelace was an English mathematician."}, {ID: "c_a0_1", Text: "Lovelace was a mathematician."}},
		Relations: []instance.Relation{
			{Source: "c_a0_0", Target: "a0", Type: "entailment", Probability: 0.98},
			{Source: "c_a0_0", Target: "c_a0_1", Type: "equivalence", Probability: 0.9},
		},
	}
	for _, r := range graph.GivenRelations(in, graph.SelectNodes(in, graph.FR3)) {
		fmt.Println(r.Source, r.Type, r.Target, r.Probability)
	}
	// Output:
	// c_a0_0 entailment a0 0.98
	// c_a0_1 equivalence c_a0_0 0.9
}
