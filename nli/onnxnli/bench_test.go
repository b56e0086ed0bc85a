package onnxnli

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/testgen/nlibench"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
)

// BenchmarkThroughput measures Classify on the benchmark pairs at batch
// sizes 1 to 32 (sequences sorted by length before batching), without a cap
// on a batch's tokens and with the caps 128, 256 (the default) and 512
// tokens at the default batch size, and reports
// pairs per second, the share of the time spent outside ONNX Runtime's Run
// (tokenization, chunking, tensors, softmax: the Go side's cost), and the
// share of padding tokens in the batches.
//
//	scripts/make-nli-test-models.py --bench /tmp/distilroberta-random
//	FR_NLI_BENCH_MODEL=/tmp/distilroberta-random go test ./nli/onnxnli -run '^$' -bench Throughput -benchtime 3x
func BenchmarkThroughput(b *testing.B) {
	dir := nlibench.ModelDir(b)
	pairs := nlibench.Pairs(b)
	ctx := context.Background()
	type setting struct{ size, tokens int }
	var settings []setting
	for _, bs := range []int{1, 2, 4, 8, 16, 32} {
		settings = append(settings, setting{bs, 1 << 30}) // sequences only
	}
	for _, bt := range []int{128, 256, 512} {
		settings = append(settings, setting{DefaultBatchSize, bt})
	}
	for _, st := range settings {
		bs := st.size
		name := fmt.Sprintf("batch=%d", bs)
		if st.tokens < 1<<30 {
			name += fmt.Sprintf(",tokens=%d", st.tokens)
		}
		b.Run(name, func(b *testing.B) {
			m, err := Load(dir, Options{BatchSize: bs, BatchTokens: st.tokens})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			if _, err := m.Classify(ctx, pairs); err != nil { // warm up
				b.Fatal(err)
			}
			before := m.Stats()
			b.ResetTimer()
			for range b.N {
				if _, err := m.Classify(ctx, pairs); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			ort := m.Stats().Runtime - before.Runtime
			total := b.Elapsed()
			b.ReportMetric(float64(len(pairs)*b.N)/total.Seconds(), "pairs/s")
			b.ReportMetric(100*float64(total-ort)/float64(total), "%go")
			real, padded := padding(b, m, pairs)
			b.ReportMetric(100*float64(padded-real)/float64(padded), "%pad")
		})
	}
}

// BenchmarkUnsortedBatches runs the same sequences in input order (no
// sorting by length), timing ONNX Runtime alone, to show what sorting
// saves at each batch size.
func BenchmarkUnsortedBatches(b *testing.B) {
	dir := nlibench.ModelDir(b)
	pairs := nlibench.Pairs(b)
	for _, bs := range []int{4, 8, 16, 32} {
		b.Run(fmt.Sprintf("batch=%d", bs), func(b *testing.B) {
			m, err := Load(dir, Options{BatchSize: bs, BatchTokens: 1 << 30})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			seqs := sequences(b, m, pairs)
			var ort time.Duration
			b.ResetTimer()
			for range b.N {
				for lo := 0; lo < len(seqs); lo += bs {
					batch := seqs[lo:min(lo+bs, len(seqs))]
					start := time.Now()
					if _, err := m.Run(context.Background(), m.Batch(batch)); err != nil {
						b.Fatal(err)
					}
					ort += time.Since(start)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(len(pairs)*b.N)/ort.Seconds(), "pairs/s")
		})
	}
}

// sequences encodes the pairs as the model would.
func sequences(b *testing.B, m *Model, pairs []nli.Pair) []crossenc.Sequence {
	var seqs []crossenc.Sequence
	for _, p := range pairs {
		e, err := m.Encode(p.Premise, p.Hypothesis)
		if err != nil {
			b.Fatal(err)
		}
		seqs = append(seqs, e.Sequences...)
	}
	return seqs
}

// padding counts the real and padded tokens of the batches Logits makes.
func padding(b *testing.B, m *Model, pairs []nli.Pair) (real, padded int) {
	seqs := sequences(b, m, pairs)
	for _, batch := range m.Batches(seqs) {
		width := 0
		for _, i := range batch {
			real += len(seqs[i].IDs)
			width = max(width, len(seqs[i].IDs))
		}
		padded += width * len(batch)
	}
	return real, padded
}
