// Package retrieve finds evidence passages (contexts) for atoms in a
// knowledge source.
//
// The sources: a knowledge base in FActScore's SQLite format (DocDB),
// searched as FActScore does (exact title lookup of the topic, then BM25
// over that document's passages; BM25Retriever); Wikipedia through the live
// MediaWiki API, as FactReasoner does (Wikipedia); Google results through
// the Serper API, as FactReasoner's web retrieval (Serper); and a
// self-hosted SearXNG metasearch instance (SearXNG). FetchPages replaces a
// search result's snippet by the main text of its page (PageFetcher), and
// Multi merges several sources. Cache keeps the answers of any source in an
// SQLite file. Build writes a DocDB from the user's own documents, split
// into passages of at most 256 RoBERTa tokens. Fill puts retrieved passages
// into a record as contexts.
package retrieve

import (
	"context"
	"net/url"
)

// Passage is one retrieved piece of evidence.
type Passage struct {
	Title   string `json:"title"`
	Text    string `json:"text"`
	Snippet string `json:"snippet,omitempty"`
	Link    string `json:"link,omitempty"`
	// Source names the knowledge source ("db", "wikipedia", "serper",
	// "searxng"); Multi sets it when the source did not.
	Source string `json:"source,omitempty"`
	// Prior, when set, is the prior of the context the passage becomes
	// (SourcePriors).
	Prior *float64 `json:"prior,omitempty"`

	// transient marks a passage that is worse than it should be for a
	// reason that may pass (a page that timed out fell back to its
	// snippet): the answer it belongs to is not cached.
	transient bool
}

// Retriever returns up to k passages for an atom about a topic, best first.
// The atom is the claim's text; each source forms its own search query from
// it (FActScore's knowledge base: topic + " " + atom; Wikipedia: the atom).
//
// Identify says what the retriever is, with every setting that changes
// what it finds, as libDAI's identify() says what a solver is: a knowledge
// base by its content (not its path), a web source by its kind and its
// endpoint's host, its query; "wikipedia[host=en.wikipedia.org,…]". A run's
// output lines record it (result.Run.Sources), so that a resumed run or a
// merge refuses lines retrieved from other evidence. Unlike the Source
// names of the retrieval cache, an identity says nothing of where a file
// is or when it was written, and nothing secret.
type Retriever interface {
	Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error)
	Identify() string
}

// hostOf is the host (and port) of an endpoint URL, for identities: the
// path, query and credentials are left out.
func hostOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "?"
	}
	return u.Host
}
