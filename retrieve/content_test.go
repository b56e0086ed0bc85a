package retrieve

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/kbindex"
)

// factScoreDB writes rows, in order, into a knowledge base of FActScore's
// schema (no index).
func factScoreDB(t *testing.T, rows [][2]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "factscore.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE documents (title PRIMARY KEY, text)`); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if _, err := db.Exec(`INSERT INTO documents VALUES (?, ?)`, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// contentOf opens a knowledge base and returns its content identity, and
// whether it was computed by reading the documents (progress was told).
func contentOf(t *testing.T, path string, cache *Cache) (string, bool) {
	t.Helper()
	db, err := OpenDocDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	read := false
	id, err := db.Content(context.Background(), cache, func(int64, int64) { read = true })
	if err != nil {
		t.Fatal(err)
	}
	return id, read
}

// TestContent: a knowledge base's content identity is what its documents
// say: the identity fr kb build records as it writes them is the one read
// from the table of any file holding the same rows in the same order (a
// FActScore-format copy, computed); another text, or the rows in another
// order, give another; a file's computed identity is kept in the
// retrieval cache until the file changes. A one-row table's identity is
// the documented hash, by hand.
func TestContent(t *testing.T) {
	ctx := context.Background()
	built := buildKB(t, corpusDocs, nil, "")
	recorded, read := contentOf(t, built, nil)
	if read || recorded == "" {
		t.Fatalf("the identity fr kb build records: %q (computed: %v)", recorded, read)
	}
	db, _ := OpenDocDB(built)
	var rows [][2]string
	q, err := db.db.Query(`SELECT title, text FROM documents ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	for q.Next() {
		var r [2]string
		q.Scan(&r[0], &r[1])
		rows = append(rows, r)
	}
	q.Close()
	db.Close()
	if len(rows) < 2 {
		t.Fatalf("%d documents", len(rows))
	}
	copied, read := contentOf(t, factScoreDB(t, rows), nil)
	if copied != recorded || !read {
		t.Errorf("a copy of the rows: %s (computed: %v), recorded %s", copied, read, recorded)
	}
	edited := append([][2]string(nil), rows...)
	edited[1][1] += " "
	reordered := append([][2]string{rows[1], rows[0]}, rows[2:]...)
	for name, rs := range map[string][][2]string{"a text edited": edited, "rows reordered": reordered} {
		if id, _ := contentOf(t, factScoreDB(t, rs), nil); id == recorded {
			t.Errorf("%s: the same identity %s", name, id)
		}
	}

	// By hand: SHA-256 of 0x01, len(title), title, 0x01, len(text), text.
	sum := sha256.Sum256([]byte("\x01\x01A\x01\x03abc"))
	if id, _ := contentOf(t, factScoreDB(t, [][2]string{{"A", "abc"}}), nil); id != "sha256:"+hex.EncodeToString(sum[:16]) {
		t.Errorf("one row: %s, want sha256:%x", id, sum[:16])
	}

	// The cache keeps a computed identity for the file, until it changes.
	cache, err := OpenCache(filepath.Join(t.TempDir(), "cache.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	path := factScoreDB(t, rows)
	if id, read := contentOf(t, path, cache); id != recorded || !read {
		t.Fatalf("first: %s, computed %v", id, read)
	}
	if id, read := contentOf(t, path, cache); id != recorded || read {
		t.Errorf("again: %s, computed %v (want it from the cache)", id, read)
	}
	raw, _ := sql.Open("sqlite3", path)
	raw.ExecContext(ctx, `UPDATE documents SET text = text || 'x' WHERE rowid = 1`)
	raw.Close()
	later := time.Now().Add(time.Minute)
	os.Chtimes(path, later, later)
	if id, read := contentOf(t, path, cache); id == recorded || !read {
		t.Errorf("after an edit: %s, computed %v", id, read)
	}
	if got, _ := kbindex.Content(ctx, mustOpen(t, path)); got != "" {
		t.Errorf("a knowledge base without an index records %q", got)
	}
}

func mustOpen(t *testing.T, path string) *sql.DB {
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
