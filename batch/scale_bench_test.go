package batch

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/testgen/flaherty"
	"github.com/factreasoner/factreasoner-go/internal/testgen/recgen"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/nli/remotenli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli/remotenlitest"
)

// The throughput benchmarks of issue 12 (BENCHMARKS.md, "Throughput"):
// pairs asked and time per record with and without pruning, records per
// second at several --jobs, and the cost of asking in rounds. Backends:
//
//	llm-0ms, llm-50ms: the llm backend against the loopback fake server
//	  (llm/llmtest), answering at once or after 50 ms, four requests
//	  in flight (the client's default); llm-50ms-x16 (BenchmarkScaleJobs):
//	  16 in flight (--llm-concurrency 16);
//	onnx: the distilroberta-size random model in $FR_NLI_BENCH_MODEL
//	  (scripts/make-nli-test-models.py --bench DIR), when set.
//
// Run each once (-benchtime 1x), several times with -count.
const benchModelEnv = "FR_NLI_BENCH_MODEL"

// cpuTime is the CPU time the process has used, all its threads (ONNX
// Runtime's too). On a shared machine it varies far less than the wall
// time, which depends on what else runs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU seconds per op since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
}

// benchBackends are the backends available here.
func benchBackends() []string {
	bs := []string{"llm-0ms", "llm-50ms"}
	if os.Getenv(benchModelEnv) != "" {
		bs = append(bs, "onnx")
	}
	return bs
}

// benchJudge answers an NLI request as a model might: mostly neutral,
// about one pair in ten entailment and one in twenty contradiction,
// decided by a hash of the request, after delay.
func benchJudge(delay time.Duration) func(int, llmtest.Request) llmtest.Reply {
	return func(_ int, r llmtest.Request) llmtest.Reply {
		h := fnv.New32a()
		io.WriteString(h, r.Last())
		label := "neutral"
		switch v := h.Sum32() % 20; {
		case v < 2:
			label = "entailment"
		case v == 2:
			label = "contradiction"
		}
		return llmtest.Reply{Content: label, Tokens: llmtest.Tokenize(label, -0.05), Delay: delay}
	}
}

// benchPipeline opens the pipeline of a backend with a pruning setting.
func benchPipeline(b *testing.B, backend string, perAtom int) *assemble.Pipeline {
	b.Helper()
	o := assemble.Options{Solver: inference.Auto{}, PairsPerAtom: perAtom}
	switch backend {
	case "llm-0ms", "llm-50ms", "llm-50ms-x16":
		delay := time.Duration(0)
		if backend != "llm-0ms" {
			delay = 50 * time.Millisecond
		}
		srv := llmtest.New(b, benchJudge(delay))
		o.NLI.Backend, o.LLMPrompt = "llm", "v1"
		o.LLM = llm.Config{BaseURL: srv.BaseURL(), Model: "judge"}
		if backend == "llm-50ms-x16" {
			o.LLM.Concurrency = 16
		}
		o.Caches.LLM = "off"
	case "onnx":
		o.NLI = assemble.NLIOptions{Backend: "onnx", Model: os.Getenv(benchModelEnv)}
	}
	p, err := assemble.Open(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

// BenchmarkScaleFlaherty: one Flaherty record (26 atoms, 21 contexts after
// dedup) scored with FR2 and FR3, every pair asked or the default
// pruning: the pairs asked and the time per record.
func BenchmarkScaleFlaherty(b *testing.B) {
	in, _ := flaherty.Load(b)
	in.Relations = nil
	for _, backend := range benchBackends() {
		for _, v := range []graph.Version{graph.FR2, graph.FR3} {
			for _, k := range []int{assess.AllPairs, assess.DefaultPairsPerAtom} {
				b.Run(fmt.Sprintf("%s/%s/pairs-per-atom=%s", backend, v, assess.PairsPerAtomName(k)), func(b *testing.B) {
					p := benchPipeline(b, backend, k)
					var a *assess.Assessment
					cpu := cpuTime()
					for b.Loop() {
						var err error
						if a, err = p.Assess(context.Background(), in, v); err != nil {
							b.Fatal(err)
						}
					}
					reportCPU(b, cpu)
					b.ReportMetric(float64(a.Asked), "pairs")
					b.ReportMetric(float64(a.Pruned), "pruned")
				})
			}
		}
	}
}

// benchInput writes copies of the example records (13, 9 and 6 atoms with
// their contexts) to a file: n records in all.
func benchInput(b *testing.B, n int) string {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "example.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(data)), "\n")
	var sb strings.Builder
	for i := range n {
		sb.WriteString(strings.TrimSpace(lines[i%len(lines)]) + "\n")
	}
	path := filepath.Join(b.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkScaleJobs: records per second over 12 records (the example
// file four times; FR2, 476 pairs: these records have 3 to 5 distinct
// contexts, so nothing is pruned) with 1, 2 and 4 records in flight.
func BenchmarkScaleJobs(b *testing.B) {
	input := benchInput(b, 12)
	for _, backend := range append(benchBackends(), "llm-50ms-x16") {
		for _, jobs := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/jobs=%d", backend, jobs), func(b *testing.B) {
				p := benchPipeline(b, backend, assess.DefaultPairsPerAtom)
				var st ScoreStats
				start, cpu := time.Now(), cpuTime()
				for b.Loop() {
					var err error
					if st, err = ScoreFile(context.Background(), p.Pipeline, input, graph.FR2, io.Discard, nil, FileOptions{Jobs: jobs}); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu)
				b.ReportMetric(float64(st.Scored*b.N)/time.Since(start).Seconds(), "records/s")
				b.ReportMetric(float64(st.Pairs), "pairs")
			})
		}
	}
}

// BenchmarkScaleRound: the cost of asking a record's pairs in rounds (so
// that progress shows inside a record) against asking them all at once:
// Flaherty FR2, every pair (546) for llm, the default pruning (130) for
// onnx.
func BenchmarkScaleRound(b *testing.B) {
	in, _ := flaherty.Load(b)
	in.Relations = nil
	for _, backend := range benchBackends() {
		k := assess.AllPairs
		if backend == "onnx" {
			k = assess.DefaultPairsPerAtom
		}
		for _, round := range []int{8, 16, 32, 64, 1 << 20} {
			name := fmt.Sprint(round)
			if round == 1<<20 {
				name = "whole-record"
			}
			b.Run(fmt.Sprintf("%s/round=%s", backend, name), func(b *testing.B) {
				p := benchPipeline(b, backend, k)
				p.Round = round
				var a *assess.Assessment
				cpu := cpuTime()
				for b.Loop() {
					var err error
					if a, err = p.Assess(context.Background(), in, graph.FR2); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu)
				b.ReportMetric(float64(a.Asked), "pairs")
			})
		}
	}
}

// BenchmarkScaleJobsFlaherty: records per second over Flaherty-sized
// generated records (internal/testgen/recgen: 26 atoms, 53 contexts), FR3, with
// the progress on, as fr score runs: given, 200 records with their stated
// relations (fr score --nli given), where the tool's own cost per record
// (reading, decoding, building, solving, encoding, writing) is all there
// is; lexical, 20 records scored by the lexical backend with the default
// pruning.
func BenchmarkScaleJobsFlaherty(b *testing.B) {
	for _, backend := range []string{"given", "lexical"} {
		n, shape := 200, recgen.Flaherty
		if backend == "lexical" {
			n, shape.Relations = 20, false
		}
		input := filepath.Join(b.TempDir(), "in.jsonl")
		f, err := os.Create(input)
		if err != nil {
			b.Fatal(err)
		}
		if err := recgen.Write(f, shape, 1, 0, n); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		p, err := assemble.Open(context.Background(), assemble.Options{Solver: inference.Auto{}, NLI: assemble.NLIOptions{Backend: backend}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close() })
		for _, jobs := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/jobs=%d", backend, jobs), func(b *testing.B) {
				var st ScoreStats
				start, cpu := time.Now(), cpuTime()
				for b.Loop() {
					var err error
					o := FileOptions{Jobs: jobs, Progress: func(Progress) {}}
					if st, err = ScoreFile(context.Background(), p.Pipeline, input, graph.FR3, io.Discard, nil, o); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu)
				b.ReportMetric(float64(st.Scored*b.N)/time.Since(start).Seconds(), "records/s")
				b.ReportMetric((cpuTime()-cpu).Seconds()*1000/float64(st.Scored*b.N), "cpu-ms/record")
			})
		}
	}
}

// BenchmarkScaleJobsRemote: the batches a model server sees when records
// are scored in parallel, and records per second, against the loopback
// fake Triton server (nli/remotenli/remotenlitest) running tiny-roberta
// (a 64-token window), 4 requests in flight, batches of 16. 24 generated
// records (passages of 100 characters, no relations; FR2, every pair) of
// two shapes: small (3 atoms, 4 contexts of which 3 distinct: 9 pairs,
// about 20 sequences) and medium (6 atoms, 8 contexts of which 5
// distinct: 30 pairs, about 60 sequences). Reported: seqs/batch, the
// mean sequences of a request the server ran, and full-batches, the share
// of requests of 16.
func BenchmarkScaleJobsRemote(b *testing.B) {
	dir := filepath.Join("..", "testdata", "nli", "tiny-roberta")
	srv := remotenlitest.Start(b, dir, "nli")
	shapes := []struct {
		name  string
		shape recgen.Shape
	}{
		{"small", recgen.Shape{Atoms: 3, Contexts: 4, Distinct: 3, Passage: 100}},
		{"medium", recgen.Shape{Atoms: 6, Contexts: 8, Distinct: 5, Passage: 100}},
	}
	for _, sh := range shapes {
		input := filepath.Join(b.TempDir(), "in.jsonl")
		f, err := os.Create(input)
		if err != nil {
			b.Fatal(err)
		}
		if err := recgen.Write(f, sh.shape, 1, 0, 24); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		for _, linger := range []time.Duration{-1, remotenli.DefaultLinger, 20 * time.Millisecond} {
			for _, jobs := range []int{1, 2, 4, 8} {
				b.Run(fmt.Sprintf("%s/linger=%v/jobs=%d", sh.name, max(linger, 0), jobs), func(b *testing.B) {
					o := assemble.Options{Solver: inference.Auto{}, PairsPerAtom: assess.AllPairs, NLI: assemble.NLIOptions{Backend: "remote", Model: dir,
						Remote: remotenli.Options{Protocol: remotenli.KServe, Endpoint: srv.URL, Model: srv.Name, BatchSize: 16, Concurrency: 4, Linger: linger}}}
					p, err := assemble.Open(context.Background(), o)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					before := len(srv.Batches())
					start := time.Now()
					var st ScoreStats
					for b.Loop() {
						if st, err = ScoreFile(context.Background(), p.Pipeline, input, graph.FR2, io.Discard, nil, FileOptions{Jobs: jobs}); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(st.Scored*b.N)/time.Since(start).Seconds(), "records/s")
					sizes := srv.Batches()[before:]
					seqs, full := 0, 0
					for _, n := range sizes {
						seqs += n
						if n == 16 {
							full++
						}
					}
					b.ReportMetric(float64(seqs)/float64(len(sizes)), "seqs/batch")
					b.ReportMetric(float64(full)/float64(len(sizes)), "full-batches")
				})
			}
		}
	}
}
