package llm

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// nliSizedRequest is about the size of an NLI request: a few-shot prompt and
// a 4000-character premise.
func nliSizedRequest(i int) Request {
	premise := make([]byte, 4000)
	for j := range premise {
		premise[j] = 'a' + byte(j%26)
	}
	return Request{
		Messages: []Message{
			{Role: "system", Content: "You judge natural language inference. " + string(premise[:800])},
			{Role: "user", Content: fmt.Sprintf("PREMISE: %s\nHYPOTHESIS: atom %d", premise, i)},
		},
		MaxTokens: 16, Logprobs: true,
	}
}

// BenchmarkCacheHit: an answer served from the SQLite cache (key hash,
// lookup, parse).
func BenchmarkCacheHit(b *testing.B) {
	srv := llmtest.New(b, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "entailment"} })
	c, err := New(Config{BaseURL: srv.BaseURL(), Model: "m", CachePath: filepath.Join(b.TempDir(), "c.sqlite")})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := nliSizedRequest(0)
	if _, err := c.Complete(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r, err := c.Complete(context.Background(), req); err != nil || !r.Cached {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTrip: requests to the loopback fake server, 64 per
// CompleteAll at the given concurrency, with and without writing the
// answers to the cache. Reported per request.
func BenchmarkRoundTrip(b *testing.B) {
	for _, cached := range []bool{false, true} {
		for _, conc := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("cache=%v/concurrency=%d", cached, conc), func(b *testing.B) {
				srv := llmtest.New(b, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "entailment"} })
				cfg := Config{BaseURL: srv.BaseURL(), Model: "m", Concurrency: conc}
				c, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				n := 0
				b.ReportAllocs()
				for b.Loop() {
					if cached { // a fresh cache each round, so every request misses and is written
						b.StopTimer()
						c.Close()
						cfg.CachePath = filepath.Join(b.TempDir(), fmt.Sprint("c", n, ".sqlite"))
						if c, err = New(cfg); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					reqs := make([]Request, 64)
					for i := range reqs {
						reqs[i] = nliSizedRequest(n*64 + i)
					}
					n++
					if _, err := c.CompleteAll(context.Background(), reqs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/request")
			})
		}
	}
}
