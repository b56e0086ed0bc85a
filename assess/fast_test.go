package assess

import (
	"context"
	"fmt"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/testgen/stancegen"
	"github.com/factreasoner/factreasoner-go/nli"
)

// TestOneWayPairs: FR3's context pairs are asked the longer text first,
// the other way only after a non-neutral answer; an entailment answered
// both ways stays an equivalence, and a neutral pair costs one question.
func TestOneWayPairs(t *testing.T) {
	in := &instance.Instance{
		Atoms: []instance.Atom{{ID: "a0", Text: "The pump works.", Contexts: []string{"c0", "c1", "c2", "c3"}}},
		Contexts: []instance.Context{
			{ID: "c0", Text: "The pump is primed before first use, by filling its housing."},
			{ID: "c1", Text: "The pump is primed."},
			{ID: "c2", Text: "Leave expires in March of the following year."},
			{ID: "c3", Text: "Leave expires."},
		},
	}
	o := stancegen.NewOracle()
	o.Set(in.Contexts[0].Text, in.Contexts[1].Text, nli.Result{Label: nli.Entailment, Probability: 0.8})
	o.Set(in.Contexts[1].Text, in.Contexts[0].Text, nli.Result{Label: nli.Entailment, Probability: 0.7})
	// The shorter premise, asked second only after a stance: never here,
	// and both ways the neutral answer (0.9) outweighs it.
	o.Set(in.Contexts[3].Text, in.Contexts[2].Text, nli.Result{Label: nli.Contradiction, Probability: 0.6})
	for _, oneWay := range []bool{false, true} {
		p := goldenConfig(true)
		p.Given, p.Classifier, p.PairsPerAtom, p.OneWayPairs = GivenNever, o, AllPairs, oneWay
		a, err := p.Assess(context.Background(), in, graph.FR3)
		if err != nil {
			t.Fatal(err)
		}
		var ctxRels []string
		for _, r := range a.Relations {
			if a.Nodes.IsContext(r.Target) {
				ctxRels = append(ctxRels, fmt.Sprintf("%s %s %s %v", r.Source, r.Type, r.Target, r.Probability))
			}
		}
		// 4 atom pairs, and of the 6 context pairs both ways (12) or one
		// way (6) and the reverse of the one entailment.
		wantPairs, wantRels := 16, "[c0 equivalence c1 0.8]"
		if oneWay {
			wantPairs, wantRels = 11, "[c0 equivalence c1 0.8]"
		}
		if a.Asked != wantPairs || a.Asked+a.Pruned != 16 || fmt.Sprint(ctxRels) != wantRels {
			t.Errorf("one-way %v: %d pairs asked, %d pruned, context relations %v; want %d, %s", oneWay, a.Asked, a.Pruned, ctxRels, wantPairs, wantRels)
		}
	}
}

// TestOneWayPairsGenerated: on generated biographies whose stances are
// symmetric, one-way pairs give every label of asking both ways, with
// fewer pairs.
func TestOneWayPairsGenerated(t *testing.T) {
	recs, o := stancegen.Generate(20, 11)
	asked := [2]int{}
	for _, in := range recs {
		var preds [2]string
		for i, oneWay := range []bool{false, true} {
			p := goldenConfig(true)
			p.Given, p.Classifier, p.OneWayPairs = GivenNever, o, oneWay
			a, err := p.Assess(context.Background(), in, graph.FR3)
			if err != nil {
				t.Fatal(err)
			}
			preds[i] = a.Scores.Predictions
			asked[i] += a.Asked
		}
		if preds[0] != preds[1] {
			t.Errorf("labels %s, one way %s", preds[0], preds[1])
		}
	}
	if asked[1] >= asked[0] {
		t.Errorf("one way asked %d pairs, both ways %d", asked[1], asked[0])
	}
}
