package retrieve

import (
	"math"
	"sort"
)

// BM25 parameters of FActScore's retrieval (rank_bm25's BM25Okapi defaults).
const (
	DefaultK1      = 1.5
	DefaultB       = 0.75
	DefaultEpsilon = 0.25
)

// BM25 is an Okapi BM25 index over a fixed corpus of tokenized documents,
// with the semantics of the rank_bm25 library's BM25Okapi, which FActScore
// uses:
//
//	idf(t)   = ln(N − n(t) + 0.5) − ln(n(t) + 0.5)
//	score(d) = Σ_{q in query} idf(q) · f(q,d)·(k1+1) / (f(q,d) + k1·(1 − b + b·|d|/avgdl))
//
// where N is the number of documents, n(t) the number of documents holding
// t, f(q,d) the count of q in d and avgdl the mean document length. A term
// that occurs in more than half of the documents has a negative idf; each
// such idf is replaced by epsilon times the mean idf of all the corpus's
// terms (taken before the replacement). Query terms are counted as often
// as they occur in the query; a term absent from the corpus adds nothing.
type BM25 struct {
	k1, b    float64
	n        int                  // number of documents
	docLen   []float64            // |d|
	avgdl    float64              // mean |d|
	idf      map[string]float64   // idf after the epsilon floor
	postings map[string][]posting // term -> documents holding it, in order
}

type posting struct {
	doc  int
	freq float64
}

// NewBM25 indexes docs (each a list of tokens) with parameters k1, b and
// epsilon (DefaultK1, DefaultB and DefaultEpsilon for FActScore's setting).
func NewBM25(docs [][]string, k1, b, epsilon float64) *BM25 {
	m := &BM25{
		k1:       k1,
		b:        b,
		n:        len(docs),
		docLen:   make([]float64, len(docs)),
		idf:      make(map[string]float64),
		postings: make(map[string][]posting),
	}
	total := 0
	// terms lists the vocabulary in order of first appearance, the order in
	// which rank_bm25 sums the idfs; summing in it makes the mean, and with
	// it the floor, the same to the last bit.
	var terms []string
	for i, doc := range docs {
		m.docLen[i] = float64(len(doc))
		total += len(doc)
		freq := make(map[string]int, len(doc))
		var order []string // this document's terms, first appearance first
		for _, t := range doc {
			if freq[t] == 0 {
				order = append(order, t)
			}
			freq[t]++
		}
		for _, t := range order {
			if _, seen := m.postings[t]; !seen {
				terms = append(terms, t)
			}
			m.postings[t] = append(m.postings[t], posting{i, float64(freq[t])})
		}
	}
	if m.n == 0 {
		return m
	}
	m.avgdl = float64(total) / float64(m.n)
	var sum float64
	var negative []string
	for _, t := range terms {
		df := float64(len(m.postings[t]))
		idf := math.Log(float64(m.n)-df+0.5) - math.Log(df+0.5)
		m.idf[t] = idf
		sum += idf
		if idf < 0 {
			negative = append(negative, t)
		}
	}
	if len(terms) > 0 {
		floor := epsilon * sum / float64(len(terms))
		for _, t := range negative {
			m.idf[t] = floor
		}
	}
	return m
}

// NewBM25Okapi indexes docs with FActScore's parameters.
func NewBM25Okapi(docs [][]string) *BM25 {
	return NewBM25(docs, DefaultK1, DefaultB, DefaultEpsilon)
}

// Len is the number of documents.
func (m *BM25) Len() int { return m.n }

// IDF returns the (floored) idf of a term, and 0 for a term not in the
// corpus.
func (m *BM25) IDF(term string) float64 { return m.idf[term] }

// Scores returns the score of every document for a tokenized query.
func (m *BM25) Scores(query []string) []float64 {
	scores := make([]float64, m.n)
	if m.avgdl == 0 {
		// Only empty documents: nothing can match (rank_bm25 would divide
		// by zero here).
		return scores
	}
	for _, q := range query {
		idf := m.idf[q]
		for _, p := range m.postings[q] {
			dl := m.docLen[p.doc]
			scores[p.doc] += idf * (p.freq * (m.k1 + 1) / (p.freq + m.k1*(1-m.b+m.b*dl/m.avgdl)))
		}
	}
	return scores
}

// TopK returns the indices of the k highest scores, best first. Equal
// scores keep index order, so the ranking is deterministic (rank_bm25's
// caller in FActScore uses numpy's argsort, which does not promise any
// order among ties).
func TopK(scores []float64, k int) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	if k < len(idx) {
		idx = idx[:max(k, 0)]
	}
	return idx
}
