package onnxnli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/safefile/safefiletest"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
)

// copyModel copies a test model's files into a temporary directory, with
// the named files replaced.
func copyModel(t *testing.T, name string, replace map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"model.onnx", "config.json", "tokenizer.json"} {
		data, err := os.ReadFile(filepath.Join(testModelDir(name), f))
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := replace[f]; ok {
			data = r
		}
		if data == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readTestFile(t *testing.T, elem ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{"..", "..", "testdata", "nli"}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestLoadErrors: a model directory that is not what it claims gives a
// clear error at load, naming the file and what is wrong.
func TestLoadErrors(t *testing.T) {
	good := readTestFile(t, "tiny-roberta", "model.onnx")
	var tok map[string]any
	if err := json.Unmarshal(readTestFile(t, "tiny-roberta", "tokenizer.json"), &tok); err != nil {
		t.Fatal(err)
	}
	tok["post_processor"] = nil
	noPairs, _ := json.Marshal(tok)
	for _, c := range []struct {
		name    string
		replace map[string][]byte
		want    []string
		notMNLI bool
	}{
		{"no model file", map[string][]byte{"model.onnx": nil}, []string{"missing model.onnx (or onnx/model.onnx)", "optimum-cli"}, false},
		{"no tokenizer", map[string][]byte{"tokenizer.json": nil}, []string{"missing tokenizer.json"}, false},
		{"text file", map[string][]byte{"model.onnx": []byte("<html>404 Not Found</html>\n")}, []string{"model.onnx", "not an ONNX model"}, false},
		{"LFS pointer", map[string][]byte{"model.onnx": []byte("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 1421\n")}, []string{"Git LFS pointer"}, false},
		{"empty", map[string][]byte{"model.onnx": {}}, []string{"0 bytes is not an ONNX model"}, false},
		{"truncated", map[string][]byte{"model.onnx": good[:len(good)/2]}, []string{"model.onnx", "ONNX Runtime cannot load it"}, false},
		{"two labels", map[string][]byte{"model.onnx": readTestFile(t, "bad", "two-labels.onnx")}, []string{"model.onnx", `output "logits" has shape [-1 2]`}, true},
		{"image input", map[string][]byte{"model.onnx": readTestFile(t, "bad", "image-input.onnx")}, []string{`unexpected input "pixel_values"`}, false},
		{"labels not NLI", map[string][]byte{"config.json": []byte(`{"model_type": "roberta", "max_position_embeddings": 66, "pad_token_id": 1,
			"id2label": {"0": "NEGATIVE", "1": "NEUTRAL", "2": "POSITIVE"}}`)}, []string{"config.json: id2label", "want entailment, neutral and contradiction"}, true},
		{"two-way labels", map[string][]byte{"config.json": []byte(`{"model_type": "roberta", "max_position_embeddings": 66,
			"id2label": {"0": "entailment", "1": "not_entailment"}}`)}, []string{"2 labels"}, true},
		{"config not JSON", map[string][]byte{"config.json": []byte("{")}, []string{"config.json: not a model config.json"}, false},
		{"no window", map[string][]byte{"config.json": []byte(`{"id2label": {"0": "contradiction", "1": "neutral", "2": "entailment"}}`)}, []string{"max_position_embeddings"}, false},
		{"tokenizer without post_processor", map[string][]byte{"tokenizer.json": noPairs}, []string{"no post_processor"}, false},
		{"tokenizer not JSON", map[string][]byte{"tokenizer.json": []byte("merges")}, []string{"tokenizer.json: not a tokenizer.json"}, false},
		{"tokenizer malformed", map[string][]byte{"tokenizer.json": []byte(`{"model": {"type": "BPE", "vocab": 3}, "post_processor": {"type": "RobertaProcessing"}}`)}, []string{"tokenizer.json"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyModel(t, "tiny-roberta", c.replace)
			m, err := Load(dir, Options{})
			if err == nil {
				m.Close()
				t.Fatal("loaded")
			}
			t.Log(err)
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if c.notMNLI != errors.Is(err, errNotMNLI) {
				t.Errorf("errors.Is(err, errNotMNLI) = %v", !c.notMNLI)
			}
		})
	}
}

func TestFindLibrary(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	t.Setenv(LibraryEnvVar, "")
	_, err := FindLibrary("")
	if err == nil || !strings.Contains(err.Error(), "scripts/install-onnxruntime") || !strings.Contains(err.Error(), LibraryEnvVar) {
		t.Errorf("no library: %v", err)
	}
	t.Setenv(LibraryEnvVar, "/nonexistent/libonnxruntime.so")
	if _, err := FindLibrary(""); err == nil || !strings.Contains(err.Error(), "$ONNXRUNTIME_LIB") {
		t.Errorf("missing $%s library: %v", LibraryEnvVar, err)
	}
	if _, err := FindLibrary("/nonexistent/x.so"); err == nil || !strings.Contains(err.Error(), "from the path given") {
		t.Errorf("missing flag library: %v", err)
	}
	def, _ := DefaultLibraryPath()
	os.MkdirAll(filepath.Dir(def), 0o755)
	os.WriteFile(def, nil, 0o644)
	t.Setenv(LibraryEnvVar, "")
	if got, err := FindLibrary(""); err != nil || got != def {
		t.Errorf("installed library: %q, %v; want %q", got, err, def)
	}
}

func TestMaxLength(t *testing.T) {
	m := loadTestModel(t, "tiny-roberta", Options{MaxLength: 24, Name: "tiny"})
	if m.MaxLength() != 24 {
		t.Fatalf("max length %d", m.MaxLength())
	}
	if got := m.Identity(); got != (nli.Identity{Backend: "onnx", Model: "tiny@max_length=24"}) {
		t.Errorf("identity %v", got)
	}
	e, err := m.Encode(strings.Repeat("The river flows north. ", 10), "The river flows.")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Sequences) < 3 {
		t.Errorf("%d chunks", len(e.Sequences))
	}
	for _, s := range e.Sequences {
		if len(s.IDs) > 24 {
			t.Errorf("sequence of %d tokens", len(s.IDs))
		}
	}
	if _, err := Load(testModelDir("tiny-roberta"), Options{MaxLength: 65}); err == nil || !strings.Contains(err.Error(), "window of 64") {
		t.Errorf("max length over the window: %v", err)
	}
}

// TestClassifyChunkRule: the pair's answer is the chunk whose entailment or
// contradiction probability is highest, whatever the chunk's position.
func TestClassifyChunkRule(t *testing.T) {
	m := loadTestModel(t, "tiny-roberta", Options{})
	ref := readReference(t, "tiny-roberta")
	for i, p := range ref.Pairs {
		if len(p.Chunks) < 2 {
			continue
		}
		res, err := m.Classify(context.Background(), []nli.Pair{{Premise: p.Premise, Hypothesis: p.Hypothesis}})
		if err != nil {
			t.Fatal(err)
		}
		best := -1.0
		for _, c := range p.Chunks {
			var z [3]float32
			for k := range 3 {
				z[k] = float32(c.Logits[k])
			}
			d := crossenc.Softmax(z)
			var e, ct float64
			for k, l := range m.Labels() {
				switch l {
				case nli.Entailment:
					e = d[k]
				case nli.Contradiction:
					ct = d[k]
				}
			}
			best = max(best, e, ct)
		}
		got := max(res[0].Distribution[nli.Entailment], res[0].Distribution[nli.Contradiction])
		if d := got - best; d > 1e-5 || d < -1e-5 {
			t.Errorf("pair %d: decisive probability %.6f, best chunk's %.6f", i, got, best)
		}
	}
	if s := m.Stats(); s.ChunkedPairs < 2 || s.MaxChunksOfPair < 3 {
		t.Errorf("stats %+v", s)
	}
}

func TestClosed(t *testing.T) {
	m := loadTestModel(t, "tiny-roberta", Options{})
	m.Close()
	if _, err := m.Classify(context.Background(), []nli.Pair{{Premise: "a", Hypothesis: "b"}}); err == nil {
		t.Error("classified with a closed model")
	}
}

func TestCanceled(t *testing.T) {
	m := loadTestModel(t, "tiny-roberta", Options{BatchSize: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Classify(ctx, []nli.Pair{{Premise: "a", Hypothesis: "b"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

// TestGraphFileKinds: a model.onnx that is a directory (which made the
// loader index an empty header), a named pipe (which would block ONNX
// Runtime) or a device is refused at load, naming the file and what it is.
func TestGraphFileKinds(t *testing.T) {
	for _, kind := range safefiletest.Kinds {
		t.Run(kind, func(t *testing.T) {
			dir := copyModel(t, "tiny-roberta", map[string][]byte{"model.onnx": nil})
			p := filepath.Join(dir, "model.onnx")
			safefiletest.Make(t, p, kind)
			err := safefiletest.Within(t, func() error {
				m, err := Load(dir, Options{})
				if err == nil {
					m.Close()
				}
				return err
			})
			if err == nil || !strings.Contains(err.Error(), kind) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %v, want one naming %s as a %s", err, p, kind)
			}
		})
	}
	// A graph file shorter than its header is not read past its end.
	short := filepath.Join(t.TempDir(), "model.onnx")
	os.WriteFile(short, []byte{0x08, 0x07}, 0o600)
	if err := checkONNX(short); err == nil || !strings.Contains(err.Error(), "not an ONNX model") {
		t.Errorf("a 2-byte graph: %v", err)
	}
}
