package retrieve

import (
	"context"
	"fmt"
	"github.com/factreasoner/factreasoner-go/bm25"
	"strings"
	"sync"

	"github.com/factreasoner/factreasoner-go/internal/pystr"
)

// BM25Retriever is FActScore's retrieval: it looks up the document whose
// title is the topic in a knowledge base and ranks that document's passages
// with BM25 (rank_bm25's BM25Okapi) for the query topic + " " + atom, both
// split on whitespace, case kept.
type BM25Retriever struct {
	db *DocDB

	// The last few topics' indexes: records are usually processed in
	// order, each with many atoms about one topic.
	mu      sync.Mutex
	indexes map[string]*topicIndex
	order   []string // topics in indexes, oldest first
}

// topicIndexes is how many topics' BM25 indexes a BM25Retriever keeps.
const topicIndexes = 8

type topicIndex struct {
	passages []string
	bm25     *bm25.Index
}

// NewBM25Retriever returns a retriever over db.
func NewBM25Retriever(db *DocDB) *BM25Retriever {
	return &BM25Retriever{db: db, indexes: make(map[string]*topicIndex)}
}

// Identify says what the retriever is: the knowledge base's topic lookup,
// by its content (DocDB.Content).
func (r *BM25Retriever) Identify() string { return "db[kb=" + r.db.contentName() + ",scope=topic]" }

// Source names the knowledge base for caches (see DocDB.Fingerprint).
func (r *BM25Retriever) Source() string { return "bm25:" + r.db.Fingerprint() }

// Retrieve returns the k passages of the topic's document that best match
// topic + " " + atom, best first (all of them when the document has fewer).
// The passages' title is the topic. A topic that is not a title of the
// knowledge base gives an error wrapping ErrTopicNotFound; an empty topic,
// one wrapping ErrNoTopic.
func (r *BM25Retriever) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	if strings.TrimSpace(topic) == "" {
		return nil, ErrNoTopic
	}
	idx, err := r.index(ctx, topic)
	if err != nil {
		return nil, err
	}
	query := Query(topic, atom)
	best := bm25.TopK(idx.bm25.Scores(pystr.Fields(query)), k)
	out := make([]Passage, len(best))
	for i, j := range best {
		out[i] = Passage{Title: topic, Text: idx.passages[j], Source: "db"}
	}
	return out, nil
}

// Query is FActScore's retrieval query: the topic, a space, and the atom
// without surrounding whitespace.
func Query(topic, atom string) string { return topic + " " + pystr.Strip(atom) }

func (r *BM25Retriever) index(ctx context.Context, topic string) (*topicIndex, error) {
	r.mu.Lock()
	idx, ok := r.indexes[topic]
	r.mu.Unlock()
	if ok {
		return idx, nil
	}
	passages, err := r.db.Passages(ctx, topic)
	if err != nil {
		return nil, err
	}
	docs := make([][]string, len(passages))
	for i, p := range passages {
		docs[i] = pystr.Fields(p)
	}
	idx = &topicIndex{passages: passages, bm25: bm25.NewOkapi(docs)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.indexes[topic]; !ok {
		if len(r.order) == topicIndexes {
			delete(r.indexes, r.order[0])
			r.order = r.order[1:]
		}
		r.indexes[topic] = idx
		r.order = append(r.order, topic)
	}
	return idx, nil
}

// String describes the retriever for messages.
func (r *BM25Retriever) String() string {
	return fmt.Sprintf("BM25 over %s", r.db.Path())
}
