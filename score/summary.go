package score

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Summary aggregates the scores of many responses (one row of `fr compare`).
type Summary struct {
	Responses   int     `json:"responses"`
	MeanPr      float64 `json:"mean_precision"`   // mean factual precision (over all atoms)
	MeanF1K     float64 `json:"mean_f1_k"`        // mean F1@K
	MeanEntropy float64 `json:"mean_avg_entropy"` // mean E measure
	MeanTrue    float64 `json:"mean_true_atoms"`  // mean #S
	MeanFalse   float64 `json:"mean_false_atoms"` // mean #C (predicted false, not undecided)
	MeanUniform float64 `json:"mean_uniform_atoms"`

	// Against gold labels, over the labeled responses and, within them,
	// the labeled atoms only: a response's precision is compared with its
	// gold precision on the same atoms, so unlabeled atoms move neither.
	Labeled  int     `json:"labeled_responses"`
	AtomF1   float64 `json:"atom_f1"`  // F1 of predicted S vs gold S, pooled over labeled atoms
	Accuracy float64 `json:"accuracy"` // (TP + TN) / labeled atoms, pooled
	// Brier is pooled over the labeled atoms of all responses: the mean of
	// (P(true) − y)² over every labeled atom, so a response weighs by its
	// number of labeled atoms (not a mean of per-response avg_brier).
	Brier float64 `json:"brier"`
	// MAE, Pearson and Spearman compare each response's precision on its
	// labeled atoms (LabeledPr) with its gold precision.
	MAE       float64 `json:"mae"`                    // mean |labeled Pr − gold Pr| over responses
	Pearson   float64 `json:"pearson"`                // of labeled Pr with gold Pr; NaN when undefined
	Spearman  float64 `json:"spearman"`               // rank correlation of labeled Pr with gold Pr; NaN when undefined
	LabeledPr float64 `json:"mean_precision_labeled"` // mean precision on the labeled atoms
	MeanGold  float64 `json:"mean_gold"`              // mean gold precision
}

// Summarize aggregates per-response scores.
func Summarize(all []Scores) Summary {
	var s Summary
	s.Responses = len(all)
	if len(all) == 0 {
		return s
	}
	var tp, tn, fp, fn, atoms int
	var brier float64
	var pr, gold []float64
	for _, x := range all {
		s.MeanPr += x.Precision
		s.MeanF1K += x.F1K
		s.MeanEntropy += x.AvgEntropy
		s.MeanTrue += float64(x.NumTrueAtoms)
		s.MeanFalse += float64(x.NumFalseAtoms)
		s.MeanUniform += float64(x.NumUniformAtoms)
		g := x.Gold
		if g == nil {
			continue
		}
		s.Labeled++
		n := g.Labeled()
		tp, tn, fp, fn, atoms = tp+g.TruePositive, tn+g.TrueNegative, fp+g.FalsePositive, fn+g.FalseNegative, atoms+n
		brier += g.AvgBrier * float64(n)
		lp := g.Precision()
		s.MAE += math.Abs(lp - g.FactualityScore)
		s.LabeledPr += lp
		s.MeanGold += g.FactualityScore
		pr = append(pr, lp)
		gold = append(gold, g.FactualityScore)
	}
	n := float64(len(all))
	s.MeanPr /= n
	s.MeanF1K /= n
	s.MeanEntropy /= n
	s.MeanTrue /= n
	s.MeanFalse /= n
	s.MeanUniform /= n
	if s.Labeled == 0 {
		s.Pearson, s.Spearman = math.NaN(), math.NaN()
		return s
	}
	s.MAE /= float64(s.Labeled)
	s.LabeledPr /= float64(s.Labeled)
	s.MeanGold /= float64(s.Labeled)
	if 2*tp+fp+fn > 0 {
		s.AtomF1 = 2 * float64(tp) / float64(2*tp+fp+fn)
	}
	if atoms > 0 {
		s.Accuracy = float64(tp+tn) / float64(atoms)
		s.Brier = brier / float64(atoms)
	}
	s.Pearson = correlation(pr, gold)
	s.Spearman = correlation(ranks(pr), ranks(gold))
	return s
}

// correlation is Pearson's r, or NaN where it is undefined: fewer than
// two points, or a side without spread (all its values equal). The
// undefined case is decided here, exactly, rather than left to the
// floating-point residue of 0/0 in the formula, which depending on
// rounding comes out NaN, ±Inf or a meaningless finite value; any
// non-finite result is NaN too, and rounding cannot push r out of
// [−1, 1].
func correlation(x, y []float64) float64 {
	if len(x) < 2 || constant(x) || constant(y) {
		return math.NaN()
	}
	r := stat.Correlation(x, y, nil)
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return math.NaN()
	}
	return max(-1, min(1, r))
}

// constant reports whether every value of x equals the first.
func constant(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}

// ranks returns 1-based ranks with ties given their average rank.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}
