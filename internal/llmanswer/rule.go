package llmanswer

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/llm"
)

// Rule is how a stage measures the probability of what it read from an
// answer: a method (llm.Method), the number of samples of the methods
// that sample, and the fixed method's probability (negative: an answer
// without log probabilities is an error, as with llm.Logprobs).
type Rule struct {
	Method  llm.Method
	Samples int
	Fixed   float64
	// DefaultFixed is the stage's default fixed probability, which the
	// rule's name leaves out.
	DefaultFixed float64
}

// NewRule checks a stage's settings and fills in the defaults: samples 0
// is llm.DefaultSamples for the methods that sample; fixed 0 is
// defaultFixed for llm.Fixed, a negative fixed makes it refuse answers
// without log probabilities, and other values must pass valid (whose
// want says which, for the error). A fixed probability is for llm.Fixed
// only. Errors name the option, opt, as the stage's package writes it
// ("llmnli.Options").
func NewRule(opt string, m llm.Method, samples int, fixed, defaultFixed float64, valid func(float64) bool, want string) (Rule, error) {
	r := Rule{Method: m, DefaultFixed: defaultFixed}
	if fixed != 0 && m != llm.Fixed {
		return Rule{}, fmt.Errorf("a fixed probability (%v) is for the fixed method, not %s (%s.Method)", fixed, m, opt)
	}
	switch m {
	case llm.Auto, llm.Sample:
		switch {
		case samples == 0:
			r.Samples = llm.DefaultSamples
		case samples < 1 || samples > llm.MaxSamples:
			return Rule{}, fmt.Errorf("%d samples: want 1 to %d (%s.Samples)", samples, llm.MaxSamples, opt)
		default:
			r.Samples = samples
		}
	case llm.Logprobs:
		r.Fixed = -1
	case llm.Fixed:
		switch {
		case fixed == 0:
			r.Fixed = defaultFixed
		case fixed < 0:
			r.Fixed = -1
		case !valid(fixed):
			return Rule{}, fmt.Errorf("fixed probability %v is not %s (%s.FixedProbability)", fixed, want, opt)
		default:
			r.Fixed = fixed
		}
	default:
		return Rule{}, fmt.Errorf("unknown method %d (%s.Method)", int(m), opt)
	}
	return r, nil
}

// Name says what a stage's identity adds for the rule: "" for the fixed
// method with the default probability (the only rule before there were
// others, whose runs keep their names), else the rule in a few words.
func (r Rule) Name() string {
	switch {
	case r.Method == llm.Sample:
		return fmt.Sprintf("%d samples at temperature %g", r.Samples, llm.SampleTemperature)
	case r.Method == llm.Auto:
		return fmt.Sprintf("log probabilities else %d samples at temperature %g", r.Samples, llm.SampleTemperature)
	case r.Fixed < 0:
		return "log probabilities required"
	case r.Fixed != r.DefaultFixed:
		return fmt.Sprintf("p %g without log probabilities", r.Fixed)
	}
	return ""
}

// OtherRules says, for a stage's run summary, where the probabilities that
// were not read from log probabilities came from: the fixed probability
// (fixed > 0) for fixedN answers, none allowed (fixed < 0), or samples
// for sampled answers, samples drawn in all. It starts with ", ".
func OtherRules(fixed float64, fixedN, sampled, samples int64) string {
	switch {
	case fixed < 0:
		return ", none other allowed"
	case fixed > 0:
		return fmt.Sprintf(", fixed %g (no log probabilities) for %d", fixed, fixedN)
	}
	return fmt.Sprintf(", from samples for %d (%d answers sampled)", sampled, samples)
}
