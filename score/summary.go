package score

import (
	"encoding/json"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"

	"github.com/factreasoner/factreasoner-go/paired"
)

// Summary aggregates the scores of many responses (one row of `fr compare`).
type Summary struct {
	// Responses counts every response; Responding those that did not
	// abstain, over which every mean is taken.
	Responses   int     `json:"responses"`
	Responding  int     `json:"responding"`
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
	// MAE, RMSE, Pearson and Spearman compare each response's precision
	// on its labeled atoms (LabeledPr) with its gold precision.
	MAE       float64 `json:"mae"`                    // mean |labeled Pr − gold Pr| over responses
	RMSE      float64 `json:"rmse"`                   // √ mean (labeled Pr − gold Pr)² over responses
	Pearson   float64 `json:"pearson"`                // of labeled Pr with gold Pr; NaN when undefined
	Spearman  float64 `json:"spearman"`               // rank correlation of labeled Pr with gold Pr; NaN when undefined
	LabeledPr float64 `json:"mean_precision_labeled"` // mean precision on the labeled atoms
	MeanGold  float64 `json:"mean_gold"`              // mean gold precision

	// Intervals are the 95% confidence intervals of the per-response
	// measures (Measures), by measure name: a percentile bootstrap over
	// the responses, seeded (package paired), so that the same scores
	// give the same intervals and two summaries of the same number of
	// responses resample them alike. A measure without values (a gold
	// measure of unlabeled responses) has none.
	Intervals map[string]Interval `json:"-"`
}

// Interval is a confidence interval [Low, High].
type Interval struct{ Low, High float64 }

// MarshalJSON writes [Low, High].
func (i Interval) MarshalJSON() ([]byte, error) { return json.Marshal([2]float64{i.Low, i.High}) }

// Contains reports whether x is in the interval.
func (i Interval) Contains(x float64) bool { return i.Low <= x && x <= i.High }

// Measure is a per-response measure whose mean a Summary reports.
type Measure struct {
	// Name is the JSON name of its mean in a Summary (mean_precision);
	// Label its column in a table (Pr).
	Name, Label string
	// Probability marks a measure of P(true) itself, which a run that
	// decides each atom without a P(true) (FActScore) does not have.
	Probability bool
	// Labeled marks a measure of labeled responses only (Scores.Gold).
	Labeled bool
	// Root marks RMSE: Value is the squared error, and the summary is
	// the square root of its mean (its interval, of the interval's ends).
	// It is no mean, and is not tested.
	Root bool
	// Test marks a measure whose difference between two runs on the same
	// responses is tested (package paired); the others (RMSE, and labeled
	// precision and gold precision, which say what MAE says) are not.
	Test bool
	// Value is the measure of one (responding) response.
	Value func(Scores) float64
}

// Measures are the per-response measures of a Summary, in the order of its
// fields.
func Measures() []Measure {
	labeledError := func(s Scores) float64 { return s.Gold.Precision() - s.Gold.FactualityScore }
	return []Measure{
		{Name: "mean_precision", Label: "Pr", Test: true, Value: func(s Scores) float64 { return s.Precision }},
		{Name: "mean_f1_k", Label: "F1@K", Test: true, Value: func(s Scores) float64 { return s.F1K }},
		{Name: "mean_avg_entropy", Label: "E", Test: true, Probability: true, Value: func(s Scores) float64 { return s.AvgEntropy }},
		{Name: "mean_true_atoms", Label: "#S", Test: true, Value: func(s Scores) float64 { return float64(s.NumTrueAtoms) }},
		{Name: "mean_false_atoms", Label: "#C", Test: true, Value: func(s Scores) float64 { return float64(s.NumFalseAtoms) }},
		{Name: "mean_uniform_atoms", Label: "#U", Test: true, Probability: true, Value: func(s Scores) float64 { return float64(s.NumUniformAtoms) }},
		{Name: "mae", Label: "MAE", Test: true, Labeled: true, Value: func(s Scores) float64 { return math.Abs(labeledError(s)) }},
		{Name: "rmse", Label: "RMSE", Labeled: true, Root: true, Value: func(s Scores) float64 { e := labeledError(s); return e * e }},
		{Name: "mean_precision_labeled", Label: "labeled Pr", Labeled: true, Value: func(s Scores) float64 { return s.Gold.Precision() }},
		{Name: "mean_gold", Label: "gold Pr", Labeled: true, Value: func(s Scores) float64 { return s.Gold.FactualityScore }},
	}
}

// Values are a measure's values over the responses that have one (those
// that responded, and for a gold measure are labeled), and their indices
// in all.
func (m Measure) Values(all []Scores) (values []float64, index []int) {
	for i, s := range all {
		if s.Abstained || m.Labeled && s.Gold == nil {
			continue
		}
		values = append(values, m.Value(s))
		index = append(index, i)
	}
	return values, index
}

// Summarize aggregates per-response scores. Responses that abstained count
// in Responses only.
func Summarize(all []Scores) Summary {
	var s Summary
	s.Responses = len(all)
	var tp, tn, fp, fn, atoms int
	var brier, sqErr float64
	var pr, gold []float64
	for _, x := range all {
		if x.Abstained {
			continue
		}
		s.Responding++
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
		sqErr += (lp - g.FactualityScore) * (lp - g.FactualityScore)
		s.LabeledPr += lp
		s.MeanGold += g.FactualityScore
		pr = append(pr, lp)
		gold = append(gold, g.FactualityScore)
	}
	if s.Responding == 0 {
		s.Pearson, s.Spearman = math.NaN(), math.NaN()
		return s
	}
	n := float64(s.Responding)
	s.MeanPr /= n
	s.MeanF1K /= n
	s.MeanEntropy /= n
	s.MeanTrue /= n
	s.MeanFalse /= n
	s.MeanUniform /= n
	s.Intervals = intervals(all)
	if s.Labeled == 0 {
		s.Pearson, s.Spearman = math.NaN(), math.NaN()
		return s
	}
	s.MAE /= float64(s.Labeled)
	s.RMSE = math.Sqrt(sqErr / float64(s.Labeled))
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

// intervals are the confidence intervals of the measures that have values.
func intervals(all []Scores) map[string]Interval {
	out := make(map[string]Interval)
	for _, m := range Measures() {
		x, _ := m.Values(all)
		if len(x) == 0 {
			continue
		}
		lo, hi, err := paired.MeanCI(x, paired.Options{})
		if err != nil { // cannot happen: there are values, and the options are the defaults
			continue
		}
		if m.Root {
			lo, hi = math.Sqrt(lo), math.Sqrt(hi)
		}
		out[m.Name] = Interval{lo, hi}
	}
	return out
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
