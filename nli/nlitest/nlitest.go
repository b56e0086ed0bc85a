// Package nlitest provides NLI backends for tests: a classifier that
// gives every pair the same answer, counts what it is asked and says so at
// the end of a run (Fixed), and one that answers pair by pair as a test
// says (Func); and copies of the test models under other labels. It is also the smallest example of a backend: a
// package with a Classifier, and one entry in a pipeline's table of
// backends (assemble.NLIBackend) to choose it by name.
package nlitest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli"
)

// Fixed answers every pair with Label at Probability.
type Fixed struct {
	Label       nli.Label
	Probability float64
	asked       atomic.Int64
}

// Identity names the backend "fixed" and its answer.
func (f *Fixed) Identity() nli.Identity {
	return nli.Identity{Backend: "fixed", Model: fmt.Sprintf("%s@%v", f.Label, f.Probability)}
}

// Classify answers every pair alike.
func (f *Fixed) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.asked.Add(int64(len(pairs)))
	out := make([]nli.Result, len(pairs))
	for i := range out {
		out[i] = nli.Result{Label: f.Label, Probability: f.Probability}
	}
	return out, nil
}

// Asked is the number of pairs the classifier was asked about.
func (f *Fixed) Asked() int { return int(f.asked.Load()) }

// RunSummary says how many pairs it answered (assemble.RunSummarizer).
func (f *Fixed) RunSummary() string {
	return fmt.Sprintf("fixed nli: %d pairs answered %s", f.Asked(), f.Label)
}

// Func answers each pair as Answer says, and records the pairs it is
// asked: a backend whose answers a test chooses pair by pair.
type Func struct {
	Name   string // the identity's backend; "func" when empty
	Answer func(nli.Pair) nli.Result

	mu    sync.Mutex
	asked []nli.Pair
}

// Identity names the backend Name.
func (f *Func) Identity() nli.Identity {
	if f.Name == "" {
		return nli.Identity{Backend: "func"}
	}
	return nli.Identity{Backend: f.Name}
}

// Classify answers each pair with Answer.
func (f *Func) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.asked = append(f.asked, pairs...)
	f.mu.Unlock()
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		out[i] = f.Answer(p)
	}
	return out, nil
}

// Asked returns the pairs asked so far, in the order they came.
func (f *Func) Asked() []nli.Pair {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

// Relabeled copies the model directory dir (model.onnx, tokenizer.json,
// config.json) into a temporary directory with its config.json's labels
// replaced by id2label, and returns it: one graph read under another
// label-name style.
func Relabeled(t testing.TB, dir string, id2label map[string]string) string {
	t.Helper()
	out := t.TempDir()
	for _, name := range []string{"model.onnx", "tokenizer.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	label2id := map[string]int{}
	for k, v := range id2label {
		i, err := strconv.Atoi(k)
		if err != nil {
			t.Fatal(err)
		}
		label2id[v] = i
	}
	cfg["id2label"], cfg["label2id"] = id2label, label2id
	if data, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
