package batch_test

import (
	"os"

	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/factscore"
)

// A FActScore run's headline: two responses with 4 and 12 facts, 3 and 9
// supported, and one that declined to answer. By hand, γ = 10: the first
// is penalized, 3/4 · exp(1 − 10/4) = 0.1673; the second is 9/12 = 0.75;
// FActScore (0.1673 + 0.75)/2 = 0.4587, 0.75 without the penalty, 2 of 3
// responding with 8 facts each.
func ExampleFActScoreSummary_WriteHeadline() {
	agg := factscore.NewAggregate(10)
	agg.Add(factscore.NewResult(3, 4, 10))
	agg.Add(factscore.NewResult(9, 12, 10))
	agg.Add(factscore.Result{}) // abstained
	sum := batch.FActScoreSummary{Summary: agg.Summary(), Verifier: "llm:gpt-4o-mini"}
	sum.WriteHeadline(os.Stdout, "fr factscore")
	// Output:
	// fr factscore: FActScore 0.4587 (0.7500 without the length penalty, γ = 10), 66.7% responding (2 of 3), 8.0 facts per response; verifier llm:gpt-4o-mini
}
