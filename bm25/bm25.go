// Package bm25 ranks tokenized documents for a query with BM25: Okapi
// with the rank_bm25 library's semantics (FActScore's retrieval), or with
// Lucene's idf. Retrieval, pair pruning and the evidence sentences of a
// relation rank with it; it depends on nothing of this module, so that
// presentation code (the report) can rank without the retrieval stack.
package bm25

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// BM25 parameters of FActScore's retrieval (rank_bm25's BM25Okapi defaults).
const (
	DefaultK1      = 1.5
	DefaultB       = 0.75
	DefaultEpsilon = 0.25
)

// Index is an Okapi BM25 index over a fixed corpus of tokenized documents,
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
type Index struct {
	k1, b    float64
	n        int            // number of documents
	docLen   []float64      // |d|
	avgdl    float64        // mean |d|
	terms    map[string]int // term -> id; ids in order of first appearance
	idf      []float64      // by term id, after the epsilon floor
	postings [][]posting    // by term id: the documents holding it, in order
}

type posting struct {
	doc  int32
	freq float64
}

// New indexes docs (each a list of tokens) with parameters k1, b and
// epsilon (DefaultK1, DefaultB and DefaultEpsilon for FActScore's setting).
func New(docs [][]string, k1, b, epsilon float64) *Index {
	m := &Index{
		k1:     k1,
		b:      b,
		n:      len(docs),
		docLen: make([]float64, len(docs)),
		terms:  make(map[string]int),
	}
	total := 0
	// count[id] is the term's count in the current document; touched lists
	// the ids counted, in order of first appearance.
	var count []int32
	var touched []int
	for i, doc := range docs {
		m.docLen[i] = float64(len(doc))
		total += len(doc)
		for _, t := range doc {
			id, ok := m.terms[t]
			if !ok {
				id = len(m.postings)
				m.terms[t] = id
				m.postings = append(m.postings, nil)
				count = append(count, 0)
			}
			if count[id] == 0 {
				touched = append(touched, id)
			}
			count[id]++
		}
		for _, id := range touched {
			m.postings[id] = append(m.postings[id], posting{int32(i), float64(count[id])})
			count[id] = 0
		}
		touched = touched[:0]
	}
	if m.n == 0 {
		return m
	}
	m.avgdl = float64(total) / float64(m.n)
	// Sum the idfs in order of first appearance, the order in which
	// rank_bm25 sums them, so that the mean, and with it the floor, is the
	// same to the last bit.
	m.idf = make([]float64, len(m.postings))
	var sum float64
	var negative []int
	for id, ps := range m.postings {
		df := float64(len(ps))
		idf := math.Log(float64(m.n)-df+0.5) - math.Log(df+0.5)
		m.idf[id] = idf
		sum += idf
		if idf < 0 {
			negative = append(negative, id)
		}
	}
	if len(m.idf) > 0 {
		floor := epsilon * sum / float64(len(m.idf))
		for _, id := range negative {
			m.idf[id] = floor
		}
	}
	return m
}

// NewOkapi indexes docs with FActScore's parameters.
func NewOkapi(docs [][]string) *Index {
	return New(docs, DefaultK1, DefaultB, DefaultEpsilon)
}

// Len is the number of documents.
func (m *Index) Len() int { return m.n }

// IDF returns the (floored) idf of a term, and 0 for a term not in the
// corpus.
func (m *Index) IDF(term string) float64 {
	if id, ok := m.terms[term]; ok {
		return m.idf[id]
	}
	return 0
}

// Scores returns the score of every document for a tokenized query.
func (m *Index) Scores(query []string) []float64 {
	scores := make([]float64, m.n)
	if m.avgdl == 0 {
		// Only empty documents: nothing can match (rank_bm25 would divide
		// by zero here).
		return scores
	}
	for _, q := range query {
		id, ok := m.terms[q]
		if !ok {
			continue // idf 0: adds nothing
		}
		idf := m.idf[id]
		for _, p := range m.postings[id] {
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
	k = max(0, min(k, len(scores)))
	if k > 32 {
		// Insertion below is O(n·k); sort instead.
		idx := make([]int, len(scores))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
		return idx[:k]
	}
	top := make([]int, 0, k+1) // indices, best first
	for i, s := range scores {
		if len(top) == k && (k == 0 || s <= scores[top[k-1]]) {
			continue // not better than the k-th: an equal score came first
		}
		// Insert after every kept score >= s (stable).
		j := len(top)
		for j > 0 && scores[top[j-1]] < s {
			j--
		}
		top = append(top, 0)
		copy(top[j+1:], top[j:])
		top[j] = i
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// NewLucene indexes docs like New but with the idf of Lucene and
// Elasticsearch, ln(1 + (N − n(t) + 0.5)/(n(t) + 0.5)), which is never
// negative: a term found in most documents adds little instead of
// lowering their scores below those of documents without it (with
// rank_bm25's floor a mean idf below zero, as in a page whose pieces share
// most of their words, ranks the pieces that match nothing first).
func NewLucene(docs [][]string, k1, b float64) *Index {
	m := New(docs, k1, b, 0)
	for id, ps := range m.postings {
		df := float64(len(ps))
		m.idf[id] = math.Log(1 + (float64(m.n)-df+0.5)/(df+0.5))
	}
	return m
}

// Words splits text into the words pair pruning, evidence sentences and
// the corpus-wide index of a knowledge base compare: maximal runs of
// letters and digits, lower-cased. FActScore's own retrieval splits on
// whitespace with case kept instead (its queries and passages share one
// form); text from elsewhere, with punctuation attached to words and
// sentences capitalized, matches only when split this way.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
