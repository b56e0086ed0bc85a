package nlicache_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/lexical"
	"github.com/factreasoner/factreasoner-go/nli/nlicache"
)

// flahertyPairs are the 546 FR2 pairs of the Flaherty file (21 Wikipedia
// passages of up to 4,000 characters × 26 atoms).
func flahertyPairs(b *testing.B) []nli.Pair {
	ins, err := instance.ReadFile(refdata.Path(b, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		b.Fatal(err)
	}
	return graph.Pairs(graph.SelectNodes(ins[0], graph.FR2))
}

// BenchmarkCacheHit answers the 546 Flaherty pairs from a warm cache.
func BenchmarkCacheHit(b *testing.B) {
	pairs := flahertyPairs(b)
	c, err := nlicache.Open(filepath.Join(b.TempDir(), "cache.db"), lexical.New())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Classify(context.Background(), pairs); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Classify(context.Background(), pairs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(pairs))/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkCacheMiss stores 546 new answers (of a trivial classifier) per
// iteration, in one transaction: the cost of the cache itself on a cold run.
func BenchmarkCacheMiss(b *testing.B) {
	pairs := flahertyPairs(b)
	c, err := nlicache.Open(filepath.Join(b.TempDir(), "cache.db"), &fake{model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	round := 0
	for b.Loop() {
		round++
		fresh := make([]nli.Pair, len(pairs))
		for i, p := range pairs {
			p.Hypothesis += string(rune('A' + round%26))
			p.Hypothesis += string(rune('A' + round/26%26))
			p.Hypothesis += string(rune('A' + round/676%26))
			fresh[i] = p
		}
		if _, err := c.Classify(context.Background(), fresh); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(pairs))/b.Elapsed().Seconds(), "pairs/s")
}
