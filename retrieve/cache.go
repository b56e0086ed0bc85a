package retrieve

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Cache is a persistent store of retrieval results in an SQLite file. A
// result is keyed by its source, k, topic and atom: the information in
// FActScore's key (topic + "#" + query) plus the source and k, kept in
// separate columns so that no two keys can run together.
//
// Only successful retrievals are stored; an error (a missing topic, a
// network failure) is retried next time.
type Cache struct {
	db   *sql.DB
	path string
}

// OpenCache opens or creates a cache file.
func OpenCache(path string) (*Cache, error) {
	db, err := sql.Open("sqlite3", "file:"+escapePath(path)+"?_busy_timeout=10000&_journal_mode=WAL")
	if err != nil {
		return nil, fmt.Errorf("retrieval cache %s: %w", path, err)
	}
	_, err = db.Exec(`CREATE TABLE IF NOT EXISTS retrievals (
		source   TEXT    NOT NULL,
		k        INTEGER NOT NULL,
		topic    TEXT    NOT NULL,
		atom     TEXT    NOT NULL,
		passages TEXT    NOT NULL,
		PRIMARY KEY (source, k, topic, atom))`)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("retrieval cache %s: %w", path, err)
	}
	return &Cache{db: db, path: path}, nil
}

// Close closes the cache file.
func (c *Cache) Close() error { return c.db.Close() }

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

func (c *cached) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	var data string
	err := c.cache.db.QueryRowContext(ctx,
		`SELECT passages FROM retrievals WHERE source = ? AND k = ? AND topic = ? AND atom = ?`,
		c.source, k, topic, atom).Scan(&data)
	switch {
	case err == nil:
		var ps []Passage
		if err := json.Unmarshal([]byte(data), &ps); err != nil {
			return nil, fmt.Errorf("retrieval cache %s: corrupt entry: %w", c.cache.path, err)
		}
		return ps, nil
	case !errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("retrieval cache %s: %w", c.cache.path, err)
	}
	ps, err := c.next.Retrieve(ctx, topic, atom, k)
	if err != nil {
		return nil, err
	}
	if ps == nil {
		ps = []Passage{} // store "[]", not "null"
	}
	enc, err := json.Marshal(ps)
	if err != nil {
		return nil, err
	}
	_, err = c.cache.db.ExecContext(ctx,
		`INSERT OR REPLACE INTO retrievals (source, k, topic, atom, passages) VALUES (?, ?, ?, ?, ?)`,
		c.source, k, topic, atom, string(enc))
	if err != nil {
		return nil, fmt.Errorf("retrieval cache %s: %w", c.cache.path, err)
	}
	return ps, nil
}
