// Package nlitest provides an NLI backend for tests: a classifier that
// gives every pair the same answer, counts what it is asked and says so at
// the end of a run. It is also the smallest example of a backend: a
// package with a Classifier, and one entry in a pipeline's table of
// backends (pipeline.NLIBackend) to choose it by name.
package nlitest

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/nli"
)

// Fixed answers every pair with Label at Probability.
type Fixed struct {
	Label       nli.Label
	Probability float64
	asked       atomic.Int64
}

// Identity names the backend "fixed" and its answer.
func (f *Fixed) Identity() nli.Identity {
	return nli.Identity{Backend: "fixed", Model: fmt.Sprintf("%s@%v", f.Label, f.Probability)}
}

// Classify answers every pair alike.
func (f *Fixed) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.asked.Add(int64(len(pairs)))
	out := make([]nli.Result, len(pairs))
	for i := range out {
		out[i] = nli.Result{Label: f.Label, Probability: f.Probability}
	}
	return out, nil
}

// Asked is the number of pairs the classifier was asked about.
func (f *Fixed) Asked() int { return int(f.asked.Load()) }

// RunSummary says how many pairs it answered (pipeline.RunSummarizer).
func (f *Fixed) RunSummary() string {
	return fmt.Sprintf("fixed nli: %d pairs answered %s", f.Asked(), f.Label)
}
