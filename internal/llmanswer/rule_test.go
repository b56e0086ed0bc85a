package llmanswer

import (
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm"
)

// TestNewRule: the defaults, the bounds, and the name each rule gives a
// stage's identity.
func TestNewRule(t *testing.T) {
	valid := func(p float64) bool { return p > 0.5 && p < 1 }
	for _, c := range []struct {
		method  llm.Method
		samples int
		fixed   float64
		want    Rule
		name    string
		err     string
	}{
		{llm.Auto, 0, 0, Rule{Method: llm.Auto, Samples: 5}, "log probabilities else 5 samples at temperature 1", ""},
		{llm.Sample, 3, 0, Rule{Method: llm.Sample, Samples: 3}, "3 samples at temperature 1", ""},
		{llm.Logprobs, 0, 0, Rule{Method: llm.Logprobs, Fixed: -1}, "log probabilities required", ""},
		{llm.Fixed, 0, 0, Rule{Method: llm.Fixed, Fixed: 0.9}, "", ""},
		{llm.Fixed, 0, 0.8, Rule{Method: llm.Fixed, Fixed: 0.8}, "p 0.8 without log probabilities", ""},
		{llm.Fixed, 0, -1, Rule{Method: llm.Fixed, Fixed: -1}, "log probabilities required", ""},
		{llm.Fixed, 0, 0.4, Rule{}, "", "fixed probability 0.4 is not above 0.5 (stage.Options.FixedProbability)"},
		{llm.Auto, 0, 0.8, Rule{}, "", "a fixed probability (0.8) is for the fixed method, not auto (stage.Options.Method)"},
		{llm.Sample, -2, 0, Rule{}, "", "-2 samples: want 1 to 100 (stage.Options.Samples)"},
		{llm.Sample, 101, 0, Rule{}, "", "101 samples"},
		{llm.Method(7), 0, 0, Rule{}, "", "unknown method 7"},
	} {
		r, err := NewRule("stage.Options", c.method, c.samples, c.fixed, 0.9, valid, "above 0.5")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v %d %v: error %v; want %q", c.method, c.samples, c.fixed, err, c.err)
			}
			continue
		}
		c.want.DefaultFixed = 0.9
		if err != nil || r != c.want || r.Name() != c.name {
			t.Errorf("%v %d %v: %+v %q, %v; want %+v %q", c.method, c.samples, c.fixed, r, r.Name(), err, c.want, c.name)
		}
	}
}
