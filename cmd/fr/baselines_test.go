package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// baselineEndpoint answers FactReasoner's VeriScore and FactVerify prompts
// as a model that knows the gold labels: Supported for an atom labeled S,
// Contradicted (VeriScore) or Inconclusive (FactVerify) for the others,
// after some reasoning, in the shapes the prompts ask for.
func baselineEndpoint(t *testing.T, gold map[string]string) *llmtest.Server {
	return llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		q := r.Last()
		switch {
		case strings.Contains(q, "You are provided with a STATEMENT and several KNOWLEDGE points"):
			_, stmt, _ := strings.Cut(q, "\nSTATEMENT:\n")
			if gold[strings.TrimSpace(stmt)] == "S" {
				return llmtest.Reply{Content: "1. Summarize KNOWLEDGE Points: it says so.\n4. Final Answer: [Supported]"}
			}
			return llmtest.Reply{Content: "The KNOWLEDGE says otherwise.\n\nFinal Answer: [Contradicted]"}
		case strings.Contains(q, "You need to judge whether a claim is supported or contradicted by Google search results"):
			claim := between(q[strings.LastIndex(q, "Your task:"):], "Claim: ", "\n")
			if gold[claim] == "S" {
				return llmtest.Reply{Content: "The results agree.\n\nYour decision: ###Supported###"}
			}
			return llmtest.Reply{Content: "###Inconclusive###"}
		}
		return llmtest.Reply{Status: 400, Body: `{"error": {"message": "unexpected request"}}`}
	})
}

// TestCompareBaselines (issue 32): VeriScore and FactVerify are rows of
// fr compare beside FR1–FR3 and FActScore on the same input, run natively
// (--versions …,veriscore,factverify) or read from the outputs of fr
// veriscore and fr factverify (with FR1–FR3's and fr factscore's); their
// precision, by hand from the endpoint's verdicts, is the gold precision;
// VeriScore's row records its own score and K; fr report reads their runs.
func TestCompareBaselines(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	ctx := context.Background()
	in := "../../testdata/example.jsonl"
	recs, err := instance.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	gold := map[string]string{}
	var goldPr float64 // mean over the records of #S / #atoms
	for _, r := range recs {
		s := 0
		for _, a := range r.Atoms {
			gold[a.Text] = a.Label
			if a.Label == "S" {
				s++
			}
		}
		goldPr += float64(s) / float64(len(r.Atoms)) / float64(len(recs))
	}
	srv := baselineEndpoint(t, gold)
	llmFlags := []string{"--llm-model", "m", "--llm-base-url", srv.BaseURL(), "--llm-cache", "off"}

	// Natively: six rows on the same records.
	js, _, err := run(t, ctx, append(append([]string{"compare", "--format", "json", "--nli", "given", "--versions", "1,2,3,factscore,veriscore,factverify"}, llmFlags...), in)...)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := unmarshalRows(js, &rows); err != nil || len(rows) != 6 {
		t.Fatalf("%v\n%s", err, js)
	}
	var names []string
	for _, r := range rows {
		names = append(names, r["version"].(string))
	}
	if strings.Join(names, ",") != "FR1,FR2,FR3,FActScore-NLI,VeriScore,FactVerify" {
		t.Errorf("rows %v", names)
	}
	for _, r := range rows[4:] {
		if pr := r["mean_precision"].(float64); math.Abs(pr-goldPr) > 1e-12 || r["accuracy"] != 1.0 || r["mean_avg_entropy"] != nil {
			t.Errorf("%s: precision %v (gold %v), accuracy %v, E %v", r["version"], pr, goldPr, r["accuracy"], r["mean_avg_entropy"])
		}
	}
	// By hand: supported/claims 11/13, 7/9, 5/6; K = 9 (the middle
	// count); F1@9 = 2PR/(P+R) each, their mean 0.787037….
	f1 := func(s, n float64) float64 { p, r := s/n, math.Min(s/9, 1); return 2 * p * r / (p + r) }
	wantVS := (f1(11, 13) + f1(7, 9) + f1(5, 6)) / 3
	if rec, _ := rows[4]["recorded"].(map[string]any); rec["veriscore_k"] != 9.0 || math.Abs(rec["veriscore"].(float64)-wantVS) > 1e-12 {
		t.Errorf("VeriScore row records %v, want veriscore %v and K 9", rows[4]["recorded"], wantVS)
	}

	// From the outputs of each command.
	dir := t.TempDir()
	var runs []string
	for _, v := range []string{"1", "2", "3"} {
		out := filepath.Join(dir, "fr"+v+".jsonl")
		if _, _, err := run(t, ctx, "score", "--nli", "given", "--version", v, "-o", out, in); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, out)
	}
	for _, cmd := range [][]string{
		{"factscore", "--verifier", "nli", "--nli", "given"},
		append([]string{"veriscore"}, llmFlags...),
		append([]string{"factverify"}, llmFlags...),
	} {
		out := filepath.Join(dir, cmd[0]+".jsonl")
		if _, stderr, err := run(t, ctx, append(append(cmd, "-o", out), in)...); err != nil {
			t.Fatalf("%s: %v\n%s", cmd[0], err, stderr)
		}
		runs = append(runs, out)
	}
	vs, _ := os.ReadFile(runs[4])
	summary := lastJSONLine(t, string(vs))
	if summary["assessor"] != "veriscore" || summary["k"] == nil || summary["verifier"] != "veriscore:m" {
		t.Errorf("fr veriscore's summary %v", summary)
	}
	var first map[string]any
	json.Unmarshal([]byte(strings.SplitN(string(vs), "\n", 2)[0]), &first)
	if d := first["decisions"].([]any)[0].(map[string]any); d["verdict"] == nil {
		t.Errorf("a decision without its verdict: %v", d)
	}
	js, _, err = run(t, ctx, append([]string{"compare", "--format", "json"}, runs...)...)
	if err != nil {
		t.Fatal(err)
	}
	var recorded []map[string]any
	if err := unmarshalRows(js, &recorded); err != nil || len(recorded) != 6 {
		t.Fatalf("%v\n%s", err, js)
	}
	for i, want := range []string{"FR1", "FR2", "FR3", "fr factscore (verifier nli:given) · K half", "fr veriscore (verifier veriscore:m) · K half", "fr factverify (verifier factverify:m) · K half"} {
		if recorded[i]["version"] != want {
			t.Errorf("row %d is %v, want %s", i, recorded[i]["version"], want)
		}
	}
	for i := 4; i < 6; i++ {
		if recorded[i]["mean_precision"] != rows[i]["mean_precision"] || recorded[i]["accuracy"] != rows[i]["accuracy"] {
			t.Errorf("%s recorded: precision %v, accuracy %v; natively %v, %v", recorded[i]["version"],
				recorded[i]["mean_precision"], recorded[i]["accuracy"], rows[i]["mean_precision"], rows[i]["accuracy"])
		}
	}
	if rec, _ := recorded[4]["recorded"].(map[string]any); rec["veriscore"] != summary["veriscore"] || rec["veriscore_k"] != summary["k"] {
		t.Errorf("fr veriscore's row records %v, its summary %v", rec, summary)
	}
	// The report shows them as runs.
	html := filepath.Join(dir, "r.html")
	if _, stderr, err := run(t, ctx, append([]string{"report", "--layout", "built-in", "-o", html}, runs...)...); err != nil || !strings.Contains(stderr, "6 runs") {
		t.Fatalf("report (%v):\n%s", err, stderr)
	}
	page, _ := os.ReadFile(html)
	for _, name := range []string{"fr veriscore (verifier veriscore:m)", "fr factverify (verifier factverify:m)"} {
		if !strings.Contains(string(page), name) {
			t.Errorf("the report has no run %s", name)
		}
	}
}

// TestVeriScoreRaw: fr veriscore on raw responses: VeriScore's claim
// extraction (the question-and-answer prompt, the record having an input;
// a sentence without a verifiable claim gives none), each claim verified
// against the record's contexts, a refusal abstaining; the summary's K
// and VeriScore by hand.
func TestVeriScoreRaw(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		q := r.Last()
		switch {
		case strings.Contains(q, "Extract *verifiable atomic* fact."):
			sentence := between(q[strings.LastIndex(q, "Sentence to be focused on: "):], "Sentence to be focused on: ", "\n")
			switch sentence {
			case "Marie Curie was a physicist.":
				return llmtest.Reply{Content: "- Marie Curie was a physicist."}
			case "She won two Nobel Prizes in Paris.":
				return llmtest.Reply{Content: "- Marie Curie won two Nobel Prizes.\n- Marie Curie lived in Paris."}
			}
			return llmtest.Reply{Content: "No verifiable claim."}
		case strings.Contains(q, "You are provided with a STATEMENT"):
			_, stmt, _ := strings.Cut(q, "\nSTATEMENT:\n")
			if strings.Contains(stmt, "Nobel") || strings.Contains(stmt, "physicist") {
				return llmtest.Reply{Content: "Final Answer: [Supported]"}
			}
			return llmtest.Reply{Content: "Final Answer: [Unverifiable]"}
		}
		return llmtest.Reply{Status: 400, Body: `{"error": {"message": "unexpected request"}}`}
	})
	ctxs := `"contexts": [{"id": "c0", "title": "Marie Curie", "text": "Marie Curie, a physicist, won two Nobel Prizes."}]`
	in := writeFile(t, "raw.jsonl", `{"input": "Who was Marie Curie?", "output": "Marie Curie was a physicist. She won two Nobel Prizes in Paris. I hope this helps.", "topic": "Marie Curie", `+ctxs+"}\n"+
		`{"input": "Who was Nobody?", "output": "I'm sorry, I cannot answer that.", `+ctxs+"}\n")
	out, stderr, err := run(t, context.Background(), "veriscore", "--llm-model", "m", "--llm-base-url", srv.BaseURL(), "--llm-cache", "off", in)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("output:\n%s", out)
	}
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	var claims []string
	for _, d := range first["decisions"].([]any) {
		claims = append(claims, d.(map[string]any)["atom"].(string)+"="+d.(map[string]any)["verdict"].(string))
	}
	if got := strings.Join(claims, "; "); got != "Marie Curie was a physicist.=S; Marie Curie won two Nobel Prizes.=S; Marie Curie lived in Paris.=U" || first["score"] != 2.0/3 {
		t.Errorf("claims %s, score %v", got, first["score"])
	}
	if second["abstained"] != true {
		t.Errorf("the refusal: %s", lines[1])
	}
	// One responding response of 3 claims: K = 3, P = 2/3, R = 2/3.
	s := lastJSONLine(t, out)
	if s["k"] != 3.0 || math.Abs(s["veriscore"].(float64)-2.0/3) > 1e-12 || s["responded"] != 1.0 || s["responses"] != 2.0 {
		t.Errorf("summary %v", s)
	}
	if !strings.Contains(stderr, "fr veriscore: VeriScore 0.6667 (F1@3, K the median claim count)") {
		t.Errorf("headline:\n%s", stderr)
	}
}
