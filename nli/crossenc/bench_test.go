package crossenc

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/nli"
)

// noopRunner answers every sequence with zeros: a model that costs
// nothing, so that a benchmark times the text side alone.
type noopRunner struct{}

func (noopRunner) Run(_ context.Context, b *Batch) ([]float32, error) {
	return make([]float32, 3*len(b.Sequences)), nil
}

// BenchmarkFlahertyRecord classifies every pair of the Flaherty record
// (FR2: 546 atom–passage pairs; FR3: 966, with the passage–passage ones) in
// rounds of 32 pairs, as the pipeline puts them, with a no-op model: the
// cost of tokenizing, planning and batching one record, for RoBERTa's
// byte-level BPE and a DeBERTa-v3-style Unigram tokenizer, both with a
// 512-token window. A fresh classifier each op tokenizes every text anew.
func BenchmarkFlahertyRecord(b *testing.B) {
	ins, err := instance.ReadFile(refdata.Path(b, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []graph.Version{graph.FR2, graph.FR3} {
		pairs := graph.Pairs(graph.SelectNodes(ins[0], v))
		for _, fam := range []struct{ name, tokenizer, modelType string }{
			{"roberta", refdata.Path(b, "tokenizers", "roberta-base", "tokenizer.json"), "roberta"},
			{"deberta-v3", filepath.Join("..", "..", "hftokenizer", "testdata", "tokenizers", "unigram", "tokenizer.json"), "deberta-v2"},
		} {
			b.Run(v.String()+"/"+fam.name, func(b *testing.B) {
				enc := loadEncoder(b, familyDir(b, fam.tokenizer, fam.modelType), EncoderOptions{})
				b.ReportAllocs()
				var seqs int64
				for b.Loop() {
					c := New(enc, noopRunner{}, Options{})
					for lo := 0; lo < len(pairs); lo += 32 {
						if _, err := c.Classify(context.Background(), pairs[lo:min(lo+32, len(pairs))]); err != nil {
							b.Fatal(err)
						}
					}
					seqs = c.Stats().Sequences
				}
				b.ReportMetric(float64(len(pairs)), "pairs")
				b.ReportMetric(float64(seqs), "sequences")
			})
		}
	}
}

var _ nli.Classifier = (*Classifier)(nil)
