// Package sqlcache is the tool's one persistent cache type: a key-value
// store in an SQLite file, used for NLI answers, LLM answers and retrieval
// results. Each kind of cache keeps its own file, and each file says what
// it is: SQLite's application_id header field holds "FRCA" and a meta table
// names the kind and the format. A file that is not such a cache (a
// FActScore knowledge base given by mistake, any other program's database)
// is refused with an error naming it, and left byte for byte as it was: no
// table is added and its journal mode is not changed.
//
// A Cache is safe for concurrent use, and several processes may share a
// file: writers take turns (SQLite's locking, with a busy timeout) and
// readers do not block them (write-ahead logging). Every write is a
// transaction, so a process killed at any point leaves the file whole,
// with every write that returned.
//
// Where a cache lives is set by one grammar, the same for every cache flag
// (Resolve): a FILE, auto (the kind's default file in the cache directory,
// $FACTREASONER_CACHE or ~/.cache/factreasoner-go) or off.
package sqlcache

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3" // also registers the "sqlite3" driver

	"github.com/factreasoner/factreasoner-go/internal/cachedir"
	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// Kind names what a cache holds. A file holds one kind; opening it as
// another is an error.
type Kind string

// The kinds of cache the tool keeps.
const (
	NLI       Kind = "nli"       // NLI answers, by backend, model and texts
	LLM       Kind = "llm"       // LLM answers, by request
	Retrieval Kind = "retrieval" // retrieved passages, by source, k, topic and atom
)

// DefaultFile is the file name auto picks for the kind in the cache
// directory: KIND-cache.sqlite.
func (k Kind) DefaultFile() string { return string(k) + "-cache.sqlite" }

var validKind = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// The marks of a cache file.
const (
	// AppID is the application_id of a cache file: "FRCA".
	AppID = 0x46524341
	// Format is the version of the layout below, kept in the meta table.
	Format = 1
)

const schema = `
CREATE TABLE meta (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE entries (
	key   BLOB PRIMARY KEY,
	value BLOB NOT NULL
) WITHOUT ROWID;`

// busyTimeout is how long a writer waits for another to finish.
const busyTimeout = 30 * time.Second

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// Cache is an open cache file.
type Cache struct {
	path string
	kind Kind
	db   *sql.DB
}

// Open opens the cache file at path, creating it (and its directory) when
// it does not exist. The file must be empty or a cache of the given kind.
func Open(path string, kind Kind) (*Cache, error) {
	if !validKind.MatchString(string(kind)) {
		return nil, fmt.Errorf("sqlcache: invalid kind %q", kind)
	}
	if path == "" {
		return nil, fmt.Errorf("%s cache: no file given", kind)
	}
	c := &Cache{path: path, kind: kind}
	if err := c.open(); err != nil {
		if c.db != nil {
			c.db.Close()
		}
		return nil, c.wrap(err)
	}
	return c, nil
}

func (c *Cache) open() error {
	// Look at the file before SQLite does, for a clear message about a
	// file that is not a database at all.
	if err := checkHeader(c.path); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	// Created here, private: SQLite would make it 0644, and its journal
	// and write-ahead log take the database's mode. An existing file keeps
	// its own.
	if f, err := os.OpenFile(c.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return err
	}
	// A file: URI lets any path through (go-sqlite3 would cut a plain path
	// at its first '?'). No journal mode here: it would be set on the file
	// before we know whose file it is.
	dsn := "file:" + (&url.URL{Path: c.path}).EscapedPath() + "?_busy_timeout=" + strconv.FormatInt(busyTimeout.Milliseconds(), 10) + "&_txlock=immediate"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return err
	}
	c.db = db
	// One connection: SQLite serialises writers anyway, and one connection
	// keeps the goroutines of a process from locking each other out.
	db.SetMaxOpenConns(1)
	if err := c.claim(); err != nil {
		return err
	}
	// Now that the file is known to be ours: write-ahead logging, so that
	// readers in other processes do not wait for a writer.
	return setWAL(db)
}

// setWAL switches the file to write-ahead logging unless another opener
// already has. The switch needs the file to itself and SQLite answers
// "database is locked" at once, without its busy timeout, while another
// connection reads it (as racing openers do): so wait and try again, for as
// long as the busy timeout.
func setWAL(db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	for {
		var mode string
		err := db.QueryRow("PRAGMA journal_mode").Scan(&mode)
		if err == nil && strings.EqualFold(mode, "wal") {
			return nil
		}
		if err == nil {
			err = db.QueryRow("PRAGMA journal_mode = WAL").Scan(&mode)
			if err == nil {
				return nil
			}
		}
		var se sqlite3.Error
		if !errors.As(err, &se) || (se.Code != sqlite3.ErrBusy && se.Code != sqlite3.ErrLocked) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkHeader refuses a non-empty file that is not an SQLite database.
func checkHeader(path string) error {
	// A named pipe would block the open forever, a device is no cache.
	if err := safefile.CheckIfExists(path, "cache", -1); err != nil {
		return err
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return errors.New("is a directory, not a cache file")
	}
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	if n == 0 && (err == io.EOF) {
		return nil // empty: SQLite makes it a new database
	}
	if string(head[:n]) != sqliteHeader {
		return errors.New("not an SQLite database, so not a cache file: refusing to write into it")
	}
	return nil
}

// fileState is what the header and the schema say about a file.
type fileState struct {
	appID, userVersion int64
	tables             []string
	objects            int
}

func (c *Cache) state(q interface {
	QueryRow(string, ...any) *sql.Row
}) (fileState, error) {
	// One statement, so one snapshot: read in separate statements, the
	// header could come from before another opener's initialise commits
	// and the schema from after it, which looked like a foreign database.
	var s fileState
	var tables string
	err := q.QueryRow(`SELECT
		(SELECT application_id FROM pragma_application_id()),
		(SELECT user_version FROM pragma_user_version()),
		(SELECT count(*) FROM sqlite_master),
		(SELECT json_group_array(name) FROM sqlite_master WHERE type = 'table')`).Scan(&s.appID, &s.userVersion, &s.objects, &tables)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal([]byte(tables), &s.tables); err != nil {
		return s, err
	}
	slices.Sort(s.tables)
	return s, nil
}

func (s fileState) empty() bool { return s.appID == 0 && s.userVersion == 0 && s.objects == 0 }

// claim checks that the file is a cache of c's kind, making an empty file
// one; anything else is refused before any write.
func (c *Cache) claim() error {
	s, err := c.state(c.db)
	if err != nil {
		return err
	}
	if s.empty() {
		if err := c.initialise(); err != nil {
			return err
		}
		if s, err = c.state(c.db); err != nil {
			return err
		}
	}
	if s.appID != AppID {
		return foreign(s)
	}
	meta := map[string]string{}
	rows, err := c.db.Query("SELECT name, value FROM meta")
	if err != nil {
		return fmt.Errorf("a damaged cache file (%v): delete it to start afresh", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		meta[k] = v
	}
	if err := rows.Err(); err != nil {
		return err
	}
	format, err := strconv.Atoi(meta["format"])
	switch {
	case err != nil:
		return fmt.Errorf("a damaged cache file (format %q): delete it to start afresh", meta["format"])
	case meta["kind"] != string(c.kind):
		return fmt.Errorf("a %s cache, not a %s cache: give each cache its own file", meta["kind"], c.kind)
	case format != Format:
		return fmt.Errorf("cache format %d, this program reads format %d: delete the file to start afresh", format, Format)
	}
	return nil
}

// initialise makes an empty file a cache of c's kind, in one transaction;
// another process may have done it meanwhile, which is fine.
func (c *Cache) initialise() error {
	tx, err := c.db.Begin() // BEGIN IMMEDIATE: the write lock, or wait for it
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var s fileState
	if s, err = c.state(tx); err != nil {
		return err
	}
	if !s.empty() {
		return nil // someone else's now: claim looks at it again
	}
	stmts := []string{fmt.Sprintf("PRAGMA application_id = %d", AppID), schema}
	for _, q := range stmts {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	if _, err := tx.Exec("INSERT INTO meta (name, value) VALUES ('kind', ?), ('format', ?)", string(c.kind), strconv.Itoa(Format)); err != nil {
		return err
	}
	return tx.Commit()
}

// foreign explains why a file that is not one of our caches is refused.
func foreign(s fileState) error {
	var what string
	switch {
	case s.appID == 0x46524e4c && slices.Contains(s.tables, "nli"):
		what = "an NLI cache of an earlier version of this program (delete it to start afresh)"
	case s.appID == 0 && len(s.tables) == 1 && (s.tables[0] == "answers" || s.tables[0] == "retrievals"):
		what = fmt.Sprintf("an SQLite database with one table, %s: an earlier version's cache? (delete it to start afresh)", s.tables[0])
	case len(s.tables) > 0:
		what = fmt.Sprintf("an SQLite database with tables %s, not a factreasoner-go cache", strings.Join(s.tables, ", "))
	case s.appID != 0:
		what = fmt.Sprintf("an SQLite database of another program (application id %#x), not a factreasoner-go cache", s.appID)
	default:
		what = "an SQLite database, not a factreasoner-go cache"
	}
	return fmt.Errorf("%s: refusing to write into it", what)
}

// wrap names the cache in an error.
func (c *Cache) wrap(err error) error {
	return fmt.Errorf("%s cache %s: %w", c.kind, c.path, err)
}

// Path is the cache's file.
func (c *Cache) Path() string { return c.path }

// Kind is what the cache holds.
func (c *Cache) Kind() Kind { return c.kind }

// Close closes the file.
func (c *Cache) Close() error {
	if err := c.db.Close(); err != nil {
		return c.wrap(err)
	}
	return nil
}

// Key is a cache key made of parts: the SHA-256 of the parts, each
// preceded by its length in bytes as a little-endian uint64, so that no two
// different lists of parts make the same key. Changing it orphans every
// existing cache.
func Key(parts ...string) []byte {
	h := sha256.New()
	var n [8]byte
	for _, s := range parts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
	return h.Sum(nil)
}

// Get returns the value stored under key, and whether there is one.
func (c *Cache) Get(ctx context.Context, key []byte) ([]byte, bool, error) {
	var v []byte
	err := c.db.QueryRowContext(ctx, "SELECT value FROM entries WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, c.wrap(err)
	}
	return v, true, nil
}

// lookupChunk is how many keys one query looks up (SQLite allows at least
// 999 parameters).
const lookupChunk = 500

// GetMany returns the values stored under the keys it finds, by
// string(key).
func (c *Cache) GetMany(ctx context.Context, keys [][]byte) (map[string][]byte, error) {
	found := make(map[string][]byte, len(keys))
	seen := make(map[string]bool, len(keys))
	var args []any
	for _, k := range keys {
		if !seen[string(k)] {
			seen[string(k)] = true
			args = append(args, k)
		}
	}
	if len(args) == 0 {
		return found, nil
	}
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer conn.Close()
	for len(args) > 0 {
		chunk := args[:min(len(args), lookupChunk)]
		args = args[len(chunk):]
		q := "SELECT key, value FROM entries WHERE key IN (?" + strings.Repeat(", ?", len(chunk)-1) + ")"
		if err := scanInto(ctx, conn, q, chunk, found); err != nil {
			return nil, c.wrap(err)
		}
	}
	return found, nil
}

func scanInto(ctx context.Context, conn *sql.Conn, q string, args []any, found map[string][]byte) error {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		found[string(k)] = v
	}
	return rows.Err()
}

// Entry is one key and value.
type Entry struct {
	Key, Value []byte
}

// Put stores value under key, replacing what was there.
func (c *Cache) Put(ctx context.Context, key, value []byte) error {
	if len(key) == 0 {
		return c.wrap(errors.New("empty key"))
	}
	if value == nil {
		value = []byte{} // NOT NULL
	}
	// One statement is its own transaction.
	if _, err := c.db.ExecContext(ctx, "INSERT OR REPLACE INTO entries (key, value) VALUES (?, ?)", key, value); err != nil {
		return c.wrap(err)
	}
	return nil
}

// PutMany stores the entries in one transaction: all or none.
func (c *Cache) PutMany(ctx context.Context, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	if err := c.putMany(ctx, entries); err != nil {
		return c.wrap(err)
	}
	return nil
}

func (c *Cache) putMany(ctx context.Context, entries []Entry) error {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	stmt, err := tx.PrepareContext(ctx, "INSERT OR REPLACE INTO entries (key, value) VALUES (?, ?)")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, e := range entries {
		if len(e.Key) == 0 {
			return errors.New("empty key")
		}
		v := e.Value
		if v == nil {
			v = []byte{} // NOT NULL
		}
		if _, err := stmt.ExecContext(ctx, e.Key, v); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Resolve reads a cache setting, the grammar of every cache flag:
//
//   - off, or "": no cache (Resolve returns ""). none, the older spelling
//     of some flags, means off too.
//   - auto: the kind's DefaultFile in the cache directory
//     ($FACTREASONER_CACHE, else factreasoner-go in the user's cache
//     directory), which Resolve creates.
//   - anything else: the file at that path.
//
// The words are read in any case; a file named like one is given with a
// directory, as ./auto.
func Resolve(setting string, kind Kind) (string, error) {
	switch strings.ToLower(strings.TrimSpace(setting)) {
	case "", "off", "none":
		return "", nil
	case "auto":
		p, err := cachedir.Path(kind.DefaultFile())
		if err != nil {
			return "", fmt.Errorf("%s cache auto: %w (or give a file, or off)", kind, err)
		}
		return p, nil
	}
	return setting, nil
}
