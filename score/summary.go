package score

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Summary aggregates the scores of many responses (one row of `fr compare`).
type Summary struct {
	Responses   int     `json:"responses"`
	MeanPr      float64 `json:"mean_precision"`   // mean factual precision
	MeanF1K     float64 `json:"mean_f1_k"`        // mean F1@K
	MeanEntropy float64 `json:"mean_avg_entropy"` // mean E measure
	MeanTrue    float64 `json:"mean_true_atoms"`  // mean #S
	MeanFalse   float64 `json:"mean_false_atoms"` // mean #C (predicted false, not undecided)
	MeanUniform float64 `json:"mean_uniform_atoms"`

	// Against gold labels, over the labeled responses and atoms.
	Labeled  int     `json:"labeled_responses"`
	AtomF1   float64 `json:"atom_f1"`   // F1 of predicted S vs gold S, pooled over atoms
	Accuracy float64 `json:"accuracy"`  // (TP + TN) / labeled atoms
	Brier    float64 `json:"brier"`     // mean (P(true) − y)² over labeled atoms
	MAE      float64 `json:"mae"`       // mean |Pr − gold Pr| over responses
	Pearson  float64 `json:"pearson"`   // of Pr with gold Pr over responses
	Spearman float64 `json:"spearman"`  // rank correlation of Pr with gold Pr
	MeanGold float64 `json:"mean_gold"` // mean gold precision
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
		n := g.TruePositive + g.TrueNegative + g.FalsePositive + g.FalseNegative
		tp, tn, fp, fn, atoms = tp+g.TruePositive, tn+g.TrueNegative, fp+g.FalsePositive, fn+g.FalseNegative, atoms+n
		brier += g.AvgBrier * float64(n)
		s.MAE += math.Abs(x.Precision - g.FactualityScore)
		s.MeanGold += g.FactualityScore
		pr = append(pr, x.Precision)
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
		return s
	}
	s.MAE /= float64(s.Labeled)
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

// correlation is Pearson's r, NaN when either side is constant or there are
// fewer than two points.
func correlation(x, y []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	return stat.Correlation(x, y, nil)
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
