package nli_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
)

func TestGiven(t *testing.T) {
	rels := []instance.Relation{
		{Source: "c1", Target: "a0", Type: "entailment", Probability: 0.9},
		{Source: "c1", Target: "a1", Type: "contradiction", Probability: 0.8},
		{Source: "c2", Target: "a0", Type: "neutral", Probability: 0.7},
		{Source: "c1", Target: "c2", Type: "equivalence", Probability: 0.6},
		{Source: "c2", Target: "a1", Type: "equivalence", Probability: 0.95},
		{Source: "c1", Target: "a0", Type: "contradiction", Probability: 0.99}, // duplicate: the first wins
		{Source: "c4", Target: "c3", Type: "contradiction", Probability: 0.55}, // explicit reverse beats...
		{Source: "c3", Target: "c4", Type: "equivalence", Probability: 0.65},   // ...the direction implied here
	}
	tests := []struct {
		premise, hypothesis string
		want                nli.Result
	}{
		{"c1", "a0", nli.Result{Label: nli.Entailment, Probability: 0.9}},
		{"c1", "a1", nli.Result{Label: nli.Contradiction, Probability: 0.8}},
		{"c2", "a0", nli.Result{Label: nli.Neutral, Probability: 0.7}},
		{"c1", "c2", nli.Result{Label: nli.Entailment, Probability: 0.6}},
		{"c2", "c1", nli.Result{Label: nli.Entailment, Probability: 0.6}},
		{"c2", "a1", nli.Result{Label: nli.Entailment, Probability: 0.95}},
		{"c3", "c4", nli.Result{Label: nli.Entailment, Probability: 0.65}},
		{"c4", "c3", nli.Result{Label: nli.Contradiction, Probability: 0.55}},
		{"a0", "c1", nli.Result{Label: nli.Neutral, Probability: 0}}, // reverse of a plain relation: unlisted
		{"c2", "a2", nli.Result{Label: nli.Neutral, Probability: 0}}, // unlisted
		{"", "", nli.Result{Label: nli.Neutral, Probability: 0}},
	}
	g := nli.NewGiven(rels)
	var pairs []nli.Pair
	for _, tc := range tests {
		// The texts play no part.
		pairs = append(pairs, nli.Pair{PremiseID: tc.premise, HypothesisID: tc.hypothesis, Premise: "x", Hypothesis: "y"})
	}
	res, err := g.Classify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		if !reflect.DeepEqual(res[i], tc.want) {
			t.Errorf("%s → %s: got %+v, want %+v", tc.premise, tc.hypothesis, res[i], tc.want)
		}
	}
	if id := g.Identity(); id != (nli.Identity{Backend: "given"}) {
		t.Errorf("identity %v", id)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Classify(ctx, pairs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}

// TestGivenRoundTrip: with the given backend, the graph's relations are the
// listed ones. FR3 rebuilds an equivalence from the two entailments Given
// answers for it, and keeps a relation listed in one direction only rather
// than the unlisted reverse.
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
	nodes := graph.SelectNodes(in, graph.FR3)
	pairs := graph.Pairs(nodes)
	res, err := nli.NewGiven(in.Relations).Classify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := graph.Relations(nodes, pairs, res)
	if err != nil {
		t.Fatal(err)
	}
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

func ExampleGiven() {
	g := nli.NewGiven([]instance.Relation{
		{Source: "c_a0_0", Target: "a0", Type: "entailment", Probability: 0.98},
		{Source: "c_a0_0", Target: "c_a1_0", Type: "equivalence", Probability: 0.9},
	})
	res, _ := g.Classify(context.Background(), []nli.Pair{
		{PremiseID: "c_a0_0", HypothesisID: "a0"},
		{PremiseID: "c_a1_0", HypothesisID: "c_a0_0"},
		{PremiseID: "c_a1_0", HypothesisID: "a0"},
	})
	for _, r := range res {
		fmt.Println(r.Label, r.Probability)
	}
	// Output:
	// entailment 0.98
	// entailment 0.9
	// neutral 0
}
