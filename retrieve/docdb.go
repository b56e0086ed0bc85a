package retrieve

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// Separator joins the passages of a document in a DocDB's text column.
const Separator = "####SPECIAL####SEPARATOR####"

// ErrTopicNotFound is returned (wrapped) when a knowledge base has no
// document whose title is the topic. FActScore stops with an assertion
// error in this case; callers here decide whether to stop or go on without
// evidence.
var ErrTopicNotFound = errors.New("topic is not a title in the knowledge base")

// ErrNoTopic is returned (wrapped) by sources that look documents up by
// topic when the record has none.
var ErrNoTopic = errors.New("no topic: the knowledge base is looked up by the record's topic")

// DocDB is a knowledge base in FActScore's format: an SQLite database with
// a table documents(title TEXT, text TEXT), one row per title, the text
// being the document's passages joined by Separator. FActScore's
// enwiki-20230401.db is such a file; `fr kb build` writes them.
type DocDB struct {
	db    *sql.DB
	path  string
	stamp string

	mu      sync.Mutex
	content string // Content's answer, once given
}

// OpenDocDB opens a knowledge base read-only. It fails when the file does
// not exist or has no documents table.
func OpenDocDB(path string) (*DocDB, error) {
	// sqlite3 would report a missing file only at the first query, and
	// vaguely; check first.
	// A named pipe would block SQLite forever; a device is no database.
	fi, err := safefile.Check(path, "knowledge base", -1)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", path, err)
	}
	stamp := fmt.Sprintf("docdb:%s:%d:%d", abs, fi.Size(), fi.ModTime().UnixNano())
	// mode=ro: never create or modify the user's knowledge base.
	db, err := sql.Open("sqlite3", "file:"+escapePath(path)+"?mode=ro&_query_only=1")
	if err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", path, err)
	}
	var n int
	err = db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'documents'`).Scan(&n)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("knowledge base %s: %w", path, err)
	}
	if n == 0 {
		db.Close()
		return nil, fmt.Errorf("knowledge base %s: no documents table (want FActScore's format, documents(title, text); build one with fr kb build)", path)
	}
	return &DocDB{db: db, path: path, stamp: stamp}, nil
}

// escapePath makes a file path safe inside an SQLite URI.
func escapePath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// Path is the file the knowledge base was opened from.
func (d *DocDB) Path() string { return d.path }

// Close closes the database.
func (d *DocDB) Close() error { return d.db.Close() }

// Passages returns the passages of the document whose title is exactly
// title (case and spacing included), in stored order. The markers <s> and
// </s> that FActScore's builder leaves in passages (it decodes RoBERTa
// token ids with their special tokens) are removed, as FActScore removes
// them before ranking and prompting.
func (d *DocDB) Passages(ctx context.Context, title string) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT text FROM documents WHERE title = ?`, title)
	if err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", d.path, err)
	}
	defer rows.Close()
	var texts []string
	for rows.Next() {
		var text sql.NullString
		if err := rows.Scan(&text); err != nil {
			return nil, fmt.Errorf("knowledge base %s: title %q: %w", d.path, title, err)
		}
		texts = append(texts, text.String)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", d.path, err)
	}
	switch len(texts) {
	case 0:
		return nil, fmt.Errorf("%q in %s: %w (titles match exactly, case included)", title, d.path, ErrTopicNotFound)
	case 1:
	default:
		return nil, fmt.Errorf("knowledge base %s: title %q has %d rows; a knowledge base holds one row per title", d.path, title, len(texts))
	}
	return splitPassages(texts[0]), nil
}

// Fingerprint identifies the knowledge base file for caches: its absolute
// path, size and modification time when it was opened, so that results
// cached for a file are not used for a rebuilt one.
func (d *DocDB) Fingerprint() string { return d.stamp }
