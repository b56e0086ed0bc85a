package hftokenizer

import (
	"path/filepath"
	"testing"
)

// benchFamilies are the tokenizers BenchmarkEncode measures, by parity
// fixture: one per family (scripts/bench-tokenizers runs the Rust crate on
// the same texts).
var benchFamilies = []string{"roberta-base", "bert-base-uncased", "deberta-v3", "unigram-byte-fallback"}

// BenchmarkEncode tokenizes every real text of the parity fixtures (1357
// contexts and atoms, 0.7 MB) once per op.
func BenchmarkEncode(b *testing.B) {
	var texts fixtureTexts
	readJSON(b, filepath.Join("testdata", "parity", "texts.json"), &texts)
	size := 0
	for _, t := range texts.Texts {
		size += len(t)
	}
	for _, name := range benchFamilies {
		b.Run(name, func(b *testing.B) {
			var fx variantFixture
			readJSON(b, filepath.Join("testdata", "parity", name+".json"), &fx)
			tok := loadVariant(b, &fx)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, t := range texts.Texts {
					if _, err := tok.Encode(t); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
