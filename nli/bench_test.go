package nli_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli"
)

// BenchmarkLexicalFlaherty classifies the 546 FR2 pairs of the Flaherty
// file (21 Wikipedia passages of up to 4,000 characters × 26 atoms) in one
// call; pairs/s is the figure to quote.
func BenchmarkLexicalFlaherty(b *testing.B) {
	pairs, _ := goldenPairs(b)
	lex := nli.NewLexical()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lex.Classify(context.Background(), pairs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(pairs))/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkCacheHit answers the 546 Flaherty pairs from a warm cache.
func BenchmarkCacheHit(b *testing.B) {
	pairs, _ := goldenPairs(b)
	c, err := nli.OpenCache(filepath.Join(b.TempDir(), "cache.db"), nli.NewLexical())
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
	pairs, _ := goldenPairs(b)
	c, err := nli.OpenCache(filepath.Join(b.TempDir(), "cache.db"), &fake{model: "m"})
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

// BenchmarkLexicalContextPairs classifies the 420 ordered pairs of the 21
// Flaherty passages (FR3's context–context pairs): long hypotheses.
func BenchmarkLexicalContextPairs(b *testing.B) {
	pairs, _ := goldenPairs(b)
	var texts []string
	var ids []string
	for _, p := range pairs {
		if len(ids) == 0 || ids[len(ids)-1] != p.PremiseID {
			ids, texts = append(ids, p.PremiseID), append(texts, p.Premise)
		}
	}
	var cc []nli.Pair
	for i := range texts {
		for j := range texts {
			if i != j {
				cc = append(cc, nli.Pair{PremiseID: ids[i], HypothesisID: ids[j], Premise: texts[i], Hypothesis: texts[j]})
			}
		}
	}
	lex := nli.NewLexical()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lex.Classify(context.Background(), cc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(cc))/b.Elapsed().Seconds(), "pairs/s")
}
