// Package kbindex is the corpus-wide search index of a knowledge base: an
// inverted index kept in the knowledge base's own SQLite tables (term →
// postings, in blocks), ranked with BM25 (Lucene's idf, which is never
// negative) by a top-k search that skips the postings that cannot bring a
// passage into the top k (MaxScore, with each block's highest score).
//
// FActScore's knowledge bases are searched one article at a time (the
// record's topic is a title); this index answers the other question, which
// passages of the whole knowledge base match a claim, for records without
// a topic and for collections of documents that are not about one subject
// each. It lives beside FActScore's documents table, which it leaves as it
// is, so a knowledge base with an index is still one in FActScore's format.
//
// SQLite's FTS5 would do the same, but mattn/go-sqlite3 compiles it only
// with a build tag, and `go install` and `go run` must work without one.
package kbindex

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/factreasoner/factreasoner-go/bm25"
)

// Format is the version of the index's tables; an index of another version
// is refused.
const Format = "1"

// blockSize is how many postings a block holds: the unit read from the
// file and skipped whole when its best score cannot enter the top k.
const blockSize = 128

// runPostings is how many postings the builder keeps in memory before it
// writes them out as a sorted run (about 40 MB of them).
const runPostings = 1 << 22

// The tables. kb_passages numbers the passages 0, 1, ... and says where each
// is: its document (documents.rowid) and its place in it. kb_terms holds a
// term's document frequency and the directory of its blocks (each block's
// last passage and highest score); kb_postings the blocks themselves.
var schema = []string{
	`CREATE TABLE kb_index (key TEXT PRIMARY KEY, value BLOB NOT NULL)`,
	`CREATE TABLE kb_passages (id INTEGER PRIMARY KEY, doc INTEGER NOT NULL, ord INTEGER NOT NULL)`,
	`CREATE TABLE kb_terms (term TEXT PRIMARY KEY, id INTEGER NOT NULL, df INTEGER NOT NULL, dir BLOB NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE kb_postings (term INTEGER NOT NULL, block INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (term, block)) WITHOUT ROWID`,
	`CREATE TABLE kb_staging (term TEXT NOT NULL, run INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (term, run)) WITHOUT ROWID`,
}

// Builder writes the index of a knowledge base's passages inside the
// transaction that writes its documents. Passages are added in the order
// they are to be numbered; Finish writes the terms and postings.
type Builder struct {
	tx       *sql.Tx
	k1, b    float64
	lengths  []uint32 // words per passage
	total    int64    // words in all passages
	run      map[string]*postings
	inRun    int
	runLimit int // postings kept in memory: runPostings, less in tests
	runs     int
	passages *sql.Stmt
	stats    Stats

	embedModel string
	embedDim   int
	vectors    int
	// Content, when set before Finish, is recorded as the content
	// identity of the documents indexed (the Content function reads it).
	Content string
	// Progress, when set, is told during Finish how many terms are written
	// of how many.
	Progress func(done, total int)
}

// Stats say what a Builder wrote.
type Stats struct {
	Passages int
	Terms    int
	Postings int64
	Blocks   int64
}

type postings struct{ docs, tfs []uint32 }

// NewBuilder creates the index's tables in tx's database, which must not
// have them yet.
func NewBuilder(ctx context.Context, tx *sql.Tx) (*Builder, error) {
	for _, q := range schema {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO kb_passages (id, doc, ord) VALUES (?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	return &Builder{tx: tx, k1: bm25.DefaultK1, b: bm25.DefaultB, run: map[string]*postings{}, runLimit: runPostings, passages: st}, nil
}

// Add indexes the passage that is the ord-th (from 0) of the document
// whose rowid in the documents table is doc. It returns the passage's id.
func (b *Builder) Add(ctx context.Context, doc int64, ord int, text string) (int, error) {
	id := len(b.lengths)
	if id >= math.MaxUint32-1 {
		return 0, errors.New("index: too many passages")
	}
	if _, err := b.passages.ExecContext(ctx, id, doc, ord); err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	words := bm25.Words(text)
	b.lengths = append(b.lengths, uint32(len(words)))
	b.total += int64(len(words))
	for _, w := range words {
		p := b.run[w]
		if p == nil {
			p = &postings{}
			b.run[w] = p
		}
		if n := len(p.docs); n > 0 && p.docs[n-1] == uint32(id) {
			p.tfs[n-1]++
			continue
		}
		p.docs = append(p.docs, uint32(id))
		p.tfs = append(p.tfs, 1)
		b.inRun++
	}
	if b.inRun >= b.runLimit {
		if err := b.flush(ctx); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// flush writes the postings in memory as one sorted run of kb_staging.
func (b *Builder) flush(ctx context.Context) error {
	if len(b.run) == 0 {
		return nil
	}
	st, err := b.tx.PrepareContext(ctx, `INSERT INTO kb_staging (term, run, data) VALUES (?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer st.Close()
	var buf []byte
	for term, p := range b.run {
		buf = buf[:0]
		prev := uint32(0)
		for i, d := range p.docs {
			buf = binary.AppendUvarint(buf, uint64(d-prev))
			buf = binary.AppendUvarint(buf, uint64(p.tfs[i]))
			prev = d
		}
		if _, err := st.ExecContext(ctx, term, b.runs, buf); err != nil {
			return fmt.Errorf("index: %w", err)
		}
	}
	b.runs++
	b.run, b.inRun = map[string]*postings{}, 0
	return nil
}

// Finish merges the runs into the terms' postings, writes the index's
// settings and drops the staging table.
func (b *Builder) Finish(ctx context.Context) (Stats, error) {
	if err := b.flush(ctx); err != nil {
		return b.stats, err
	}
	b.passages.Close()
	b.stats.Passages = len(b.lengths)
	var terms int
	if err := b.tx.QueryRowContext(ctx, `SELECT count(DISTINCT term) FROM kb_staging`).Scan(&terms); err != nil {
		return b.stats, fmt.Errorf("index: %w", err)
	}
	avgdl := 0.0
	if n := len(b.lengths); n > 0 {
		avgdl = float64(b.total) / float64(n)
	}
	insTerm, err := b.tx.PrepareContext(ctx, `INSERT INTO kb_terms (term, id, df, dir) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return b.stats, fmt.Errorf("index: %w", err)
	}
	defer insTerm.Close()
	insBlock, err := b.tx.PrepareContext(ctx, `INSERT INTO kb_postings (term, block, data) VALUES (?, ?, ?)`)
	if err != nil {
		return b.stats, fmt.Errorf("index: %w", err)
	}
	defer insBlock.Close()
	rows, err := b.tx.QueryContext(ctx, `SELECT term, data FROM kb_staging ORDER BY term, run`)
	if err != nil {
		return b.stats, fmt.Errorf("index: %w", err)
	}
	defer rows.Close()
	// Each term's runs come together, in run order, which is passage
	// order: appended, they are its postings.
	var cur string
	var docs, tfs []uint32
	started := false
	write := func() error {
		if !started {
			return nil
		}
		id := b.stats.Terms
		b.stats.Terms++
		b.stats.Postings += int64(len(docs))
		var dir, data []byte
		for blk, lo := 0, 0; lo < len(docs); blk, lo = blk+1, lo+blockSize {
			hi := min(lo+blockSize, len(docs))
			data = data[:0]
			prev := uint32(0)
			best := 0.0
			for i := lo; i < hi; i++ {
				data = binary.AppendUvarint(data, uint64(docs[i]-prev))
				data = binary.AppendUvarint(data, uint64(tfs[i]))
				prev = docs[i]
				best = max(best, part(float64(tfs[i]), float64(b.lengths[docs[i]]), avgdl, b.k1, b.b))
			}
			if _, err := insBlock.ExecContext(ctx, id, blk, data); err != nil {
				return fmt.Errorf("index: %w", err)
			}
			b.stats.Blocks++
			dir = binary.LittleEndian.AppendUint32(dir, docs[hi-1])
			dir = binary.LittleEndian.AppendUint64(dir, math.Float64bits(best))
		}
		if _, err := insTerm.ExecContext(ctx, cur, id, len(docs), dir); err != nil {
			return fmt.Errorf("index: %w", err)
		}
		if b.Progress != nil && b.stats.Terms%4096 == 0 {
			b.Progress(b.stats.Terms, terms)
		}
		return nil
	}
	for rows.Next() {
		var term string
		var data []byte
		if err := rows.Scan(&term, &data); err != nil {
			return b.stats, fmt.Errorf("index: %w", err)
		}
		if !started || term != cur {
			if err := write(); err != nil {
				return b.stats, err
			}
			if err := ctx.Err(); err != nil {
				return b.stats, err
			}
			cur, docs, tfs, started = term, docs[:0], tfs[:0], true
		}
		prev := uint32(0)
		for len(data) > 0 {
			d, n := binary.Uvarint(data)
			tf, m := binary.Uvarint(data[n:])
			if n <= 0 || m <= 0 {
				return b.stats, errors.New("index: corrupt staging run")
			}
			data = data[n+m:]
			prev += uint32(d)
			docs = append(docs, prev)
			tfs = append(tfs, uint32(tf))
		}
	}
	if err := rows.Err(); err != nil {
		return b.stats, fmt.Errorf("index: %w", err)
	}
	if err := write(); err != nil {
		return b.stats, err
	}
	rows.Close()
	if b.Progress != nil {
		b.Progress(b.stats.Terms, terms)
	}
	lengths := make([]byte, 0, 4*len(b.lengths))
	for _, l := range b.lengths {
		lengths = binary.LittleEndian.AppendUint32(lengths, l)
	}
	for _, kv := range []struct {
		key   string
		value any
	}{
		{"format", Format},
		{"words", wordsRule},
		{"passages", strconv.Itoa(len(b.lengths))},
		{"tokens", strconv.FormatInt(b.total, 10)},
		{"k1", strconv.FormatFloat(b.k1, 'g', -1, 64)},
		{"b", strconv.FormatFloat(b.b, 'g', -1, 64)},
		{"lengths", lengths},
		{"content", b.Content},
	} {
		if kv.key == "content" && b.Content == "" {
			continue
		}
		if _, err := b.tx.ExecContext(ctx, `INSERT INTO kb_index (key, value) VALUES (?, ?)`, kv.key, kv.value); err != nil {
			return b.stats, fmt.Errorf("index: %w", err)
		}
	}
	if err := b.finishVectors(ctx); err != nil {
		return b.stats, err
	}
	if _, err := b.tx.ExecContext(ctx, `DROP TABLE kb_staging`); err != nil {
		return b.stats, fmt.Errorf("index: %w", err)
	}
	return b.stats, nil
}

// wordsRule names how text is split into words (bm25.Words), recorded so
// that an index made by another rule is refused.
const wordsRule = "letters-digits-lower"

// part is BM25's term-frequency part of a passage's score for one query
// word, computed as package bm25 computes it (so that the index ranks as
// bm25.NewLucene does, to the last bit).
func part(tf, dl, avgdl, k1, b float64) float64 {
	return tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avgdl))
}

// lucene is Lucene's idf, as bm25.NewLucene computes it.
func lucene(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }
