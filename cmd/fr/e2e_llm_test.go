package main

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/result"
)

// world is a loopback LLM endpoint that answers every stage the way chat
// models really answer: atoms, revisions and NLI labels in a rotation of
// real shapes (lists, JSON objects, fences, bold brackets, citations,
// think blocks), some answers without log probabilities, a first answer
// that cannot be read (and a readable one when asked again), and a
// response about "Zed" whose atoms can never be read.
type world struct {
	srv  *llmtest.Server
	mu   sync.Mutex
	seen map[string]int // how often each question (its last message) was asked
}

// facts are the atomizer's atoms of each response.
var facts = map[string][]string{
	"Marie Curie was a physicist. She was born in Paris.":   {"Marie Curie was a physicist.", "Marie Curie was born in Paris."},
	"Ada Lovelace was a mathematician.":                     {"Ada Lovelace was a mathematician."},
	"I'm sorry, I could not find information about Nobody.": {}, // a refusal states no fact
}

// judge is the endpoint's NLI verdict on a pair.
func judge(premise, hypothesis string) string {
	switch {
	case strings.Contains(hypothesis, "born in Paris") && strings.Contains(premise, "born in Warsaw"):
		return "contradiction"
	case strings.Contains(hypothesis, "physicist") && strings.Contains(premise, "physicist"),
		strings.Contains(hypothesis, "mathematician") && strings.Contains(premise, "mathematician"):
		return "entailment"
	}
	return "neutral"
}

func newWorld(t *testing.T) *world {
	w := &world{seen: map[string]int{}}
	w.srv = llmtest.New(t, w.answer)
	return w
}

// asked is the question a request asks: its last message, or for a
// request that asks again, the last message before the reminders.
func asked(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == "user" && !strings.HasPrefix(m.Content, llmtest.ReminderPrefix) {
			return m.Content
		}
	}
	return ""
}

func (w *world) answer(n int, r llmtest.Request) llmtest.Reply {
	system := r.Messages[0].Content
	question := asked(r)
	w.mu.Lock()
	w.seen[question]++
	asked := w.seen[question]
	w.mu.Unlock()
	switch {
	case strings.HasPrefix(system, "You split a text into atomic facts"):
		for response, atoms := range facts {
			if strings.Contains(question, response) {
				if strings.HasPrefix(response, "Ada") && !llmtest.IsReask(r) {
					return llmtest.Reply{Content: llmtest.UnreadableAtoms} // read on the second try
				}
				if len(atoms) == 0 {
					// Not a rotated shape: with records in flight at once,
					// n differs from run to run, and a list shape with no
					// items is rightly unreadable.
					return llmtest.Reply{Content: "[]"}
				}
				return llmtest.Reply{Content: llmtest.AtomAnswer(n, atoms)}
			}
		}
		return llmtest.Reply{Content: llmtest.UnreadableAtoms} // Zed: never readable
	case strings.HasPrefix(system, "You are given a TEXT and one ATOM"):
		_, atom, _ := strings.Cut(question, "\n\nATOM: ")
		return llmtest.Reply{Content: llmtest.RevisedAnswer(n, atom)}
	case strings.HasPrefix(system, "You judge natural language inference"):
		premise, hypothesis, _ := strings.Cut(strings.TrimPrefix(question, "PREMISE: "), "\nHYPOTHESIS: ")
		label := judge(premise, hypothesis)
		if strings.Contains(hypothesis, "mathematician") && asked == 1 {
			return llmtest.Reply{Content: llmtest.UnreadableLabel} // read when asked again
		}
		// Every other answer comes without log probabilities.
		return llmtest.Reply{Content: llmtest.LabelAnswer(len(question), label), NoLogprobs: len(question)%2 == 0}
	case strings.HasPrefix(question, "Answer the question about"):
		_, atom, _ := strings.Cut(question, "\n\nInput: ")
		atom = strings.TrimSuffix(atom, " True or False?\nOutput:")
		context, _, _ := strings.Cut(question, "\n\nInput: ")
		if judge(context, atom) == "entailment" {
			return llmtest.Reply{Content: "True"}
		}
		return llmtest.Reply{Content: "False. The context does not say so."}
	}
	return llmtest.Reply{Status: 400, Body: `{"error": {"message": "unexpected request"}}`}
}

const rawResponses = `{"input": "Tell me a bio of Marie Curie.", "output": "Marie Curie was a physicist. She was born in Paris.", "topic": "Marie Curie", "id": "q1",` +
	` "contexts": [{"id": "c_q_0", "title": "Marie Curie", "text": "Marie Curie was a Polish physicist and chemist, born in Warsaw in 1867."}]}
{"input": "Tell me a bio of Ada Lovelace.", "output": "Ada Lovelace was a mathematician.", "topic": "Ada Lovelace", "id": "q2",` +
	` "contexts": [{"id": "c_q_0", "title": "Ada Lovelace", "text": "Ada Lovelace was an English mathematician and writer."}]}
{"input": "Tell me a bio of Zed.", "output": "Zed was a poet.", "topic": "Zed", "id": "q3",` +
	` "contexts": [{"id": "c_q_0", "title": "Zed", "text": "Zed wrote novels."}]}
{"input": "Tell me a bio of Nobody.", "output": "I'm sorry, I could not find information about Nobody.", "topic": "Nobody", "id": "q4",` +
	` "contexts": [{"id": "c_q_0", "title": "Nobody", "text": "Nothing."}]}
`

// TestLLMEndToEnd (issue 11): raw responses scored with the LLM atomizer,
// reviser and NLI against an endpoint that answers as real chat models do.
// The atoms and labels read from every shape are the ones meant; an answer
// without log probabilities gets the fixed probability; an unreadable
// answer is asked again and then read, or fails its record, which
// --skip-invalid leaves out and counts, and the run exits 1; a rerun from
// the cache asks only about the failed record. fr factscore atomizes the
// same raw responses, and an abstention does not respond.
func TestLLMEndToEnd(t *testing.T) {
	w := newWorld(t)
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	in := writeFile(t, "raw.jsonl", rawResponses)
	args := []string{"score", "--nli", "llm", "--atomizer", "llm", "--llm-model", "m", "--llm-base-url", w.srv.BaseURL(), "--skip-invalid"}
	out, stderr, err := run(t, context.Background(), append(args, in)...)
	if exitStatus(err) != exitFailure || !strings.Contains(err.Error(), "1 records failed") {
		t.Fatalf("want exit 1 for the failed record, got %v\n%s", err, stderr)
	}
	// The refusal declines to answer (--abstention generic, the
	// default): it is not atomized, and its line says it abstained.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines written, want 3 (the Zed record failed):\n%s", len(lines), out)
	}
	var refusal result.Line
	if err := json.Unmarshal([]byte(lines[2]), &refusal); err != nil || !refusal.Abstained || refusal.Line != 4 || refusal.NumAtoms != 0 {
		t.Errorf("the refusal's line (%v): %s", err, lines[2])
	}
	for _, s := range []string{
		"skipping failed record: " + in + ":3:",
		`atomizer: response "Zed was a poet."`,
		llmtest.UnreadableAtoms,
		"3 records scored (", "0 invalid skipped, 1 failed",
		"3 responses (2 responding, 66.7%; 1 abstained, left out of the means)",
	} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}

	type rec struct {
		result.Line
		ID string `json:"id"`
	}
	var curie, ada rec
	for i, r := range []*rec{&curie, &ada} {
		// The line decodes itself (its UnmarshalJSON would take the id
		// along): the id is read apart.
		json.Unmarshal([]byte(lines[i]), &r.Line)
		json.Unmarshal([]byte(lines[i]), &struct {
			ID *string `json:"id"`
		}{&r.ID})
	}
	if curie.ID != "q1" || len(curie.Atoms) != 2 || curie.Atoms[0].Text != "Marie Curie was a physicist." || curie.Atoms[1].Text != "Marie Curie was born in Paris." ||
		curie.Predictions != " a0: S a1: NS" || len(curie.Relations) != 2 {
		t.Errorf("Curie: %+v", curie.Line)
	}
	if ada.ID != "q2" || len(ada.Atoms) != 1 || ada.Atoms[0].Text != "Ada Lovelace was a mathematician." || ada.Predictions != " a0: S" {
		t.Errorf("Ada: %+v", ada.Line)
	}
	// By hand: one context (prior 0.9) per component, P(a) = 0.05 + 0.9·p
	// for an entailment and 0.05 + 0.9·(1 − p) for a contradiction, p the
	// label's probability: exp(−0.01) from the tokens' log probabilities,
	// or, for an answer that came without them, the share of 5 samples
	// that agree with the correction, (5 + ¼)/(5 + ½): the fake model
	// answers alike every time.
	for _, r := range []rec{curie, ada} {
		for _, rel := range r.Relations {
			if rel.Probability != 5.25/5.5 && math.Abs(rel.Probability-math.Exp(-0.01)) > 1e-12 {
				t.Errorf("%s → %s: probability %v", rel.Source, rel.Target, rel.Probability)
			}
			pt := 0.05 + 0.9*rel.Probability
			if rel.Type.String() == "contradiction" {
				pt = 0.05 + 0.9*(1-rel.Probability)
			}
			for _, m := range r.Marginals {
				if m.Variable == rel.Target && math.Abs(m.Probabilities[1]-pt) > 1e-9 {
					t.Errorf("P(%s) = %v, want %v", m.Variable, m.Probabilities[1], pt)
				}
			}
		}
	}
	for _, s := range []string{"1 re-asks", "from samples for 1 (5 answers sampled)", "answers without log probabilities: each such pair is asked 5 more times"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}

	// Rerun: everything that was read comes from the cache; only the failed
	// record is asked about again (its unreadable answers were not kept).
	before := w.srv.Count()
	again, _, err := run(t, context.Background(), append(args, in)...)
	if exitStatus(err) != exitFailure || again != out {
		t.Errorf("rerun: %v; output same: %v", err, again == out)
	}
	if w.srv.Count() == before {
		t.Error("the rerun did not ask about the failed record again: its unreadable answers were cached")
	}
	for _, r := range w.srv.Requests()[before:] {
		if q := asked(r); !strings.Contains(q, "Zed") {
			t.Errorf("the rerun asked again about something the cache holds: %.80q", q)
		}
	}

	// fr factscore from the same raw responses: atomized, verified; the
	// refusal abstains; the unreadable record fails the run.
	fs, stderr, err := run(t, context.Background(), "factscore", "--atomizer", "llm", "--verifier", "llm", "--llm-model", "m",
		"--llm-base-url", w.srv.BaseURL(), "--gamma", "0", "--skip-invalid", in)
	if exitStatus(err) != exitFailure {
		t.Fatalf("factscore: want exit 1 for the failed record, got %v\n%s", err, stderr)
	}
	flines := strings.Split(strings.TrimSpace(fs), "\n")
	if len(flines) != 4 {
		t.Fatalf("factscore output:\n%s", fs)
	}
	var f1, f2, f4 factscore.Record
	json.Unmarshal([]byte(flines[0]), &f1)
	json.Unmarshal([]byte(flines[1]), &f2)
	json.Unmarshal([]byte(flines[2]), &f4)
	if !f1.Responded || f1.Facts != 2 || f1.Supported != 1 || !f2.Responded || f2.Supported != 1 || f4.Responded || !f4.Abstained {
		t.Errorf("factscore records:\n%+v\n%+v\n%+v", f1, f2, f4)
	}
	if s := lastJSONLine(t, fs); s["responses"] != 3.0 || s["responded"] != 2.0 || s["factscore"] != 0.75 {
		t.Errorf("factscore summary %v", s)
	}
}
