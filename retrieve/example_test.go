package retrieve_test

import (
	"fmt"
	"strings"

	"github.com/factreasoner/factreasoner-go/bm25"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

// FActScore ranks a topic's passages with BM25 Okapi for the query
// topic + " " + atom.
func ExampleQuery() {
	passages := []string{
		"Ada Lovelace was an English mathematician.",
		"She was born on 10 December 1815 in London.",
		"She died on 27 November 1852.",
	}
	docs := make([][]string, len(passages))
	for i, p := range passages {
		docs[i] = strings.Fields(p)
	}
	m := bm25.NewOkapi(docs)
	// FActScore's query: topic + " " + atom, split on whitespace.
	query := strings.Fields(retrieve.Query("Ada Lovelace", "Ada Lovelace was born in 1815."))
	scores := m.Scores(query)
	for _, i := range bm25.TopK(scores, 2) {
		fmt.Printf("%.4f %s\n", scores[i], passages[i])
	}
	// Output:
	// 2.2747 Ada Lovelace was an English mathematician.
	// 0.9807 She was born on 10 December 1815 in London.
}

func ExampleSplit() {
	// Passages of at most 12 words (WordTokenizer counts words), filled
	// with whole sentences.
	pieces := []string{
		"Ada Lovelace was an English mathematician. She was born in London in 1815.",
		"She died in 1852.",
	}
	passages, _ := retrieve.Split(pieces, retrieve.WordTokenizer{}, 12)
	for _, p := range passages {
		fmt.Printf("%q\n", p)
	}
	// Output:
	// "Ada Lovelace was an English mathematician."
	// "She was born in London in 1815.\nShe died in 1852."
}
