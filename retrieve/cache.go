package retrieve

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/factreasoner/factreasoner-go/internal/jsonpath"
	"github.com/factreasoner/factreasoner-go/sqlcache"
)

// Cache is a persistent store of retrieval results (a sqlcache file of
// kind Retrieval). A result is keyed by its source, k, topic and atom: the
// information in FActScore's key (topic + "#" + query) plus the source and
// k, combined so that no two keys can run together.
//
// Only successful retrievals are stored; an error (a missing topic, a
// network failure) is retried next time, and so is an answer with a
// passage that fell back for a passing reason (a page that timed out).
type Cache struct {
	store *sqlcache.Cache
}

// OpenCache opens or creates a cache file. A file that is not a retrieval
// cache (a knowledge base given by mistake, say) gives an error naming it
// and is left untouched.
func OpenCache(path string) (*Cache, error) {
	store, err := sqlcache.Open(path, sqlcache.Retrieval)
	if err != nil {
		return nil, err
	}
	return &Cache{store: store}, nil
}

// Close closes the cache file.
func (c *Cache) Close() error { return c.store.Close() }

// Wrap returns a retriever that answers from the cache when it can and
// otherwise asks r and stores its answer. source names r's knowledge
// source (BM25Retriever.Source, Wikipedia.Source): results of different
// sources never mix.
func (c *Cache) Wrap(source string, r Retriever) Retriever {
	return &cached{cache: c, source: source, next: r}
}

type cached struct {
	cache  *Cache
	source string
	next   Retriever
}

// Identify is the cached source's: the cache changes how results are
// found, not which.
func (c *cached) Identify() string { return c.next.Identify() }

func (c *cached) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	key := sqlcache.Key(c.source, strconv.Itoa(k), topic, atom)
	data, ok, err := c.cache.store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if ok {
		var ps []Passage
		if err := json.Unmarshal(data, &ps); err != nil {
			return nil, fmt.Errorf("retrieval cache %s: corrupt entry: %w", c.cache.store.Path(), jsonpath.Error(data, err))
		}
		return ps, nil
	}
	ps, err := c.next.Retrieve(ctx, topic, atom, k)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.transient {
			return ps, nil // worth asking again next time
		}
	}
	if ps == nil {
		ps = []Passage{} // store "[]", not "null"
	}
	enc, err := json.Marshal(ps)
	if err != nil {
		return nil, err
	}
	if err := c.cache.store.Put(ctx, key, enc); err != nil {
		return nil, err
	}
	return ps, nil
}
