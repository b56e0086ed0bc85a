package crossenc

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// familyDir is a model directory with a tokenizer.json and a config.json
// with a 512-token window.
func familyDir(t testing.TB, tokenizer, modelType string) string {
	t.Helper()
	dir := t.TempDir()
	tok, err := os.ReadFile(tokenizer)
	if err != nil {
		t.Fatal(err)
	}
	pad := map[string]string{"roberta": "1", "bert": "0", "deberta-v2": "0"}[modelType]
	positions := map[string]string{"roberta": "514", "bert": "512", "deberta-v2": "512"}[modelType]
	cfg := `{"model_type": "` + modelType + `", "max_position_embeddings": ` + positions + `, "pad_token_id": ` + pad + `, "type_vocab_size": 2,
		"id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"}}`
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), tok, 0o644)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644)
	return dir
}

// TestTokenizeLines checks fr models tokenize's answers, for RoBERTa, BERT
// and the DeBERTa-v3-style Unigram tokenizer, against Hugging Face's Rust
// tokenizers crate: the pairs and strings of hftokenizer's parity fixtures
// (written by scripts/tokenizer-fixtures with the crate). A pair that fits
// is one chunk with the crate's encode(premise, hypothesis); a text gives
// the crate's ids, tokens and offsets (in characters, as Python's).
func TestTokenizeLines(t *testing.T) {
	parity := filepath.Join("..", "..", "hftokenizer", "testdata")
	for _, c := range []struct {
		fixture, tokenizer, modelType string
	}{
		{"roberta-base", refdata.Path(t, "tokenizers", "roberta-base", "tokenizer.json"), "roberta"},
		{"bert-base-uncased", filepath.Join(parity, "tokenizers", "bert-base-uncased", "tokenizer.json"), "bert"},
		{"deberta-v3", filepath.Join(parity, "tokenizers", "unigram", "tokenizer.json"), "deberta-v2"},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			var fx struct {
				Strings []struct {
					IDs     []int    `json:"ids"`
					Tokens  []string `json:"tokens"`
					Offsets [][2]int `json:"offsets"`
				} `json:"strings"`
				StringPairs []struct {
					A, B    string
					IDs     []int `json:"ids"`
					TypeIDs []int `json:"type_ids"`
				} `json:"string_pairs"`
			}
			var strs []struct{ Text string }
			for path, v := range map[string]any{filepath.Join(parity, "parity", c.fixture+".json"): &fx, filepath.Join(parity, "parity", "strings.json"): &strs} {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(data, v); err != nil {
					t.Fatal(err)
				}
			}
			var in bytes.Buffer
			for _, p := range fx.StringPairs {
				line, _ := json.Marshal(map[string]string{"premise": p.A, "hypothesis": p.B})
				in.Write(append(line, '\n'))
			}
			for _, s := range strs {
				line, _ := json.Marshal(map[string]string{"text": s.Text})
				in.Write(append(line, '\n'))
			}
			enc := loadEncoder(t, familyDir(t, c.tokenizer, c.modelType), EncoderOptions{})
			var out bytes.Buffer
			if err := enc.TokenizeLines(context.Background(), &in, "in.jsonl", &out); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != len(fx.StringPairs)+len(strs) {
				t.Fatalf("%d lines for %d", len(lines), len(fx.StringPairs)+len(strs))
			}
			for i, p := range fx.StringPairs {
				var got PairInputs
				if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
					t.Fatal(err)
				}
				if len(got.Chunks) != 1 || !slices.Equal(got.Chunks[0].InputIDs, p.IDs) || !slices.Equal(got.Chunks[0].TokenTypeIDs, p.TypeIDs) {
					t.Errorf("pair %q %q: %s\nwant one chunk of ids %v types %v", p.A, p.B, lines[i], p.IDs, p.TypeIDs)
				}
			}
			for i, s := range strs {
				var got TextTokens
				if err := json.Unmarshal([]byte(lines[len(fx.StringPairs)+i]), &got); err != nil {
					t.Fatal(err)
				}
				want := fx.Strings[i]
				chars := make([][2]int, len(want.Offsets))
				for k, o := range want.Offsets {
					chars[k] = [2]int{utf8.RuneCountInString(s.Text[:min(o[0], len(s.Text))]), utf8.RuneCountInString(s.Text[:min(o[1], len(s.Text))])}
				}
				if !slices.Equal(got.IDs, want.IDs) || !slices.Equal(got.Tokens, want.Tokens) || !slices.Equal(got.Offsets, chars) {
					t.Errorf("text %q: %s\nwant %v %q %v", s.Text, lines[len(fx.StringPairs)+i], want.IDs, want.Tokens, chars)
				}
			}
		})
	}
}

// TestTokenizeLinesErrors: a line that is not a pair or a text is an
// error naming the file, the line and the field; the lines before it are
// answered.
func TestTokenizeLinesErrors(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-bert"), EncoderOptions{})
	for _, c := range []struct{ in, want string }{
		{`{"text": "ok"}` + "\n" + `{"premise": "p"}`, "in.jsonl:2: hypothesis: missing"},
		{`{"text": 3}`, "in.jsonl:1: text: want a string"},
		{`{"text": "a", "label": "x"}`, "in.jsonl:1: label: unknown field"},
		{`{"text": "a", "premise": "b", "hypothesis": "c"}`, "in.jsonl:1: want"},
		{`[1]`, "in.jsonl:1: not a JSON object"},
	} {
		var out bytes.Buffer
		err := enc.TokenizeLines(context.Background(), strings.NewReader(c.in), "in.jsonl", &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
		if strings.HasPrefix(c.in, `{"text": "ok"}`) && !strings.HasPrefix(out.String(), `{"ids":`) {
			t.Errorf("%q: the line before the error was not written: %q", c.in, out.String())
		}
	}
}
