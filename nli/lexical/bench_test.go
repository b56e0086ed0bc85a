package lexical_test

import (
	"context"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/lexical"
)

// BenchmarkLexicalFlaherty classifies the 546 FR2 pairs of the Flaherty
// file (21 Wikipedia passages of up to 4,000 characters × 26 atoms) in one
// call; pairs/s is the figure to quote.
func BenchmarkLexicalFlaherty(b *testing.B) {
	pairs, _ := goldenPairs(b)
	lex := lexical.New()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lex.Classify(context.Background(), pairs); err != nil {
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
	lex := lexical.New()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lex.Classify(context.Background(), cc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(cc))/b.Elapsed().Seconds(), "pairs/s")
}
