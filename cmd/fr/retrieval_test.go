package main

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/result"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

// lastJSONLine decodes the last line of out.
func lastJSONLine(t *testing.T, out string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		t.Fatalf("last line is not JSON: %v\n%s", err, lines[len(lines)-1])
	}
	return m
}

// TestFActScoreGoldChatGPT: the human FActScore of FActScore's labeled
// ChatGPT biographies is 58.3, with 157 of 183 responses answered.
func TestFActScoreGoldChatGPT(t *testing.T) {
	path := refdata.Path(t, "factscore-labeled", "ChatGPT.jsonl")
	out, _, err := run(t, context.Background(), "factscore", "--gold", path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 184 {
		t.Fatalf("%d lines, want 183 records and the summary", len(lines))
	}
	s := lastJSONLine(t, out)
	fs := s["factscore"].(float64)
	if math.Round(fs*1000) != 583 {
		t.Errorf("factscore %v, want 0.583", fs)
	}
	if s["responded"] != 157.0 || s["responses"] != 183.0 || s["respond_ratio"] != 157.0/183 {
		t.Errorf("respond ratio %v (%v/%v), want 157/183", s["respond_ratio"], s["responded"], s["responses"])
	}
	// --gold without --gamma: no length penalty, as the paper's human scores.
	if s["init_score"] != fs || s["verifier"] != "gold" || s["gamma"] != 0.0 || s["scored"] != 157.0 {
		t.Errorf("summary %v", s)
	}
	// The first record: Lanny Flaherty, 35 facts, 7 supported.
	var first factscore.Record
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.Topic != "Lanny Flaherty" || first.Facts != 35 || first.Supported != 7 || len(first.Decisions) != 35 || first.Decisions[2].Label != "NS" {
		t.Errorf("first record: %+v", first.Result)
	}
}

// flahertyDocs writes the Flaherty instance's contexts as knowledge-base
// documents, {"title", "text"} per line.
func flahertyDocs(t *testing.T) string {
	t.Helper()
	var inst instance.Instance
	data, err := os.ReadFile(refdata.Path(t, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &inst); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range inst.Contexts {
		line, _ := json.Marshal(map[string]string{"title": c.Title, "text": c.Text})
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "flaherty-docs.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const bornRecord = `{"input": "Tell me a bio of Lanny Flaherty.", "output": "Lanny Flaherty was born on July 27, 1942.", "topic": "Lanny Flaherty",` +
	` "atoms": [{"id": "a0", "text": "Lanny Flaherty was born on July 27, 1942."}, {"id": "a1", "text": "Lanny Flaherty was a graduate of pontotoc high school."}]}` + "\n"

// TestKBBuildAndRetrieveFlaherty: a knowledge base built by fr kb build from
// the Flaherty instance's contexts (titled by their title) gives, for the
// atom "Lanny Flaherty was born on July 27, 1942." about "Lanny Flaherty",
// a first passage holding that date. The file's text is lower-cased
// ("july 27, 1942"), so the check ignores case; BM25's tokens keep case, as
// FActScore's, so the match rests on tokens such as "27," and "was".
func TestKBBuildAndRetrieveFlaherty(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	docs := flahertyDocs(t)
	tok := refdata.Path(t, "tokenizers", "roberta-base", "tokenizer.json")
	input := writeTemp(t, "in.jsonl", bornRecord)
	ctx := context.Background()
	for _, maxTokens := range []string{"256", "48"} {
		kb := filepath.Join(t.TempDir(), "kb.db")
		_, stderr, err := run(t, ctx, "kb", "build", "-o", kb, "--tokenizer", tok, "--max-tokens", maxTokens, docs)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, "21 documents") || !strings.Contains(stderr, "32 repeated pieces dropped") {
			t.Errorf("kb build summary: %s", stderr)
		}
		db, err := retrieve.OpenDocDB(kb)
		if err != nil {
			t.Fatal(err)
		}
		passages, err := db.Passages(ctx, "Lanny Flaherty")
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		// At 48 tokens the biography is several passages, so the ranking
		// has something to choose from.
		if maxTokens == "48" && len(passages) < 4 {
			t.Fatalf("%d passages at 48 tokens", len(passages))
		}
		out, _, err := run(t, ctx, "retrieve", "--db", kb, "--k", "3", input)
		if err != nil {
			t.Fatal(err)
		}
		var rec instance.Instance
		if err := json.Unmarshal([]byte(out), &rec); err != nil {
			t.Fatalf("output: %v\n%s", err, out)
		}
		a0 := rec.Atoms[0]
		if len(a0.Contexts) != min(3, len(passages)) || a0.Contexts[0] != "c_a0_0" {
			t.Fatalf("max %s: a0 contexts %v", maxTokens, a0.Contexts)
		}
		first := rec.Contexts[0]
		if first.ID != "c_a0_0" || first.Title != "Lanny Flaherty" || !strings.Contains(strings.ToLower(first.Text), "july 27, 1942") {
			t.Errorf("max %s: first context %+v", maxTokens, first)
		}
		if maxTokens == "48" {
			// The second atom's best passage is the one about the school
			// (the atom is written in lower case to match the file's text:
			// "Pontotoc High School" would match none of its tokens).
			var a1first instance.Context
			for _, c := range rec.Contexts {
				if c.ID == "c_a1_0" {
					a1first = c
				}
			}
			if !strings.Contains(a1first.Text, "pontotoc high school") {
				t.Errorf("a1's first context: %q", a1first.Text)
			}
		}
	}
	// The default retrieval cache went to the cache directory.
	if _, err := os.Stat(filepath.Join(os.Getenv("FACTREASONER_CACHE"), "retrieval-cache.sqlite")); err != nil {
		t.Errorf("retrieval cache: %v", err)
	}
}

func TestRetrieveMissingTopic(t *testing.T) {
	kb := filepath.Join(t.TempDir(), "kb.db")
	doc := writeTemp(t, "Lanny Flaherty.txt", "Lanny Flaherty was an American actor.\n\nHe was born in 1942.\n")
	ctx := context.Background()
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, doc); err != nil {
		t.Fatal(err)
	}
	in := writeTemp(t, "in.jsonl", bornRecord+strings.Replace(bornRecord, `"topic": "Lanny Flaherty"`, `"topic": "Lanny flaherty"`, 1))
	_, _, err := run(t, ctx, "retrieve", "--retrieval-cache", "none", "--db", kb, in)
	if err == nil || !strings.Contains(err.Error(), in+":2:") || !strings.Contains(err.Error(), `"Lanny flaherty"`) || !strings.Contains(err.Error(), "not a title") {
		t.Errorf("missing topic: %v", err)
	}
	out, stderr, err := run(t, ctx, "retrieve", "--retrieval-cache", "none", "--missing-topic", "skip", "--db", kb, in)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || strings.Contains(lines[1], `"contexts"`) || !strings.Contains(lines[0], `"c_a0_0"`) {
		t.Errorf("skip output:\n%s", out)
	}
	if !strings.Contains(stderr, "warning: line 2") {
		t.Errorf("no warning on stderr: %s", stderr)
	}
	// Same input and settings, same bytes.
	again, _, _ := run(t, ctx, "retrieve", "--retrieval-cache", "none", "--missing-topic", "skip", "--db", kb, in)
	if again != out {
		t.Error("second run differs")
	}
	// No knowledge source at all.
	if _, _, err := run(t, ctx, "retrieve", in); err == nil || !strings.Contains(err.Error(), "no knowledge source") {
		t.Errorf("no source: %v", err)
	}
}

func TestRetrieveWikipedia(t *testing.T) {
	var agents []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents = append(agents, r.UserAgent())
		q := r.URL.Query()
		if q.Get("list") == "search" {
			json.NewEncoder(w).Encode(map[string]any{"query": map[string]any{"search": []any{map[string]any{"title": "Lanny Flaherty"}}}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"query": map[string]any{"pages": []any{map[string]any{
			"title": "Lanny Flaherty", "extract": "Lanny Flaherty (July 27, 1942 – February 18, 2024) was an American actor.",
			"fullurl": "https://en.wikipedia.org/wiki/Lanny_Flaherty"}}}})
	}))
	defer srv.Close()
	in := writeTemp(t, "in.jsonl", bornRecord)
	out, _, err := run(t, context.Background(), "retrieve", "--source", "wikipedia", "--wikipedia-endpoint", srv.URL,
		"--wikipedia-interval", "0s", "--wikipedia-user-agent", "test-agent/1 (test@example.org)", "--retrieval-cache", "none", in)
	if err != nil {
		t.Fatal(err)
	}
	var rec instance.Instance
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	// Each atom's passage, then the question's (FactReasoner's c_q_0),
	// which no atom lists.
	if len(rec.Contexts) != 3 || rec.Contexts[0].Link != "https://en.wikipedia.org/wiki/Lanny_Flaherty" || rec.Atoms[1].Contexts[0] != "c_a1_0" ||
		rec.Contexts[2].ID != "c_q_0" || len(rec.Atoms[0].Contexts)+len(rec.Atoms[1].Contexts) != 2 {
		t.Errorf("contexts %+v", rec.Contexts)
	}
	for _, a := range agents {
		if a != "test-agent/1 (test@example.org) "+version.UserAgent() {
			t.Errorf("User-Agent %q", a)
		}
	}
}

func TestKBBuildErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	kb := filepath.Join(dir, "kb.db")
	bad := writeTemp(t, "docs.jsonl", `{"title": "A", "text": "fine"}`+"\n\n"+`{"title": "B", "text": 3}`+"\n")
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, bad); err == nil || !strings.Contains(err.Error(), bad+":3: text") {
		t.Errorf("bad text: %v", err)
	}
	if _, err := os.Stat(kb); err == nil {
		t.Error("a failed build left a file")
	}
	noTitle := writeTemp(t, "docs.jsonl", `{"text": "x"}`+"\n")
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, noTitle); err == nil || !strings.Contains(err.Error(), ":1: title") {
		t.Errorf("no title: %v", err)
	}
	for _, text := range []string{`null`, `[null]`, `[1]`, `{}`} {
		nullText := writeTemp(t, "docs.jsonl", `{"title": "A", "text": `+text+`}`+"\n")
		if _, _, err := run(t, ctx, "kb", "build", "-o", kb, nullText); err == nil || !strings.Contains(err.Error(), ":1: text") {
			t.Errorf("text %s: %v", text, err)
		}
	}
	// Nothing to write is an error, and no file.
	empty := writeTemp(t, "docs.jsonl", `{"title": "A", "text": ""}`+"\n"+`{"title": "B", "text": ["  "]}`+"\n")
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, empty); err == nil || !strings.Contains(err.Error(), "no document has any text") {
		t.Errorf("empty knowledge base: %v", err)
	}
	if _, err := os.Stat(kb); err == nil {
		t.Error("an empty build left a file")
	}
	good := writeTemp(t, "docs.jsonl", `{"title": "A", "text": ["one", "two"]}`+"\n")
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, good); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(kb); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("knowledge base mode %v, want 0600 (%v)", st.Mode(), err)
	}
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, good); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("existing output: %v", err)
	}
	if _, _, err := run(t, ctx, "kb", "build", "--force", "-o", kb, good); err != nil {
		t.Errorf("--force: %v", err)
	}
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, "--force", "--tokenizer", filepath.Join(dir, "none.json"), good); err == nil || !strings.Contains(err.Error(), "--tokenizer") {
		t.Errorf("missing tokenizer: %v", err)
	}
}

// TestFActScoreNLI runs the nli verifier with the relations of IBM's
// recorded FR2 run (--nli given) over each atom's own contexts, and
// compares with the rule applied by hand: an atom is supported iff one of
// its contexts has an entailment relation to it with probability above 0.5
// (5 of 26 atoms).
func TestFActScoreNLI(t *testing.T) {
	path, gold := flahertyWithRelations(t)
	out, _, err := run(t, context.Background(), "factscore", "--verifier", "nli", "--nli", "given", "--gamma", "0", path)
	if err != nil {
		t.Fatal(err)
	}
	var inst instance.Instance
	data, _ := os.ReadFile(path)
	json.Unmarshal(data, &inst)
	var rels []instance.Relation
	json.Unmarshal(gold["relations"], &rels)
	// A relation holds for every context with its source's text (the
	// golden relations name one context of each text).
	text := map[string]string{}
	for _, c := range inst.Contexts {
		text[c.ID] = c.NLIText()
	}
	want := 0
	for _, a := range inst.Atoms {
		own := map[string]bool{}
		for _, c := range a.Contexts {
			own[text[c]] = true
		}
		for _, r := range rels {
			if r.Target == a.ID && own[text[r.Source]] && r.Type == "entailment" && r.Probability > 0.5 {
				want++
				break
			}
		}
	}
	if want == 0 {
		t.Fatal("no atom is supported by hand; the test proves nothing")
	}
	s := lastJSONLine(t, out)
	if want != 5 || s["factscore"] != float64(want)/26 || s["verifier"] != "nli:given" {
		t.Errorf("summary %v, want factscore %d/26", s, want)
	}
}

// TestFActScoreLabeledWithKB: labeled input without --gold verifies the
// human facts (S and NS) against a knowledge base; abstained responses do
// not respond.
func TestFActScoreLabeledWithKB(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	kb := filepath.Join(t.TempDir(), "kb.db")
	doc := writeTemp(t, "Ada Lovelace.txt", "Ada Lovelace was born in 1815.\n\nShe died in 1852.\n")
	ctx := context.Background()
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, doc); err != nil {
		t.Fatal(err)
	}
	labeled := `{"input": "Bio of Ada", "output": "Ada was born in 1815.", "topic": "Ada Lovelace", "annotations": [` +
		`{"text": "Ada was born in 1815.", "is-relevant": true, "human-atomic-facts": [{"text": "Ada Lovelace was born in 1815.", "label": "S"}, {"text": "Ada was French.", "label": "NS"}, {"text": "Ada was great.", "label": "IR"}]}]}` + "\n" +
		`{"input": "Bio of X", "output": "I don't know.", "topic": "X", "annotations": null}` + "\n"
	in := writeTemp(t, "labeled.jsonl", labeled)
	out, _, err := run(t, ctx, "factscore", "--verifier", "nli", "--nli", "lexical", "--db", kb, in)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("output:\n%s", out)
	}
	var rec factscore.Record
	json.Unmarshal([]byte(lines[0]), &rec)
	if rec.Facts != 2 || len(rec.Decisions) != 2 || rec.Decisions[0].Label != "S" || rec.Decisions[1].Label != "NS" || rec.Decisions[0].NoEvidence {
		t.Errorf("first record %+v", rec)
	}
	// The passage states the first fact word for word and says nothing of
	// the second: any NLI backend, the lexical one included, must agree.
	d0, d1 := rec.Decisions[0], rec.Decisions[1]
	if !d0.Supported || d0.Context != "c_a0_0" || d1.Supported || d1.Entailment == nil {
		t.Errorf("decisions %+v %+v", d0, d1)
	}
	s := lastJSONLine(t, out)
	if s["responses"] != 2.0 || s["responded"] != 1.0 || s["respond_ratio"] != 0.5 {
		t.Errorf("summary %v", s)
	}
	// Gold on the same file: 1 of 3 facts (IR counts), no length penalty
	// by default with --gold; --gamma 10 gives the penalty exp(1 − 10/3).
	out, _, err = run(t, ctx, "factscore", "--gold", in)
	if err != nil {
		t.Fatal(err)
	}
	s = lastJSONLine(t, out)
	if s["factscore"] != 1.0/3 || s["init_score"] != 1.0/3 || s["gamma"] != 0.0 {
		t.Errorf("gold summary %v, want factscore 1/3, γ 0", s)
	}
	out, _, err = run(t, ctx, "factscore", "--gold", "--gamma", "10", in)
	if err != nil {
		t.Fatal(err)
	}
	s = lastJSONLine(t, out)
	if got, want := s["factscore"].(float64), math.Exp(1-10.0/3)/3; math.Abs(got-want) > 1e-15 || s["init_score"] != 1.0/3 || s["gamma"] != 10.0 {
		t.Errorf("gold summary with --gamma 10: %v, want factscore %v", s, want)
	}
	// Atoms without contexts need a knowledge source.
	if _, _, err := run(t, ctx, "factscore", "--verifier", "nli", in); err == nil || !strings.Contains(err.Error(), "no knowledge source is configured") || !strings.Contains(err.Error(), in+":1:") {
		t.Errorf("no source: %v", err)
	}
}

func TestFActScoreGoldNeedsLabels(t *testing.T) {
	in := writeTemp(t, "in.jsonl", bornRecord)
	_, _, err := run(t, context.Background(), "factscore", "--gold", in)
	if err == nil || !strings.Contains(err.Error(), in+":1: atoms[0].label") {
		t.Errorf("unlabeled atoms: %v", err)
	}
}

// TestScoreRetrieves: fr score retrieves contexts for a record that has
// atoms but none, and with --missing-topic skip scores a record whose topic
// the knowledge base lacks with no contexts (its atoms undecided).
func TestScoreRetrieves(t *testing.T) {
	kb := filepath.Join(t.TempDir(), "kb.db")
	doc := writeTemp(t, "Lanny Flaherty.txt", "Lanny Flaherty was an American actor.\n\nHe was born in 1942.\n")
	ctx := context.Background()
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, doc); err != nil {
		t.Fatal(err)
	}
	in := writeTemp(t, "in.jsonl", bornRecord+strings.Replace(bornRecord, `"topic": "Lanny Flaherty"`, `"topic": "Nobody"`, 1))
	args := []string{"score", "--nli", "lexical", "--db", kb, "--retrieval-cache", "none", "--retrieve-k", "2"}
	if _, _, err := run(t, ctx, append(args, in)...); err == nil || !strings.Contains(err.Error(), in+":2: retrieval:") || !strings.Contains(err.Error(), `"Nobody"`) {
		t.Errorf("missing topic: %v", err)
	}
	out, stderr, err := run(t, ctx, append(args, "--missing-topic", "skip", in)...)
	if err != nil {
		t.Fatal(err)
	}
	var recs []result.Line
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r result.Line
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 2 || recs[0].NumContexts == 0 || recs[1].NumContexts != 0 || recs[1].NumUniformAtoms != recs[1].NumAtoms {
		t.Fatalf("records %+v", recs)
	}
	if !strings.Contains(stderr, "warning: line 2") {
		t.Errorf("stderr: %s", stderr)
	}
	// The first record's atoms got contexts c_<atom>_<rank> from the KB.
	for _, m := range recs[0].ContextMarginals {
		if !strings.HasPrefix(m.Variable, "c_a") {
			t.Errorf("context id %s", m.Variable)
		}
	}
}
