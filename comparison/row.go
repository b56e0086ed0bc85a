package comparison

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/factreasoner/factreasoner-go/foreign"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/score"
)

// Row is one row of a comparison: one run's scores over a file (a
// version, a baseline, a recorded run), summarized.
type Row struct {
	Version string `json:"version"`
	score.Summary
	// NaN is not JSON: correlations that do not exist, and measures that
	// do not apply (the entropy and undecided atoms of FActScore's row),
	// are null.
	Pearson  *float64 `json:"pearson"`
	Spearman *float64 `json:"spearman"`
	MeanE    *float64 `json:"mean_avg_entropy"`
	MeanU    *float64 `json:"mean_uniform_atoms"`
	// The gold measures do not exist without labels: null when no
	// response is labeled (Summary holds 0 there), as the tables print n/a.
	GoldAtomF1    *float64 `json:"atom_f1"`
	GoldAccuracy  *float64 `json:"accuracy"`
	GoldBrier     *float64 `json:"brier"`
	GoldMAE       *float64 `json:"mae"`
	GoldRMSE      *float64 `json:"rmse"`
	GoldLabeledPr *float64 `json:"mean_precision_labeled"`
	GoldMean      *float64 `json:"mean_gold"`
	// Inference says how the responses' marginals were computed (see
	// InferenceSummary); nil (null) for FActScore's row, which has no
	// inference, and for the runs of other systems, which do not record it.
	Inference *string `json:"inference"`
	// K is F1@K's K of a run of another system (batch.CompareRecorded), which
	// does not record one: "half", a number, or "median N"; absent for
	// fr's runs, whose K is that of their lines.
	K string `json:"k,omitempty"`
	// Recorded are the means over a run of another system of the values
	// its own file records under names this project defines otherwise
	// (foreign.Record.Recorded: FactReasoner's avg_entropy in natural log
	// and num_false_atoms with the undecided atoms, fr factscore's
	// factscore); absent for fr's runs.
	Recorded foreign.Values `json:"recorded,omitempty"`

	// The per-response scores the row summarizes, and the input line of
	// each: the paired tests (PairedTests) match two rows' responses by
	// line. decided marks a run without a P(true) (see Summarize).
	scores  []score.Scores
	lines   []int
	decided bool
}

// InferenceSummary says in one line how a run's responses were solved:
// each method with its count, how many did not converge, the largest
// error indicator of an approximate method (loopy BP's residual,
// conditioned BP's spread, a partial cutset's missing share of Z), and the
// labels of atoms and contexts that are uncertain (within their error
// bars) with the largest bar.
func InferenceSummary(reports []inference.Report) string {
	count := make(map[string]int)
	var methods []string
	unconverged, worst := 0, 0.0
	uncertain, widest := 0, 0.0
	for _, r := range reports {
		uncertain += r.Uncertain
		widest = max(widest, r.MaxError)
		if count[r.Method] == 0 {
			methods = append(methods, r.Method)
		}
		count[r.Method]++
		if !r.Converged {
			unconverged++
		}
		for _, p := range r.Parts {
			worst = max(worst, p.Residual, p.Spread, p.Missing)
		}
		if len(r.Parts) == 0 && r.BPComponents > 0 {
			worst = max(worst, r.Residual)
		}
	}
	sort.Strings(methods)
	parts := make([]string, len(methods))
	for i, m := range methods {
		parts[i] = fmt.Sprintf("%s %d", m, count[m])
	}
	out := strings.Join(parts, ", ")
	if unconverged > 0 {
		out += fmt.Sprintf("; %d NOT converged", unconverged)
	}
	if worst > 0 {
		out += fmt.Sprintf("; largest error indicator %.2g", worst)
	}
	if widest > 0 {
		out += fmt.Sprintf("; %d uncertain labels, largest error bar %.2g", uncertain, widest)
	}
	return out
}

// Summarize is the row of one run's scores, of the records at the input
// lines given (for the paired tests, which match two rows' responses by
// line). decided marks a
// run that decides each atom, true or false, without a P(true) (FActScore):
// its scores were computed with P(true) 1 or 0, and the measures of a
// probability, the entropy measure, undecided atoms and Brier score, do
// not apply (its E would be that of P = 0 or 1, a meaningless 0.0000, and
// its Brier score only its error rate again).
func Summarize(name string, all []score.Scores, lines []int, decided bool) Row {
	c := Row{Version: name, Summary: score.Summarize(all), scores: all, lines: lines, decided: decided}
	if decided {
		c.MeanEntropy, c.MeanUniform, c.Summary.Brier = math.NaN(), math.NaN(), math.NaN()
	}
	s := c.Summary
	c.Pearson, c.Spearman = finite(s.Pearson), finite(s.Spearman)
	c.MeanE, c.MeanU = finite(s.MeanEntropy), finite(s.MeanUniform)
	if s.Labeled > 0 {
		c.GoldAtomF1, c.GoldAccuracy, c.GoldBrier = finite(s.AtomF1), finite(s.Accuracy), finite(s.Brier)
		c.GoldMAE, c.GoldRMSE, c.GoldLabeledPr, c.GoldMean = finite(s.MAE), finite(s.RMSE), finite(s.LabeledPr), finite(s.MeanGold)
	}
	return c
}

// finite is x, or nil (JSON null) when x is not a number.
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
