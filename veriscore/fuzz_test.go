package veriscore

import (
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/testgen/answercorpus"
)

// FuzzReadClaims: no answer makes ReadClaims panic; a claim read is never
// empty, holds no "- " and no line break.
func FuzzReadClaims(f *testing.F) {
	for _, c := range answercorpus.Load(f, "veriscore-claims") {
		f.Add(c.Answer)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		claims, err := ReadClaims(answer)
		if err != nil {
			return
		}
		for _, c := range claims {
			if c == "" || strings.Contains(c, "- ") || strings.Contains(c, "\n") {
				t.Errorf("claim %q read from %q", c, answer)
			}
		}
	})
}

// FuzzReadVerdict: no answer makes ReadVerdict or ReadWrapped panic; a
// verdict read is S, C or U, and the answer names it.
func FuzzReadVerdict(f *testing.F) {
	for _, stage := range []string{"veriscore", "factverify"} {
		for _, c := range answercorpus.Load(f, stage) {
			f.Add(c.Answer)
		}
	}
	f.Fuzz(func(t *testing.T, answer string) {
		for _, read := range []func(string) (string, error){ReadVerdict, func(a string) (string, error) {
			return ReadWrapped(a, map[string]string{"supported": "S", "contradicted": "C", "inconclusive": "U"}, "none")
		}} {
			v, err := read(answer)
			if err != nil {
				continue
			}
			names := map[string][]string{"S": {"supported"}, "C": {"contradicted"}, "U": {"unverifiable", "inconclusive"}}[v]
			lower := strings.ToLower(answer)
			if names == nil || !strings.Contains(lower, names[0]) && (len(names) < 2 || !strings.Contains(lower, names[1])) {
				t.Errorf("verdict %q read from %q", v, answer)
			}
		}
	})
}
