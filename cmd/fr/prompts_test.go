package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/prompts"
)

// frEndpoint answers FactReasoner's prompts as its models do (the shapes
// its code asks for: the atomizer's and reviser's JSON in a code fence,
// NLI's reasoning then [label], the summary alone), and records what it
// was sent.
type frEndpoint struct {
	srv  *llmtest.Server
	mu   sync.Mutex
	sent []llmtest.Request
}

func newFREndpoint(t *testing.T) *frEndpoint {
	e := &frEndpoint{}
	e.srv = llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		e.mu.Lock()
		e.sent = append(e.sent, r)
		e.mu.Unlock()
		q := r.Last()
		switch {
		case strings.Contains(q, "break down a given paragraph into a set of atomic units"):
			return llmtest.Reply{Content: "```json\n{\n    \"atomic_units\": [\n        {\"id\": 1, \"text\": \"Marie Curie was a physicist.\"},\n        {\"id\": 2, \"text\": \"She was born in Paris.\"}\n    ]\n}\n```"}
		case strings.Contains(q, "decontextualize a UNIT"):
			unit := between(q, "Your task:\nUNIT:\n", "\n\nRESPONSE:")
			revised := strings.Replace(unit, "She ", "Marie Curie ", 1)
			return llmtest.Reply{Content: "```json\n{\n    \"revised_unit\": \"" + revised + "\",\n    \"rationale\": \"The UNIT refers to Marie Curie.\"\n}\n```"}
		case strings.Contains(q, "You are provided with a PREMISE and a HYPOTHESIS"):
			label := frLabel(between(q, "Your task:\nPREMISE: ", "\n"), between(q, "Your task:\nPREMISE: ", "\n\n"))
			return llmtest.Reply{Content: "1. Evaluate Relationship:\nThe PREMISE bears on it.\n3. Final Answer:\n[" + label + "]"}
		case strings.Contains(q, "You are given a premise and a hypothesis"):
			task := q[strings.LastIndex(q, "\nPremise: "):]
			return llmtest.Reply{Content: frLabel(task, task)}
		case strings.Contains(q, "summarize the CONTEXT with respect to the ATOM"):
			return llmtest.Reply{Content: "Marie Curie was a Polish physicist born in Warsaw."}
		}
		return llmtest.Reply{Status: 400, Body: `{"error": {"message": "unexpected request"}}`}
	})
	return e
}

// frLabel is the endpoint's verdict on a pair: the premise part of the
// prompt's task, and the task with its hypothesis.
func frLabel(premise, task string) string {
	_, h, _ := strings.Cut(strings.ToLower(task), "hypothesis: ")
	switch {
	case strings.Contains(h, "physicist"):
		return "entailment"
	case strings.Contains(h, "paris") && strings.Contains(premise, "Warsaw"):
		return "contradiction"
	}
	return "neutral"
}

// between is the text of s between the first before and the next after.
func between(s, before, after string) string {
	_, rest, _ := strings.Cut(s, before)
	out, _, _ := strings.Cut(rest, after)
	return out
}

// TestFactReasonerPrompts (issue 32): --prompts factreasoner sends
// FactReasoner's prompts as its code has them, each one user message
// that is the data file filled in, to the atomizer, the reviser, NLI v2
// and the summarizer; their answers in the shapes those prompts ask for
// are read; the output's run identity names the set, so that a run with
// fr's own prompts does not resume into it; --prompts nli=factreasoner
// sends FactReasoner's NLI prompt alone.
func TestFactReasonerPrompts(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	e := newFREndpoint(t)
	const response = "Marie Curie was a physicist. She was born in Paris."
	in := writeFile(t, "raw.jsonl", `{"input": "Who was Marie Curie?", "output": "`+response+`", "topic": "Marie Curie",`+
		` "contexts": [{"id": "c_q_0", "title": "Marie Curie", "text": "Marie Curie was a Polish physicist, born in Warsaw in 1867."}]}`+"\n")
	out := filepath.Join(t.TempDir(), "out.jsonl")
	args := []string{"score", "--nli", "llm", "--nli-prompt", "v2", "--atomizer", "llm", "--summarize", "--llm-model", "m",
		"--llm-base-url", e.srv.BaseURL(), "--llm-cache", "off", "-o", out}
	if _, stderr, err := run(t, context.Background(), append(args, "--prompts", "factreasoner", in)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	fill := func(name string, vars map[string]string) string {
		tmpl, err := prompts.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		text, err := tmpl.Fill(vars)
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	const ctxText = "Marie Curie was a Polish physicist, born in Warsaw in 1867."
	want := map[string]bool{
		fill("factreasoner/atomizer", map[string]string{"response": response}):                                         false,
		fill("factreasoner/reviser", map[string]string{"atomic_unit": "She was born in Paris.", "response": response}): false,
		// A query context is summarized for the question.
		fill("factreasoner/summarizer", map[string]string{"atom_text": "Who was Marie Curie?", "context": ctxText}):                                                             false,
		fill("factreasoner/nli-v2", map[string]string{"premise_text": "Marie Curie was a Polish physicist born in Warsaw.", "hypothesis_text": "Marie Curie was a physicist."}): false,
	}
	for _, r := range e.sent {
		if len(r.Messages) != 1 || r.Messages[0].Role != "user" {
			t.Errorf("a request of %d messages (%s first): FactReasoner sends one user message", len(r.Messages), r.Messages[0].Role)
			continue
		}
		if _, ok := want[r.Last()]; ok {
			want[r.Last()] = true
		}
	}
	for text, sent := range want {
		if !sent {
			t.Errorf("never sent:\n%.300s", text)
		}
	}
	lines := outputLines(t, out)
	if len(lines) != 1 {
		t.Fatalf("%d lines", len(lines))
	}
	l := lines[0]
	runID := l["run"].(map[string]any)
	if runID["prompts"] != "factreasoner" || !strings.Contains(l["model_name"].(string), "factreasoner/nli-v2") ||
		!strings.Contains(l["summarizer"].(string), "prompt factreasoner/summarizer") || l["predictions"] != " a0: S a1: NS" {
		t.Errorf("run %v, model %v, summarizer %v, predictions %v", runID, l["model_name"], l["summarizer"], l["predictions"])
	}
	atoms, _ := json.Marshal(l["atoms"])
	if !strings.Contains(string(atoms), `"text":"Marie Curie was born in Paris."`) {
		t.Errorf("atoms %s: the reviser's answer was not read", atoms)
	}
	// fr's own prompts are another run.
	if _, _, err := run(t, context.Background(), append(args, in)...); err == nil || !strings.Contains(err.Error(), "holds the results of another run") {
		t.Errorf("resuming with fr's prompts: %v", err)
	}
	// One stage: FactReasoner's NLI prompt, fr's atomizer (which this
	// endpoint does not answer) not asked: the record has atoms.
	e.sent = nil
	atomsIn := writeFile(t, "atoms.jsonl", `{"input": "Who was Marie Curie?", "output": "x", "atoms": [{"id": "a0", "text": "Marie Curie was a physicist."}],`+
		` "contexts": [{"id": "c_a0_0", "title": "Marie Curie", "text": "`+ctxText+`"}]}`+"\n")
	stdout, _, err := run(t, context.Background(), "score", "--nli", "llm", "--llm-model", "m", "--llm-base-url", e.srv.BaseURL(),
		"--llm-cache", "off", "--prompts", "nli=factreasoner", atomsIn)
	if err != nil {
		t.Fatal(err)
	}
	var line map[string]any
	json.Unmarshal([]byte(stdout), &line)
	if p := line["run"].(map[string]any)["prompts"]; p != "factreasoner" || len(e.sent) != 1 ||
		e.sent[0].Last() != fill("factreasoner/nli-v1", map[string]string{"premise_text": ctxText, "hypothesis_text": "Marie Curie was a physicist."}) {
		t.Errorf("run.prompts %v; %d requests", p, len(e.sent))
	}
}

// TestFactReasonerQueryBuilder: --query-builder with --prompts
// querybuilder=factreasoner sends FactReasoner's query builder prompt,
// filled with the atom alone, as one user message; the one query of each
// fenced answer is what the knowledge base is searched with; run.prompts
// and run.retrieval name the prompt, so a run with fr's own query builder
// does not resume into the output. fr retrieve takes --prompts too.
func TestFactReasonerQueryBuilder(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	ctx := context.Background()
	kb := filepath.Join(t.TempDir(), "kb.db")
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, writeTemp(t, "manuals.jsonl", manuals)); err != nil {
		t.Fatal(err)
	}
	// The atoms share no word with the manuals; the queries do.
	queries := map[string]string{
		"It must be done every 2,000 hours.": `"impeller seal" replacement interval`,
		"Staff get 25 of them.":              "paid leave days per year",
	}
	tmpl, err := prompts.Load("factreasoner/querybuilder")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		sent []llmtest.Request
	)
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		mu.Lock()
		sent = append(sent, r)
		mu.Unlock()
		atom := between(r.Last(), "Your task:\n\nSTATEMENT: ", "\n")
		if q, ok := queries[atom]; ok {
			return llmtest.Reply{Content: "OUTPUT:\n```\n" + q + "\n```"}
		}
		return llmtest.Reply{Status: 400, Body: `{"error": {"message": "unexpected request"}}`}
	})
	rec := `{"input": "Rules?", "output": "It must be done every 2,000 hours. Staff get 25 of them.", "atoms": [{"id": "a0", "text": "It must be done every 2,000 hours."}, {"id": "a1", "text": "Staff get 25 of them."}]}` + "\n"
	in := writeTemp(t, "in.jsonl", rec)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	args := []string{"score", "--nli", "lexical", "--db", kb, "--retrieve-k", "1", "--query-contexts", "0", "--retrieval-cache", "off",
		"--query-builder", "--llm-model", "m", "--llm-base-url", srv.BaseURL(), "--llm-cache", "off", "-o", out}
	if _, stderr, err := run(t, ctx, append(args, "--prompts", "querybuilder=factreasoner", in)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if len(sent) != 2 {
		t.Fatalf("%d requests, want one per atom", len(sent))
	}
	for _, r := range sent {
		atom := between(r.Last(), "Your task:\n\nSTATEMENT: ", "\n")
		want, _ := tmpl.Fill(map[string]string{"statement_text": atom})
		if len(r.Messages) != 1 || r.Messages[0].Role != "user" || r.Messages[0].Content != want {
			t.Errorf("request for %q: %d messages, not the prompt filled with the atom", atom, len(r.Messages))
		}
	}
	lines := outputLines(t, out)
	if len(lines) != 1 {
		t.Fatalf("%d lines", len(lines))
	}
	b, _ := json.Marshal(lines[0])
	if got := contextsOf(t, string(b)); fmt.Sprint(got) != "map[a0:[Pump manual] a1:[Leave policy]]" {
		t.Errorf("contexts %v", got)
	}
	runID := lines[0]["run"].(map[string]any)
	if runID["prompts"] != "factreasoner" || !strings.Contains(runID["retrieval"].(string), "queries=llm:m (prompt factreasoner/querybuilder)") {
		t.Errorf("run %v", runID)
	}
	// fr's own query builder is another run.
	if _, _, err := run(t, ctx, append(args, in)...); err == nil || !strings.Contains(err.Error(), "holds the results of another run") {
		t.Errorf("resuming with fr's query builder prompt: %v", err)
	}
	sent = nil
	got, stderr, err := run(t, ctx, "retrieve", "--retrieval-cache", "off", "--llm-cache", "off", "--query-builder", "--prompts", "factreasoner",
		"--llm-base-url", srv.BaseURL(), "--llm-model", "m", "--db", kb, "-k", "1", "--query-contexts", "0", in)
	if err != nil || len(sent) != 2 || fmt.Sprint(contextsOf(t, got)) != "map[a0:[Pump manual] a1:[Leave policy]]" {
		t.Errorf("fr retrieve: %v, %d requests, %s\n%s", err, len(sent), got, stderr)
	}
}
