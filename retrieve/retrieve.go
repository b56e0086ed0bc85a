// Package retrieve finds evidence passages (contexts) for atoms in a
// knowledge source.
package retrieve

import "context"

// Passage is one retrieved piece of evidence.
type Passage struct {
	Title   string
	Text    string
	Snippet string
	Link    string
}

// Retriever returns up to k passages for a query about a topic, best first.
type Retriever interface {
	Retrieve(ctx context.Context, topic, query string, k int) ([]Passage, error)
}
