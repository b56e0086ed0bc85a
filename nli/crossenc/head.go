package crossenc

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/nli"
)

// Kind is what a classifier's outputs mean.
type Kind int

// The kinds of sequence classifier this package reads.
const (
	// NLI3 is an MNLI cross-encoder: three outputs, entailment, neutral
	// and contradiction in some order.
	NLI3 Kind = iota
	// TwoLabel is a grounding classifier with two outputs, supported and
	// not supported (MiniCheck's RoBERTa and DeBERTa exports); the
	// softmax of the supported output is P(supported).
	TwoLabel
	// OneScore is a grounding classifier with a single logit, whose
	// sigmoid is P(supported) (HHEM-1, one-label cross-encoders).
	OneScore
)

// Head says how to read a classifier's outputs: what kind it is, its
// labels as config.json names them (in output order), the NLI label of
// each output of an NLI3 model, and the output that means supported of a
// TwoLabel one.
type Head struct {
	Kind     Kind
	Names    []string
	NLI      [3]nli.Label
	Positive int
}

// Outputs returns the number of logits the classifier gives a sequence.
func (h Head) Outputs() int {
	switch h.Kind {
	case TwoLabel:
		return 2
	case OneScore:
		return 1
	}
	return 3
}

// String names the kind for identities and messages: "3-way NLI",
// "2-label classifier, supported=LABEL_1", "1-score classifier".
func (h Head) String() string {
	switch h.Kind {
	case TwoLabel:
		return "2-label classifier, supported=" + h.Names[h.Positive]
	case OneScore:
		return "1-score classifier"
	}
	return "3-way NLI"
}

// supported reads P(supported) from a grounding classifier's logits:
// the sigmoid of a single logit, the softmax of the supported one of two
// (the sigmoid of their difference), in float64.
func (h Head) supported(z []float32) float64 {
	if h.Kind == OneScore {
		return sigmoid(float64(z[0]))
	}
	return sigmoid(float64(z[h.Positive]) - float64(z[1-h.Positive]))
}

// sigmoid is 1/(1+e^-x), without overflow at either end.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Label names a grounding classifier's label meaning supported, or not,
// where config.json's id2label says it plainly: these names in any case,
// with '-' or a space for '_'.
var (
	supportedNames   = []string{"supported", "entailment", "entailed", "consistent", "factual"}
	unsupportedNames = []string{"not_supported", "unsupported", "not_entailment", "non_entailment", "not_entailed", "inconsistent", "not_consistent", "hallucinated", "not_factual"}
)

// normalName is a label name lowercased, with '-' and spaces as '_'.
func normalName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return '_'
		}
		return r
	}, strings.ToLower(strings.TrimSpace(s)))
}

// readHead reads a classifier's head from config.json's id2label. Three
// labels must be the NLI ones; two must say which means supported, by
// their names or by positive (the name of the supported label, for exports
// whose labels are LABEL_0 and LABEL_1); one is a score.
func readHead(id2label map[string]string, positive string) (Head, error) {
	n := len(id2label)
	if n < 1 || n > 3 {
		return Head{}, fmt.Errorf("%w: %d labels %v (want entailment, neutral and contradiction; supported and not supported; or one score)", ErrNotMNLI, n, id2label)
	}
	h := Head{Names: make([]string, n)}
	for i := range n {
		name, ok := id2label[strconv.Itoa(i)]
		if !ok {
			return Head{}, fmt.Errorf("%w: no label for output %d in %v", ErrNotMNLI, i, id2label)
		}
		h.Names[i] = name
	}
	switch n {
	case 3:
		if positive != "" {
			return Head{}, fmt.Errorf("a supported label (%s) is for 2-label classifiers; this model has the 3 labels %s", positive, strings.Join(h.Names, ", "))
		}
		order, err := labelOrder(id2label)
		h.Kind, h.NLI = NLI3, order
		return h, err
	case 1:
		if positive != "" && normalName(positive) != normalName(h.Names[0]) {
			return Head{}, fmt.Errorf("the supported label %q is not the model's one label, %s", positive, h.Names[0])
		}
		h.Kind = OneScore
		return h, nil
	}
	h.Kind = TwoLabel
	if positive != "" {
		i := slices.IndexFunc(h.Names, func(s string) bool { return normalName(s) == normalName(positive) })
		if i < 0 {
			return Head{}, fmt.Errorf("the supported label %q is not one of the model's labels %s", positive, strings.Join(h.Names, ", "))
		}
		h.Positive = i
		return h, nil
	}
	pos := func(i int) bool { return slices.Contains(supportedNames, normalName(h.Names[i])) }
	neg := func(i int) bool { return slices.Contains(unsupportedNames, normalName(h.Names[i])) }
	switch {
	case pos(0) && neg(1):
		h.Positive = 0
	case pos(1) && neg(0):
		h.Positive = 1
	default:
		return Head{}, fmt.Errorf("%w: its 2 labels %s do not say which means supported (as supported / not_supported, entailment / not_entailment or consistent / inconsistent would): name the supported one (crossenc.EncoderOptions.PositiveLabel)",
			ErrNotMNLI, strings.Join(h.Names, ", "))
	}
	return h, nil
}
