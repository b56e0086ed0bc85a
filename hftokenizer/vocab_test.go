package hftokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVocabChecked: a tokenizer.json whose vocabulary gives two tokens one
// id, or whose unknown token is not in the vocabulary (named, or
// WordPiece's "[UNK]" when none is), is refused saying so; the test
// models load.
func TestVocabChecked(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "nli", "tiny-bert", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(change func(model map[string]any, vocab map[string]any)) string {
		var tj map[string]any
		if err := json.Unmarshal(data, &tj); err != nil {
			t.Fatal(err)
		}
		model := tj["model"].(map[string]any)
		change(model, model["vocab"].(map[string]any))
		out, _ := json.Marshal(tj)
		path := filepath.Join(t.TempDir(), "tokenizer.json")
		os.WriteFile(path, out, 0o600)
		return path
	}
	tests := []struct {
		name string
		path string
		want string // "" to load
	}{
		{"as shipped", filepath.Join("..", "testdata", "nli", "tiny-bert", "tokenizer.json"), ""},
		{"byte-level BPE without an unknown token", filepath.Join("..", "testdata", "nli", "tiny-roberta", "tokenizer.json"), ""},
		{"two tokens, one id", edit(func(_, v map[string]any) { v["zzz-duplicate"] = v["[SEP]"] }), `both have id`},
		{"the unknown token not in the vocabulary", edit(func(_, v map[string]any) { delete(v, "[UNK]") }), `model.unk_token "[UNK]" is not a token of model.vocab`},
		{"another unknown token named", edit(func(m, _ map[string]any) { m["unk_token"] = "<unk>" }), `model.unk_token "<unk>" is not a token`},
		{"WordPiece's default unknown token", edit(func(m, v map[string]any) { delete(m, "unk_token"); delete(v, "[UNK]") }), `model.unk_token "[UNK]"`},
	}
	for _, tt := range tests {
		_, err := Load(tt.path)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
