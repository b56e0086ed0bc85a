package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/factscore"
)

// TestFActScoreRawResponses: fr factscore on records without atoms atomizes
// them (here one atom per sentence), retrieves passages for the atoms,
// verifies them; a response that declines to answer (FActScore's generic
// rule) does not respond, and neither does one without a record to split.
func TestFActScoreRawResponses(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	kb := filepath.Join(t.TempDir(), "kb.db")
	doc := writeTemp(t, "Ada Lovelace.txt", "Ada Lovelace was born in 1815.\n\nAda Lovelace died in 1852.\n")
	ctx := context.Background()
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, doc); err != nil {
		t.Fatal(err)
	}
	in := writeTemp(t, "raw.jsonl",
		`{"input": "Bio of Ada", "output": "Ada Lovelace was born in 1815. Ada Lovelace was a French chef.", "topic": "Ada Lovelace"}`+"\n"+
			`{"input": "Bio of X", "output": "I'm sorry, I could not find information about X.", "topic": "X"}`+"\n"+
			`{"input": "Bio of Ada", "output": "Ada Lovelace died in 1852.", "topic": "Ada Lovelace", "contexts": [{"id": "c_q_0", "title": "Ada Lovelace", "text": "Ada Lovelace died in 1852."}]}`+"\n")
	args := []string{"factscore", "--atomizer", "sentences", "--verifier", "nli", "--nli", "lexical", "--db", kb, "--gamma", "0"}
	out, _, err := run(t, ctx, append(args, in)...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("output:\n%s", out)
	}
	var recs [3]factscore.Record
	for i := range recs {
		if err := json.Unmarshal([]byte(lines[i]), &recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	r := recs[0]
	if !r.Responded || r.Facts != 2 || r.Supported != 1 || r.Decisions[0].Atom != "Ada Lovelace was born in 1815." || !r.Decisions[0].Supported || r.Decisions[1].Supported {
		t.Errorf("atomized record: %+v", r)
	}
	if r := recs[1]; r.Responded || !r.Abstained || r.Facts != 0 {
		t.Errorf("abstained record: %+v", r)
	}
	// A raw response with contexts of its own: they are each atom's evidence.
	if r := recs[2]; !r.Responded || r.Facts != 1 || !r.Decisions[0].Supported || r.Decisions[0].Context != "c_q_0" {
		t.Errorf("record with contexts: %+v", r)
	}
	s := lastJSONLine(t, out)
	if s["responses"] != 3.0 || s["responded"] != 2.0 || s["factscore"] != 0.75 {
		t.Errorf("summary %v", s)
	}
	// --abstention none takes the refusal as an answer, and splits it.
	out, _, err = run(t, ctx, append(append(args, "--abstention", "none", "--missing-topic", "skip"), in)...)
	if err != nil {
		t.Fatal(err)
	}
	if s := lastJSONLine(t, out); s["responded"] != 3.0 {
		t.Errorf("--abstention none: %v", s)
	}
	// Without an atomizer a raw response is an error, not an abstention.
	if _, _, err := run(t, ctx, "factscore", "--verifier", "nli", "--nli", "lexical", "--db", kb, in); err == nil || !strings.Contains(err.Error(), in+":1:") || !strings.Contains(err.Error(), "no atomizer") {
		t.Errorf("no atomizer: %v", err)
	}
}
