package bm25

import (
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// handBM25 computes BM25 Okapi scores straight from the formula, written
// out here independently of the package's code: idf(t) = ln((N − n + 0.5)
// / (n + 0.5)); negative idfs replaced by ε × the mean idf over the
// vocabulary; score = Σ_q idf(q)·f·(k1+1)/(f + k1·(1 − b + b·|d|/avgdl)).
func handBM25(corpus []string, query string) []float64 {
	const k1, b, eps = 1.5, 0.75, 0.25
	docs := make([][]string, len(corpus))
	total := 0
	for i, c := range corpus {
		docs[i] = strings.Fields(c)
		total += len(docs[i])
	}
	N := float64(len(docs))
	avgdl := float64(total) / N
	df := map[string]float64{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, w := range d {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	idf := map[string]float64{}
	sum := 0.0
	for w, n := range df {
		idf[w] = math.Log((N - n + 0.5) / (n + 0.5))
		sum += idf[w]
	}
	mean := sum / float64(len(idf))
	for w, v := range idf {
		if v < 0 {
			idf[w] = eps * mean
		}
	}
	scores := make([]float64, len(docs))
	for i, d := range docs {
		for _, q := range strings.Fields(query) {
			f := 0.0
			for _, w := range d {
				if w == q {
					f++
				}
			}
			scores[i] += idf[q] * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(d))/avgdl))
		}
	}
	return scores
}

func TestBM25AgainstHandComputation(t *testing.T) {
	corpora := []struct {
		name    string
		corpus  []string
		queries []string
	}{
		{
			// "the" is in 3 of 4 documents: its idf, ln(1.5/3.5), is negative
			// and floored to 0.25 × the mean idf. "cat", "sat", "on", "dog"
			// are in exactly half: idf 0, not floored.
			"floor positive",
			[]string{"the cat sat on the mat", "the dog sat on the log", "the cat chased the dog", "a bird sang"},
			[]string{"the cat", "cat sat mat", "sat", "bird bird", "unknown", "the", "the the the dog log"},
		},
		{
			// Every term is common: the mean idf is negative, and so is the
			// floor that replaces the negative idfs.
			"floor negative",
			[]string{"a b", "a b", "a c"},
			[]string{"a", "b", "c", "a b c", "c c"},
		},
		{
			"one document",
			[]string{"Lanny Flaherty ( July 27, 1942 ) was an American actor."},
			[]string{"Lanny Flaherty was born on July 27, 1942."},
		},
		{
			"uneven lengths",
			[]string{
				"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu alpha alpha",
				"alpha", "beta beta", "gamma delta", "nu xi omicron pi rho sigma tau",
			},
			[]string{"alpha", "alpha beta", "beta gamma pi", "kappa mu nu"},
		},
	}
	for _, c := range corpora {
		docs := make([][]string, len(c.corpus))
		for i, s := range c.corpus {
			docs[i] = strings.Fields(s)
		}
		m := NewOkapi(docs)
		for _, q := range c.queries {
			got := m.Scores(strings.Fields(q))
			want := handBM25(c.corpus, q)
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-9 {
					t.Errorf("%s: query %q doc %d: score %.15g, want %.15g", c.name, q, i, got[i], want[i])
				}
			}
		}
	}
}

// TestBM25ReferenceValues pins scores printed by a line-by-line Python
// transcription of rank_bm25 0.2.2's BM25Okapi (k1 1.5, b 0.75, ε 0.25) on
// the corpus of the "floor positive" case, and the floored idfs.
func TestBM25ReferenceValues(t *testing.T) {
	docs := [][]string{
		strings.Fields("the cat sat on the mat"), strings.Fields("the dog sat on the log"),
		strings.Fields("the cat chased the dog"), strings.Fields("a bird sang"),
	}
	m := NewOkapi(docs)
	idfs := map[string]float64{"the": 0.09628384777127313, "cat": 0, "sat": 0, "mat": 0.8472978603872037, "nothere": 0}
	for w, want := range idfs {
		if got := m.IDF(w); math.Abs(got-want) > 1e-12 {
			t.Errorf("idf(%q) = %.17g, want %.17g", w, got, want)
		}
	}
	cases := map[string][]float64{
		"the cat":     {0.1292400641225143, 0.1292400641225143, 0.13754835395896162, 0},
		"cat sat mat": {0.777337486593765, 0, 0, 0},
		"bird bird":   {0, 0, 0, 2.066580147285863},
	}
	for q, want := range cases {
		got := m.Scores(strings.Fields(q))
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("query %q doc %d: %.17g, want %.17g", q, i, got[i], want[i])
			}
		}
	}
	// Negative floor: corpus {a b, a b, a c}; idf(a) = ln(0.5/3.5),
	// idf(b) = ln(1.5/2.5), idf(c) = ln(2.5/1.5); mean −0.6486367163517711,
	// floor −0.16215917908794278 for a and b.
	neg := NewOkapi([][]string{{"a", "b"}, {"a", "b"}, {"a", "c"}})
	for w, want := range map[string]float64{"a": -0.16215917908794278, "b": -0.16215917908794278, "c": 0.5108256237659907} {
		if got := neg.IDF(w); math.Abs(got-want) > 1e-12 {
			t.Errorf("negative floor: idf(%q) = %.17g, want %.17g", w, got, want)
		}
	}
}

func TestBM25Degenerate(t *testing.T) {
	if got := NewOkapi(nil).Scores([]string{"x"}); len(got) != 0 {
		t.Errorf("empty corpus: %v", got)
	}
	got := NewOkapi([][]string{{}, {}}).Scores([]string{"x"})
	if !reflect.DeepEqual(got, []float64{0, 0}) {
		t.Errorf("empty documents: %v", got)
	}
}

func TestTopK(t *testing.T) {
	tests := []struct {
		scores []float64
		k      int
		want   []int
	}{
		{[]float64{0.1, 0.5, 0.3}, 2, []int{1, 2}},
		{[]float64{0.1, 0.5, 0.3}, 5, []int{1, 2, 0}},
		{[]float64{1, 2, 2, 1, 2}, 4, []int{1, 2, 4, 0}}, // ties keep index order
		{[]float64{0, 0, 0}, 2, []int{0, 1}},
		{[]float64{-1, 0}, 1, []int{1}},
		{[]float64{3}, 0, []int{}},
	}
	for _, tt := range tests {
		got := TopK(tt.scores, tt.k)
		if len(got) == 0 && len(tt.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("TopK(%v, %d) = %v, want %v", tt.scores, tt.k, got, tt.want)
		}
	}
}

// TestTopKAgainstSort compares TopK with a stable sort of all indices on
// random scores with many ties, for small and large k.
func TestTopKAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		n := r.IntN(120)
		scores := make([]float64, n)
		for i := range scores {
			scores[i] = float64(r.IntN(6)) / 2
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
		for _, k := range []int{0, 1, 3, 5, 33, 100, 200} {
			want := idx[:min(k, n)]
			got := TopK(scores, k)
			if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("trial %d, n %d, k %d: %v, want %v", trial, n, k, got, want)
			}
		}
	}
}
