// Package score computes FactReasoner's factuality measures from the
// marginal probabilities of a response's atoms: factual precision, F1@K, the
// entropy measure, and, for labeled atoms, agreement with the gold labels.
package score

import (
	"encoding/json"
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

// Supported reports the predicted label: S iff P(true) > 0.5 and the atom
// is not uniform (docs/scores.md). Tied evidence can leave floating-point noise
// such as P(true) = 0.5000000000000002; such an atom is undecided, not
// supported.
func (a Atom) Supported() bool { return a.PTrue > 0.5 && !a.Uniform() }

// Uniform reports whether the atom is undecided: P(true) rounded to 6
// decimals is 0.5. An undecided atom is neither true nor false.
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
	NumTrueAtoms    int     `json:"num_true_atoms"`    // supported: P(true) > 0.5, not uniform
	NumFalseAtoms   int     `json:"num_false_atoms"`   // P(true) < 0.5, not uniform
	NumUniformAtoms int     `json:"num_uniform_atoms"` // P(true) rounds to 0.5 at 6 decimals
	Precision       float64 `json:"factuality_score"`  // Pr = #S / n
	Entropy         float64 `json:"entropy"`           // Σ −p log10 p
	AvgEntropy      float64 `json:"avg_entropy"`       // the E measure: entropy / n
	K               float64 `json:"k"`
	RecallK         float64 `json:"recall_k"`
	F1K             float64 `json:"f1_k"`
	Predictions     string  `json:"predictions"` // " a0: S a1: NS ..." in byte-sorted id order

	// The reference code's other measures. p is P(true) clamped to
	// [1e-6, 1 − 1e-6].
	NormEntropy    float64     `json:"norm_entropy"`     // Σ binary entropy of p in bits
	AvgNormEntropy float64     `json:"avg_norm_entropy"` // norm_entropy / n
	AvgProb        float64     `json:"avg_prob"`         // mean p
	AvgLogProb     float64     `json:"avg_logprob"`      // mean ln p
	AvgExpLogProb  float64     `json:"avg_explogprob"`   // exp(avg_logprob): the geometric mean of p
	PerAtom        []AtomScore `json:"factuality_score_per_atom"`

	// FactReasoner's definitions where they differ from the fields of the
	// same name above, for comparing with its result files: its entropy is
	// Σ −p ln p (natural log; p below 1e-6 raised to it, p of 1 lowered to
	// 0.999999, as its code does), and its num_false_atoms counts every
	// atom that is not true, undecided ones included.
	FREntropy       float64 `json:"factreasoner_entropy"`
	FRAvgEntropy    float64 `json:"factreasoner_avg_entropy"`
	FRNumFalseAtoms int     `json:"factreasoner_num_false_atoms"`

	Gold *Gold `json:"-"` // nil when no atom is labeled

	// Abstained marks a response that declined to answer (FActScore's
	// abstention rules): it has no atoms and no measures, and is left out
	// of every mean (Summarize), counting only in the responding share.
	Abstained bool `json:"-"`
}

// AtomScore is one atom's entry of factuality_score_per_atom: its P(true)
// (the marginal, not clamped) and predicted label. It is written as the
// reference writes it, {"a0": {"score": 0.93, "support": "S"}}.
type AtomScore struct {
	ID      string
	Score   float64
	Support string // "S" or "NS"
}

type atomScoreBody struct {
	Score   float64 `json:"score"`
	Support string  `json:"support"`
}

// MarshalJSON writes {"ID": {"score": Score, "support": Support}}.
func (a AtomScore) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]atomScoreBody{a.ID: {a.Score, a.Support}})
}

// UnmarshalJSON reads what MarshalJSON writes: an object with exactly one
// key.
func (a *AtomScore) UnmarshalJSON(b []byte) error {
	var m map[string]atomScoreBody
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if len(m) != 1 {
		return fmt.Errorf("an atom score is an object with one key (the atom id), not %d", len(m))
	}
	for id, body := range m {
		*a = AtomScore{ID: id, Score: body.Score, Support: body.Support}
	}
	return nil
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

// Labeled returns the number of labeled atoms.
func (g *Gold) Labeled() int {
	return g.TruePositive + g.TrueNegative + g.FalsePositive + g.FalseNegative
}

// Precision returns the predicted precision on the labeled atoms only,
// #(predicted S among labeled) / #labeled: the number to set beside
// FactualityScore, which counts the same atoms.
func (g *Gold) Precision() float64 {
	return float64(g.TruePositive+g.FalsePositive) / float64(g.Labeled())
}

// probMin bounds p: it is clamped to [probMin, 1 − probMin] before the
// logarithms, so that a certainly true or false atom gives finite values.
const probMin = 1e-6

// Compute scores one response. k is the rule for K; for the median rule its
// Value must be set. The measures divided by n (precision, the averages)
// are undefined without atoms; Compute leaves them 0, and a caller must not
// report them as scores (the pipeline refuses a record without atoms).
func Compute(atoms []Atom, k K) Scores {
	s := Scores{NumAtoms: len(atoms), PerAtom: make([]AtomScore, 0, len(atoms))}
	sorted := append([]Atom(nil), atoms...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	var pred, ref strings.Builder
	var g Gold
	labeled := 0
	var sumProb, sumLogProb float64
	for _, a := range sorted {
		switch {
		case a.Uniform():
			s.NumUniformAtoms++
		case a.Supported():
			s.NumTrueAtoms++
		default:
			s.NumFalseAtoms++
		}
		s.FREntropy += frEntropy(a.PTrue)
		p := min(max(a.PTrue, probMin), 1-probMin)
		s.Entropy += -p * math.Log10(p)
		s.NormEntropy += -(p*math.Log(p) + (1-p)*math.Log(1-p)) / math.Ln2
		sumProb += p
		sumLogProb += math.Log(p)
		l := label(a.Supported())
		s.PerAtom = append(s.PerAtom, AtomScore{ID: a.ID, Score: a.PTrue, Support: l})
		fmt.Fprintf(&pred, " %s: %s", a.ID, l)
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
		s.AvgNormEntropy = s.NormEntropy / n
		s.AvgProb = sumProb / n
		s.AvgLogProb = sumLogProb / n
		s.AvgExpLogProb = math.Exp(s.AvgLogProb)
		s.FRAvgEntropy = s.FREntropy / n
	}
	s.FRNumFalseAtoms = len(atoms) - s.NumTrueAtoms
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

// frEntropy is an atom's term of FactReasoner's entropy, as its code
// computes it (fact_reasoner.py, score): −p ln p, with p below 1e-6
// raised to 1e-6 and p of 1 or more lowered to 0.999999 (p between
// 0.999999 and 1 is left as it is).
func frEntropy(p float64) float64 {
	switch {
	case p < probMin:
		p = probMin
	case p >= 1:
		p = 1 - probMin
	}
	return -p * math.Log(p)
}

func label(supported bool) string {
	if supported {
		return "S"
	}
	return "NS"
}
