package cascade

import (
	"context"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/testgen/nlibench"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/lexical"
	"github.com/factreasoner/factreasoner-go/nli/nlitest"
)

// TestFlahertyCascade measures the cascade lexical → LLM on labeled data:
// the 546 FR2 pairs of the Flaherty file, whose labels are those of IBM's
// recorded run, an LLM's (GPT-class, with log probabilities). The second
// backend answers them as that LLM did, so "asking the second backend for
// everything" gives exactly the recorded labels, and the labels a cascade
// changes against it are the pairs the lexical backend kept and got
// otherwise. go test -v prints the table of BENCHMARKS.md ("NLI
// cascade"); the test checks what must hold whatever the numbers: a higher
// threshold sends more pairs and changes fewer labels, and a threshold of 1
// sends every pair the lexical backend is not certain of.
func TestFlahertyCascade(t *testing.T) {
	pairs, labels := nlibench.FlahertyPairs(t)
	recorded := make(map[[2]string]nli.Label, len(pairs))
	for i, p := range pairs {
		recorded[[2]string{p.Premise, p.Hypothesis}] = labels[i]
	}
	llm := func(p nli.Pair) nli.Result {
		return nli.Result{Label: recorded[[2]string{p.Premise, p.Hypothesis}], Probability: 1}
	}
	alone, err := lexical.New().Classify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for i, r := range alone {
		if r.Label != labels[i] {
			wrong++
		}
	}
	t.Logf("| threshold | pairs sent to the LLM | lexical labels the LLM changed | labels that differ from the LLM for all | of them non-neutral in the LLM's labels |")
	t.Logf("|---|---|---|---|---|")
	t.Logf("| lexical alone | 0 (0%%) | 0 | %d (%.1f%%) | |", wrong, 100*float64(wrong)/float64(len(pairs)))
	lastSent, lastChanged := -1, len(pairs)+1
	for _, below := range []float64{0.6, 0.7, 0.8, 0.85, 0.9, 1} {
		second := &nlitest.Func{Name: "llm", Answer: llm}
		c, err := New(lexical.New(), second, below)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Classify(context.Background(), pairs)
		if err != nil {
			t.Fatal(err)
		}
		changed, missed := 0, 0
		for i, r := range got {
			if r.Label != labels[i] {
				changed++
				if labels[i] != nli.Neutral {
					missed++
				}
			}
		}
		sent := len(second.Asked())
		t.Logf("| %g | %d (%.1f%%) | %d | %d (%.1f%%) | %d of %d |", below, sent, 100*float64(sent)/float64(len(pairs)), c.Stats().Changed,
			changed, 100*float64(changed)/float64(len(pairs)), missed, nonNeutral(labels))
		if int(c.Stats().Changed)+changed != wrong {
			t.Errorf("below %g: the LLM changed %d labels and %d still differ, but lexical alone gets %d wrong", below, c.Stats().Changed, changed, wrong)
		}
		if sent < lastSent || changed > lastChanged {
			t.Errorf("below %g: %d sent, %d changed; a lower threshold sent %d and changed %d", below, sent, changed, lastSent, lastChanged)
		}
		lastSent, lastChanged = sent, changed
		if below == 1 && (sent != len(pairs) || changed != 0) {
			t.Errorf("below 1: %d of %d pairs sent, %d labels changed", sent, len(pairs), changed)
		}
	}
	if len(pairs) != 546 {
		t.Fatalf("%d pairs", len(pairs))
	}
}

func nonNeutral(labels []nli.Label) int {
	n := 0
	for _, l := range labels {
		if l != nli.Neutral {
			n++
		}
	}
	return n
}
