package corpusgen

import (
	"strings"
	"testing"
)

func TestDeterministic(t *testing.T) {
	a, b := New(1), New(1)
	for range 20 {
		p, q := a.Passage(), b.Passage()
		if p != q {
			t.Fatal("the same seed gave other passages")
		}
		if n := len(strings.Fields(p)); n < 60 || n > 140 {
			t.Fatalf("a passage of %d words", n)
		}
		if a.Query(p) != b.Query(q) {
			t.Fatal("the same seed gave other queries")
		}
	}
}
