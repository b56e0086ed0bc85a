// Package corpusgen makes synthetic knowledge-base passages and queries
// for the benchmarks of the corpus-wide index (scripts/kbbench,
// BENCHMARKS.md): words drawn from a Zipf distribution over a vocabulary
// of a million words, so that, as in real text, a few words are in most
// passages, most words in few, and the vocabulary keeps growing with the
// corpus. A query is eight words of one passage and two of the commonest
// words, as an atom shares a few words with its evidence and many with
// everything.
package corpusgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Vocabulary is the number of distinct words the passages draw from.
const Vocabulary = 1_000_000

// Corpus makes passages and queries deterministically from a seed.
type Corpus struct {
	r *rand.Rand
	z *rand.Zipf
	// MinWords and MaxWords bound a passage's length.
	MinWords, MaxWords int
}

// New returns a generator; the same seed gives the same passages.
func New(seed uint64) *Corpus {
	r := rand.New(rand.NewPCG(seed, 0xc0ffee))
	return &Corpus{r: r, z: rand.NewZipf(r, 1.07, 2, Vocabulary-1), MinWords: 60, MaxWords: 140}
}

// Passage returns the next passage.
func (c *Corpus) Passage() string {
	var b strings.Builder
	n := c.MinWords + c.r.IntN(c.MaxWords-c.MinWords+1)
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "w%d", c.z.Uint64())
	}
	return b.String()
}

// Query returns a query for passage: eight of its words, at random, and
// two of the ten commonest words of the vocabulary.
func (c *Corpus) Query(passage string) string {
	words := strings.Fields(passage)
	q := make([]string, 0, 10)
	for range 8 {
		q = append(q, words[c.r.IntN(len(words))])
	}
	for range 2 {
		q = append(q, fmt.Sprintf("w%d", c.r.IntN(10)))
	}
	return strings.Join(q, " ")
}
