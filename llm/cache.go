package llm

import (
	"context"

	"github.com/factreasoner/factreasoner-go/sqlcache"
)

// cache is the persistent store of answers: a sqlcache file of kind LLM,
// keyed by the SHA-256 of the request body, which holds the model, every
// message and every parameter. The raw response body is kept, so that a
// later version of the parsing code reads old answers afresh.
type cache struct {
	store *sqlcache.Cache
}

func openCache(path string) (*cache, error) {
	store, err := sqlcache.Open(path, sqlcache.LLM)
	if err != nil {
		return nil, err
	}
	return &cache{store: store}, nil
}

func (c *cache) get(ctx context.Context, key string) ([]byte, bool, error) {
	return c.store.Get(ctx, []byte(key))
}

// put stores an answer. The model and request are in the key already.
func (c *cache) put(ctx context.Context, key, model string, request, response []byte) error {
	return c.store.Put(ctx, []byte(key), response)
}

func (c *cache) close() error { return c.store.Close() }
