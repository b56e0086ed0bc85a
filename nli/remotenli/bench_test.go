package remotenli_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/testgen/nlibench"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli/remotenlitest"
)

// BenchmarkLoopback measures what the remote backend adds to the local one
// per pair: the same pairs, in the same batches, classified by the onnx
// backend in process and by the remote backend against fakeinfer on
// loopback, which runs the same model with ONNX Runtime in the same
// process. Each iteration runs both, one after the other, so that a change
// in the machine's load touches both; one request at a time, so that the
// difference is the protocol's cost (encoding, HTTP, decoding; with tei,
// also the texts' second tokenization on each side), not overlap.
//
// It reports the local and remote time per pair, their difference, and
// the overhead: the difference less that of the time in ONNX Runtime's Run
// (local, and in the server), which takes the noise of the model's own
// time out of it. The overhead is split into the fake server's part (its
// handler's time outside Run: decoding the request, tokenizing TEI's
// texts, encoding the answer; a real server does this in C++ or Rust, on
// its own machine) and the rest, the client's and the transport's. The tiny test model (whose 64-token window cuts these
// premises into about 20 chunks a pair) shows the cost per sequence; the
// distilroberta-size benchmark model, when FR_NLI_BENCH_MODEL names it,
// the cost in a realistic run:
//
//	scripts/make-nli-test-models.py --bench /tmp/distilroberta-random
//	FR_NLI_BENCH_MODEL=/tmp/distilroberta-random go test ./nli/remotenli -run '^$' -bench Loopback -benchtime 5x
func BenchmarkLoopback(b *testing.B) {
	pairs := nlibench.Pairs(b)
	models := []string{modelDir("tiny-roberta")}
	names := []string{"tiny"}
	if dir := os.Getenv(nlibench.ModelEnv); dir != "" {
		models = append(models, dir)
		names = append(names, "distilroberta-size")
	}
	for k, dir := range models {
		local, err := onnxnli.Load(dir, onnxnli.Options{})
		if err != nil {
			b.Fatal(err)
		}
		srv, err := remotenlitest.New(dir, "nli")
		if err != nil {
			b.Fatal(err)
		}
		for _, protocol := range []string{remotenli.KServe, remotenli.TEI} {
			b.Run(fmt.Sprintf("%s/%s", names[k], protocol), func(b *testing.B) {
				ctx := context.Background()
				remote, err := remotenli.Open(ctx, dir, remotenli.Options{Protocol: protocol, Endpoint: srv.URL, Model: "nli",
					Concurrency: 1, BatchSize: onnxnli.DefaultBatchSize, BatchTokens: onnxnli.DefaultBatchTokens})
				if err != nil {
					b.Fatal(err)
				}
				defer remote.Close()
				classify := func(c nli.Classifier) time.Duration {
					start := time.Now()
					if _, err := c.Classify(ctx, pairs); err != nil {
						b.Fatal(err)
					}
					return time.Since(start)
				}
				classify(local) // warm up both
				classify(remote)
				var tLocal, tRemote time.Duration
				ortLocal, ortServer, handler := local.Stats().Runtime, srv.ModelTime(), srv.HandlerTime()
				b.ResetTimer()
				for range b.N {
					tLocal += classify(local)
					tRemote += classify(remote)
				}
				b.StopTimer()
				ortLocal, ortServer, handler = local.Stats().Runtime-ortLocal, srv.ModelTime()-ortServer, srv.HandlerTime()-handler
				n := float64(b.N * len(pairs))
				µs := func(d time.Duration) float64 { return float64(d.Microseconds()) / n }
				b.ReportMetric(µs(tLocal), "local-µs/pair")
				b.ReportMetric(µs(tRemote), "remote-µs/pair")
				b.ReportMetric(µs(tRemote-tLocal), "diff-µs/pair")
				overhead := (tRemote - ortServer) - (tLocal - ortLocal)
				b.ReportMetric(µs(overhead), "overhead-µs/pair")
				b.ReportMetric(µs(handler-ortServer), "server-µs/pair")
				b.ReportMetric(µs(overhead-(handler-ortServer)), "client+http-µs/pair")
				b.ReportMetric(float64(remote.Stats().Sequences)/float64(remote.Stats().Pairs), "seqs/pair")
			})
		}
		srv.Close()
		local.Close()
	}
}
