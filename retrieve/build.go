package retrieve

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/tempfile"
	"github.com/factreasoner/factreasoner-go/kbindex"
)

// DefaultMaxTokens is the passage size of FActScore's knowledge base.
const DefaultMaxTokens = 256

// WordsPerToken is the fallback's exchange rate: without a tokenizer,
// passages hold at most ⌊max tokens × 3/4⌋ whitespace-separated words (192
// for 256). RoBERTa's tokenizer averages 1.3 tokens per word on English
// Wikipedia text (measured here on the Flaherty contexts: 1.32; on
// ChatGPT's biographies: 1.29), so such passages are about 250 tokens; text
// dense in numbers, names or non-English words runs over.
const WordsPerToken = 0.75

// Document is one entry of a knowledge base: a title and its text in
// pieces (paragraphs, sentences or whole texts). Pieces are kept together
// in passages when they fit.
type Document struct {
	Title  string
	Pieces []string
}

// BuildStats says what Build did.
type BuildStats struct {
	Documents       int // rows written (distinct titles with text)
	Passages        int
	Pieces          int // pieces read
	DuplicatePieces int // pieces dropped because the same title already had them
	RepeatedTitles  int // documents merged into an earlier one of the same title
	EmptyDocuments  int // titles whose pieces held no text
	// Index says what the corpus-wide index holds (package kbindex).
	Index kbindex.Stats
	// Embedded counts the passages embedded (BuildOptions.Embedder).
	Embedded int
	// Content is the knowledge base's content identity, recorded in it
	// (DocDB.Content).
	Content string
}

// Builder writes a knowledge base in FActScore's format. Documents with the
// same title are merged (pieces in input order, exact duplicates dropped);
// titles keep the order of their first appearance. The file appears at its
// path only when Finish succeeds.
type Builder struct {
	path, tmp string
	held      *os.File // the staging file, locked while it is built (internal/tempfile)
	db        *sql.DB
	tx        *sql.Tx
	tok       Tokenizer
	maxTokens int
	stats     BuildStats
	overwrite bool
	titles    map[string]int64 // title -> staging id
	names     []string         // staging id - 1 -> title
	index     *kbindex.Builder
	embedder  Embedder
	pending   []pendingPassage // passages not yet embedded
	content   *contentHash     // of the documents written
	// Progress, when set, is called during Finish with the number of
	// documents split so far and the total; IndexProgress with the words
	// of the corpus-wide index written so far and their number.
	Progress      func(done, total int)
	IndexProgress func(done, total int)
}

// BuildOptions configure a Builder.
type BuildOptions struct {
	// MaxTokens is the passage size (DefaultMaxTokens when 0).
	MaxTokens int
	// Tokenizer counts tokens. When nil, passages are sized in words,
	// ⌊MaxTokens × WordsPerToken⌋ of them.
	Tokenizer Tokenizer
	// Overwrite replaces an existing file at the path (when Finish
	// succeeds; until then the old file stays).
	Overwrite bool
	// Embedder, when set, embeds every passage, and the knowledge base
	// keeps the vectors for dense and hybrid search, recorded as made by
	// EmbedModel (which must name Embedder's model).
	Embedder   Embedder
	EmbedModel string
	// Progress, when set, is told how far Build has come: after each
	// document read, each document split and each word of the index
	// written.
	Progress func(BuildProgress)
}

// BuildProgress is how far Build has come: in Stage BuildRead, Done
// documents read, the last from File; in BuildSplit, Done of Total
// documents split into passages; in BuildIndex, Done of Total words of
// the corpus-wide index written.
type BuildProgress struct {
	Stage       string
	Done, Total int
	File        string
}

// The stages of Build.
const (
	BuildRead  = "read"
	BuildSplit = "split"
	BuildIndex = "index"
)

// Build builds the knowledge base at path from the documents of files
// (DocumentFiles, ReadDocuments), as NewBuilder, Add and Finish do: the
// file appears only when it is whole, and an existing one is refused
// (the error wraps os.ErrExist) unless opts.Overwrite is set.
func Build(ctx context.Context, path string, files []string, opts BuildOptions) (BuildStats, error) {
	b, err := NewBuilder(path, opts)
	if err != nil {
		return BuildStats{}, err
	}
	defer b.Abort() // a no-op after a successful Finish
	report := func(p BuildProgress) {
		if opts.Progress != nil {
			opts.Progress(p)
		}
	}
	docs := 0
	for _, f := range files {
		err := ReadDocuments(f, func(d Document) error {
			docs++
			report(BuildProgress{Stage: BuildRead, Done: docs, File: f})
			return b.Add(ctx, d)
		})
		if err != nil {
			return b.stats, err
		}
	}
	b.Progress = func(done, total int) { report(BuildProgress{Stage: BuildSplit, Done: done, Total: total}) }
	b.IndexProgress = func(done, total int) { report(BuildProgress{Stage: BuildIndex, Done: done, Total: total}) }
	return b.Finish(ctx)
}

// embedBatch is how many passages the builder sends to the embedder at
// once (the client splits them further into requests).
const embedBatch = 256

// NewBuilder starts a knowledge base that will be written to path, which
// must not exist yet unless opts.Overwrite is set (the error then wraps
// os.ErrExist).
func NewBuilder(path string, opts BuildOptions) (*Builder, error) {
	// The file a symbolic link names is replaced, not the link.
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	if st, err := os.Stat(target); err == nil {
		switch {
		case !st.Mode().IsRegular():
			// The file is put in place by a rename, which would
			// replace a device such as /dev/null.
			return nil, fmt.Errorf("%s is not a regular file: a knowledge base is an SQLite file", path)
		case !opts.Overwrite:
			return nil, &os.PathError{Op: "create", Path: path, Err: os.ErrExist}
		}
	}
	maxTokens := opts.MaxTokens
	if maxTokens == 0 {
		maxTokens = DefaultMaxTokens
	}
	if maxTokens < 1 {
		return nil, fmt.Errorf("passage size %d: want at least 1 token", maxTokens)
	}
	b := &Builder{path: target, tok: opts.Tokenizer, maxTokens: maxTokens, titles: make(map[string]int64), overwrite: opts.Overwrite}
	if b.tok == nil {
		b.tok = WordTokenizer{}
		b.maxTokens = max(1, int(float64(maxTokens)*WordsPerToken))
	}
	// The staging files of killed builds of this file go; this one is
	// held locked until it is renamed or removed.
	pattern := "." + filepath.Base(target) + ".*.tmp"
	tempfile.Clean(filepath.Dir(target), pattern)
	f, err := tempfile.Create(filepath.Dir(target), pattern)
	if err != nil {
		return nil, err
	}
	b.tmp, b.held = f.Name(), f
	b.db, err = sql.Open("sqlite3", "file:"+escapePath(b.tmp)+"?_journal_mode=OFF&_synchronous=OFF")
	if err != nil {
		b.Abort()
		return nil, err
	}
	// One connection: the staging tables and the transaction live on it.
	b.db.SetMaxOpenConns(1)
	for _, q := range []string{
		// FActScore's schema (its builder: CREATE TABLE documents (title
		// PRIMARY KEY, text)), with the column types the format names.
		`CREATE TABLE documents (title TEXT PRIMARY KEY, text TEXT)`,
		`CREATE TABLE staging_titles (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE)`,
		`CREATE TABLE staging_pieces (doc INTEGER NOT NULL, hash BLOB NOT NULL, piece TEXT NOT NULL, UNIQUE (doc, hash))`,
	} {
		if _, err := b.db.Exec(q); err != nil {
			b.Abort()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if b.tx, err = b.db.Begin(); err != nil {
		b.Abort()
		return nil, err
	}
	if b.index, err = kbindex.NewBuilder(context.Background(), b.tx); err != nil {
		b.Abort()
		return nil, err
	}
	if opts.Embedder != nil {
		b.embedder = opts.Embedder
		if err := b.index.Embedding(context.Background(), opts.EmbedModel); err != nil {
			b.Abort()
			return nil, err
		}
	}
	return b, nil
}

// Add adds a document.
func (b *Builder) Add(ctx context.Context, d Document) error {
	title := strings.TrimSpace(d.Title)
	if title == "" {
		return errors.New("document has no title")
	}
	id, ok := b.titles[title]
	if ok {
		b.stats.RepeatedTitles++
	} else {
		res, err := b.tx.ExecContext(ctx, `INSERT INTO staging_titles (title) VALUES (?)`, title)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		b.titles[title] = id
		b.names = append(b.names, title)
	}
	for _, p := range d.Pieces {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		b.stats.Pieces++
		h := sha256.Sum256([]byte(p))
		res, err := b.tx.ExecContext(ctx, `INSERT OR IGNORE INTO staging_pieces (doc, hash, piece) VALUES (?, ?, ?)`, id, h[:], p)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			b.stats.DuplicatePieces++
		}
	}
	return nil
}

// Finish splits every document into passages, writes them and moves the
// file into place.
func (b *Builder) Finish(ctx context.Context) (BuildStats, error) {
	err := b.finish(ctx)
	if err != nil {
		b.Abort()
		return b.stats, fmt.Errorf("%s: %w", b.path, err)
	}
	return b.stats, nil
}

func (b *Builder) finish(ctx context.Context) error {
	total := len(b.titles)
	b.content = newContentHash()
	rows, err := b.tx.QueryContext(ctx, `SELECT t.id, p.piece FROM staging_titles t JOIN staging_pieces p ON p.doc = t.id ORDER BY t.id, p.rowid`)
	if err != nil {
		return err
	}
	defer rows.Close()
	// The rows come grouped by document; each is written when the next
	// begins.
	var cur int64 = -1
	var pieces []string
	done := 0
	flush := func() error {
		if cur < 0 {
			return nil
		}
		title := b.titleOf(cur)
		passages, err := Split(pieces, b.tok, b.maxTokens)
		if err != nil {
			return fmt.Errorf("document %q: %w", title, err)
		}
		done++
		if b.Progress != nil {
			b.Progress(done, total)
		}
		if len(passages) == 0 {
			return nil
		}
		for _, p := range passages {
			if strings.Contains(p, Separator) {
				return fmt.Errorf("document %q holds the passage separator %s", title, Separator)
			}
		}
		text := strings.Join(passages, Separator)
		res, err := b.tx.ExecContext(ctx, `INSERT INTO documents (title, text) VALUES (?, ?)`, title, text)
		if err != nil {
			return err
		}
		// Rows are written in rowid order: the order Content reads them.
		b.content.add(sql.NullString{String: title, Valid: true}, sql.NullString{String: text, Valid: true})
		doc, err := res.LastInsertId()
		if err != nil {
			return err
		}
		for i, p := range passages {
			id, err := b.index.Add(ctx, doc, i, p)
			if err != nil {
				return err
			}
			if b.embedder != nil {
				b.pending = append(b.pending, pendingPassage{id, p})
			}
		}
		b.stats.Documents++
		b.stats.Passages += len(passages)
		if len(b.pending) >= embedBatch {
			return b.embed(ctx)
		}
		return nil
	}
	for rows.Next() {
		var id int64
		var piece string
		if err := rows.Scan(&id, &piece); err != nil {
			return err
		}
		if id != cur {
			if err := flush(); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			cur, pieces = id, pieces[:0]
		}
		pieces = append(pieces, piece)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	rows.Close()
	b.stats.EmptyDocuments = total - b.stats.Documents
	if b.stats.Documents == 0 {
		return fmt.Errorf("no document has any text (%d read): nothing to write", total)
	}
	if err := b.embed(ctx); err != nil {
		return err
	}
	b.index.Progress = b.IndexProgress
	b.stats.Content = b.content.id()
	b.index.Content = b.stats.Content
	if b.stats.Index, err = b.index.Finish(ctx); err != nil {
		return err
	}
	for _, q := range []string{`DROP TABLE staging_pieces`, `DROP TABLE staging_titles`} {
		if _, err := b.tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	if err := b.tx.Commit(); err != nil {
		return err
	}
	b.tx = nil
	if _, err := b.db.ExecContext(ctx, `VACUUM`); err != nil {
		return err
	}
	if err := b.db.Close(); err != nil {
		return err
	}
	b.db = nil
	st, err := os.Stat(b.path)
	if err == nil && (!b.overwrite || !st.Mode().IsRegular()) {
		return errors.New("file appeared while building; not overwritten")
	}
	// The staging file was made private (CreateTemp, 0600), as every file
	// the tool writes: the documents may not be everyone's to read. A
	// file replaced keeps its mode.
	if err == nil {
		if err := os.Chmod(b.tmp, st.Mode().Perm()); err != nil {
			return err
		}
	}
	err = os.Rename(b.tmp, b.path)
	b.held.Close()
	return err
}

type pendingPassage struct {
	id   int
	text string
}

// embed embeds the pending passages and stores their vectors.
func (b *Builder) embed(ctx context.Context) error {
	if len(b.pending) == 0 {
		return nil
	}
	texts := make([]string, len(b.pending))
	for i, p := range b.pending {
		texts[i] = p.text
	}
	vs, err := b.embedder.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embedding passages: %w", err)
	}
	if len(vs) != len(texts) {
		return fmt.Errorf("embedding passages: %d vectors for %d passages", len(vs), len(texts))
	}
	for i, p := range b.pending {
		if err := b.index.AddVector(ctx, p.id, vs[i]); err != nil {
			return err
		}
	}
	b.stats.Embedded += len(b.pending)
	b.pending = b.pending[:0]
	return nil
}

// titleOf returns the title of a staging id (ids are 1, 2, ... in order).
func (b *Builder) titleOf(id int64) string { return b.names[id-1] }

// Abort discards the knowledge base being built.
func (b *Builder) Abort() {
	if b.tx != nil {
		b.tx.Rollback()
		b.tx = nil
	}
	if b.db != nil {
		b.db.Close()
		b.db = nil
	}
	os.Remove(b.tmp)
	b.held.Close()
}
