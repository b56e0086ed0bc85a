package bm25

import (
	"math"
	"testing"
)

// TestBM25Lucene checks NewLucene's scores against the formula worked
// by hand, and that a term found in most documents still raises the
// scores of the documents that hold it (rank_bm25's floor lowers them).
func TestBM25Lucene(t *testing.T) {
	docs := [][]string{{"a", "b"}, {"a"}, {"c", "c", "a"}}
	m := NewLucene(docs, 1.5, 0.75)
	// N = 3, avgdl = 2; idf(a) = ln(1 + 0.5/3.5), idf(b) = ln(1 + 2.5/1.5).
	idfA, idfB := math.Log(1+0.5/3.5), math.Log(1+2.5/1.5)
	tf := func(f, dl float64) float64 { return f * 2.5 / (f + 1.5*(0.25+0.75*dl/2)) }
	want := []float64{idfA*tf(1, 2) + idfB*tf(1, 2), idfA * tf(1, 1), idfA * tf(1, 3)}
	got := m.Scores([]string{"a", "b"})
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("doc %d: %v, want %v", i, got[i], want[i])
		}
	}
	if m.IDF("a") <= 0 {
		t.Errorf("idf(a) = %v", m.IDF("a"))
	}
	if okapi := NewOkapi(docs).Scores([]string{"a"}); okapi[0] >= 0 {
		t.Errorf("rank_bm25's floor gave %v; the test no longer shows the difference", okapi[0])
	}
}
