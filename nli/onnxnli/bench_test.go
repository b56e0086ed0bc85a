package onnxnli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/nli"
)

// benchModelEnv names the model directory of the benchmarks: a random model
// of distilroberta's size (6 layers, hidden 768, roberta-base's vocabulary)
// made by `scripts/make-nli-test-models.py --bench DIR`, outside the
// repository (330 MB).
const benchModelEnv = "FR_NLI_BENCH_MODEL"

// benchPairs are 48 premise/hypothesis pairs of mixed length from the
// Flaherty instance: each atom with a context cut to its first 1 to 6
// sentences, and every eighth with a whole context (some longer than 512
// tokens, so chunked).
func benchPairs(b *testing.B) []nli.Pair {
	data, err := os.ReadFile(refdata.Path(b, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		b.Fatal(err)
	}
	var in struct {
		Atoms    []struct{ Text string }
		Contexts []struct{ Text string }
	}
	if err := json.Unmarshal(data, &in); err != nil {
		b.Fatal(err)
	}
	var pairs []nli.Pair
	for k := range 48 {
		premise := in.Contexts[(k*7)%len(in.Contexts)].Text
		if k%8 != 0 {
			sentences := strings.SplitAfter(premise, ". ")
			premise = strings.Join(sentences[:min(len(sentences), 1+k%6)], "")
		}
		pairs = append(pairs, nli.Pair{Premise: premise, Hypothesis: in.Atoms[k%len(in.Atoms)].Text})
	}
	return pairs
}

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
	dir := os.Getenv(benchModelEnv)
	if dir == "" {
		b.Skipf("set %s to a model made by scripts/make-nli-test-models.py --bench DIR", benchModelEnv)
	}
	pairs := benchPairs(b)
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
			real, padded := padding(m, pairs, bs, st.tokens)
			b.ReportMetric(100*float64(padded-real)/float64(padded), "%pad")
		})
	}
}

// BenchmarkUnsortedBatches runs the same sequences in input order (no
// sorting by length), timing ONNX Runtime alone, to show what sorting
// saves at each batch size.
func BenchmarkUnsortedBatches(b *testing.B) {
	dir := os.Getenv(benchModelEnv)
	if dir == "" {
		b.Skipf("set %s to a model made by scripts/make-nli-test-models.py --bench DIR", benchModelEnv)
	}
	pairs := benchPairs(b)
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
					batch := make([]int, 0, bs)
					for i := lo; i < min(lo+bs, len(seqs)); i++ {
						batch = append(batch, i)
					}
					start := time.Now()
					if _, err := m.run(seqs, batch); err != nil {
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
func sequences(b *testing.B, m *Model, pairs []nli.Pair) []Sequence {
	var seqs []Sequence
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
func padding(m *Model, pairs []nli.Pair, bs, tokens int) (real, padded int) {
	var lens []int
	for _, p := range pairs {
		e, _ := m.Encode(p.Premise, p.Hypothesis)
		for _, s := range e.Sequences {
			lens = append(lens, len(s.IDs))
		}
	}
	// Sorted longest first, as Logits does.
	slices.Sort(lens)
	slices.Reverse(lens)
	for lo, hi := 0, 0; lo < len(lens); lo = hi {
		hi = batchEnd(lens[lo], lo, len(lens), bs, tokens)
		for _, n := range lens[lo:hi] {
			real += n
		}
		padded += lens[lo] * (hi - lo)
	}
	return real, padded
}
