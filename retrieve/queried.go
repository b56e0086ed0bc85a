package retrieve

import (
	"context"
	"fmt"
)

// QueryWriter writes the search queries for an atom of a response
// (querybuild.LLM: FactReasoner's QueryBuilder, SAFE's query step).
type QueryWriter interface {
	Queries(ctx context.Context, atom, response string) ([]string, error)
	// Identify says what writes the queries ("llm:MODEL"), as a
	// Retriever's Identify does.
	Identify() string
}

// Queried retrieves for the queries a QueryWriter writes instead of the
// atom's text: each query goes to Next (every source of a Multi, each
// forming its own query from it as from an atom: the db source's topic +
// " " + query, the web sources' query), and the passages are merged rank
// by rank (each query's best, then each query's second, ...) without
// duplicates (Multi's rule), as many as the query that found the most
// (k for one source; a Multi gives k for each of its sources).
type Queried struct {
	Next     Retriever
	Writer   QueryWriter
	Response string // the response the atoms were taken from
}

// Identify says what the source is: Next's identity, searched with the
// queries of the writer.
func (q *Queried) Identify() string { return q.Next.Identify() + "; queries=" + q.Writer.Identify() }

// Retrieve implements Retriever.
func (q *Queried) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	queries, err := q.Writer.Queries(ctx, atom, q.Response)
	if err != nil {
		return nil, fmt.Errorf("writing search queries: %w", err)
	}
	results := make([][]Passage, len(queries))
	for i, query := range queries {
		if results[i], err = q.Next.Retrieve(ctx, topic, query, k); err != nil {
			return nil, err
		}
	}
	// As many passages as one query finds (k per source of a Multi), so
	// that the queries change which passages an atom gets, not how many.
	limit := 0
	for _, ps := range results {
		limit = max(limit, len(ps))
	}
	var out []Passage
	seen := newSeen()
	for rank := 0; len(out) < limit; rank++ {
		more := false
		for _, ps := range results {
			if rank >= len(ps) {
				continue
			}
			more = true
			if seen.add(ps[rank]) && len(out) < limit {
				out = append(out, ps[rank])
			}
		}
		if !more {
			break
		}
	}
	return out, nil
}
