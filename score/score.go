// Package score computes FactReasoner's factuality measures from the
// marginal probabilities of a response's atoms: factual precision, F1@K, the
// entropy measure, and, for labeled atoms, agreement with the gold labels.
package score

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Atom is what scoring needs of one atom: its id, the marginal probability
// that it is true, and its gold label ("S", "NS" or "" when unlabeled).
type Atom struct {
	ID    string
	PTrue float64
	Gold  string
}

// Supported reports the predicted label: S iff P(true) > P(false), so an
// atom at exactly 0.5 is not supported.
func (a Atom) Supported() bool { return a.PTrue > 1-a.PTrue }

// Uniform reports whether the atom is undecided: P(true) rounded to 6
// decimals is 0.5.
func (a Atom) Uniform() bool { return math.Round(a.PTrue*1e6) == 5e5 }

// K is the rule that sets K for F1@K.
type K struct {
	// Half: K = max(⌊n/2⌋, 1) per response (the reference code's rule).
	// Otherwise K is Value: a fixed number, or the median atom count of the
	// whole input (the paper's rule), computed by the caller.
	Half  bool
	Value float64
	Name  string // "half", "median" or the number, for reports
}

// For returns K for a response of n atoms.
func (k K) For(n int) float64 {
	if k.Half {
		return float64(max(n/2, 1))
	}
	return k.Value
}

// ParseK parses "half", "median" or a positive number. For "median" the
// caller must set Value with Median.
func ParseK(s string) (K, error) {
	switch s {
	case "half", "":
		return K{Half: true, Name: "half"}, nil
	case "median":
		return K{Name: "median"}, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return K{}, fmt.Errorf("K %q is not half, median or a positive number", s)
	}
	return K{Value: v, Name: s}, nil
}

// Median returns the median of atom counts (the mean of the two middle
// values for an even count, as numpy's median).
func Median(counts []int) float64 {
	if len(counts) == 0 {
		return 0
	}
	c := append([]int(nil), counts...)
	sort.Ints(c)
	m := len(c) / 2
	if len(c)%2 == 1 {
		return float64(c[m])
	}
	return float64(c[m-1]+c[m]) / 2
}

// Scores are the measures of one response.
type Scores struct {
	NumAtoms        int     `json:"num_atoms"`
	NumTrueAtoms    int     `json:"num_true_atoms"`
	NumFalseAtoms   int     `json:"num_false_atoms"`
	NumUniformAtoms int     `json:"num_uniform_atoms"`
	Precision       float64 `json:"factuality_score"` // Pr = #S / n
	Entropy         float64 `json:"entropy"`          // Σ −p log10 p
	AvgEntropy      float64 `json:"avg_entropy"`      // the E measure: entropy / n
	K               float64 `json:"k"`
	RecallK         float64 `json:"recall_k"`
	F1K             float64 `json:"f1_k"`
	Predictions     string  `json:"predictions"` // " a0: S a1: NS ..." in byte-sorted id order

	Gold *Gold `json:"-"` // nil when no atom is labeled
}

// Gold compares predictions with gold labels.
type Gold struct {
	TrueAtoms       int     `json:"gold_true_atoms"`
	FactualityScore float64 `json:"gold_factuality_score"` // #gold S / #labeled
	TruePositive    int     `json:"true_positive"`
	TrueNegative    int     `json:"true_negative"`
	FalsePositive   int     `json:"false_positive"`
	FalseNegative   int     `json:"false_negative"`
	AvgBrier        float64 `json:"avg_brier"` // Σ (p − y)² over labeled atoms / #labeled
	References      string  `json:"references"`
}

// entropy bounds: p is clamped to [entropyMin, 1 − entropyMin] so that the
// entropy of a certainly false atom stays finite.
const entropyMin = 1e-6

// Compute scores one response. k is the rule for K; for the median rule its
// Value must be set.
func Compute(atoms []Atom, k K) Scores {
	s := Scores{NumAtoms: len(atoms)}
	sorted := append([]Atom(nil), atoms...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	var pred, ref strings.Builder
	var g Gold
	labeled := 0
	for _, a := range sorted {
		switch {
		case a.Supported():
			s.NumTrueAtoms++
		case !a.Uniform():
			s.NumFalseAtoms++
		}
		if a.Uniform() {
			s.NumUniformAtoms++
		}
		p := min(max(a.PTrue, entropyMin), 1-entropyMin)
		s.Entropy += -p * math.Log10(p)
		fmt.Fprintf(&pred, " %s: %s", a.ID, label(a.Supported()))
		if a.Gold == "" {
			continue
		}
		labeled++
		goldS := a.Gold == "S"
		fmt.Fprintf(&ref, " %s: %s", a.ID, a.Gold)
		y := 0.0
		if goldS {
			y = 1
			g.TrueAtoms++
		}
		g.AvgBrier += (a.PTrue - y) * (a.PTrue - y)
		switch {
		case goldS && a.Supported():
			g.TruePositive++
		case !goldS && !a.Supported():
			g.TrueNegative++
		case !goldS && a.Supported():
			g.FalsePositive++
		default:
			g.FalseNegative++
		}
	}
	s.Predictions = pred.String()
	if n := float64(len(atoms)); n > 0 {
		s.Precision = float64(s.NumTrueAtoms) / n
		s.AvgEntropy = s.Entropy / n
	}
	s.K = k.For(len(atoms))
	if s.K > 0 {
		s.RecallK = min(float64(s.NumTrueAtoms)/s.K, 1)
	}
	if s.NumTrueAtoms > 0 {
		s.F1K = 2 * s.Precision * s.RecallK / (s.Precision + s.RecallK)
	}
	if labeled > 0 {
		g.FactualityScore = float64(g.TrueAtoms) / float64(labeled)
		g.AvgBrier /= float64(labeled)
		g.References = ref.String()
		s.Gold = &g
	}
	return s
}

func label(supported bool) string {
	if supported {
		return "S"
	}
	return "NS"
}
