package nli

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// Cache is a persistent store of NLI answers in an SQLite file, wrapped
// around a text backend. It is keyed by the inner classifier's Identity
// (backend and model) and the premise and hypothesis texts; the pair ids
// play no part. It is therefore for backends that answer from the texts
// (lexical, onnx, llm).
//
// Classify looks every pair up, sends the misses (each distinct text pair
// once) to the inner classifier in a single call, stores its answers in one
// transaction and returns the results in the order of the pairs. A Cache is
// safe for concurrent use; two concurrent calls that miss the same pair may
// both ask the inner classifier, and the answers agree for a deterministic
// backend. Several processes may share the file (SQLite's locking, with a
// busy timeout).
type Cache struct {
	inner Classifier
	id    Identity
	path  string
	db    *sql.DB
}

// cacheAppID marks a file as an NLI cache (SQLite's application_id header
// field), so that another program's SQLite database is refused instead of
// being written into.
const (
	cacheAppID   = 0x46524e4c // "FRNL"
	cacheVersion = 1          // user_version: the schema below
)

const cacheSchema = `CREATE TABLE IF NOT EXISTS nli (
	key          BLOB PRIMARY KEY, -- sha256 of backend, model, premise, hypothesis
	label        INTEGER NOT NULL,
	probability  REAL NOT NULL,
	distribution BLOB             -- float64s, little endian, indexed by Label; NULL if none
) WITHOUT ROWID`

// OpenCache opens (creating it if needed) the cache file at path around
// inner. The identity of the cache is that of inner. A file that is not an
// SQLite database, or is another program's, gives an error naming it.
func OpenCache(path string, inner Classifier) (*Cache, error) {
	// A file: URI lets any path through: go-sqlite3 would otherwise cut a
	// plain path at its first '?'.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_busy_timeout=10000&_txlock=immediate"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("nli cache %s: %w", path, err)
	}
	// One connection: SQLite serialises writers anyway, and one connection
	// keeps a process from locking itself out. Concurrent Classify calls
	// take turns on it only for lookups and stores, not while the inner
	// classifier works.
	db.SetMaxOpenConns(1)
	c := &Cache{inner: inner, id: inner.Identity(), path: path, db: db}
	if err := c.init(); err != nil {
		db.Close()
		return nil, fmt.Errorf("nli cache %s: %w", path, err)
	}
	return c, nil
}

func (c *Cache) init() error {
	var appID, version int64
	if err := c.db.QueryRow("PRAGMA application_id").Scan(&appID); err != nil {
		return err // "file is not a database" for a non-SQLite file
	}
	if err := c.db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	var tables int
	if err := c.db.QueryRow("SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
		return err
	}
	switch {
	case appID == 0 && version == 0 && tables == 0: // new, empty file
		if _, err := c.db.Exec(fmt.Sprintf("PRAGMA application_id = %d", cacheAppID)); err != nil {
			return err
		}
		if _, err := c.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", cacheVersion)); err != nil {
			return err
		}
	case appID != cacheAppID:
		return errors.New("an SQLite database, but not an NLI cache")
	case version != cacheVersion:
		return fmt.Errorf("NLI cache format %d, this program reads format %d (delete the file to start afresh)", version, cacheVersion)
	}
	_, err := c.db.Exec(cacheSchema)
	return err
}

// Identity is the identity of the inner classifier.
func (c *Cache) Identity() Identity { return c.id }

// Close closes the database. The inner classifier is not closed.
func (c *Cache) Close() error {
	if err := c.db.Close(); err != nil {
		return fmt.Errorf("nli cache %s: %w", c.path, err)
	}
	return nil
}

// Classify answers from the cache where it can and asks the inner
// classifier, once, for the rest.
func (c *Cache) Classify(ctx context.Context, pairs []Pair) ([]Result, error) {
	keys := make([][sha256.Size]byte, len(pairs))
	for i, p := range pairs {
		keys[i] = c.key(p)
	}
	found, err := c.lookup(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("nli cache %s: %w", c.path, err)
	}
	var miss []Pair
	var missKeys [][sha256.Size]byte
	queued := make(map[[sha256.Size]byte]bool)
	for i, k := range keys {
		if _, ok := found[k]; !ok && !queued[k] {
			queued[k] = true
			miss = append(miss, pairs[i])
			missKeys = append(missKeys, k)
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
			found[missKeys[i]] = r
		}
		if err := c.store(ctx, missKeys, res); err != nil {
			return nil, fmt.Errorf("nli cache %s: %w", c.path, err)
		}
	}
	out := make([]Result, len(pairs))
	for i, k := range keys {
		r := found[k]
		// Each result gets its own Distribution, so that callers may
		// modify what they get back.
		if r.Distribution != nil {
			r.Distribution = append([]float64(nil), r.Distribution...)
		}
		out[i] = r
	}
	return out, nil
}

// checkResult refuses answers that cannot be stored faithfully (SQLite
// stores NaN as NULL) or that no caller could use.
func checkResult(r Result) error {
	if int(r.Label) >= len(labelNames) {
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

// key is the SHA-256 of backend, model, premise and hypothesis, each
// preceded by its length in bytes as a little-endian uint64, so that no two
// different tuples encode alike. Changing it orphans every existing cache.
func (c *Cache) key(p Pair) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	for _, s := range [...]string{c.id.Backend, c.id.Model, p.Premise, p.Hypothesis} {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// lookupChunk is how many keys one query looks up (SQLite allows at least
// 999 parameters).
const lookupChunk = 500

// lookup returns the cached answers for the keys it finds.
func (c *Cache) lookup(ctx context.Context, keys [][sha256.Size]byte) (map[[sha256.Size]byte]Result, error) {
	found := make(map[[sha256.Size]byte]Result, len(keys))
	seen := make(map[[sha256.Size]byte]bool, len(keys))
	var args []any
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			args = append(args, k[:])
		}
	}
	if len(args) == 0 {
		return found, nil
	}
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	for len(args) > 0 {
		chunk := args[:min(len(args), lookupChunk)]
		args = args[len(chunk):]
		q := "SELECT key, label, probability, distribution FROM nli WHERE key IN (?" + strings.Repeat(", ?", len(chunk)-1) + ")"
		if err := scanAnswers(ctx, conn, q, chunk, found); err != nil {
			return nil, err
		}
	}
	return found, nil
}

func scanAnswers(ctx context.Context, conn *sql.Conn, query string, args []any, found map[[sha256.Size]byte]Result) error {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			key, dist []byte
			label     int64
			r         Result
		)
		if err := rows.Scan(&key, &label, &r.Probability, &dist); err != nil {
			return err
		}
		if len(key) != sha256.Size || label < 0 || label >= int64(len(labelNames)) || len(dist)%8 != 0 {
			return fmt.Errorf("corrupt entry %x", key)
		}
		r.Label = Label(label)
		if len(dist) > 0 {
			r.Distribution = make([]float64, len(dist)/8)
			for i := range r.Distribution {
				r.Distribution[i] = math.Float64frombits(binary.LittleEndian.Uint64(dist[8*i:]))
			}
		}
		found[[sha256.Size]byte(key)] = r
	}
	return rows.Err()
}

// store writes the answers in one transaction.
func (c *Cache) store(ctx context.Context, keys [][sha256.Size]byte, res []Result) error {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // no-op after Commit
	stmt, err := tx.PrepareContext(ctx, "INSERT OR REPLACE INTO nli (key, label, probability, distribution) VALUES (?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, r := range res {
		var dist []byte // nil stores NULL
		if len(r.Distribution) > 0 {
			dist = make([]byte, 0, 8*len(r.Distribution))
			for _, v := range r.Distribution {
				dist = binary.LittleEndian.AppendUint64(dist, math.Float64bits(v))
			}
		}
		if _, err := stmt.ExecContext(ctx, keys[i][:], int64(r.Label), r.Probability, dist); err != nil {
			return err
		}
	}
	return tx.Commit()
}
