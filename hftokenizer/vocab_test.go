package hftokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVocabChecked: a tokenizer.json whose vocabulary gives two tokens one
// id, or whose unknown token is not in the vocabulary (named, or the
// model's default: WordPiece's "[UNK]", WordLevel's "<unk>"), is refused
// by Load, naming the file and the tokens; the test models as shipped and
// a byte-level BPE without an unknown token load (issue 33, item 10).
func TestVocabChecked(t *testing.T) {
	bert := filepath.Join("..", "testdata", "nli", "tiny-bert", "tokenizer.json")
	roberta := filepath.Join("..", "testdata", "nli", "tiny-roberta", "tokenizer.json")
	// edit writes a copy of the tokenizer at path with its model changed.
	edit := func(path string, change func(model, vocab map[string]any)) string {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var tj map[string]any
		if err := json.Unmarshal(data, &tj); err != nil {
			t.Fatal(err)
		}
		model := tj["model"].(map[string]any)
		change(model, model["vocab"].(map[string]any))
		out, err := json.Marshal(tj)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(t.TempDir(), "tokenizer.json")
		if err := os.WriteFile(dst, out, 0o600); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	wordLevel := func(model, vocab map[string]any) {
		for k := range model {
			if k != "vocab" && k != "unk_token" {
				delete(model, k)
			}
		}
		model["type"] = "WordLevel"
	}
	for _, tc := range []struct {
		name string
		path string
		want []string // nil: loads
	}{
		{"WordPiece as shipped", bert, nil},
		{"byte-level BPE without an unknown token", roberta, nil},
		{"WordPiece, two tokens of one id", edit(bert, func(_, v map[string]any) { v["zzz-duplicate"] = v["[SEP]"] }),
			[]string{"model.vocab", `tokens "[SEP]" and "zzz-duplicate" both have id`}},
		{"BPE, two tokens of one id", edit(roberta, func(_, v map[string]any) { v["zzz-duplicate"] = v["</s>"] }),
			[]string{"model.vocab", `"zzz-duplicate" both have id`}},
		{"WordPiece without its unknown token", edit(bert, func(_, v map[string]any) { delete(v, "[UNK]") }),
			[]string{`model: unk_token "[UNK]" is not a token of the vocabulary`}},
		{"WordPiece naming another unknown token", edit(bert, func(m, _ map[string]any) { m["unk_token"] = "<unk>" }),
			[]string{`unk_token "<unk>" is not a token`}},
		{"WordPiece's default unknown token", edit(bert, func(m, v map[string]any) { delete(m, "unk_token"); delete(v, "[UNK]") }),
			[]string{`unk_token "[UNK]" is not a token`}},
		{"BPE naming an unknown token not in it", edit(roberta, func(m, _ map[string]any) { m["unk_token"] = "<missing>" }),
			[]string{`unk_token "<missing>" is not a token`}},
		{"WordLevel with its unknown token", edit(bert, wordLevel), nil},
		{"WordLevel's default unknown token", edit(bert, func(m, v map[string]any) { wordLevel(m, v); delete(m, "unk_token") }),
			[]string{`unk_token "<unk>" is not a token`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.path)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range append(tc.want, tc.path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
