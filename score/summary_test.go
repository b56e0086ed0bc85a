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

// TestSummarizeAbstainedAndRMSE: a response that abstained counts in
// Responses only; RMSE is the root of the mean squared error of labeled
// precision (by hand: errors 1/2 and 0 give √(1/8)); every interval holds
// its mean.
func TestSummarizeAbstainedAndRMSE(t *testing.T) {
	all := []Scores{
		// labeled precision 1 (both predicted S), gold 1/2: error 1/2
		Compute([]Atom{{ID: "a0", PTrue: 0.9, Gold: "S"}, {ID: "a1", PTrue: 0.8, Gold: "NS"}}, K{Half: true}),
		{Abstained: true},
		// labeled precision 1/2, gold 1/2: error 0
		Compute([]Atom{{ID: "a0", PTrue: 0.9, Gold: "S"}, {ID: "a1", PTrue: 0.2, Gold: "NS"}}, K{Half: true}),
	}
	s := Summarize(all)
	if s.Responses != 3 || s.Responding != 2 || s.Labeled != 2 {
		t.Fatalf("counts %d responses, %d responding, %d labeled; want 3, 2, 2", s.Responses, s.Responding, s.Labeled)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"mean precision", s.MeanPr, 0.75},
		{"mae", s.MAE, 0.25},
		{"rmse", s.RMSE, math.Sqrt(0.125)},
		{"mean #S", s.MeanTrue, 1.5},
	} {
		if math.Abs(f.got-f.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
	means := map[string]float64{"mean_precision": s.MeanPr, "mean_f1_k": s.MeanF1K, "mean_avg_entropy": s.MeanEntropy,
		"mean_true_atoms": s.MeanTrue, "mean_false_atoms": s.MeanFalse, "mean_uniform_atoms": s.MeanUniform,
		"mae": s.MAE, "rmse": s.RMSE, "mean_precision_labeled": s.LabeledPr, "mean_gold": s.MeanGold}
	for _, m := range Measures() {
		iv, ok := s.Intervals[m.Name]
		if !ok || !iv.Contains(means[m.Name]) {
			t.Errorf("%s: interval %v (%v) does not hold the mean %v", m.Name, iv, ok, means[m.Name])
		}
	}
	// All abstained: no mean, no interval.
	if s := Summarize([]Scores{{Abstained: true}}); s.Responding != 0 || len(s.Intervals) != 0 || s.MeanPr != 0 {
		t.Errorf("all abstained: %+v", s)
	}
}
