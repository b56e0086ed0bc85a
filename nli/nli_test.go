package nli

import (
	"slices"
	"testing"
)

// TestSupported checks the relation a grounding classifier's answer makes
// against SPEC §7 written out by hand: at 0.5 and above an entailment with
// P(supported); below, the unsupported label with 1 − P.
func TestSupported(t *testing.T) {
	for _, c := range []struct {
		p           float64
		unsupported Label
		want        Result
	}{
		{0.9, Neutral, Result{Label: Entailment, Probability: 0.9, Distribution: []float64{0.09999999999999998, 0.9, 0}}},
		{0.5, Neutral, Result{Label: Entailment, Probability: 0.5, Distribution: []float64{0.5, 0.5, 0}}},
		{0.25, Neutral, Result{Label: Neutral, Probability: 0.75, Distribution: []float64{0.75, 0.25, 0}}},
		{0, Neutral, Result{Label: Neutral, Probability: 1, Distribution: []float64{1, 0, 0}}},
		{1, Contradiction, Result{Label: Entailment, Probability: 1, Distribution: []float64{0, 1, 0}}},
		{0.25, Contradiction, Result{Label: Contradiction, Probability: 0.75, Distribution: []float64{0, 0.25, 0.75}}},
		{0.4999, Contradiction, Result{Label: Contradiction, Probability: 0.5001, Distribution: []float64{0, 0.4999, 0.5001}}},
	} {
		got := Supported(c.p, c.unsupported)
		if got.Label != c.want.Label || got.Probability != c.want.Probability || !slices.Equal(got.Distribution, c.want.Distribution) {
			t.Errorf("Supported(%v, %v) = %+v; want %+v", c.p, c.unsupported, got, c.want)
		}
	}
}

func TestParseUnsupported(t *testing.T) {
	for in, want := range map[string]Label{"": Neutral, "neutral": Neutral, "contradiction": Contradiction} {
		if got, err := ParseUnsupported(in); err != nil || got != want {
			t.Errorf("ParseUnsupported(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"entailment", "Neutral", "none"} {
		if _, err := ParseUnsupported(in); err == nil {
			t.Errorf("ParseUnsupported(%q): no error", in)
		}
	}
}
