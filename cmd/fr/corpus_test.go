package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/retrieve/searchtest"
)

// manuals are documents that are not about one subject each: a record's
// atoms are checked against all of them.
const manuals = `{"title": "Pump manual", "text": ["The pump must be primed before first use by filling the housing with water.", "Replace the impeller seal every 2,000 hours of operation."]}
{"title": "Leave policy", "text": ["Employees accrue 25 days of paid leave per year.", "Unused leave expires at the end of March of the following year."]}
{"title": "Solar array", "text": ["The array produces 4.2 kW at peak.", "The inverter is replaced after 12 years of service."]}
`

// noTopic is a record without a topic whose atoms are each answered by one
// of the manuals.
const noTopic = `{"input": "Summarize our maintenance and leave rules.", "output": "Seals are replaced every 2,000 hours. Staff get 25 days of leave.",` +
	` "atoms": [{"id": "a0", "text": "The impeller seal is replaced every 2,000 hours."}, {"id": "a1", "text": "Employees get 25 days of paid leave a year."}]}` + "\n"

// contextsOf returns the titles of the contexts an output record gives each
// atom, by atom id.
func contextsOf(t *testing.T, line string) map[string][]string {
	t.Helper()
	var rec instance.Instance
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatalf("%v\n%s", err, line)
	}
	title := map[string]string{}
	for _, c := range rec.Contexts {
		title[c.ID] = c.Title
	}
	out := map[string][]string{}
	for _, a := range rec.Atoms {
		for _, id := range a.Contexts {
			out[a.ID] = append(out[a.ID], title[id])
		}
	}
	return out
}

// TestCorpusRetrieval: fr kb build with an embedding model, then records
// without a topic get their evidence from every passage of the knowledge
// base, ranked by bm25, dense or hybrid; queries embedded by another model
// are refused.
func TestCorpusRetrieval(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	ctx := context.Background()
	emb := llmtest.NewEmbeddings(t, "hash-96", 96)
	kb := filepath.Join(t.TempDir(), "kb.db")
	docs := writeTemp(t, "manuals.jsonl", manuals)
	_, stderr, err := run(t, ctx, "kb", "build", "--embed-model", "hash-96", "--embed-endpoint", emb.BaseURL(), "-o", kb, docs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "3 documents") || !strings.Contains(stderr, "passages embedded by hash-96") {
		t.Errorf("kb build: %s", stderr)
	}
	in := writeTemp(t, "in.jsonl", noTopic)
	for _, ranking := range []string{"bm25", "dense", "hybrid"} {
		args := []string{"retrieve", "--retrieval-cache", "off", "--db", kb, "--retrieval", ranking, "-k", "1", "--query-contexts", "0"}
		if ranking != "bm25" { // bm25 embeds nothing: the endpoint does not apply
			args = append(args, "--embed-endpoint", emb.BaseURL())
		}
		out, stderr, err := run(t, ctx, append(args, in)...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", ranking, err, stderr)
		}
		got := contextsOf(t, out)
		if fmt.Sprint(got) != "map[a0:[Pump manual] a1:[Leave policy]]" {
			t.Errorf("%s: contexts %v", ranking, got)
		}
	}
	_, _, err = run(t, ctx, "retrieve", "--retrieval-cache", "off", "--db", kb, "--retrieval", "dense", "--embed-endpoint", emb.BaseURL(), "--embed-model", "other", in)
	if err == nil || !strings.Contains(err.Error(), `embedded by "hash-96"`) || !strings.Contains(err.Error(), "--embed-model") {
		t.Errorf("another embedding model: %v", err)
	}
	// A knowledge base without vectors has no dense search.
	plain := filepath.Join(t.TempDir(), "plain.db")
	if _, _, err := run(t, ctx, "kb", "build", "-o", plain, docs); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, ctx, "retrieve", "--retrieval-cache", "off", "--db", plain, "--retrieval", "hybrid", in)
	if err == nil || !strings.Contains(err.Error(), "--embed-model") || !strings.Contains(err.Error(), "--retrieval") {
		t.Errorf("hybrid without vectors: %v", err)
	}
	// fr score: the retrieval settings are in the run's identity, and a
	// resumed run with another ranking is refused.
	outFile := filepath.Join(t.TempDir(), "scored.jsonl")
	if _, _, err := run(t, ctx, "score", "--nli", "lexical", "--db", kb, "--retrieval", "hybrid", "--embed-endpoint", emb.BaseURL(), "--kb-scope", "corpus", "-o", outFile, in); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(outFile)
	if !strings.Contains(string(data), `"retrieval":"top_k=3,query_contexts=3,kb_scope=corpus,kb_ranking=hybrid:hash-96/96"`) {
		t.Errorf("run identity: %s", data)
	}
	two := writeTemp(t, "two.jsonl", noTopic+noTopic)
	os.WriteFile(outFile, data, 0o600)
	_, _, err = run(t, ctx, "score", "--nli", "lexical", "--db", kb, "--kb-scope", "corpus", "-o", outFile, two)
	if err == nil || !strings.Contains(err.Error(), "run.retrieval") {
		t.Errorf("resumed with another ranking: %v", err)
	}
}

// TestQueryBuilder: with --query-builder, the LLM writes each atom's
// queries from the atom and the response, and every source is searched
// with them: the knowledge base (whose answer follows the query, not the
// atom's words) and a web search.
func TestQueryBuilder(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	ctx := context.Background()
	kb := filepath.Join(t.TempDir(), "kb.db")
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, writeTemp(t, "manuals.jsonl", manuals)); err != nil {
		t.Fatal(err)
	}
	// The atoms share no word with the manuals; the queries do.
	queries := map[string][]string{
		"It must be done every 2,000 hours.": {"impeller seal replacement interval", "pump seal hours"},
		"Staff get 25 of them.":              {"paid leave days per year"},
	}
	var seen []string
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		last := r.Last()
		for atom, qs := range queries {
			if strings.Contains(last, "CLAIM: "+atom) {
				if !strings.Contains(last, "RESPONSE:\nIt must be done") {
					t.Errorf("the query builder was not given the response: %q", last)
				}
				seen = append(seen, atom)
				b, _ := json.Marshal(qs)
				if n%2 == 1 {
					return llmtest.Reply{Content: "Sure! Here are the search queries:\n\n```json\n" + string(b) + "\n```"}
				}
				return llmtest.Reply{Content: string(b)}
			}
		}
		return llmtest.Reply{Content: "I'm sorry, I cannot help."}
	})
	web := searchtest.NewSearXNG(t)
	web.Add("impeller seal replacement interval", searchtest.Result{Title: "Seals", Link: "https://example.com/seals", Snippet: "Seals last 2,000 hours."})
	rec := `{"input": "Rules?", "output": "It must be done every 2,000 hours. Staff get 25 of them.", "atoms": [{"id": "a0", "text": "It must be done every 2,000 hours."}, {"id": "a1", "text": "Staff get 25 of them."}]}` + "\n"
	in := writeTemp(t, "in.jsonl", rec)
	out, stderr, err := run(t, ctx, "retrieve", "--retrieval-cache", "off", "--llm-cache", "off", "--query-builder", "--llm-base-url", srv.BaseURL(), "--llm-model", "fake",
		"--source", "db,searxng", "--searxng-url", web.URL, "--db", kb, "-k", "1", "--query-contexts", "0", in)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	slices.Sort(seen)
	if len(seen) != 2 {
		t.Errorf("the query builder was asked about %q", seen)
	}
	got := contextsOf(t, out)
	if fmt.Sprint(got) != "map[a0:[Pump manual Seals] a1:[Leave policy]]" {
		t.Errorf("contexts %v", got)
	}
	asked := web.Queries()
	slices.Sort(asked)
	if fmt.Sprint(asked) != "[impeller seal replacement interval paid leave days per year pump seal hours]" {
		t.Errorf("the web search was asked %q", asked)
	}
	if !strings.Contains(stderr, "llm query builder: 3 queries for 2 atoms") {
		t.Errorf("summary: %s", stderr)
	}
	// An answer that gives no query fails the record; the atom's text is
	// never searched in its place.
	bad := writeTemp(t, "bad.jsonl", strings.ReplaceAll(rec, "Staff get 25 of them.", "Something else."))
	_, _, err = run(t, ctx, "retrieve", "--retrieval-cache", "off", "--llm-cache", "off", "--llm-reask", "1", "--query-builder", "--llm-base-url", srv.BaseURL(), "--llm-model", "fake", "--db", kb, bad)
	if err == nil || !strings.Contains(err.Error(), "query builder") || !strings.Contains(err.Error(), "declines") {
		t.Errorf("unreadable queries: %v", err)
	}
}

// TestFastMode: --near-duplicates and --fr3-pairs one-way are in the run's
// identity (a resumed run with other settings is refused), and the lines
// they write are read back by fr inspect and fr report with the variables
// they were scored with.
func TestFastMode(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	ctx := context.Background()
	in := refdata.Path(t, "factreasoner", "flaherty_google.json")
	out := filepath.Join(t.TempDir(), "out.jsonl")
	if _, _, err := run(t, ctx, "score", "--nli", "lexical", "--version", "3", "--near-duplicates", "0.92", "--fr3-pairs", "one-way", "-o", out, in); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	var line map[string]any
	if err := json.Unmarshal(data, &line); err != nil {
		t.Fatal(err)
	}
	// 68 distinct snippets, 6 of them mirrors of another at 0.92.
	if line["num_contexts"] != 62.0 || line["run"].(map[string]any)["fast"] != "near_duplicates=0.92,fr3_pairs=one-way" {
		t.Errorf("num_contexts %v, run %v", line["num_contexts"], line["run"])
	}
	two := writeTemp(t, "two.jsonl", "")
	raw, _ := os.ReadFile(in)
	var rec map[string]any
	json.Unmarshal(raw, &rec)
	b, _ := json.Marshal(rec)
	os.WriteFile(two, append(append(b, '\n'), append(b, '\n')...), 0o600)
	resumed := filepath.Join(t.TempDir(), "resumed.jsonl")
	os.WriteFile(resumed, data, 0o600)
	if _, _, err := run(t, ctx, "score", "--nli", "lexical", "--version", "3", "-o", resumed, two); err == nil || !strings.Contains(err.Error(), "run.fast") {
		t.Errorf("resumed without the fast mode: %v", err)
	}
	if o, _, err := run(t, ctx, "inspect", "--atom", "a0", out); err != nil || !strings.Contains(o, "a0  P(true)") {
		t.Errorf("inspect: %v\n%s", err, o)
	}
	if _, _, err := run(t, ctx, "report", "-o", filepath.Join(t.TempDir(), "r.html"), out); err != nil {
		t.Errorf("report: %v", err)
	}
	if _, _, err := run(t, ctx, "score", "--nli", "lexical", "--near-duplicates", "1.5", in); err == nil || !strings.Contains(err.Error(), "--near-duplicates") {
		t.Errorf("--near-duplicates 1.5: %v", err)
	}
}
