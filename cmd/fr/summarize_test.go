package main

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/result"
)

// summaryWorld is a loopback LLM endpoint that summarizes contexts and
// judges NLI pairs, in a rotation of real answer shapes; it notes every
// NLI premise it is asked about.
type summaryWorld struct {
	srv      *llmtest.Server
	mu       sync.Mutex
	premises map[string]int
}

// summaries are the endpoint's summary of each context (keyed by its
// start), with the log probability of every token of the answer.
var summaries = map[string]struct {
	summary string
	lp      float64
}{
	"Marie Curie was a Polish physicist":     {"Marie Curie was a Polish physicist and chemist.", -0.05},
	"The Eiffel Tower":                       {"None", -0.01},
	"Marie Curie was born in Warsaw":         {"Marie Curie was born in Warsaw, not in Paris.", -0.2},
	"Maria Sklodowska":                       {"Marie Curie was born in Warsaw, not in Paris.", -0.2},
	"Marie Curie (1867-1934)":                {"Marie Curie was a Polish-French physicist.", -0.1},
	"Ada Lovelace was an English mathematic": {"Ada Lovelace was an English mathematician.", -0.15},
}

func newSummaryWorld(t *testing.T) *summaryWorld {
	w := &summaryWorld{premises: map[string]int{}}
	w.srv = llmtest.New(t, w.answer)
	return w
}

func (w *summaryWorld) answer(n int, r llmtest.Request) llmtest.Reply {
	question := asked(r)
	switch system := r.Messages[0].Content; {
	case strings.HasPrefix(system, "You summarize a CONTEXT"):
		_, ctx, _ := strings.Cut(question, "\n\nCONTEXT: ")
		if strings.HasPrefix(ctx, "Zed") {
			return llmtest.Reply{Content: llmtest.UnreadableSummary} // never readable
		}
		for start, s := range summaries {
			if strings.HasPrefix(ctx, start) {
				content := llmtest.SummaryAnswer(n, s.summary)
				return llmtest.Reply{Content: content, Tokens: llmtest.Tokenize(content, s.lp)}
			}
		}
	case strings.HasPrefix(system, "You judge natural language inference"):
		premise, hypothesis, _ := strings.Cut(strings.TrimPrefix(question, "PREMISE: "), "\nHYPOTHESIS: ")
		w.mu.Lock()
		w.premises[premise]++
		w.mu.Unlock()
		label := judge(premise, hypothesis)
		return llmtest.Reply{Content: label, Tokens: llmtest.Tokenize(label, -0.05)}
	}
	return llmtest.Reply{Status: 400, Body: `{"error": {"message": "unexpected request"}}`}
}

const toSummarize = `{"input": "Tell me a bio of Marie Curie.", "output": "Marie Curie was a physicist. She was born in Paris.", "topic": "Marie Curie",` +
	` "atoms": [{"id": "a0", "text": "Marie Curie was a physicist.", "contexts": ["c_a0_0", "c_a0_1"]}, {"id": "a1", "text": "Marie Curie was born in Paris.", "contexts": ["c_a1_0", "c_a1_1"]}],` +
	` "contexts": [{"id": "c_a0_0", "title": "Marie Curie", "text": "Marie Curie was a Polish physicist and chemist who won two Nobel Prizes."},` +
	` {"id": "c_a0_1", "title": "Eiffel Tower", "text": "The Eiffel Tower is a wrought-iron tower in Paris."},` +
	` {"id": "c_a1_0", "title": "Marie Curie", "text": "Marie Curie was born in Warsaw in 1867."},` +
	` {"id": "c_a1_1", "title": "Maria Sklodowska", "text": "Maria Sklodowska, later Marie Curie, was born in Warsaw."},` +
	` {"id": "c_q_0", "title": "Marie Curie", "text": "Marie Curie (1867-1934) was a Polish-French physicist."}]}
{"input": "Tell me a bio of Zed.", "output": "Zed was a poet.", "atoms": [{"id": "a0", "text": "Zed was a poet.", "contexts": ["c_a0_0"]}],` +
	` "contexts": [{"id": "c_a0_0", "text": "Zed wrote novels."}]}
{"input": "Tell me a bio of Ada Lovelace.", "output": "Ada Lovelace was a mathematician.", "atoms": [{"id": "a0", "text": "Ada Lovelace was a mathematician.", "contexts": ["c_a0_0"]}],` +
	` "contexts": [{"id": "c_a0_0", "text": "Ada Lovelace was an English mathematician and writer, the daughter of Lord Byron."}]}
`

// TestSummarizeEndToEnd (issue 21 item 4): fr score --summarize reproduces
// FactReasoner's summarizer against an endpoint that answers in real
// shapes. The context that says nothing about its atom is dropped (and
// counted); each kept context carries its summary and the prior 0.9 ·
// p_summary, p_summary = exp of the log probability the endpoint gave each
// token; the query context is summarized against the question; the two
// contexts with the same summary are one variable of FR2; every NLI
// premise is a summary. A record whose summary stays unreadable fails
// (asked again first) and is reported. The output scored again with
// --use-summaries and no model (NLI answers from the cache, the relations
// given) has the same marginals; without --use-summaries NLI would read
// the texts.
func TestSummarizeEndToEnd(t *testing.T) {
	w := newSummaryWorld(t)
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	in := writeFile(t, "in.jsonl", toSummarize)
	llmArgs := []string{"--nli", "llm", "--llm-model", "m", "--llm-base-url", w.srv.BaseURL(), "--skip-invalid"}
	out, stderr, err := run(t, context.Background(), append(append([]string{"score", "--summarize"}, llmArgs...), in)...)
	if exitStatus(err) != exitFailure || !strings.Contains(err.Error(), "1 records failed") {
		t.Fatalf("want exit 1 for the Zed record, got %v\n%s", err, stderr)
	}
	for _, s := range []string{
		"skipping failed record: " + in + ":2:", "summarizer: context c_a0_0 → atom a0: the model's answer could not be read (asked 3 times)",
		"fr: llm summarizer: 6 answers: 5 relevant summaries, 1 None, 0 irrelevant (no information, error pages); p_summary from token log probabilities for 5",
		"2 re-asks, 1 answers unreadable",
	} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want Curie and Ada:\n%s", len(lines), out)
	}
	var curie result.Line
	if err := json.Unmarshal([]byte(lines[0]), &curie); err != nil {
		t.Fatal(err)
	}
	if curie.Summarizer != "llm:m (log probabilities else 5 samples at temperature 1)" || curie.ContextsIrrelevant == nil || *curie.ContextsIrrelevant != 1 || curie.NumContexts != 3 {
		t.Errorf("summarizer %q, irrelevant %v, %d contexts in the network (want llm:m (log probabilities else 5 samples at temperature 1), 1, 3)", curie.Summarizer, curie.ContextsIrrelevant, curie.NumContexts)
	}
	want := []struct {
		id, summary string
		lp          float64
	}{
		{"c_a0_0", "Marie Curie was a Polish physicist and chemist.", -0.05},
		{"c_a1_0", "Marie Curie was born in Warsaw, not in Paris.", -0.2},
		{"c_a1_1", "Marie Curie was born in Warsaw, not in Paris.", -0.2},
		{"c_q_0", "Marie Curie was a Polish-French physicist.", -0.1},
	}
	if len(curie.Contexts) != len(want) {
		t.Fatalf("contexts %+v", curie.Contexts)
	}
	for i, w := range want {
		c := curie.Contexts[i]
		if c.ID != w.id || c.SyntheticSummary != w.summary || c.Probability == nil || math.Abs(*c.Probability-0.9*math.Exp(w.lp)) > 1e-12 || c.Text == w.summary {
			t.Errorf("context %d: %+v, want %s %q with prior 0.9·e^%v", i, c, w.id, w.summary, w.lp)
		}
	}
	if a0, a1 := curie.Atoms[0].Contexts, curie.Atoms[1].Contexts; !reflect.DeepEqual(a0, []string{"c_a0_0"}) || !reflect.DeepEqual(a1, []string{"c_a1_0", "c_a1_1"}) {
		t.Errorf("atoms' contexts a0 %v, a1 %v", a0, a1)
	}
	// Every NLI premise is a summary (FR2: 2 atoms × 3 contexts, the two
	// Warsaw contexts being one).
	summarized := map[string]bool{}
	for _, s := range summaries {
		summarized[s.summary] = true
	}
	n := 0
	for p, k := range w.premises {
		n += k
		if !summarized[p] {
			t.Errorf("NLI premise %q is not a summary", p)
		}
	}
	if n != 2*3+1 {
		t.Errorf("%d NLI requests, want 6 for Curie and 1 for Ada", n)
	}
	if curie.Predictions != " a0: S a1: NS" {
		t.Errorf("predictions %q", curie.Predictions)
	}

	// Scored again from the output, without a model: NLI from the LLM
	// cache (the requests would differ if it did not read the summaries),
	// or the relations the output gives.
	rescore := writeFile(t, "out.jsonl", out)
	before := w.srv.Count()
	for _, args := range [][]string{
		append(append([]string{"score", "--use-summaries"}, llmArgs...), rescore),
		{"score", "--use-summaries", "--nli", "given", rescore},
	} {
		again, stderr, err := run(t, context.Background(), args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		if w.srv.Count() != before {
			t.Errorf("%v asked the endpoint %d times", args, w.srv.Count()-before)
		}
		for i, l := range strings.Split(strings.TrimSpace(again), "\n") {
			var r1, r2 result.Line
			json.Unmarshal([]byte(lines[i]), &r1)
			json.Unmarshal([]byte(l), &r2)
			if !reflect.DeepEqual(r1.Marginals, r2.Marginals) || !reflect.DeepEqual(r1.ContextMarginals, r2.ContextMarginals) ||
				r2.Summarizer != "given" || r2.ContextsIrrelevant != nil || r2.NumContexts != r1.NumContexts {
				t.Errorf("%v, line %d: marginals %v / %v, summarizer %q, %d contexts; first run %v, %d contexts",
					args, i+1, r2.Marginals, r2.ContextMarginals, r2.Summarizer, r2.NumContexts, r1.Marginals, r1.NumContexts)
			}
		}
	}
	// Without --use-summaries NLI reads the contexts' text: new questions.
	if _, _, err := run(t, context.Background(), append([]string{"score"}, append(llmArgs, rescore)...)...); err != nil {
		t.Fatal(err)
	}
	if w.srv.Count() == before {
		t.Error("scored without --use-summaries, NLI asked nothing new: it read the summaries")
	}

	// fr inspect shows the output as it was scored: its network is of the
	// summaries (the two Warsaw contexts are one variable).
	shown, stderr, err := run(t, context.Background(), "inspect", "--contexts", rescore)
	if err != nil || !strings.Contains(shown, "c_a1_0  P(true)") || strings.Contains(shown, "c_a1_1  P(true)") {
		t.Errorf("inspect: %v\n%s\n%s", err, shown, stderr)
	}

	// fr merge takes the summarized run's lines as one run: the priors its
	// lines record are those its contexts carry (p_summary × 0.9).
	if merged, stderr, err := run(t, context.Background(), "merge", rescore); err != nil || merged != out {
		t.Errorf("merge of the summarized output: %v\n%s", err, stderr)
	}

	// An output file resumes only into a run that summarizes as it did.
	outFile := writeFile(t, "resumed.jsonl", lines[0]+"\n")
	_, stderr, err = run(t, context.Background(), append(append([]string{"score", "--summarize", "-o", outFile}, llmArgs...), in)...)
	if exitStatus(err) != exitFailure || !strings.Contains(stderr, "resuming "+outFile+": 1 records already scored") {
		t.Errorf("resume: %v\n%s", err, stderr)
	}
	_, _, err = run(t, context.Background(), append(append([]string{"score", "--use-summaries", "-o", outFile}, llmArgs...), in)...)
	if err == nil || !strings.Contains(err.Error(), `field "summarizer" is "llm:m`+" (log probabilities else 5 samples at temperature 1)"+`" there but "given" in this run`) {
		t.Errorf("resume with other summaries: %v", err)
	}

	// --summarize on records that are summarized already is refused: the
	// priors would be scaled twice.
	_, stderr, err = run(t, context.Background(), append(append([]string{"score", "--summarize"}, llmArgs...), rescore)...)
	if err != nil || !strings.Contains(stderr, "contexts[0].synthetic_summary: context \"c_a0_0\" is summarized already") {
		t.Errorf("--summarize on a summarized output: %v\n%s", err, stderr)
	}
}

// TestSummarizeFlags: the two summary flags exclude each other, and the
// summarizer needs an NLI backend that reads the summaries.
func TestSummarizeFlags(t *testing.T) {
	example := "../../testdata/example.jsonl"
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"score", "--summarize", "--use-summaries", example}, "--summarize and --use-summaries"},
		{[]string{"score", "--summarize", "--nli", "given", "--llm-model", "m", example}, "--summarize, --use-summaries: the given NLI backend"},
		{[]string{"score", "--summarize", "--nli", "lexical", "--llm-model", "m", "--summary-fixed-probability", "1.5", example}, "--summary-fixed-probability"},
		{[]string{"score", "--summarize", "--nli", "lexical", example}, "--llm-model: required"},
	} {
		_, _, err := run(t, context.Background(), tc.args...)
		if exitStatus(err) != exitUsage || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%v: %v, want a usage error with %q", tc.args, err, tc.msg)
		}
	}
}
