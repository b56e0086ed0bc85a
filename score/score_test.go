package score

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

func TestCompute(t *testing.T) {
	uniform := []Atom{{ID: "a0", PTrue: 0.5}, {ID: "a1", PTrue: 0.5}, {ID: "a2", PTrue: 0.5}, {ID: "a3", PTrue: 0.5}}
	mixed := []Atom{
		{ID: "a0", PTrue: 0.9, Gold: "S"},
		{ID: "a1", PTrue: 0.2, Gold: "NS"},
		{ID: "a10", PTrue: 0.5000004, Gold: "S"}, // rounds to 0.5: uniform
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
		// a10 rounds to 0.5: undecided, so neither true nor false, and
		// predicted NS (docs/scores.md; before the tie rule it counted as both
		// true and uniform).
		{"mixed, K half", mixed, K{Half: true}, Scores{NumAtoms: 5, NumTrueAtoms: 2, NumFalseAtoms: 1, NumUniformAtoms: 2,
			Precision: 0.4, Entropy: h(0.9) + h(0.2) + h(0.5000004) + h(0.999999) + h(0.5),
			AvgEntropy: (h(0.9) + h(0.2) + h(0.5000004) + h(0.999999) + h(0.5)) / 5,
			K:          2, RecallK: 1, F1K: 2 * 0.4 / 1.4,
			Predictions: " a0: S a1: NS a10: NS a2: S a3: NS"},
			&Gold{TrueAtoms: 2, FactualityScore: 0.5, TruePositive: 1, TrueNegative: 1, FalsePositive: 1, FalseNegative: 1,
				AvgBrier: (0.01 + 0.04 + 0.4999996*0.4999996 + 1) / 4, References: " a0: S a1: NS a10: S a2: NS"}},
		{"mixed, K 10", mixed, K{Value: 10}, Scores{NumAtoms: 5, NumTrueAtoms: 2, NumFalseAtoms: 1, NumUniformAtoms: 2,
			Precision: 0.4, K: 10, RecallK: 0.2, F1K: 2 * 0.4 * 0.2 / 0.6}, nil},
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

// TestTies: an atom whose P(true) rounds to 0.5 at 6 decimals is
// undecided and neither true nor false, whatever side of 0.5 the
// floating-point noise puts it (docs/scores.md); the three counts add up to n.
// 0.5000000000000002 is what two supporting and two contradicting contexts
// of equal strengths give (see package assess's TestTiedEvidence).
func TestTies(t *testing.T) {
	atoms := []Atom{
		{ID: "a0", PTrue: 0.5000000000000002, Gold: "S"},
		{ID: "a1", PTrue: 0.4999999999999998, Gold: "NS"},
		{ID: "a2", PTrue: 0.5},
		{ID: "a3", PTrue: 0.500001}, // 500001 at 6 decimals: decided, true
		{ID: "a4", PTrue: 0.499999}, // decided, false
	}
	s := Compute(atoms, K{Half: true})
	if s.NumTrueAtoms != 1 || s.NumFalseAtoms != 1 || s.NumUniformAtoms != 3 {
		t.Errorf("true/false/uniform = %d/%d/%d, want 1/1/3", s.NumTrueAtoms, s.NumFalseAtoms, s.NumUniformAtoms)
	}
	if s.NumTrueAtoms+s.NumFalseAtoms+s.NumUniformAtoms != s.NumAtoms {
		t.Errorf("counts do not add up to %d", s.NumAtoms)
	}
	if want := " a0: NS a1: NS a2: NS a3: S a4: NS"; s.Predictions != want {
		t.Errorf("predictions %q, want %q", s.Predictions, want)
	}
	if s.Precision != 0.2 {
		t.Errorf("precision %v, want 1/5", s.Precision)
	}
	// The tied atoms are predicted NS: gold S is a false negative, gold NS
	// a true negative.
	if g := s.Gold; g.TruePositive != 0 || g.FalseNegative != 1 || g.TrueNegative != 1 || g.FalsePositive != 0 {
		t.Errorf("gold %+v", *g)
	}
}

// TestReferenceMeasures checks the reference code's extra measures by hand:
// binary entropy in bits, the mean probability, the mean log-probability
// and its exponential, over p clamped to [1e-6, 1 − 1e-6]; and the per-atom
// entries, which keep the unclamped marginal.
func TestReferenceMeasures(t *testing.T) {
	atoms := []Atom{{ID: "a1", PTrue: 0.2}, {ID: "a0", PTrue: 0.9}, {ID: "a2", PTrue: 1}, {ID: "a3", PTrue: 0.5}}
	s := Compute(atoms, K{Half: true})
	h2 := func(p float64) float64 { return -(p*math.Log2(p) + (1-p)*math.Log2(1-p)) }
	ps := []float64{0.9, 0.2, 0.999999, 0.5}
	var ne, sp, sl float64
	for _, p := range ps {
		ne += h2(p)
		sp += p
		sl += math.Log(p)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"norm_entropy", s.NormEntropy, ne},
		{"avg_norm_entropy", s.AvgNormEntropy, ne / 4},
		{"avg_prob", s.AvgProb, sp / 4},
		{"avg_logprob", s.AvgLogProb, sl / 4},
		{"avg_explogprob", s.AvgExpLogProb, math.Exp(sl / 4)},
	} {
		if math.Abs(f.got-f.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
	// An atom at 0.5 carries exactly one bit.
	if u := Compute([]Atom{{ID: "a", PTrue: 0.5}}, K{Half: true}); u.NormEntropy != 1 || u.AvgNormEntropy != 1 || u.AvgExpLogProb != 0.5 {
		t.Errorf("undecided atom: norm entropy %v, avg %v, explogprob %v; want 1, 1, 0.5", u.NormEntropy, u.AvgNormEntropy, u.AvgExpLogProb)
	}
	b, err := json.Marshal(s.PerAtom)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"a0":{"score":0.9,"support":"S"}},{"a1":{"score":0.2,"support":"NS"}},{"a2":{"score":1,"support":"S"}},{"a3":{"score":0.5,"support":"NS"}}]`
	if string(b) != want {
		t.Errorf("factuality_score_per_atom\n got %s\nwant %s", b, want)
	}
	var back []AtomScore
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, s.PerAtom) {
		t.Errorf("round trip: %v, %+v", err, back)
	}
	if err := json.Unmarshal([]byte(`[{"a0":{"score":1},"a1":{"score":0}}]`), &back); err == nil {
		t.Error("an entry with two atoms was accepted")
	}
}

// TestFactReasonerDefinitions: the fields FactReasoner defines otherwise
// than this project, computed from its reference run's per-atom scores,
// give what its result file says: factreasoner_entropy (natural log),
// factreasoner_avg_entropy, factreasoner_num_false_atoms (the undecided
// atom counted as false); the fields that share its definition
// (factuality_score, num_true_atoms, num_uniform_atoms, norm_entropy,
// avg_norm_entropy, avg_prob, avg_logprob, avg_explogprob) give its values
// as they are; entropy (log10) and num_false_atoms (without the undecided
// atom) are this project's.
func TestFactReasonerDefinitions(t *testing.T) {
	data, err := os.ReadFile(refdata.Path(t, "factreasoner", "reference_factreasoner_output.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Results struct {
			PerAtom []AtomScore `json:"factuality_score_per_atom"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Results map[string]json.RawMessage `json:"results"`
	}
	json.Unmarshal(data, &raw)
	num := func(name string) float64 {
		var v float64
		if err := json.Unmarshal(raw.Results[name], &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	var atoms []Atom
	for _, a := range ref.Results.PerAtom {
		atoms = append(atoms, Atom{ID: a.ID, PTrue: a.Score})
	}
	s := Compute(atoms, K{Half: true})
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"factreasoner_entropy", s.FREntropy, num("entropy")},
		{"factreasoner_avg_entropy", s.FRAvgEntropy, num("avg_entropy")},
		{"factreasoner_num_false_atoms", float64(s.FRNumFalseAtoms), num("num_false_atoms")},
		{"factuality_score", s.Precision, num("factuality_score")},
		{"num_true_atoms", float64(s.NumTrueAtoms), num("num_true_atoms")},
		{"num_uniform_atoms", float64(s.NumUniformAtoms), num("num_uniform_atoms")},
		{"norm_entropy", s.NormEntropy, num("norm_entropy")},
		{"avg_norm_entropy", s.AvgNormEntropy, num("avg_norm_entropy")},
		{"avg_prob", s.AvgProb, num("avg_prob")},
		{"avg_logprob", s.AvgLogProb, num("avg_logprob")},
		{"avg_explogprob", s.AvgExpLogProb, num("avg_explogprob")},
		// Ours, not FactReasoner's: log10, and the undecided atom apart.
		{"entropy (log10)", s.Entropy, num("entropy") / math.Ln10},
		{"num_false_atoms (undecided apart)", float64(s.NumFalseAtoms + s.NumUniformAtoms), num("num_false_atoms")},
	} {
		if math.Abs(f.got-f.want) > 1e-9*max(1, math.Abs(f.want)) {
			t.Errorf("%s = %.12g, FactReasoner's %.12g", f.name, f.got, f.want)
		}
	}
	if s.NumFalseAtoms == s.FRNumFalseAtoms {
		t.Errorf("num_false_atoms %d: the reference's undecided atom should set the two apart", s.NumFalseAtoms)
	}
}
