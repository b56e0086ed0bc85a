package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestModelsTokenize: fr models tokenize answers a pair line with the
// model's inputs (the tiny RoBERTa's <s> A </s></s> B </s>, the ids of
// testdata/nli/tiny-roberta/reference.json, written by the model script's
// own tokenizer) and a text line with its tokens; a bad line is an error
// naming file and line, after the lines before it.
func TestModelsTokenize(t *testing.T) {
	var ref struct {
		Pairs []struct {
			Premise, Hypothesis string
			Chunks              []struct {
				InputIDs []int `json:"input_ids"`
			} `json:"chunks"`
			PremiseIDs []int `json:"premise_ids"`
		} `json:"pairs"`
	}
	data, err := os.ReadFile(filepath.Join(tinyRoberta, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	p := ref.Pairs[0]
	in := filepath.Join(t.TempDir(), "in.jsonl")
	pair, _ := json.Marshal(map[string]string{"premise": p.Premise, "hypothesis": p.Hypothesis})
	text, _ := json.Marshal(map[string]string{"text": p.Premise})
	os.WriteFile(in, []byte(string(pair)+"\n"+string(text)+"\n"), 0o644)
	out, errOut, err := run(t, context.Background(), "models", "tokenize", "--nli-model", tinyRoberta, in)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %s", len(lines), out)
	}
	var chunks struct {
		Chunks []struct {
			InputIDs      []int `json:"input_ids"`
			AttentionMask []int `json:"attention_mask"`
		} `json:"chunks"`
	}
	var toks struct {
		IDs     []int    `json:"ids"`
		Tokens  []string `json:"tokens"`
		Offsets [][2]int `json:"offsets"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &chunks); err != nil || len(chunks.Chunks) != 1 || !slices.Equal(chunks.Chunks[0].InputIDs, p.Chunks[0].InputIDs) {
		t.Errorf("pair: %s (%v), want the input ids %v", lines[0], err, p.Chunks[0].InputIDs)
	}
	if err := json.Unmarshal([]byte(lines[1]), &toks); err != nil || !slices.Equal(toks.IDs, p.PremiseIDs) || len(toks.Offsets) != len(toks.IDs) {
		t.Errorf("text: %s (%v), want the ids %v", lines[1], err, p.PremiseIDs)
	}
	os.WriteFile(in, []byte(string(text)+"\n{\"premise\": \"x\"}\n"), 0o644)
	out, _, err = run(t, context.Background(), "models", "tokenize", "--nli-model", tinyRoberta, in)
	if err == nil || !strings.Contains(err.Error(), "in.jsonl:2: hypothesis: missing") || strings.Count(out, "\n") != 1 {
		t.Errorf("bad line: error %v, output %q", err, out)
	}
	// A line that is JSON but no object is said so in the JSON's terms.
	os.WriteFile(in, []byte("[1, 2]\n"), 0o644)
	if _, _, err := run(t, context.Background(), "models", "tokenize", "--nli-model", tinyRoberta, in); err == nil ||
		!strings.Contains(err.Error(), "in.jsonl:1: not a JSON object: expected object, got JSON array") || strings.Contains(err.Error(), "Go value") {
		t.Errorf("an array: %v", err)
	}
}
