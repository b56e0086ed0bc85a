package factscore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
	"github.com/factreasoner/factreasoner-go/internal/testgen/answercorpus"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// TestReadVerdictCorpus runs the verifier's corpus of answers
// (testdata/llm-answers/factscore): docs/scores.md's published rule, and the
// answers that are no answer at all.
func TestReadVerdictCorpus(t *testing.T) {
	for _, c := range answercorpus.Load(t, "factscore") {
		t.Run(c.Name, func(t *testing.T) {
			got, err := ReadVerdict(c.Answer)
			if c.Unreadable {
				if err == nil {
					t.Fatalf("read %v from an answer that must be refused", got)
				}
				if !strings.Contains(err.Error(), c.Why) {
					t.Errorf("error %q lacks %q", err, c.Why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{"supported": true, "not supported": false}
			w, ok := want[strings.Join(c.Want, "\n")]
			if !ok {
				t.Fatalf("want %q: neither supported nor not supported", c.Want)
			}
			if got != w {
				t.Errorf("got supported=%v, want %q", got, c.Want)
			}
			if got != ParseAnswer(c.Answer) && !strings.Contains(c.Answer, "<think>") {
				t.Errorf("ReadVerdict differs from the published rule on %q", c.Answer)
			}
		})
	}
}

// FuzzReadVerdict: no answer makes ReadVerdict panic, and it agrees with
// the published rule (ParseAnswer) on every answer without reasoning tags
// that it reads.
func FuzzReadVerdict(f *testing.F) {
	for _, c := range answercorpus.Load(f, "factscore") {
		f.Add(c.Answer)
	}
	f.Add("</s>")      // only an end-of-turn token: empty
	f.Add("True</s> ") // the verdict, then one
	f.Fuzz(func(t *testing.T, answer string) {
		got, err := ReadVerdict(answer)
		// What the model said: without reasoning blocks and the end-of-turn
		// tokens a server may leave at the end.
		text, merr := llmanswer.MaskThink(answer)
		if err != nil {
			// Refused only when too large, all reasoning, or saying nothing.
			if merr == nil && strings.TrimSpace(text) != "" && len(answer) <= 1<<20 {
				t.Fatalf("refused %q: %v", answer, err)
			}
			return
		}
		if merr != nil {
			t.Fatalf("read %q, whose reasoning is never closed: %v", answer, merr)
		}
		if got != ParseAnswer(text) {
			t.Fatalf("%q: %v, the published rule says %v", answer, got, ParseAnswer(text))
		}
	})
}

// TestLLMVerifierUnreadable: through an llm.Client, an empty answer is
// asked again with the reminder, and the answer to it is the verdict; one
// that stays empty is an *llm.UnreadableAnswerError naming the atom, never
// a verdict, and is not cached. Through a plain Generator it is reported at
// once.
func TestLLMVerifierUnreadable(t *testing.T) {
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		switch {
		case strings.Contains(r.Messages[0].Content, "Ada was born in Paris."):
			return llmtest.Reply{Content: " "}
		case llmtest.IsReask(r):
			return llmtest.Reply{Content: "True"}
		}
		return llmtest.Reply{Content: ""}
	})
	cache := filepath.Join(t.TempDir(), "llm.sqlite")
	c, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m", Reasks: 1, CachePath: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v := &LLMVerifier{Generator: c, Model: "m"}
	rec := testRecord()
	rec.Atoms = rec.Atoms[:1]
	_, ds, err := Score(context.Background(), v, rec, 10)
	if err != nil || !ds[0].Supported || ds[0].Answer != "True" {
		t.Fatalf("%+v, %v", ds, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Last() != verdictReminder || reqs[1].MaxTokens != llm.GenerateMaxTokens {
		t.Errorf("requests %+v", reqs)
	}
	// Generate sends the same request: the answer read is cached for it.
	if a, err := c.Generate(context.Background(), reqs[0].Messages[0].Content); err != nil || a != "True" || srv.Count() != 2 {
		t.Errorf("Generate after the verifier: %q, %v, %d requests", a, err, srv.Count())
	}

	_, _, err = Score(context.Background(), v, testRecord(), 10)
	var ue *llm.UnreadableAnswerError
	if !errors.As(err, &ue) || ue.Stage != "factscore verifier" || ue.Item != "atom a1" || ue.Attempts != 2 {
		t.Fatalf("error %v", err)
	}
	if s := v.Stats(); s != (VerifierStats{Answers: 2, Reasks: 2, Unreadable: 1}) {
		t.Errorf("stats %+v", s)
	}

	g := &fakeGenerator{answers: map[string]string{"Ada was born in 1815.": "True", "Ada was born in Paris.": ""}}
	_, _, err = Score(context.Background(), &LLMVerifier{Generator: g, Model: "fake"}, testRecord(), 10)
	if !errors.As(err, &ue) || ue.Item != "atom a1" || ue.Attempts != 1 || !strings.Contains(err.Error(), "empty") {
		t.Errorf("plain generator: %v", err)
	}
}
