package graph

import (
	"math"
	"sort"

	"github.com/factreasoner/factreasoner-go/bm25"
	"github.com/factreasoner/factreasoner-go/instance"
)

// DefaultNearDuplicates is the similarity from which FactReasoner's fast
// preset collapses two contexts into one (web results are full of mirrored
// pages).
const DefaultNearDuplicates = 0.92

// NearDuplicates returns a copy of in in which every context whose NLI
// text is a near-duplicate of an earlier one's reads as that one: the
// cosine similarity of the two texts' word counts (bm25.Words) is at
// least threshold. Such a context takes the earlier context's text and
// snippet, so that SelectNodes merges the two in FR2 and FR3 as it merges
// identical texts (the first kept, the other's id an alias of it, its
// own prior dropped), and FR1 asks the earlier text in its place. A
// context is compared with the contexts kept before it, in file order,
// and follows the first it is near. It returns the number of contexts
// that read as another; threshold ≤ 0 returns in itself.
func NearDuplicates(in *instance.Instance, threshold float64) (*instance.Instance, int) {
	if threshold <= 0 || len(in.Contexts) < 2 {
		return in, 0
	}
	ids := map[string]int32{}
	type kept struct {
		index int
		vec   []termCount
		norm  float64
	}
	var keep []kept
	var out *instance.Instance
	n := 0
	for i, c := range in.Contexts {
		text := c.NLIText()
		if text == "" {
			continue
		}
		vec, norm := wordVector(text, ids)
		near := -1
		for _, k := range keep {
			if dot(vec, k.vec) >= threshold*norm*k.norm {
				near = k.index
				break
			}
		}
		if near < 0 {
			keep = append(keep, kept{i, vec, norm})
			continue
		}
		if out == nil {
			cp := *in
			cp.Contexts = append([]instance.Context(nil), in.Contexts...)
			out = &cp
		}
		first := in.Contexts[near]
		out.Contexts[i].Text, out.Contexts[i].Snippet = first.Text, first.Snippet
		n++
	}
	if out == nil {
		return in, 0
	}
	return out, n
}

type termCount struct {
	term  int32
	count float64
}

// wordVector is text's word counts, by term id (ids assigns them), sorted
// by id, and its Euclidean norm.
func wordVector(text string, ids map[string]int32) ([]termCount, float64) {
	counts := map[int32]float64{}
	for _, w := range bm25.Words(text) {
		id, ok := ids[w]
		if !ok {
			id = int32(len(ids))
			ids[w] = id
		}
		counts[id]++
	}
	vec := make([]termCount, 0, len(counts))
	norm := 0.0
	for t, c := range counts {
		vec = append(vec, termCount{t, c})
	}
	sort.Slice(vec, func(a, b int) bool { return vec[a].term < vec[b].term })
	for _, tc := range vec {
		norm += tc.count * tc.count
	}
	return vec, math.Sqrt(norm)
}

func dot(a, b []termCount) float64 {
	s := 0.0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].term == b[j].term:
			s += a[i].count * b[j].count
			i++
			j++
		case a[i].term < b[j].term:
			i++
		default:
			j++
		}
	}
	return s
}
