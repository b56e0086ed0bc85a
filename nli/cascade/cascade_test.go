package cascade

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/nlitest"
)

// TestCascade: the second backend is asked about exactly the pairs whose
// first answer is below the threshold, once each, and its answers replace
// the first's there; each answer says who gave it, and the counts add up.
func TestCascade(t *testing.T) {
	// The first backend's probability is in the hypothesis: "h0.95".
	first := &nlitest.Func{Name: "cheap", Answer: func(p nli.Pair) nli.Result {
		var prob float64
		fmt.Sscanf(p.Hypothesis, "h%g", &prob)
		return nli.Result{Label: nli.Entailment, Probability: prob}
	}}
	second := &nlitest.Func{Name: "judge", Answer: func(p nli.Pair) nli.Result {
		if strings.HasSuffix(p.Hypothesis, "5") {
			return nli.Result{Label: nli.Entailment, Probability: 0.99}
		}
		return nli.Result{Label: nli.Contradiction, Probability: 0.97}
	}}
	var pairs []nli.Pair
	for _, p := range []string{"0.95", "0.5", "0.8", "0.79", "1", "0.61", "0.35"} {
		pairs = append(pairs, nli.Pair{PremiseID: "c", HypothesisID: "a" + p, Premise: "P.", Hypothesis: "h" + p})
	}
	for _, c := range []struct {
		below   float64
		asked   []string // hypotheses sent to the second
		changed int64
	}{
		{0.8, []string{"h0.5", "h0.79", "h0.61", "h0.35"}, 2},
		{0.5, []string{"h0.35"}, 0},
		{1, []string{"h0.95", "h0.5", "h0.8", "h0.79", "h0.61", "h0.35"}, 3},
	} {
		f, s := &nlitest.Func{Name: first.Name, Answer: first.Answer}, &nlitest.Func{Name: second.Name, Answer: second.Answer}
		cl, err := New(f, s, c.below)
		if err != nil {
			t.Fatal(err)
		}
		got, err := cl.Classify(context.Background(), pairs)
		if err != nil {
			t.Fatal(err)
		}
		var asked []string
		for _, p := range s.Asked() {
			asked = append(asked, p.Hypothesis)
		}
		if !slices.Equal(asked, c.asked) || len(f.Asked()) != len(pairs) {
			t.Errorf("below %v: the second was asked %v, want %v (the first %d pairs)", c.below, asked, c.asked, len(f.Asked()))
		}
		for i, p := range pairs {
			want := f.Answer(p)
			want.By = "cheap"
			if slices.Contains(c.asked, p.Hypothesis) {
				want = s.Answer(p)
				want.By = "judge"
			}
			if got[i].Label != want.Label || got[i].Probability != want.Probability || got[i].By != want.By {
				t.Errorf("below %v, %s: %+v; want %+v", c.below, p.Hypothesis, got[i], want)
			}
		}
		if st := cl.Stats(); st != (Stats{Pairs: int64(len(pairs)), Second: int64(len(c.asked)), Changed: c.changed}) {
			t.Errorf("below %v: stats %+v", c.below, st)
		}
		if id := cl.Identity(); id.Backend != "cascade" || id.Model != fmt.Sprintf("cheap then judge below %g", c.below) {
			t.Errorf("identity %v", id)
		}
	}
}

func TestNewErrors(t *testing.T) {
	a, b := &nlitest.Func{Name: "a"}, &nlitest.Func{Name: "b"}
	for _, c := range []struct {
		first, second nli.Classifier
		below         float64
		want          string
	}{
		{a, b, 0, "threshold 0"},
		{a, b, 1.5, "threshold 1.5"},
		{a, &nlitest.Func{Name: "a"}, 0.8, "both backends are a"},
		{a, nil, 0.8, "two backends"},
	} {
		if _, err := New(c.first, c.second, c.below); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v; want one saying %q", err, c.want)
		}
	}
}
