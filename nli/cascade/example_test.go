package cascade_test

import (
	"context"
	"fmt"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/cascade"
	"github.com/factreasoner/factreasoner-go/nli/nlitest"
)

// A cheap backend answers every pair; a dearer one only the pairs the
// cheap one is less than 80% sure of.
func Example() {
	cheap := &nlitest.Func{Name: "cheap", Answer: func(p nli.Pair) nli.Result {
		if p.Hypothesis == "Paris is in France." {
			return nli.Result{Label: nli.Entailment, Probability: 0.97}
		}
		return nli.Result{Label: nli.Neutral, Probability: 0.55}
	}}
	judge := &nlitest.Func{Name: "judge", Answer: func(nli.Pair) nli.Result {
		return nli.Result{Label: nli.Contradiction, Probability: 0.9}
	}}
	c, err := cascade.New(cheap, judge, 0.8)
	if err != nil {
		panic(err)
	}
	res, err := c.Classify(context.Background(), []nli.Pair{
		{Premise: "Paris is the capital of France.", Hypothesis: "Paris is in France."},
		{Premise: "Paris is the capital of France.", Hypothesis: "Paris is in Italy."},
	})
	if err != nil {
		panic(err)
	}
	for _, r := range res {
		fmt.Println(r.By, r.Label, r.Probability)
	}
	fmt.Println(c.RunSummary())
	// Output:
	// cheap entailment 0.97
	// judge contradiction 0.9
	// nli cascade: 2 pairs: 1 answered by cheap, 1 (50.0%) below 0.8 sent to judge, which changed 1 labels
}
