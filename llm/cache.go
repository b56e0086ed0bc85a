package llm

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the sqlite3 driver
)

// cache is a persistent store of answers: table answers(key, model,
// request, response), key = SHA-256 of the request body, which holds the
// model, every message and every parameter. The raw response body is kept,
// so that a later version of the parsing code reads old answers afresh.
type cache struct {
	path string
	db   *sql.DB
}

const cacheSchema = `CREATE TABLE IF NOT EXISTS answers (
	key TEXT PRIMARY KEY,
	model TEXT NOT NULL,
	request TEXT NOT NULL,
	response BLOB NOT NULL,
	created TEXT NOT NULL
)`

func openCache(path string) (*cache, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("llm cache %s: %w", path, err)
		}
	}
	// WAL lets several processes share the file; the busy timeout makes a
	// writer wait for another instead of failing.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_journal_mode=WAL&_busy_timeout=30000&_synchronous=NORMAL"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("llm cache %s: %w", path, err)
	}
	// One connection: SQLite serializes writers anyway, and this keeps the
	// goroutines of one process from tripping over each other's locks.
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(cacheSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("llm cache %s: %w", path, err)
	}
	return &cache{path: path, db: db}, nil
}

func (c *cache) get(ctx context.Context, key string) ([]byte, bool, error) {
	var raw []byte
	err := c.db.QueryRowContext(ctx, `SELECT response FROM answers WHERE key = ?`, key).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("llm cache %s: %w", c.path, err)
	}
	return raw, true, nil
}

func (c *cache) put(ctx context.Context, key, model string, request, response []byte) error {
	_, err := c.db.ExecContext(ctx,
		`INSERT OR REPLACE INTO answers (key, model, request, response, created) VALUES (?, ?, ?, ?, ?)`,
		key, model, string(request), response, time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return fmt.Errorf("llm cache %s: %w", c.path, err)
	}
	return nil
}

func (c *cache) close() error { return c.db.Close() }
