// Package retrieve finds evidence passages (contexts) for atoms in a
// knowledge source.
//
// Two sources are provided: a knowledge base in FActScore's SQLite format
// (DocDB), searched as FActScore does (exact title lookup of the topic, then
// BM25 over that document's passages; BM25Retriever), and Wikipedia through
// the live MediaWiki API, as FactReasoner does (Wikipedia). Cache keeps the
// answers of any source in an SQLite file. Build writes a DocDB from the
// user's own documents, split into passages of at most 256 RoBERTa tokens.
// Fill puts retrieved passages into a record as contexts.
package retrieve

import "context"

// Passage is one retrieved piece of evidence.
type Passage struct {
	Title   string `json:"title"`
	Text    string `json:"text"`
	Snippet string `json:"snippet,omitempty"`
	Link    string `json:"link,omitempty"`
}

// Retriever returns up to k passages for an atom about a topic, best first.
// The atom is the claim's text; each source forms its own search query from
// it (FActScore's knowledge base: topic + " " + atom; Wikipedia: the atom).
type Retriever interface {
	Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error)
}
