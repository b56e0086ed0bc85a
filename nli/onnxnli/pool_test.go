package onnxnli

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli"
)

// TestConcurrentCallsShareBatches: Classify calls made at once share
// batches (the records a run scores in parallel), padded to their longest
// sequence, and each pair's answer is exactly, to the last bit, its answer
// alone in a batch of one: a sequence's logits do not depend on its
// batch-mates or on the padding, so runs with records in parallel stay
// reproducible.
func TestConcurrentCallsShareBatches(t *testing.T) {
	for _, name := range []string{"tiny-roberta", "tiny-bert"} {
		t.Run(name, func(t *testing.T) {
			ref := readReference(t, name)
			var pairs []nli.Pair
			for i, p := range ref.Pairs {
				pairs = append(pairs, nli.Pair{PremiseID: fmt.Sprint(i), HypothesisID: fmt.Sprint(i), Premise: p.Premise, Hypothesis: p.Hypothesis})
			}
			alone := loadTestModel(t, name, Options{BatchSize: 1})
			want, err := alone.Classify(context.Background(), pairs)
			if err != nil {
				t.Fatal(err)
			}
			m := loadTestModel(t, name, Options{BatchSize: 64, BatchTokens: 1 << 20})
			const calls = 8
			got := make([][]nli.Result, calls)
			errs := make([]error, calls)
			var wg sync.WaitGroup
			n := len(pairs)
			for k := range calls {
				// Each call the pairs from a different one on, so that
				// batches mix sequences of several calls in ever new
				// company.
				mine := append(slices.Clone(pairs[k%n:]), pairs[:k%n]...)
				wg.Go(func() { got[k], errs[k] = m.Classify(context.Background(), mine) })
			}
			wg.Wait()
			for k := range calls {
				if errs[k] != nil {
					t.Fatal(errs[k])
				}
				for i, r := range got[k] {
					j := (k + i) % n
					w := want[j]
					if r.Label != w.Label || r.Probability != w.Probability || !slices.Equal(r.Distribution, w.Distribution) {
						t.Errorf("call %d, pair %d: %v %v; alone %v %v", k, j, r.Label, r.Distribution, w.Label, w.Distribution)
					}
				}
			}
			s := m.Stats()
			if s.Batches == 0 || s.Sequences/s.Batches < 2 {
				t.Errorf("%d sequences in %d batches: the calls did not share batches", s.Sequences, s.Batches)
			}
		})
	}
}
