package onnxnli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
)

// reference is testdata/nli/<model>/reference.json, written by
// scripts/make-nli-test-models.py: token ids from its own tokenizer code,
// chunks from its own copy of the chunking rule, and logits from a numpy
// forward pass in float64.
type reference struct {
	Window   int      `json:"window"`
	Specials int      `json:"specials"`
	Labels   []string `json:"labels"`
	Pairs    []struct {
		Premise       string `json:"premise"`
		Hypothesis    string `json:"hypothesis"`
		PremiseIDs    []int  `json:"premise_ids"`
		HypothesisIDs []int  `json:"hypothesis_ids"`
		// HypothesisChunks are the hypothesis's chunks: one but for a
		// hypothesis longer than half the window.
		HypothesisChunks [][2]int `json:"hypothesis_chunks"`
		Chunks           []struct {
			Start, End      int
			HypothesisStart int       `json:"hypothesis_start"`
			HypothesisEnd   int       `json:"hypothesis_end"`
			InputIDs        []int     `json:"input_ids"`
			TokenTypeIDs    []int     `json:"token_type_ids"`
			Logits          []float64 `json:"logits"`
		} `json:"chunks"`
		Probabilities []float64 `json:"probabilities"`
		Label         string    `json:"label"`
	} `json:"pairs"`
}

func testModelDir(name string) string { return filepath.Join("..", "..", "testdata", "nli", name) }

func readReference(t *testing.T, name string) *reference {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testModelDir(name), "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	return &ref
}

// loadTestModel loads a model of testdata/nli, failing (not skipping) when
// ONNX Runtime is missing: scripts/test installs it.
func loadTestModel(t testing.TB, name string, opts Options) *Model {
	t.Helper()
	m, err := Load(testModelDir(name), opts)
	if err != nil {
		t.Fatalf("%v\n(scripts/test installs ONNX Runtime; by hand: scripts/install-onnxruntime)", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestAgainstNumpy checks the backend end to end against the independent
// reference: tokenization, chunking of long premises, cutting of long
// hypotheses, the pair layout, the forward pass (to 1e-4 in the logits,
// with the Go side batching and padding sequences of different lengths
// together) and the aggregation of chunks.
func TestAgainstNumpy(t *testing.T) {
	for _, name := range []string{"tiny-roberta", "tiny-bert"} {
		t.Run(name, func(t *testing.T) {
			ref := readReference(t, name)
			for _, opts := range []Options{{BatchSize: 1}, {BatchSize: 4}, {}, {BatchSize: 64, BatchTokens: 1 << 20}} {
				batch := opts.BatchSize
				m := loadTestModel(t, name, opts)
				if m.MaxLength() != ref.Window || m.Tokenizer().Specials() != ref.Specials {
					t.Fatalf("window %d, %d specials; reference %d, %d", m.MaxLength(), m.Tokenizer().Specials(), ref.Window, ref.Specials)
				}
				for i, l := range m.Labels() {
					if l.String() != ref.Labels[i] {
						t.Fatalf("label order %v, reference %v", m.Labels(), ref.Labels)
					}
				}
				var seqs []crossenc.Sequence
				var pairs []nli.Pair
				multi, multiHyp := 0, 0
				for i, p := range ref.Pairs {
					pt, err := m.Tokenizer().Encode(p.Premise)
					if err != nil {
						t.Fatal(err)
					}
					ht, _ := m.Tokenizer().Encode(p.Hypothesis)
					if !slices.Equal(pt.IDs, p.PremiseIDs) && !(len(pt.IDs) == 0 && len(p.PremiseIDs) == 0) {
						t.Errorf("pair %d premise ids\n got %v\nwant %v", i, pt.IDs, p.PremiseIDs)
					}
					if !slices.Equal(ht.IDs, p.HypothesisIDs) {
						t.Errorf("pair %d hypothesis ids\n got %v\nwant %v", i, ht.IDs, p.HypothesisIDs)
					}
					e, err := m.Encode(p.Premise, p.Hypothesis)
					if err != nil {
						t.Fatal(err)
					}
					if len(e.Plan.Hypotheses) != len(p.HypothesisChunks) || len(e.Sequences) != len(p.Chunks) {
						t.Fatalf("pair %d: %d sequences, hypothesis chunks %v; reference %d, %v", i, len(e.Sequences), e.Plan.Hypotheses, len(p.Chunks), p.HypothesisChunks)
					}
					if len(p.HypothesisChunks) > 1 {
						multiHyp++
					}
					if len(p.Chunks) > 1 {
						multi++
					}
					for j, c := range p.Chunks {
						s := e.Sequences[j]
						if s.PremiseSpan != (crossenc.Span{Start: c.Start, End: c.End}) ||
							s.HypothesisSpan != (crossenc.Span{Start: c.HypothesisStart, End: c.HypothesisEnd}) {
							t.Errorf("pair %d sequence %d: premise %v, hypothesis %v; reference [%d, %d), [%d, %d)", i, j,
								s.PremiseSpan, s.HypothesisSpan, c.Start, c.End, c.HypothesisStart, c.HypothesisEnd)
						}
						if !slices.Equal(e.Sequences[j].IDs, c.InputIDs) {
							t.Errorf("pair %d chunk %d input ids\n got %v\nwant %v", i, j, e.Sequences[j].IDs, c.InputIDs)
						}
						if !m.ZeroTypes() && !slices.Equal(e.Sequences[j].TypeIDs, c.TokenTypeIDs) {
							t.Errorf("pair %d chunk %d type ids\n got %v\nwant %v", i, j, e.Sequences[j].TypeIDs, c.TokenTypeIDs)
						}
					}
					seqs = append(seqs, e.Sequences...)
					pairs = append(pairs, nli.Pair{Premise: p.Premise, Hypothesis: p.Hypothesis})
				}
				if multi < 2 || multiHyp < 1 {
					t.Fatalf("only %d reference pairs have premises longer than the window, %d hypotheses longer than half of it", multi, multiHyp)
				}
				logits, err := m.Logits(context.Background(), seqs)
				if err != nil {
					t.Fatal(err)
				}
				k := 0
				for i, p := range ref.Pairs {
					for j, c := range p.Chunks {
						for l := range 3 {
							if d := math.Abs(float64(logits[k][l]) - c.Logits[l]); d > 1e-4 {
								t.Errorf("batch %d pair %d chunk %d logit %d: %.6f, numpy %.6f", batch, i, j, l, logits[k][l], c.Logits[l])
							}
						}
						k++
					}
				}
				res, err := m.Classify(context.Background(), pairs)
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range ref.Pairs {
					if res[i].Label.String() != p.Label {
						t.Errorf("pair %d label %v, reference %s", i, res[i].Label, p.Label)
					}
					for l, name := range ref.Labels {
						lab, _ := nli.ParseLabel(name)
						if d := math.Abs(res[i].Distribution[lab] - p.Probabilities[l]); d > 1e-5 {
							t.Errorf("pair %d P(%s) = %.6f, reference %.6f", i, name, res[i].Distribution[lab], p.Probabilities[l])
						}
					}
					if res[i].Probability != res[i].Distribution[res[i].Label] {
						t.Errorf("pair %d probability %v is not that of its label %v", i, res[i].Probability, res[i].Distribution)
					}
				}
			}
		})
	}
}
