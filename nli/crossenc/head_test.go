package crossenc

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli"
)

// TestReadHead checks which config.json labels are read as which kind of
// classifier, and which are refused and why.
func TestReadHead(t *testing.T) {
	for _, c := range []struct {
		id2label map[string]string
		positive string
		kind     Kind
		want     int    // Positive of a TwoLabel head
		name     string // Head.String
		err      string // "" for none
		notMNLI  bool
	}{
		{id2label: map[string]string{"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}, kind: NLI3, name: "3-way NLI"},
		// Label names that say which is supported, in the styles exports use.
		{id2label: map[string]string{"0": "not_supported", "1": "supported"}, kind: TwoLabel, want: 1, name: "2-label classifier, supported=supported"},
		{id2label: map[string]string{"0": "Supported", "1": "Not Supported"}, kind: TwoLabel, want: 0, name: "2-label classifier, supported=Supported"},
		{id2label: map[string]string{"0": "entailment", "1": "not_entailment"}, kind: TwoLabel, want: 0},
		{id2label: map[string]string{"0": "NON-ENTAILMENT", "1": "ENTAILMENT"}, kind: TwoLabel, want: 1},
		{id2label: map[string]string{"0": "inconsistent", "1": "consistent"}, kind: TwoLabel, want: 1},
		{id2label: map[string]string{"0": "hallucinated", "1": "consistent"}, kind: TwoLabel, want: 1},
		// MiniCheck's exports: LABEL_0 and LABEL_1, named by the user.
		{id2label: map[string]string{"0": "LABEL_0", "1": "LABEL_1"}, positive: "LABEL_1", kind: TwoLabel, want: 1, name: "2-label classifier, supported=LABEL_1"},
		{id2label: map[string]string{"0": "LABEL_0", "1": "LABEL_1"}, positive: "label_0", kind: TwoLabel, want: 0, name: "2-label classifier, supported=LABEL_0"},
		{id2label: map[string]string{"0": "not_supported", "1": "supported"}, positive: "not_supported", kind: TwoLabel, want: 0},
		{id2label: map[string]string{"0": "LABEL_0"}, kind: OneScore, name: "1-score classifier"},
		{id2label: map[string]string{"0": "LABEL_0"}, positive: "LABEL_0", kind: OneScore},
		// Refused.
		{id2label: map[string]string{"0": "LABEL_0", "1": "LABEL_1"}, err: "do not say which means supported", notMNLI: true},
		{id2label: map[string]string{"0": "entailment", "1": "contradiction"}, err: "do not say which means supported", notMNLI: true},
		{id2label: map[string]string{"0": "supported", "1": "consistent"}, err: "do not say which means supported", notMNLI: true},
		{id2label: map[string]string{"0": "LABEL_0", "1": "LABEL_1"}, positive: "LABEL_2", err: `"LABEL_2" is not one of the model's labels LABEL_0, LABEL_1`},
		{id2label: map[string]string{"0": "LABEL_0"}, positive: "yes", err: "not the model's one label"},
		{id2label: map[string]string{"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}, positive: "ENTAILMENT", err: "is for 2-label classifiers"},
		{id2label: map[string]string{"0": "a", "1": "b", "2": "c"}, err: "want entailment, neutral and contradiction", notMNLI: true},
		{id2label: map[string]string{"0": "a", "1": "b", "2": "c", "3": "d"}, err: "4 labels", notMNLI: true},
		{id2label: map[string]string{}, err: "0 labels", notMNLI: true},
		{id2label: map[string]string{"0": "not_supported", "2": "supported"}, err: "no label for output 1", notMNLI: true},
	} {
		h, err := readHead(c.id2label, c.positive)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || errors.Is(err, ErrNotMNLI) != c.notMNLI {
				t.Errorf("%v (positive %q): error %v; want one saying %q (ErrNotMNLI %v)", c.id2label, c.positive, err, c.err, c.notMNLI)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v (positive %q): %v", c.id2label, c.positive, err)
			continue
		}
		if h.Kind != c.kind || (c.kind == TwoLabel && h.Positive != c.want) || (c.name != "" && h.String() != c.name) {
			t.Errorf("%v (positive %q): %+v %q; want kind %v, positive %d, %q", c.id2label, c.positive, h, h.String(), c.kind, c.want, c.name)
		}
		if h.Outputs() != len(c.id2label) {
			t.Errorf("%v: %d outputs", c.id2label, h.Outputs())
		}
	}
}

// TestGroundingAggregate checks a grounding classifier's answer over chunks
// against a hand computation: P(supported) of each chunk (softmax of two,
// sigmoid of one), the best chunk's, and the relation it makes.
func TestGroundingAggregate(t *testing.T) {
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	two := Head{Kind: TwoLabel, Names: []string{"LABEL_0", "LABEL_1"}, Positive: 1}
	one := Head{Kind: OneScore, Names: []string{"LABEL_0"}}
	for _, c := range []struct {
		head        Head
		unsupported nli.Label
		chunks      [][]float32
		label       nli.Label
		p           float64
	}{
		// softmax([0.25, 1.5])[1] = sigmoid(1.25) (logits exact in float32)
		{two, nli.Neutral, [][]float32{{0.25, 1.5}}, nli.Entailment, sig(1.25)},
		// The best of three chunks: sigmoid(-1), sigmoid(2), sigmoid(0.5).
		{two, nli.Neutral, [][]float32{{1, 0}, {-1, 1}, {0, 0.5}}, nli.Entailment, sig(2)},
		// No chunk supports: neutral with 1 − the best P(supported).
		{two, nli.Neutral, [][]float32{{3, 0}, {1, 0}}, nli.Neutral, 1 - sig(-1)},
		{two, nli.Contradiction, [][]float32{{3, 0}, {1, 0}}, nli.Contradiction, 1 - sig(-1)},
		{Head{Kind: TwoLabel, Names: []string{"supported", "not_supported"}}, nli.Neutral, [][]float32{{2, 0.5}}, nli.Entailment, sig(1.5)},
		{one, nli.Neutral, [][]float32{{-3}, {0.75}}, nli.Entailment, sig(0.75)},
		{one, nli.Neutral, [][]float32{{-3}, {-0.25}}, nli.Neutral, 1 - sig(-0.25)},
		{one, nli.Neutral, [][]float32{{0}}, nli.Entailment, 0.5},
	} {
		cl := &Classifier{Encoder: &Encoder{head: c.head}, unsupported: c.unsupported}
		got, err := cl.aggregate(planOf(len(c.chunks), 1), c.chunks)
		if err != nil {
			t.Fatal(err)
		}
		if got.Label != c.label || math.Abs(got.Probability-c.p) > 1e-12 {
			t.Errorf("%s, chunks %v: %v %.12f; want %v %.12f", c.head, c.chunks, got.Label, got.Probability, c.label, c.p)
		}
		if got.Distribution[got.Label] != got.Probability {
			t.Errorf("%s, chunks %v: distribution %v does not give the label its probability", c.head, c.chunks, got.Distribution)
		}
	}
	// A hypothesis in two chunks (premise chunks × hypothesis chunks): the
	// least over hypothesis chunks of the best premise chunk's support,
	// min(max(sigmoid(-1), sigmoid(2)), max(sigmoid(1), sigmoid(0.5))).
	cl := &Classifier{Encoder: &Encoder{head: one}}
	got, err := cl.aggregate(planOf(2, 2), [][]float32{{-1}, {2}, {1}, {0.5}})
	if err != nil || got.Label != nli.Entailment || math.Abs(got.Probability-sig(1)) > 1e-12 {
		t.Errorf("two hypothesis chunks: %v %v, %v; want entailment %v", got.Label, got.Probability, err, sig(1))
	}
	if _, err := cl.aggregate(planOf(1, 1), [][]float32{{float32(math.NaN())}}); !errors.Is(err, errNotFinite) {
		t.Errorf("NaN logit: %v", err)
	}
	if !slices.Equal([]float64{sigmoid(-800), sigmoid(800)}, []float64{0, 1}) {
		t.Errorf("sigmoid at the ends: %v %v", sigmoid(-800), sigmoid(800))
	}
}

// planOf is a plan of premise × hypothesis chunks of one token each.
func planOf(premise, hypothesis int) Plan {
	var p Plan
	for i := range premise {
		p.Chunks = append(p.Chunks, Span{i, i + 1})
	}
	for i := range hypothesis {
		p.Hypotheses = append(p.Hypotheses, Span{i, i + 1})
	}
	return p
}
