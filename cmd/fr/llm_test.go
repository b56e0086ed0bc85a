package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/result"
)

// rawRecord has an output and contexts but no atoms.
const rawRecord = `{"input": "Tell me a bio of Ruth Adair.", "output": "Ruth Adair was born in Tulsa. She studied piano in Chicago. She died in 2015.", "topic": "Ruth Adair", ` +
	`"contexts": [{"id": "c0", "title": "Ruth Adair", "text": "Ruth Adair was born in Tulsa, Oklahoma, in 1948."}, ` +
	`{"id": "c1", "title": "Ruth Adair", "text": "Adair studied piano in Chicago and died in 2011."}]}`

// nliJudge is a fake NLI model for rawRecord: the first sentence is
// entailed by c0 (log probability -0.1 per token), the last contradicted by
// c1 (-0.2), everything else neutral (-0.3).
func nliJudge(_ int, r llmtest.Request) llmtest.Reply {
	last := r.Last()
	i := strings.Index(last, "\nHYPOTHESIS: ")
	if i < 0 {
		return llmtest.Reply{Status: 400}
	}
	premise, hyp := strings.TrimPrefix(last[:i], "PREMISE: "), last[i+len("\nHYPOTHESIS: "):]
	label, lp := "neutral", -0.3
	switch {
	case hyp == "Ruth Adair was born in Tulsa." && strings.Contains(premise, "born in Tulsa"):
		label, lp = "entailment", -0.1
	case strings.Contains(hyp, "2015") && strings.Contains(premise, "2011"):
		label, lp = "contradiction", -0.2
	}
	return llmtest.Reply{Content: label, Tokens: llmtest.Tokenize(label, lp)}
}

// TestScoreLLM (must show 4): `fr score --nli llm --atomizer sentences` on
// a record with an output and contexts but no atoms, against the fake
// server, writes a full output line whose marginals follow from the fake
// model's log probabilities; every request asks for logprobs at
// temperature 0. The endpoint and key come from OPENAI_BASE_URL and
// OPENAI_API_KEY. A rerun is answered from the cache, byte for byte.
func TestScoreLLM(t *testing.T) {
	srv := llmtest.New(t, nliJudge)
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-fake")
	cacheDir := t.TempDir()
	t.Setenv("FACTREASONER_CACHE", cacheDir)
	input := writeFile(t, "raw.jsonl", rawRecord+"\n")

	args := []string{"score", "--nli", "llm", "--atomizer", "sentences", "--llm-model", "judge", input}
	out, stderr, err := run(t, context.Background(), args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("want one output line, got %q", out)
	}
	var rec result.Line
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.NumAtoms != 3 || rec.NumContexts != 2 || rec.NumRelations != 2 || rec.NumTrueAtoms != 1 || rec.NumFalseAtoms != 1 ||
		rec.NumUniformAtoms != 1 || rec.Predictions != " a0: S a1: NS a2: NS" || rec.NLIBackend != "llm" ||
		rec.ModelName != "judge (nli prompt v1, log probabilities else 5 samples at temperature 1)" || rec.Version != "FR2" || rec.Input != "Tell me a bio of Ruth Adair." || rec.Line != 1 {
		t.Errorf("record %+v", rec)
	}
	// By hand: a0 and c0 form a component with one entailment factor
	// [0.5, 0.5, 1−p, p] (use_priors, atom prior 0.5) and the priors 0.5 and
	// 0.9, so P(a0) = 0.05 + 0.9·p with p = e^−0.1; a2 and c1 likewise with
	// a contradiction, P(a2) = 0.05 + 0.9·(1 − e^−0.2); a1 has no factor.
	want := map[string]float64{"a0": 0.05 + 0.9*math.Exp(-0.1), "a1": 0.5, "a2": 0.05 + 0.9*(1-math.Exp(-0.2))}
	if len(rec.Marginals) != 3 {
		t.Fatalf("marginals %+v", rec.Marginals)
	}
	for _, m := range rec.Marginals {
		if math.Abs(m.Probabilities[1]-want[m.Variable]) > 1e-9 {
			t.Errorf("P(%s) = %.9f, want %.9f", m.Variable, m.Probabilities[1], want[m.Variable])
		}
	}

	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Errorf("%d requests, want 3 atoms × 2 contexts", len(reqs))
	}
	for _, r := range reqs {
		if !r.Logprobs || r.Raw["logprobs"] != true || r.Temperature == nil || *r.Temperature != 0 || r.Raw["temperature"] != 0.0 ||
			r.Model != "judge" || r.Authorization != "Bearer sk-fake" {
			t.Errorf("request %+v", r.Raw)
		}
	}
	for _, s := range []string{"fr: llm judge at " + srv.BaseURL() + "/chat/completions: 6 answers (0 from cache), 6 requests",
		"fr: llm nli: 6 answers: 1 entailment, 1 contradiction, 4 neutral; probability from token log probabilities for 6, from samples for 0 (0 answers sampled); 0 re-asks, 0 answers unreadable"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(cacheDir, "llm-cache.sqlite")); err != nil {
		t.Errorf("default cache file: %v", err)
	}

	out2, stderr2, err := run(t, context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Count() != 6 {
		t.Errorf("the rerun sent %d requests", srv.Count()-6)
	}
	if out2 != out {
		t.Errorf("rerun output differs:\n%s\n%s", out, out2)
	}
	if !strings.Contains(stderr2, "6 answers (6 from cache), 0 requests") {
		t.Errorf("rerun stderr:\n%s", stderr2)
	}
}

// TestScoreLLMv2: the same with prompt v2, the cache off, and the endpoint
// and key given by flags that override the environment.
func TestScoreLLMv2(t *testing.T) {
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		rep := nliJudge(n, r)
		rep.Content = "Reasoning.\n[" + rep.Content + "]"
		rep.Tokens = append(llmtest.Tokenize("Reasoning.\n[", -5), append(rep.Tokens, llmtest.Tokenize("]", -5)...)...)
		return rep
	})
	// Flags override the environment.
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("OPENAI_API_KEY", "sk-env")
	input := writeFile(t, "raw.jsonl", rawRecord+"\n")
	nliCache := filepath.Join(t.TempDir(), "nli.sqlite")
	out, stderr, err := run(t, context.Background(), "score", "--nli", "llm", "--nli-prompt", "v2", "--atomizer", "sentences",
		"--llm-base-url", srv.BaseURL(), "--llm-api-key", "sk-flag", "--llm-model", "judge", "--llm-cache", "off", "--cache", nliCache, input)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rec result.Line
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Marginals[0].Probabilities[1], 0.05+0.9*math.Exp(-0.1); math.Abs(got-want) > 1e-9 || rec.ModelName != "judge (nli prompt v2, log probabilities else 5 samples at temperature 1)" {
		t.Errorf("P(a0) = %v, want %v; model %q", got, want, rec.ModelName)
	}
	for _, r := range srv.Requests() {
		if !strings.Contains(r.Messages[0].Content, "square brackets") || r.MaxTokens != 1024 || r.Authorization != "Bearer sk-flag" {
			t.Errorf("not a v2 request: %+v", r.Messages[0])
		}
	}

	// With the LLM cache off, the NLI cache (--cache) alone answers a
	// rerun; with v1 instead of v2 it does not (the prompt is part of the
	// backend's identity).
	sent := srv.Count()
	rerun := func(prompt string) string {
		out, stderr, err := run(t, context.Background(), "score", "--nli", "llm", "--nli-prompt", prompt, "--atomizer", "sentences",
			"--llm-base-url", srv.BaseURL(), "--llm-model", "judge", "--llm-cache", "off", "--cache", nliCache, input)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		return out
	}
	if again := rerun("v2"); again != out || srv.Count() != sent {
		t.Errorf("rerun through the NLI cache: %d requests, same output %v", srv.Count()-sent, again == out)
	}
	rerun("v1")
	if srv.Count() != sent+6 {
		t.Errorf("v1 after v2: %d requests, want 6", srv.Count()-sent)
	}
}

// TestScoreLLMErrors: missing settings and a failing endpoint give clear
// errors.
func TestScoreLLMErrors(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	input := writeFile(t, "raw.jsonl", rawRecord+"\n")
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 503} })
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"score", "--nli", "llm", input}, []string{"--llm-model: required"}},
		{[]string{"score", "--nli", "lexical", "--atomizer", "llm", input}, []string{"--llm-model: required"}},
		{[]string{"score", "--nli", "lexical", "--atomizer", "words", input}, []string{`unknown atomizer "words"`}},
		{[]string{"score", "--nli", "llm", "--nli-prompt", "v9", "--llm-model", "m", input}, []string{"--nli-prompt", "v9"}},
		{[]string{"score", "--nli", "lexical", input}, []string{"no atomizer is configured"}},
		{[]string{"score", "--nli", "llm", "--atomizer", "sentences", "--llm-model", "m", "--llm-base-url", srv.BaseURL(), "--llm-retries", "1", input},
			[]string{input + ":1", srv.BaseURL() + "/chat/completions", "503 Service Unavailable", "after 2 attempts"}},
	}
	for _, tt := range tests {
		_, stderr, err := run(t, context.Background(), tt.args...)
		if err == nil {
			t.Errorf("%v: no error", tt.args)
			continue
		}
		for _, s := range tt.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%v: error %q lacks %q\n%s", tt.args, err, s, stderr)
			}
		}
	}
}

// TestAtomizeCommand: `fr atomize` gives records without atoms atoms a0..
// with original and revised text, passes records with atoms through, and
// reports the LLM usage on stderr.
func TestAtomizeCommand(t *testing.T) {
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		if strings.HasPrefix(r.Messages[0].Content, "You split a text") {
			return llmtest.Reply{Content: "```json\n[\"Ruth Adair was born in Tulsa.\", \"She studied piano.\"]\n```"}
		}
		atom := r.Last()[strings.Index(r.Last(), "ATOM: ")+len("ATOM: "):]
		return llmtest.Reply{Content: strings.Replace(atom, "She", "Ruth Adair", 1)}
	})
	withAtoms := `{"input": "q", "output": "Already split.", "atoms": [{"id": "a0", "text": "Already split.", "label": "S"}], "contexts": [{"id": "c_a0_0", "text": "Split before."}]}`
	input := writeFile(t, "in.jsonl", rawRecord+"\n\n"+withAtoms+"\n")
	outPath := filepath.Join(t.TempDir(), "out.jsonl")
	_, stderr, err := run(t, context.Background(), "atomize", "--llm-base-url", srv.BaseURL(), "--llm-model", "m",
		"--llm-cache", "off", "-o", outPath, input)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("output %q", data)
	}
	recs := make([]instance.Instance, 2)
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	want := []instance.Atom{
		{ID: "a0", Original: "Ruth Adair was born in Tulsa.", Text: "Ruth Adair was born in Tulsa."},
		{ID: "a1", Original: "She studied piano.", Text: "Ruth Adair studied piano."},
	}
	if len(recs[0].Atoms) != 2 || recs[0].Atoms[0].ID != want[0].ID || recs[0].Atoms[0].Text != want[0].Text || recs[0].Atoms[0].Original != want[0].Original ||
		recs[0].Atoms[1].ID != want[1].ID || recs[0].Atoms[1].Text != want[1].Text || recs[0].Atoms[1].Original != want[1].Original ||
		len(recs[0].Contexts) != 2 || recs[0].Output != "Ruth Adair was born in Tulsa. She studied piano in Chicago. She died in 2015." {
		t.Errorf("atomized record %+v", recs[0])
	}
	if len(recs[1].Atoms) != 1 || recs[1].Atoms[0].Label != "S" || recs[1].Atoms[0].Text != "Already split." {
		t.Errorf("passed-through record %+v", recs[1])
	}
	if srv.Count() != 1+2 {
		t.Errorf("%d requests, want 1 atomizer + 2 reviser", srv.Count())
	}
	for _, s := range []string{"1 atomized, 1 had atoms", "fr: llm m at ", "3 answers", "fr: llm atomizer: 1 responses split into 2 atoms",
		"fr: llm reviser: 2 atoms revised, 1 changed"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}

	// The output scores: fr score reads it as it is.
	if _, stderr, err := run(t, context.Background(), "score", "--nli", "lexical", outPath); err != nil {
		t.Errorf("scoring the atomized file: %v\n%s", err, stderr)
	}

	// --atomizer sentences needs no model at all.
	out, stderr, err := run(t, context.Background(), "atomize", "--atomizer", "sentences", input)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rec instance.Instance
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Atoms) != 3 || rec.Atoms[2].Text != "She died in 2015." || rec.Atoms[2].Original != "She died in 2015." {
		t.Errorf("sentence atoms %+v", rec.Atoms)
	}
	if strings.Contains(stderr, "fr: llm") {
		t.Errorf("LLM summary without an LLM:\n%s", stderr)
	}
}

// TestFActScoreLLMVerifier: `fr factscore --verifier llm` asks FActScore's
// question for each atom at temperature 0 and reads the answers with its
// parsing rule.
func TestFActScoreLLMVerifier(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	answers := map[string]string{
		"Atom A zero.": "True",
		"Atom A one.":  "False. The text does not say so.",
	}
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		for atom, a := range answers {
			if strings.Contains(r.Last(), "Input: "+atom+" True or False?\nOutput:") {
				return llmtest.Reply{Content: a}
			}
		}
		return llmtest.Reply{Status: 400, Body: `{"error": {"message": "unexpected prompt"}}`}
	})
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-fake")
	in := writeFile(t, "in.jsonl", record(0, nil)+"\n")
	out, stderr, err := run(t, context.Background(), "factscore", "--verifier", "llm", "--llm-model", "judge", "--gamma", "0", in)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("output:\n%s", out)
	}
	var rec factscore.Record
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Decisions) != 2 || !rec.Decisions[0].Supported || rec.Decisions[1].Supported {
		t.Errorf("decisions %+v", rec.Decisions)
	}
	var sum map[string]any
	json.Unmarshal([]byte(lines[1]), &sum)
	if sum["factscore"] != 0.5 || sum["init_score"] != 0.5 {
		t.Errorf("summary %v", sum)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		if r.Temperature == nil || *r.Temperature != 0 || r.Model != "judge" ||
			!strings.HasPrefix(r.Last(), "Answer the question about T based on the given context.\n\nTitle: ") {
			t.Errorf("request %+v", r)
		}
	}
}

// TestCompareAsksEachPairOnce: `fr compare --versions 1,2,3,factscore
// --nli llm` sends one request per distinct (premise, hypothesis) pair of
// the record: its 2 context texts with its 2 atom texts (FR2; FR1's and
// FActScore's pairs are among them) and the 2 ordered pairs of context
// texts (FR3), 6 in all, where running the versions apart would send 16.
func TestCompareAsksEachPairOnce(t *testing.T) {
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "neutral", Tokens: llmtest.Tokenize("neutral", -0.1)}
	})
	input := writeFile(t, "in.jsonl", record(0, nil)+"\n")
	_, stderr, err := run(t, context.Background(), "compare", "--versions", "1,2,3,factscore", "--nli", "llm",
		"--llm-base-url", srv.BaseURL(), "--llm-model", "judge", "--llm-cache", "off", input)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	seen := map[string]int{}
	for _, r := range srv.Requests() {
		seen[r.Last()]++
	}
	for _, premise := range []string{"Evidence A.", "More evidence A."} {
		for _, hyp := range []string{"Atom A zero.", "Atom A one.", "Evidence A.", "More evidence A."} {
			if hyp == premise {
				continue
			}
			if q := "PREMISE: " + premise + "\nHYPOTHESIS: " + hyp; seen[q] != 1 {
				t.Errorf("%q asked %d times, want once", q, seen[q])
			}
		}
	}
	if srv.Count() != 6 {
		t.Errorf("%d requests, want 6", srv.Count())
	}
}

// TestStoppedRunSummary (issue 11: every count in the summary is true):
// without --skip-invalid, a record whose answer cannot be read stops the
// run; the summary must not present the records before it as the whole
// run ("0 failed").
func TestStoppedRunSummary(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	input := writeFile(t, "raw.jsonl", rawRecord+"\n")
	// An empty answer is unreadable to every stage.
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: " "} })
	for _, args := range [][]string{
		{"score", "--nli", "llm", "--atomizer", "sentences", "--llm-model", "m", "--llm-base-url", srv.BaseURL(), input},
		{"factscore", "--verifier", "llm", "--atomizer", "sentences", "--llm-model", "m", "--llm-base-url", srv.BaseURL(), input},
	} {
		_, stderr, err := run(t, context.Background(), args...)
		if exitStatus(err) != exitFailure || !strings.Contains(err.Error(), input+":1") {
			t.Fatalf("%s: want the record's failure, got %v\n%s", args[0], err, stderr)
		}
		if !strings.Contains(stderr, "stopped by the error below") {
			t.Errorf("%s: the summary does not say that the run stopped:\n%s", args[0], stderr)
		}
	}
}
