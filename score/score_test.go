package score

import (
	"math"
	"testing"
)

func TestCompute(t *testing.T) {
	uniform := []Atom{{ID: "a0", PTrue: 0.5}, {ID: "a1", PTrue: 0.5}, {ID: "a2", PTrue: 0.5}, {ID: "a3", PTrue: 0.5}}
	mixed := []Atom{
		{ID: "a0", PTrue: 0.9, Gold: "S"},
		{ID: "a1", PTrue: 0.2, Gold: "NS"},
		{ID: "a10", PTrue: 0.5000004, Gold: "S"}, // rounds to 0.5: uniform, and S since > 0.5
		{ID: "a2", PTrue: 1, Gold: "NS"},
		{ID: "a3", PTrue: 0.5},
	}
	h := func(p float64) float64 { return -p * math.Log10(p) }
	tests := []struct {
		name  string
		atoms []Atom
		k     K
		want  Scores
		gold  *Gold
	}{
		{"all undecided", uniform, K{Half: true}, Scores{NumAtoms: 4, NumUniformAtoms: 4,
			Entropy: 4 * 0.1505149978319906, AvgEntropy: 0.1505149978319906, K: 2,
			Predictions: " a0: NS a1: NS a2: NS a3: NS"}, nil},
		{"mixed, K half", mixed, K{Half: true}, Scores{NumAtoms: 5, NumTrueAtoms: 3, NumFalseAtoms: 1, NumUniformAtoms: 2,
			Precision: 0.6, Entropy: h(0.9) + h(0.2) + h(0.5000004) + h(0.999999) + h(0.5),
			AvgEntropy: (h(0.9) + h(0.2) + h(0.5000004) + h(0.999999) + h(0.5)) / 5,
			K:          2, RecallK: 1, F1K: 2 * 0.6 / 1.6,
			Predictions: " a0: S a1: NS a10: S a2: S a3: NS"},
			&Gold{TrueAtoms: 2, FactualityScore: 0.5, TruePositive: 2, TrueNegative: 1, FalsePositive: 1,
				AvgBrier: (0.01 + 0.04 + 0.4999996*0.4999996 + 1) / 4, References: " a0: S a1: NS a10: S a2: NS"}},
		{"mixed, K 10", mixed, K{Value: 10}, Scores{NumAtoms: 5, NumTrueAtoms: 3, NumFalseAtoms: 1, NumUniformAtoms: 2,
			Precision: 0.6, K: 10, RecallK: 0.3, F1K: 2 * 0.6 * 0.3 / 0.9}, nil},
	}
	for _, tc := range tests {
		got := Compute(tc.atoms, tc.k)
		for _, f := range []struct {
			name      string
			got, want float64
		}{
			{"num_atoms", float64(got.NumAtoms), float64(tc.want.NumAtoms)},
			{"true", float64(got.NumTrueAtoms), float64(tc.want.NumTrueAtoms)},
			{"false", float64(got.NumFalseAtoms), float64(tc.want.NumFalseAtoms)},
			{"uniform", float64(got.NumUniformAtoms), float64(tc.want.NumUniformAtoms)},
			{"precision", got.Precision, tc.want.Precision},
			{"k", got.K, tc.want.K},
			{"recall_k", got.RecallK, tc.want.RecallK},
			{"f1_k", got.F1K, tc.want.F1K},
		} {
			if math.Abs(f.got-f.want) > 1e-12 {
				t.Errorf("%s: %s = %v, want %v", tc.name, f.name, f.got, f.want)
			}
		}
		if tc.want.Entropy != 0 && (math.Abs(got.Entropy-tc.want.Entropy) > 1e-12 || math.Abs(got.AvgEntropy-tc.want.AvgEntropy) > 1e-12) {
			t.Errorf("%s: entropy %v/%v, want %v/%v", tc.name, got.Entropy, got.AvgEntropy, tc.want.Entropy, tc.want.AvgEntropy)
		}
		if tc.want.Predictions != "" && got.Predictions != tc.want.Predictions {
			t.Errorf("%s: predictions %q, want %q", tc.name, got.Predictions, tc.want.Predictions)
		}
		if tc.gold != nil {
			g := got.Gold
			if g == nil {
				t.Fatalf("%s: no gold scores", tc.name)
			}
			if math.Abs(g.AvgBrier-tc.gold.AvgBrier) > 1e-12 {
				t.Errorf("%s: brier %v, want %v", tc.name, g.AvgBrier, tc.gold.AvgBrier)
			}
			g.AvgBrier = tc.gold.AvgBrier
			if *g != *tc.gold {
				t.Errorf("%s: gold %+v, want %+v", tc.name, *g, *tc.gold)
			}
		}
	}
	if Compute(uniform, K{Half: true}).Gold != nil {
		t.Error("unlabeled atoms gave gold scores")
	}
}

// The paper's undecided response: every atom at 0.5 gives E = 0.150515.
func TestUndecidedEntropy(t *testing.T) {
	s := Compute([]Atom{{ID: "a", PTrue: 0.5}}, K{Half: true})
	if math.Round(s.AvgEntropy*1e6) != 150515 {
		t.Errorf("E = %v, want 0.150515", s.AvgEntropy)
	}
	if s.K != 1 {
		t.Errorf("K half of 1 atom = %v, want 1", s.K)
	}
}

func TestParseKAndMedian(t *testing.T) {
	for _, s := range []string{"0", "-1", "x", "NaN", "Inf"} {
		if _, err := ParseK(s); err == nil {
			t.Errorf("ParseK(%q) accepted", s)
		}
	}
	if k, err := ParseK("32"); err != nil || k.Value != 32 || k.Half {
		t.Errorf("ParseK(32) = %+v, %v", k, err)
	}
	if m := Median([]int{5, 1, 3}); m != 3 {
		t.Errorf("median = %v", m)
	}
	if m := Median([]int{4, 1, 3, 10}); m != 3.5 {
		t.Errorf("median = %v", m)
	}
}

func TestSummarize(t *testing.T) {
	a := Compute([]Atom{{ID: "a0", PTrue: 0.9, Gold: "S"}, {ID: "a1", PTrue: 0.3, Gold: "S"}}, K{Value: 1}) // Pr 0.5, gold 1
	b := Compute([]Atom{{ID: "a0", PTrue: 0.8, Gold: "NS"}, {ID: "a1", PTrue: 0.5, Gold: "NS"}, {ID: "a2", PTrue: 0.7, Gold: "S"}}, K{Value: 1})
	c := Compute([]Atom{{ID: "a0", PTrue: 0.1}}, K{Value: 1}) // unlabeled
	s := Summarize([]Scores{a, b, c})
	// Pooled over the 5 labeled atoms: TP 2 (a.a0, b.a2), FN 1 (a.a1), FP 1 (b.a0), TN 1 (b.a1).
	want := Summary{Responses: 3, Labeled: 2,
		MeanPr:    (0.5 + 2.0/3 + 0) / 3,
		MeanTrue:  (1 + 2 + 0) / 3.0,
		MeanFalse: (1 + 0 + 1) / 3.0,
		AtomF1:    4.0 / 6, Accuracy: 3.0 / 5,
		Brier:    (0.01 + 0.49 + 0.64 + 0.25 + 0.09) / 5,
		MAE:      (0.5 + math.Abs(2.0/3-1.0/3)) / 2,
		MeanGold: (1 + 1.0/3) / 2,
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"responses", float64(s.Responses), float64(want.Responses)},
		{"labeled", float64(s.Labeled), float64(want.Labeled)},
		{"mean pr", s.MeanPr, want.MeanPr},
		{"mean true", s.MeanTrue, want.MeanTrue},
		{"mean false", s.MeanFalse, want.MeanFalse},
		{"atom f1", s.AtomF1, want.AtomF1},
		{"accuracy", s.Accuracy, want.Accuracy},
		{"brier", s.Brier, want.Brier},
		{"mae", s.MAE, want.MAE},
		{"mean gold", s.MeanGold, want.MeanGold},
	} {
		if math.Abs(f.got-f.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
}

func TestRanks(t *testing.T) {
	got := ranks([]float64{0.3, 0.1, 0.3, 0.9})
	want := []float64{2.5, 1, 2.5, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ranks = %v, want %v", got, want)
		}
	}
	// Spearman of a monotone but nonlinear relation is 1.
	if r := correlation(ranks([]float64{1, 2, 3, 4}), ranks([]float64{1, 4, 9, 100})); math.Abs(r-1) > 1e-12 {
		t.Errorf("spearman = %v", r)
	}
}
