package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "priors.txt")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSourcePriors(t *testing.T) {
	sp, err := LoadSourcePriors(writeFile(t, "# credibility\nwikipedia.org 0.95\nen.wikipedia.org\t0.9\nexample.com 0.3\n\ntitle:Pump manual 0.8\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    Passage
		want float64
		ok   bool
	}{
		{Passage{Link: "https://en.wikipedia.org/wiki/X"}, 0.9, true}, // the longest listed suffix
		{Passage{Link: "https://de.wikipedia.org/wiki/X"}, 0.95, true},
		{Passage{Link: "http://www.example.com/a"}, 0.3, true},
		{Passage{Link: "https://notexample.com/a"}, 0, false}, // a suffix at a dot only
		{Passage{Link: "https://other.org", Title: "Pump manual"}, 0.8, true},
		{Passage{Title: "Pump manual"}, 0.8, true},
		{Passage{Title: "pump manual"}, 0, false}, // titles match exactly
	} {
		got, ok := sp.Prior(tc.p)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%+v: %v %v, want %v %v", tc.p, got, ok, tc.want, tc.ok)
		}
	}
	if !strings.HasPrefix(sp.Name(), "sha256:") || !strings.HasSuffix(sp.Name(), "/4") {
		t.Errorf("name %q", sp.Name())
	}
	r := &WithPriors{Next: fixed{{Title: "Pump manual", Text: "t"}, {Title: "Other", Text: "u"}}, Priors: sp}
	ps, err := r.Retrieve(context.Background(), "", "a", 2)
	if err != nil || ps[0].Prior == nil || *ps[0].Prior != 0.8 || ps[1].Prior != nil {
		t.Fatalf("%+v %v", ps, err)
	}
	if c := contextOf("c_a0_0", ps[0]); c.Probability == nil || *c.Probability != 0.8 {
		t.Errorf("the context's probability: %v", c.Probability)
	}
}

func TestSourcePriorsErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"wikipedia.org", ":1: want a domain or title:TITLE, then the prior"},
		{"# c\nwikipedia.org 1.5", ":2: prior \"1.5\": want a probability in [0, 1]"},
		{"wikipedia.org NaN", ":1: prior \"NaN\""},
		{"a.org 0.5\nA.org 0.6", ":2: \"A.org\" is given a prior on line 1 already"},
		{"https://x.org/a/b 0.5", ":1: \"https://x.org/a/b\": want a domain"},
		{"# nothing\n", "no priors"},
	} {
		_, err := LoadSourcePriors(writeFile(t, tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

// fixed is a retriever that returns its passages.
type fixed []Passage

func (f fixed) Identify() string { return "fixed" }

func (f fixed) Retrieve(_ context.Context, _, _ string, k int) ([]Passage, error) {
	return append([]Passage(nil), f[:min(k, len(f))]...), nil
}
