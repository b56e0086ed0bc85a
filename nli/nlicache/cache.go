// Package nlicache keeps NLI answers in a persistent SQLite store
// (package sqlcache) around any text backend, so that a later run asks
// its model only about pairs it has not seen.
package nlicache

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/sqlcache"
)

// Cache is a persistent store of NLI answers (a sqlcache file of kind NLI)
// wrapped around a text backend. It is keyed by the inner classifier's
// Identity (backend and model) and the premise and hypothesis texts; the
// pair ids play no part.
//
// Classify looks every pair up, sends the misses (each distinct text pair
// once) to the inner classifier in a single call, stores its answers in one
// transaction and returns the results in the order of the pairs. A Cache is
// safe for concurrent use; two concurrent calls that miss the same pair may
// both ask the inner classifier, and the answers agree for a deterministic
// backend. Several processes may share the file.
type Cache struct {
	inner nli.Classifier
	id    nli.Identity
	// revision is the inner classifier's Revision, "" if it has none.
	revision string
	store    *sqlcache.Cache
}

// Open opens (creating it if needed) the cache file at path around
// inner. The identity of the cache is that of inner. A file that is not an
// NLI cache gives an error naming it and is left untouched (see package
// sqlcache).
func Open(path string, inner nli.Classifier) (*Cache, error) {
	store, err := sqlcache.Open(path, sqlcache.NLI)
	if err != nil {
		return nil, err
	}
	c := &Cache{inner: inner, id: inner.Identity(), store: store}
	if r, ok := inner.(Revisioned); ok {
		c.revision = r.Revision()
	}
	return c, nil
}

// Identity is the identity of the inner classifier.
func (c *Cache) Identity() nli.Identity { return c.id }

// Close closes the cache file. The inner classifier is not closed.
func (c *Cache) Close() error { return c.store.Close() }

// Classify answers from the cache where it can and asks the inner
// classifier, once, for the rest.
func (c *Cache) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	keys := make([][]byte, len(pairs))
	for i, p := range pairs {
		keys[i] = c.key(p)
	}
	stored, err := c.store.GetMany(ctx, keys)
	if err != nil {
		return nil, err
	}
	found := make(map[string]nli.Result, len(keys))
	for k, v := range stored {
		r, err := decodeResult(v)
		if err != nil {
			return nil, fmt.Errorf("nli cache %s: corrupt entry %x: %w", c.store.Path(), k, err)
		}
		found[k] = r
	}
	var (
		miss    []nli.Pair
		entries []sqlcache.Entry
	)
	queued := make(map[string]bool)
	for i, k := range keys {
		if _, ok := found[string(k)]; !ok && !queued[string(k)] {
			queued[string(k)] = true
			miss = append(miss, pairs[i])
			entries = append(entries, sqlcache.Entry{Key: k})
		}
	}
	if len(miss) > 0 {
		res, err := c.inner.Classify(ctx, miss)
		if err != nil {
			return nil, err
		}
		if len(res) != len(miss) {
			return nil, fmt.Errorf("nli cache: %s returned %d results for %d pairs", c.id, len(res), len(miss))
		}
		for i, r := range res {
			if err := checkResult(r); err != nil {
				return nil, fmt.Errorf("nli cache: %s, pair %d (%s → %s): %w", c.id, i, miss[i].PremiseID, miss[i].HypothesisID, err)
			}
			found[string(entries[i].Key)] = r
			if entries[i].Value, err = json.Marshal(storedResult{int(r.Label), r.Probability, r.Distribution}); err != nil {
				return nil, err
			}
		}
		if err := c.store.PutMany(ctx, entries); err != nil {
			return nil, err
		}
	}
	out := make([]nli.Result, len(pairs))
	for i, k := range keys {
		r := found[string(k)]
		// Each result gets its own Distribution, so that callers may
		// modify what they get back.
		if r.Distribution != nil {
			r.Distribution = append([]float64(nil), r.Distribution...)
		}
		out[i] = r
	}
	return out, nil
}

// storedResult is an answer as the cache stores it, in JSON (whose
// float64s round-trip exactly).
type storedResult struct {
	Label        int       `json:"label"`
	Probability  float64   `json:"probability"`
	Distribution []float64 `json:"distribution,omitempty"`
}

func decodeResult(v []byte) (nli.Result, error) {
	var s storedResult
	if err := json.Unmarshal(v, &s); err != nil {
		return nli.Result{}, err
	}
	if s.Label < 0 || s.Label >= numLabels {
		return nli.Result{}, fmt.Errorf("invalid label %d", s.Label)
	}
	r := nli.Result{Label: nli.Label(s.Label), Probability: s.Probability, Distribution: s.Distribution}
	return r, checkResult(r)
}

// checkResult refuses answers that cannot be stored faithfully (JSON has
// no NaN) or that no caller could use.
func checkResult(r nli.Result) error {
	if int(r.Label) >= numLabels {
		return fmt.Errorf("invalid label %d", r.Label)
	}
	if math.IsNaN(r.Probability) || r.Probability < 0 || r.Probability > 1 {
		return fmt.Errorf("probability %v is not in [0, 1]", r.Probability)
	}
	for _, v := range r.Distribution {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return fmt.Errorf("distribution %v has a value outside [0, 1]", r.Distribution)
		}
	}
	return nil
}

// key is sqlcache.Key of backend, model, premise and hypothesis. Changing
// it orphans every existing cache.
func (c *Cache) key(p nli.Pair) []byte {
	if c.revision != "" {
		return sqlcache.Key(c.id.Backend, c.id.Model, c.revision, p.Premise, p.Hypothesis)
	}
	return sqlcache.Key(c.id.Backend, c.id.Model, p.Premise, p.Hypothesis)
}

// Revisioned is a classifier whose answers for one model changed with a
// revision of this project's code (how a cross-encoder tokenizes and
// chunks): its Revision joins the cache key, so that answers stored by an
// earlier revision are not reused. A classifier without one keeps its
// keys.
type Revisioned interface {
	Revision() string
}

// numLabels is the number of NLI labels (nli.Neutral, nli.Entailment,
// nli.Contradiction).
const numLabels = int(nli.Contradiction) + 1
