package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/result"
)

// TestScoreSampled: against an endpoint that returns no log
// probabilities, the default fr score --nli llm gives each relation the
// share of 5 samples that give its label (corrected: (k + ¼)/(5 + ½)), so
// an atom whose context is entailed in 5 of 5 samples ends higher than one
// entailed in 3 of 5, by the hand computation P(a) = 0.05 + 0.9·p; it says
// on stderr that it samples. --nli-method fixed keeps the fixed
// probability, the same for both.
func TestScoreSampled(t *testing.T) {
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		label := "entailment"
		// Sample k is the request with seed 43 + k (the server ignores n).
		if strings.Contains(r.Last(), "HYPOTHESIS: Ruth Adair studied piano.") && *r.Temperature > 0 && r.N == 0 && (*r.Seed-43)%2 == 1 {
			label = "neutral"
		}
		return llmtest.Reply{Content: label, NoLogprobs: true}
	})
	in := writeFile(t, "in.jsonl", `{"input": "Tell me a bio of Ruth Adair.", "output": "", "atoms": [`+
		`{"id": "a0", "text": "Ruth Adair was born in Tulsa.", "contexts": ["c_a0_0"]}, {"id": "a1", "text": "Ruth Adair studied piano.", "contexts": ["c_a1_0"]}], `+
		`"contexts": [{"id": "c_a0_0", "text": "Ruth Adair was born in Tulsa in 1948."}, {"id": "c_a1_0", "text": "Ruth Adair studied piano in Chicago."}]}`+"\n")
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	for _, c := range []struct {
		args   []string
		p0, p1 float64 // the relations' probabilities
		stderr string
	}{
		{nil, 5.25 / 5.5, 3.25 / 5.5, "answers without log probabilities: each such pair is asked 5 more times at temperature 1"},
		{[]string{"--nli-method", "fixed"}, 0.9, 0.9, "fixed 0.9 (no log probabilities) for 2"},
		{[]string{"--nli-fixed-probability", "0.8"}, 0.8, 0.8, "fixed 0.8 (no log probabilities) for 2"},
		{[]string{"--nli-samples", "3"}, 3.25 / 3.5, 2.25 / 3.5, "asked 3 more times"},
	} {
		args := append([]string{"score", "--version", "1", "--nli", "llm", "--llm-model", "m", "--llm-base-url", srv.BaseURL(), "--llm-seed", "42"}, c.args...)
		out, stderr, err := run(t, context.Background(), append(args, in)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, stderr)
		}
		var rec result.Line
		if err := json.Unmarshal([]byte(out), &rec); err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{"a0": c.p0, "a1": c.p1}
		for _, rel := range rec.Relations {
			if rel.Type.String() != "entailment" || rel.Probability != want[rel.Target] {
				t.Errorf("%v: relation %s → %s %s %v; want entailment %v", c.args, rel.Source, rel.Target, rel.Type, rel.Probability, want[rel.Target])
			}
		}
		for _, m := range rec.Marginals {
			if pt := 0.05 + 0.9*want[m.Variable]; math.Abs(m.Probabilities[1]-pt) > 1e-9 {
				t.Errorf("%v: P(%s) = %v; want %v", c.args, m.Variable, m.Probabilities[1], pt)
			}
		}
		if c.args == nil && !(rec.Marginals[0].Probabilities[1] > rec.Marginals[1].Probabilities[1]) {
			t.Errorf("the atom entailed in 5 of 5 samples is not above the one entailed in 3 of 5: %v", rec.Marginals)
		}
		if !strings.Contains(stderr, c.stderr) {
			t.Errorf("%v: stderr lacks %q:\n%s", c.args, c.stderr, stderr)
		}
	}
	_, _, err := run(t, context.Background(), "score", "--nli", "llm", "--llm-model", "m", "--llm-base-url", srv.BaseURL(), "--nli-method", "sample", "--nli-fixed-probability", "0.8", in)
	if err == nil || !strings.Contains(err.Error(), "--nli-method") {
		t.Errorf("a fixed probability with --nli-method sample: %v", err)
	}

	// A run's lines and another method's do not mix: resuming refuses.
	out := filepath.Join(t.TempDir(), "out.jsonl")
	base := []string{"score", "--nli", "llm", "--llm-model", "m", "--llm-base-url", srv.BaseURL(), "-o", out}
	if _, stderr, err := run(t, context.Background(), append(base, in)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	more := writeFile(t, "more.jsonl", strings.Repeat(string(must(os.ReadFile(in))), 2))
	_, _, err = run(t, context.Background(), append(base, "--nli-method", "fixed", more)...)
	if err == nil || !strings.Contains(err.Error(), "run.nli") || !strings.Contains(err.Error(), "log probabilities else 5 samples") {
		t.Errorf("resuming with another method: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
