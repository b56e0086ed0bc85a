package cascade

import (
	"context"
	"testing"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/testgen/flaherty"
	"github.com/factreasoner/factreasoner-go/internal/testgen/nlibench"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/lexical"
	"github.com/factreasoner/factreasoner-go/nli/nlitest"
	"github.com/factreasoner/factreasoner-go/score"
)

// TestFlahertyCascade measures the cascade lexical → LLM on labeled data:
// the 546 FR2 pairs of the Flaherty file, whose labels are those of IBM's
// recorded run, an LLM's (GPT-class, with log probabilities). The second
// backend answers them as that LLM did, so "asking the second backend for
// everything" gives exactly the recorded labels, and the labels a cascade
// changes against it are the pairs the lexical backend kept and got
// otherwise; the record is then scored (FR2) on the cascade's relations,
// and its atoms' labels compared with those of the LLM's relations alone,
// IBM's. go test -v prints the table of BENCHMARKS.md ("NLI cascade");
// the test checks what must hold whatever the numbers: a higher threshold
// sends more pairs and changes fewer labels, and a threshold of 1 sends
// every pair the lexical backend is not certain of and labels every atom
// as the LLM's relations do.
func TestFlahertyCascade(t *testing.T) {
	pairs, labels := nlibench.FlahertyPairs(t)
	in, golden := flaherty.Load(t)
	probability := make(map[[2]string]float64) // of the recorded relations
	for _, r := range golden.Relations {
		probability[[2]string{r.Source, r.Target}] = r.Probability
	}
	recorded := make(map[[2]string]nli.Result, len(pairs))
	for i, p := range pairs {
		pr, ok := probability[[2]string{p.PremiseID, p.HypothesisID}]
		if !ok {
			pr = 1 // neutral: no factor
		}
		recorded[[2]string{p.Premise, p.Hypothesis}] = nli.Result{Label: labels[i], Probability: pr}
	}
	llm := func(p nli.Pair) nli.Result { return recorded[[2]string{p.Premise, p.Hypothesis}] }
	atomLabels := func(rs []nli.Result) map[string]bool {
		rec := *in
		rec.Relations = nil
		for i, r := range rs {
			if r.Label != nli.Neutral {
				rec.Relations = append(rec.Relations, instance.Relation{Source: pairs[i].PremiseID, Target: pairs[i].HypothesisID,
					Type: r.Label.String(), Probability: r.Probability})
			}
		}
		p := &assess.Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Given: assess.GivenAlways, Solver: inference.Auto{}}
		a, err := p.Assess(context.Background(), &rec, graph.FR2)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, at := range in.Atoms {
			pt, _ := a.PTrue(at.ID)
			out[at.ID] = pt > 0.5
		}
		return out
	}
	llmResults := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		llmResults[i] = llm(p)
	}
	llmAtoms := atomLabels(llmResults)
	atomsDiffer := func(rs []nli.Result) int {
		n := 0
		for id, l := range atomLabels(rs) {
			if l != llmAtoms[id] {
				n++
			}
		}
		return n
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
	t.Logf("| threshold | pairs sent to the LLM | lexical labels the LLM changed | labels that differ from the LLM for all | of them non-neutral in the LLM's labels | atom labels (FR2) that differ, of %d |", len(in.Atoms))
	t.Logf("|---|---|---|---|---|---|")
	t.Logf("| lexical alone | 0 (0%%) | 0 | %d (%.1f%%) | | %d |", wrong, 100*float64(wrong)/float64(len(pairs)), atomsDiffer(alone))
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
		atoms := atomsDiffer(got)
		t.Logf("| %g | %d (%.1f%%) | %d | %d (%.1f%%) | %d of %d | %d |", below, sent, 100*float64(sent)/float64(len(pairs)), c.Stats().Changed,
			changed, 100*float64(changed)/float64(len(pairs)), missed, nonNeutral(labels), atoms)
		if int(c.Stats().Changed)+changed != wrong {
			t.Errorf("below %g: the LLM changed %d labels and %d still differ, but lexical alone gets %d wrong", below, c.Stats().Changed, changed, wrong)
		}
		if sent < lastSent || changed > lastChanged {
			t.Errorf("below %g: %d sent, %d changed; a lower threshold sent %d and changed %d", below, sent, changed, lastSent, lastChanged)
		}
		lastSent, lastChanged = sent, changed
		if below == 1 && (sent != len(pairs) || changed != 0 || atoms != 0) {
			t.Errorf("below 1: %d of %d pairs sent, %d labels changed, %d atom labels", sent, len(pairs), changed, atoms)
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
