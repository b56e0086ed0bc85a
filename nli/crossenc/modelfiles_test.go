package crossenc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/safefile/safefiletest"
)

// copyModel copies the tiny RoBERTa model's tokenizer and config into a
// new directory, each passed through its edit (nil: as it is).
func copyModel(t *testing.T, editConfig, editTokenizer func(map[string]any)) string {
	t.Helper()
	dir := t.TempDir()
	for name, edit := range map[string]func(map[string]any){"config.json": editConfig, "tokenizer.json": editTokenizer} {
		data, err := os.ReadFile(filepath.Join(testModelDir("tiny-roberta"), name))
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			var v map[string]any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatal(err)
			}
			edit(v)
			data, _ = json.Marshal(v)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadWithin loads the encoder of dir, failing the test when it does not
// return (a named pipe blocks a reader forever).
func loadWithin(t *testing.T, dir string) error {
	t.Helper()
	return safefiletest.Within(t, func() error {
		_, err := LoadEncoder(dir, EncoderOptions{})
		return err
	})
}

// TestModelFileKinds: tokenizer.json, config.json and
// tokenizer_config.json that are a directory, a named pipe or a device
// (through a symbolic link) are refused with an error that names the file
// and says what it is, without reading it.
func TestModelFileKinds(t *testing.T) {
	for _, name := range []string{"tokenizer.json", "config.json", "tokenizer_config.json"} {
		for _, kind := range safefiletest.Kinds {
			t.Run(name+"/"+kind, func(t *testing.T) {
				dir := copyModel(t, nil, nil)
				p := filepath.Join(dir, name)
				os.Remove(p)
				safefiletest.Make(t, p, kind)
				err := loadWithin(t, dir)
				if err == nil || !strings.Contains(err.Error(), kind) || !strings.Contains(err.Error(), p) {
					t.Errorf("error %v, want one naming %s as a %s", err, p, kind)
				}
			})
		}
	}
}

// TestModelValueRanges: values of config.json and token ids of
// tokenizer.json that would give wrong answers are refused, naming the
// field; the model as it is loads.
func TestModelValueRanges(t *testing.T) {
	if err := loadWithin(t, copyModel(t, nil, nil)); err != nil {
		t.Fatalf("the model as it is: %v", err)
	}
	set := func(k string, v any) func(map[string]any) { return func(m map[string]any) { m[k] = v } }
	vocabID := func(tok string, id int) func(map[string]any) {
		return func(m map[string]any) { m["model"].(map[string]any)["vocab"].(map[string]any)[tok] = id }
	}
	tests := []struct {
		name           string
		config, tokens func(map[string]any)
		want           string
	}{
		{"negative pad_token_id", set("pad_token_id", -3), nil, "pad_token_id -3"},
		{"pad_token_id past the vocabulary", set("pad_token_id", 661), nil, "pad_token_id 661"},
		{"absurd pad_token_id", set("pad_token_id", 1e9), nil, "pad_token_id 1000000000"},
		{"absurd max_position_embeddings", set("max_position_embeddings", 1e9), nil, "max_position_embeddings 1000000000"},
		{"negative max_position_embeddings", set("max_position_embeddings", -66), nil, "max_position_embeddings -66"},
		{"vocab_size 0", set("vocab_size", 0), nil, "vocab_size 0"},
		{"negative type_vocab_size", set("type_vocab_size", -1), nil, "type_vocab_size -1"},
		{"a negative token id", nil, vocabID("Ġthe", -7), "has id -7"},
		{"a token id past vocab_size", nil, vocabID("Ġzzz", 5000), "token id 5000"},
		{"a negative added token id", nil, func(m map[string]any) {
			m["added_tokens"].([]any)[0].(map[string]any)["id"] = -1
		}, "has id -1"},
		{"a negative special id", nil, func(m map[string]any) {
			m["post_processor"].(map[string]any)["sep"] = []any{"</s>", -2}
		}, "has id -2"},
		{"a pad_token_id the tokenizer lacks", func(m map[string]any) { m["vocab_size"] = 1000; m["pad_token_id"] = 900 }, nil, "pad_token_id 900"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := loadWithin(t, copyModel(t, tt.config, tt.tokens))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
