package llmnli

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/fakellm"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
)

// judge is the fake model: it reads the hypothesis of the last message and
// answers entailment for "true", contradiction for "false", rambles for
// "unclear" and says neutral otherwise, each label with its own log
// probability per token.
func judge(p Prompt, noLogprobs bool) func(int, fakellm.Request) fakellm.Reply {
	return func(_ int, r fakellm.Request) fakellm.Reply {
		hyp := r.Last()[strings.Index(r.Last(), "HYPOTHESIS: "):]
		label, lp := "neutral", -0.3
		switch {
		case strings.Contains(hyp, "true"):
			label, lp = "entailment", -0.1
		case strings.Contains(hyp, "false"):
			label, lp = "contradiction", -0.2
		case strings.Contains(hyp, "unclear"):
			return fakellm.Reply{Content: "Hard to say; it could go either way."}
		}
		content := label
		if p == V2 {
			content = "The premise settles it.\n[" + label + "]"
		}
		return fakellm.Reply{Content: content, Tokens: fakellm.Tokenize(content, lp), NoLogprobs: noLogprobs}
	}
}

func newClassifier(t *testing.T, srv *fakellm.Server, p Prompt) *Classifier {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "judge-1", Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return New(c, p)
}

var pairs = []nli.Pair{
	{PremiseID: "c0", HypothesisID: "a0", Premise: "Evidence.", Hypothesis: "This is true."},
	{PremiseID: "c0", HypothesisID: "a1", Premise: "Evidence.", Hypothesis: "This is false."},
	{PremiseID: "c1", HypothesisID: "a0", Premise: "Other.", Hypothesis: "Something else."},
	{PremiseID: "c1", HypothesisID: "a1", Premise: "Other.", Hypothesis: "This is unclear."},
}

// TestClassify: both prompts against the fake server give the labels it
// meant, with p = exp(its per-token log probability); an answer with no
// label is neutral with probability 0 and counted.
func TestClassify(t *testing.T) {
	for _, p := range []Prompt{V1, V2} {
		t.Run(p.String(), func(t *testing.T) {
			srv := fakellm.New(t, judge(p, false))
			cl := newClassifier(t, srv, p)
			got, err := cl.Classify(context.Background(), pairs)
			if err != nil {
				t.Fatal(err)
			}
			want := []nli.Result{
				{Label: nli.Entailment, Probability: math.Exp(-0.1)},
				{Label: nli.Contradiction, Probability: math.Exp(-0.2)},
				{Label: nli.Neutral, Probability: math.Exp(-0.3)},
				{Label: nli.Neutral, Probability: 0},
			}
			for i := range want {
				if got[i].Label != want[i].Label || math.Abs(got[i].Probability-want[i].Probability) > 1e-12 {
					t.Errorf("pair %d: %+v, want %+v", i, got[i], want[i])
				}
			}
			s := cl.Stats()
			if s != (Stats{Answers: 4, Entailment: 1, Contradiction: 1, Neutral: 2, NoLabel: 1}) {
				t.Errorf("stats %+v", s)
			}
			if !strings.Contains(s.String(), "1 of them named no valid label") {
				t.Errorf("stats string %q", s)
			}
			if id := cl.Identity(); id.Backend != "llm" || id.Model != "judge-1 (nli prompt "+p.String()+")" {
				t.Errorf("identity %+v", id)
			}
			for _, r := range srv.Requests() {
				if !r.Logprobs || r.Temperature == nil || *r.Temperature != 0 || r.Model != "judge-1" {
					t.Errorf("request without logprobs/temperature 0: %+v", r)
				}
				if len(r.Messages) != 2+2*len(examples) || r.Messages[0].Role != "system" || !strings.HasPrefix(r.Last(), "PREMISE: ") {
					t.Errorf("messages %+v", r.Messages)
				}
				wantInstr := "exactly one word"
				if p == V2 {
					wantInstr = "square brackets"
				}
				if !strings.Contains(r.Messages[0].Content, wantInstr) {
					t.Errorf("system message lacks %q", wantInstr)
				}
			}
		})
	}
}

// TestClassifyNoLogprobs: a server that returns no log probabilities is an
// error that says so and names the endpoint, not a made-up probability.
func TestClassifyNoLogprobs(t *testing.T) {
	srv := fakellm.New(t, judge(V2, true))
	cl := newClassifier(t, srv, V2)
	_, err := cl.Classify(context.Background(), pairs[:1])
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{"judge-1", srv.BaseURL(), "no token log probabilities", "c0 → a0"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

func TestParsePrompt(t *testing.T) {
	for s, want := range map[string]Prompt{"v1": V1, "V2": V2, "2": V2} {
		if p, err := ParsePrompt(s); err != nil || p != want {
			t.Errorf("%q: %v %v", s, p, err)
		}
	}
	if _, err := ParsePrompt("v3"); err == nil {
		t.Error("v3 accepted")
	}
}
