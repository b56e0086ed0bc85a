package score

import (
	"math"
	"testing"
)

// TestSummarizeLabeledAtoms: MAE and the correlations compare precision
// with gold precision on the same atoms, the labeled ones. Here every
// response's labeled atoms are predicted exactly as the gold labels say,
// so MAE is 0 and both correlations are 1, whatever the unlabeled atoms
// are; counting those (precision 3/4, 2/3, 1/3 against gold 1/2, 1, 1/2)
// would give MAE 1/4 and Pearson 3/√84 ≈ 0.33.
func TestSummarizeLabeledAtoms(t *testing.T) {
	all := []Scores{
		Compute([]Atom{{ID: "a0", PTrue: 0.9, Gold: "S"}, {ID: "a1", PTrue: 0.1, Gold: "NS"}, {ID: "a2", PTrue: 0.9}, {ID: "a3", PTrue: 0.9}}, K{Half: true}),
		Compute([]Atom{{ID: "a0", PTrue: 0.9, Gold: "S"}, {ID: "a1", PTrue: 0.9, Gold: "S"}, {ID: "a2", PTrue: 0.1}}, K{Half: true}),
		Compute([]Atom{{ID: "a0", PTrue: 0.1, Gold: "NS"}, {ID: "a1", PTrue: 0.9, Gold: "S"}, {ID: "a2", PTrue: 0.1}}, K{Half: true}),
	}
	s := Summarize(all)
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"mean precision (all atoms)", s.MeanPr, (0.75 + 2.0/3 + 1.0/3) / 3},
		{"mean precision (labeled atoms)", s.LabeledPr, 2.0 / 3},
		{"mean gold", s.MeanGold, 2.0 / 3},
		{"mae", s.MAE, 0},
		{"pearson", s.Pearson, 1},
		{"spearman", s.Spearman, 1},
		{"atom f1", s.AtomF1, 1},
		{"accuracy", s.Accuracy, 1},
		// Pooled over the 6 labeled atoms, each off by 0.1.
		{"brier", s.Brier, 0.01},
	} {
		if math.Abs(f.got-f.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
}

// TestSummarizeBrierPooled: Brier is the mean over all labeled atoms, not
// the mean of per-response values: a response with 3 labeled atoms weighs
// three times one with 1.
func TestSummarizeBrierPooled(t *testing.T) {
	a := Compute([]Atom{{ID: "a0", PTrue: 0.5, Gold: "S"}}, K{Half: true})                                                                 // (0.5)² = 0.25
	b := Compute([]Atom{{ID: "a0", PTrue: 1, Gold: "S"}, {ID: "a1", PTrue: 1, Gold: "S"}, {ID: "a2", PTrue: 1, Gold: "S"}}, K{Half: true}) // 0
	if got := Summarize([]Scores{a, b}).Brier; math.Abs(got-0.25/4) > 1e-15 {
		t.Errorf("brier %v, want 0.0625 (pooled), not 0.125 (mean of responses)", got)
	}
}

// TestSummarizeUndefinedCorrelation: with one distinct response repeated
// (every precision equal) a correlation does not exist: NaN, never ±Inf
// or a number made of rounding residue. Unlabeled input has none either.
func TestSummarizeUndefinedCorrelation(t *testing.T) {
	one := Compute([]Atom{{ID: "a0", PTrue: 0.9, Gold: "S"}, {ID: "a1", PTrue: 0.2, Gold: "S"}, {ID: "a2", PTrue: 0.7, Gold: "NS"}}, K{Half: true})
	for _, n := range []int{1, 2, 300} {
		all := make([]Scores, n)
		for i := range all {
			all[i] = one
		}
		s := Summarize(all)
		if !math.IsNaN(s.Pearson) || !math.IsNaN(s.Spearman) {
			t.Errorf("%d copies: pearson %v, spearman %v; want NaN", n, s.Pearson, s.Spearman)
		}
	}
	s := Summarize([]Scores{Compute([]Atom{{ID: "a0", PTrue: 0.9}}, K{Half: true}), Compute([]Atom{{ID: "a0", PTrue: 0.1}}, K{Half: true})})
	if s.Labeled != 0 || !math.IsNaN(s.Pearson) || !math.IsNaN(s.Spearman) {
		t.Errorf("unlabeled: %+v", s)
	}
}

func TestCorrelation(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64 // NaN: undefined
	}{
		{"one point", []float64{1}, []float64{2}, math.NaN()},
		{"constant x", []float64{0.3, 0.3, 0.3}, []float64{0.1, 0.5, 0.9}, math.NaN()},
		{"constant y", []float64{0.1, 0.5, 0.9}, []float64{2.0 / 7, 2.0 / 7, 2.0 / 7}, math.NaN()},
		{"linear", []float64{1, 2, 3}, []float64{2, 4, 6}, 1},
		{"anti", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		// By hand: deviations (−1, 0, 1) and (−1, 1, 0): r = 1/√2·√2 = 0.5.
		{"partial", []float64{1, 2, 3}, []float64{1, 3, 2}, 0.5},
	}
	for _, tc := range tests {
		got := correlation(tc.x, tc.y)
		if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-tc.want) > 1e-12) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
