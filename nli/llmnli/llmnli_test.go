package llmnli

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/nli"
)

// pairOf returns the pair message of a request (the last one, or the one
// before the refused answer and the reminder of a re-ask).
func pairOf(r llmtest.Request) string { return r.Messages[1+2*len(examples)].Content }

// judge is the fake model: it reads the hypothesis of the pair and answers
// entailment for "true", contradiction for "false", rambles for "unclear"
// (and, reminded of the format, says neutral, unless stubborn), and says
// neutral otherwise, each label with its own log probability per token and
// in the n-th shape of llmtest.LabelAnswer.
func judge(p Prompt, noLogprobs, stubborn bool) func(int, llmtest.Request) llmtest.Reply {
	return func(n int, r llmtest.Request) llmtest.Reply {
		hyp := pairOf(r)[strings.Index(pairOf(r), "HYPOTHESIS: "):]
		label, lp := "neutral", -0.3
		switch {
		case strings.Contains(hyp, "true"):
			label, lp = "entailment", -0.1
		case strings.Contains(hyp, "false"):
			label, lp = "contradiction", -0.2
		case strings.Contains(hyp, "unclear") && (stubborn || !llmtest.IsReask(r)):
			return llmtest.Reply{Content: llmtest.UnreadableLabel}
		}
		content := label
		if p == V2 {
			content = "The premise settles it.\n[" + label + "]"
		}
		return llmtest.Reply{Content: content, Tokens: llmtest.Tokenize(content, lp), NoLogprobs: noLogprobs}
	}
}

func newClassifier(t *testing.T, srv *llmtest.Server, opts Options, cache string) *Classifier {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "judge-1", Concurrency: 2, Reasks: 2, CachePath: cache})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cl, err := New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

var pairs = []nli.Pair{
	{PremiseID: "c0", HypothesisID: "a0", Premise: "Evidence.", Hypothesis: "This is true."},
	{PremiseID: "c0", HypothesisID: "a1", Premise: "Evidence.", Hypothesis: "This is false."},
	{PremiseID: "c1", HypothesisID: "a0", Premise: "Other.", Hypothesis: "Something else."},
	{PremiseID: "c1", HypothesisID: "a1", Premise: "Other.", Hypothesis: "This is unclear."},
}

// TestClassify: both prompts against the fake server give the labels it
// meant, with p = exp(its per-token log probability); an answer with no
// label is asked again with the prompt's reminder, and the answer to it is
// read; the counts say so.
func TestClassify(t *testing.T) {
	for _, p := range []Prompt{V1, V2} {
		t.Run(p.String(), func(t *testing.T) {
			srv := llmtest.New(t, judge(p, false, false))
			cl := newClassifier(t, srv, Options{Prompt: p, Method: llm.Fixed}, "")
			got, err := cl.Classify(context.Background(), pairs)
			if err != nil {
				t.Fatal(err)
			}
			want := []nli.Result{
				{Label: nli.Entailment, Probability: math.Exp(-0.1)},
				{Label: nli.Contradiction, Probability: math.Exp(-0.2)},
				{Label: nli.Neutral, Probability: math.Exp(-0.3)},
				{Label: nli.Neutral, Probability: math.Exp(-0.3)},
			}
			for i := range want {
				if got[i].Label != want[i].Label || math.Abs(got[i].Probability-want[i].Probability) > 1e-12 {
					t.Errorf("pair %d: %+v, want %+v", i, got[i], want[i])
				}
			}
			s := cl.Stats()
			if s != (Stats{Answers: 4, Entailment: 1, Contradiction: 1, Neutral: 2, FromLogprobs: 4, FixedProbability: 0.9, Reasks: 1}) {
				t.Errorf("stats %+v", s)
			}
			if want := "4 answers: 1 entailment, 1 contradiction, 2 neutral; probability from token log probabilities for 4, fixed 0.9 (no log probabilities) for 0; 1 re-asks, 0 answers unreadable after re-asking"; s.String() != want {
				t.Errorf("stats string %q", s)
			}
			if id := cl.Identity(); id.Backend != "llm" || id.Model != "judge-1 (nli prompt "+p.String()+")" {
				t.Errorf("identity %+v", id)
			}
			reqs := srv.Requests()
			if len(reqs) != 5 {
				t.Errorf("%d requests, want 4 and a re-ask", len(reqs))
			}
			for _, r := range reqs {
				if !r.Logprobs || r.Temperature == nil || *r.Temperature != 0 || r.Model != "judge-1" {
					t.Errorf("request without logprobs/temperature 0: %+v", r)
				}
				wantLen := 2 + 2*len(examples)
				if llmtest.IsReask(r) {
					wantLen += 2
					if r.Last() != p.reminder() || r.Messages[wantLen-2].Content != llmtest.UnreadableLabel {
						t.Errorf("re-ask %+v", r.Messages[wantLen-2:])
					}
				}
				if len(r.Messages) != wantLen || r.Messages[0].Role != "system" || !strings.HasPrefix(pairOf(r), "PREMISE: ") {
					t.Errorf("messages %+v", r.Messages)
				}
				wantInstr := "exactly one word"
				if p == V2 {
					wantInstr = "square brackets"
				}
				if !strings.Contains(r.Messages[0].Content, wantInstr) || !strings.Contains(p.reminder(), wantInstr) {
					t.Errorf("system message or reminder lacks %q", wantInstr)
				}
			}
		})
	}
}

// TestClassifyShapes: answers in every shape of llmtest.LabelAnswer give
// their labels, each with the probability of the label's own tokens.
func TestClassifyShapes(t *testing.T) {
	labels := []string{"entailment", "contradiction", "neutral"}
	for _, p := range []Prompt{V1, V2} {
		srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
			// The n-th pair gets the n-th shape; the label's tokens -0.2,
			// the others -3.
			i := strings.Index(pairOf(r), "#")
			var k int
			for _, c := range pairOf(r)[i+1:] {
				k = 10*k + int(c-'0')
			}
			label := labels[k%3]
			content := llmtest.LabelAnswer(k, label)
			var toks []llmtest.Token
			for _, tok := range llmtest.Tokenize(content, -3) {
				if strings.Contains(strings.ToLower(label), strings.ToLower(strings.Trim(tok.Text, " \n[]*"))) && strings.Trim(tok.Text, " \n[]*") != "" {
					tok.Logprob = llmtest.LP(-0.2)
				}
				toks = append(toks, tok)
			}
			return llmtest.Reply{Content: content, Tokens: toks}
		})
		cl := newClassifier(t, srv, Options{Prompt: p}, "")
		var ps []nli.Pair
		for k := range 2 * llmtest.LabelShapes {
			ps = append(ps, nli.Pair{PremiseID: "c", HypothesisID: "a", Premise: "P.", Hypothesis: "#" + string(rune('0'+k/10)) + string(rune('0'+k%10))})
		}
		got, err := cl.Classify(context.Background(), ps)
		if err != nil {
			t.Fatal(err)
		}
		for k, r := range got {
			if r.Label.String() != labels[k%3] || math.Abs(r.Probability-math.Exp(-0.2)) > 1e-12 {
				t.Errorf("%v shape %d %q: %+v", p, k, llmtest.LabelAnswer(k, labels[k%3]), r)
			}
		}
	}
}

// TestClassifyNoLogprobs: an endpoint that sends no log probabilities
// still gives its labels, with the fixed probability, and the counts say
// which rule gave how many; a non-default fixed probability is part of the
// identity. Refusing such answers (a negative FixedProbability) is an
// error that says why and names the endpoint.
func TestClassifyNoLogprobs(t *testing.T) {
	srv := llmtest.New(t, judge(V2, true, false))
	cl := newClassifier(t, srv, Options{Prompt: V2, Method: llm.Fixed}, "")
	got, err := cl.Classify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range []nli.Label{nli.Entailment, nli.Contradiction, nli.Neutral, nli.Neutral} {
		if got[i].Label != l || got[i].Probability != DefaultFixedProbability {
			t.Errorf("pair %d: %+v", i, got[i])
		}
	}
	if s := cl.Stats(); s.Fixed != 4 || s.FromLogprobs != 0 || s.Answers != 4 ||
		!strings.Contains(s.String(), "probability from token log probabilities for 0, fixed 0.9 (no log probabilities) for 4") {
		t.Errorf("stats %+v: %s", s, s)
	}

	cl = newClassifier(t, srv, Options{Prompt: V2, Method: llm.Fixed, FixedProbability: 0.75}, "")
	if got, err := cl.Classify(context.Background(), pairs[:1]); err != nil || got[0].Probability != 0.75 {
		t.Errorf("fixed 0.75: %+v, %v", got, err)
	}
	if id := cl.Identity(); id.Model != "judge-1 (nli prompt v2, p 0.75 without log probabilities)" {
		t.Errorf("identity %+v", id)
	}

	cl = newClassifier(t, srv, Options{Prompt: V2, Method: llm.Logprobs}, "")
	_, err = cl.Classify(context.Background(), pairs[:1])
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{"judge-1", srv.BaseURL(), "no token log probabilities", "c0 → a0", "requires them"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	if id := cl.Identity(); id.Model != "judge-1 (nli prompt v2, log probabilities required)" {
		t.Errorf("identity %+v", id)
	}
	for _, bad := range []float64{0.5, 0.2, 1, 1.5} {
		if _, err := New(cl.client, Options{Method: llm.Fixed, FixedProbability: bad}); err == nil {
			t.Errorf("fixed probability %v accepted", bad)
		}
	}
}

// TestClassifyUnreadable: an answer that stays unreadable after the
// re-asks is an *llm.UnreadableAnswerError naming the stage, the pair and
// the answer, never a neutral label; it is counted, and not cached: the
// pairs read before it are, so a rerun against a fixed server asks only
// about it.
func TestClassifyUnreadable(t *testing.T) {
	srv := llmtest.New(t, judge(V1, false, true))
	cache := filepath.Join(t.TempDir(), "llm.sqlite")
	cl := newClassifier(t, srv, Options{Method: llm.Fixed}, cache)
	_, err := cl.Classify(context.Background(), pairs[3:])
	var ue *llm.UnreadableAnswerError
	if !errors.As(err, &ue) || ue.Stage != "nli" || ue.Item != "pair c1 → a1" || ue.Answer != llmtest.UnreadableLabel || ue.Attempts != 3 {
		t.Fatalf("error %v (%+v)", err, ue)
	}
	if !strings.Contains(err.Error(), "nli: pair c1 → a1: ") || !strings.Contains(err.Error(), "names no label") {
		t.Errorf("error %q", err)
	}
	if s := cl.Stats(); s != (Stats{FixedProbability: 0.9, Reasks: 2, Unreadable: 1}) {
		t.Errorf("stats %+v", s)
	}
	if _, err := cl.Classify(context.Background(), pairs[:3]); err != nil {
		t.Fatal(err)
	}

	fixed := llmtest.New(t, judge(V1, false, false))
	c, err := llm.New(llm.Config{BaseURL: fixed.BaseURL(), Model: "judge-1", CachePath: cache, Reasks: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, _ = New(c, Options{})
	got, err := cl.Classify(context.Background(), pairs)
	if err != nil || got[3].Label != nli.Neutral || got[0].Label != nli.Entailment {
		t.Fatalf("%+v, %v", got, err)
	}
	if reqs := fixed.Requests(); len(reqs) != 2 || !strings.Contains(pairOf(reqs[0]), "unclear") || !llmtest.IsReask(reqs[1]) {
		t.Errorf("requests to the fixed server: %+v", reqs)
	}
}

// TestClassifyV2CutOff: a v2 answer cut off at the token limit is not
// read, even where its reasoning holds a bracketed label.
func TestClassifyV2CutOff(t *testing.T) {
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		if llmtest.IsReask(r) {
			return llmtest.Reply{Content: "[contradiction]"}
		}
		return llmtest.Reply{Content: "At first sight [entailment], but the dates", FinishReason: "length"}
	})
	cl := newClassifier(t, srv, Options{Prompt: V2}, "")
	got, err := cl.Classify(context.Background(), pairs[:1])
	if err != nil || got[0].Label != nli.Contradiction {
		t.Errorf("%+v, %v", got, err)
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

// TestClassifyMixed: an endpoint that answers in a mix of real shapes,
// some answers without log probabilities and some unreadable until
// reminded, gives every pair its label; the counts are exact (which rule
// gave each probability, how many re-asks), and a rerun from the cache
// sends no request and gives the same results.
func TestClassifyMixed(t *testing.T) {
	labels := []string{"entailment", "contradiction", "neutral"}
	const n = 24
	answer := func(_ int, r llmtest.Request) llmtest.Reply {
		var k int
		for _, c := range pairOf(r)[strings.Index(pairOf(r), "#")+1:] {
			k = 10*k + int(c-'0')
		}
		if k%5 == 0 && !llmtest.IsReask(r) {
			return llmtest.Reply{Content: llmtest.UnreadableLabel}
		}
		content := llmtest.LabelAnswer(k, labels[k%3])
		return llmtest.Reply{Content: content, NoLogprobs: k%2 == 1, Tokens: llmtest.Tokenize(content, -0.05)}
	}
	srv := llmtest.New(t, answer)
	cache := filepath.Join(t.TempDir(), "llm.sqlite")
	var ps []nli.Pair
	for k := range n {
		ps = append(ps, nli.Pair{PremiseID: "c", HypothesisID: "a", Premise: "P.", Hypothesis: "#" + string(rune('0'+k/10)) + string(rune('0'+k%10))})
	}
	cl := newClassifier(t, srv, Options{Prompt: V2, Method: llm.Fixed}, cache)
	got, err := cl.Classify(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range got {
		want := math.Exp(-0.05)
		if k%2 == 1 {
			want = DefaultFixedProbability
		}
		if r.Label.String() != labels[k%3] || math.Abs(r.Probability-want) > 1e-12 {
			t.Errorf("pair %d: %+v", k, r)
		}
	}
	// k = 0, 5, 10, 15, 20 are re-asked once.
	if s := cl.Stats(); s != (Stats{Answers: n, Entailment: 8, Contradiction: 8, Neutral: 8, FromLogprobs: 12, Fixed: 12, FixedProbability: 0.9, Reasks: 5}) {
		t.Errorf("stats %+v", s)
	}
	if srv.Count() != n+5 {
		t.Errorf("%d requests, want %d", srv.Count(), n+5)
	}
	sent := srv.Count()
	cl2 := newClassifier(t, srv, Options{Prompt: V2, Method: llm.Fixed}, cache)
	again, err := cl2.Classify(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	for k := range got {
		if again[k].Label != got[k].Label || again[k].Probability != got[k].Probability {
			t.Errorf("rerun pair %d: %+v, first %+v", k, again[k], got[k])
		}
	}
	if srv.Count() != sent {
		t.Errorf("the rerun from the cache sent %d requests", srv.Count()-sent)
	}
}
