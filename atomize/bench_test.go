package atomize

import (
	"strings"
	"testing"
)

// BenchmarkSplitSentences: a biography-like text of about 2 KB.
func BenchmarkSplitSentences(b *testing.B) {
	text := strings.Repeat("Dr. Ruth Adair (1948-2011) was born in Tulsa, Okla., on Jan. 5, 1948. She moved to the U.S. capital in 1970 and earned a Ph.D. at 3.5 times the usual pace. ", 12)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		SplitSentences(text)
	}
}
