package kbindex

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"

	"github.com/factreasoner/factreasoner-go/bm25"
)

// ErrNoIndex is returned (wrapped) by Open for a knowledge base that has no
// corpus-wide index (one written before it existed, or FActScore's own).
var ErrNoIndex = errors.New("the knowledge base has no corpus-wide index (rebuild it with fr kb build)")

// Index searches the passages of a knowledge base. It is safe for
// concurrent use.
type Index struct {
	db      *sql.DB
	n       int
	avgdl   float64
	k1, b   float64
	lengths []uint32
	term    *sql.Stmt
	block   *sql.Stmt
	where   *sql.Stmt

	embedModel string
	embedDim   int
	vecOnce    sync.Once
	vec        *Vectors
	vecErr     error
}

// Hit is a passage found by Search.
type Hit struct {
	Passage int     // its id in the index (0, 1, ...)
	Doc     int64   // the rowid of its document in the documents table
	Ord     int     // its place in the document, from 0
	Score   float64 // BM25
}

// Content returns the content identity of the documents the index of the
// knowledge base db was built from, as the builder recorded it
// (Builder.Content); "" when db has no index or its index records none.
func Content(ctx context.Context, db *sql.DB) (string, error) {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'kb_index'`).Scan(&n); err != nil || n == 0 {
		return "", err
	}
	var v []byte
	err := db.QueryRowContext(ctx, `SELECT value FROM kb_index WHERE key = 'content'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return string(v), err
}

// Open reads the index of the knowledge base db (its settings and the
// passages' lengths: 4 bytes a passage). A database without one gives an
// error wrapping ErrNoIndex.
func Open(ctx context.Context, db *sql.DB) (*Index, error) {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('kb_index', 'kb_passages', 'kb_terms', 'kb_postings')`).Scan(&n); err != nil {
		return nil, err
	}
	if n != 4 {
		return nil, ErrNoIndex
	}
	meta := map[string][]byte{}
	rows, err := db.QueryContext(ctx, `SELECT key, value FROM kb_index`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var k string
		var v []byte
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return nil, err
		}
		meta[k] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if f := string(meta["format"]); f != Format {
		return nil, fmt.Errorf("the corpus-wide index is of format %q, this program reads %q (rebuild it with fr kb build)", f, Format)
	}
	if w := string(meta["words"]); w != wordsRule {
		return nil, fmt.Errorf("the corpus-wide index splits words by %q, this program by %q (rebuild it with fr kb build)", w, wordsRule)
	}
	x := &Index{db: db}
	var total int64
	var errs []error
	num := func(key string, f func(string) error) {
		if err := f(string(meta[key])); err != nil {
			errs = append(errs, fmt.Errorf("the index's %s: %w", key, err))
		}
	}
	num("passages", func(s string) (err error) { x.n, err = strconv.Atoi(s); return })
	num("tokens", func(s string) (err error) { total, err = strconv.ParseInt(s, 10, 64); return })
	num("k1", func(s string) (err error) { x.k1, err = strconv.ParseFloat(s, 64); return })
	num("b", func(s string) (err error) { x.b, err = strconv.ParseFloat(s, 64); return })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	raw := meta["lengths"]
	if x.n < 0 || len(raw) != 4*x.n {
		return nil, fmt.Errorf("the index's passage lengths: %d bytes for %d passages", len(raw), x.n)
	}
	x.lengths = make([]uint32, x.n)
	for i := range x.lengths {
		x.lengths[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	if x.n > 0 {
		x.avgdl = float64(total) / float64(x.n)
	}
	if m := string(meta["embed_model"]); m != "" {
		x.embedModel = m
		if x.embedDim, err = strconv.Atoi(string(meta["embed_dim"])); err != nil || x.embedDim <= 0 {
			return nil, fmt.Errorf("the index's embed_dim: %q is not a dimension", meta["embed_dim"])
		}
	}
	for _, s := range []struct {
		stmt **sql.Stmt
		q    string
	}{
		{&x.term, `SELECT id, df, dir FROM kb_terms WHERE term = ?`},
		{&x.block, `SELECT data FROM kb_postings WHERE term = ? AND block = ?`},
		{&x.where, `SELECT doc, ord FROM kb_passages WHERE id = ?`},
	} {
		if *s.stmt, err = db.PrepareContext(ctx, s.q); err != nil {
			x.Close()
			return nil, err
		}
	}
	return x, nil
}

// Close releases the index's prepared statements (not the database).
func (x *Index) Close() error {
	for _, s := range []*sql.Stmt{x.term, x.block, x.where} {
		if s != nil {
			s.Close()
		}
	}
	return nil
}

// Len is the number of passages.
func (x *Index) Len() int { return x.n }

// Search returns the k passages that best match query, best first, with
// their BM25 scores: Okapi's term-frequency part (k1 = 1.5, b = 0.75) with
// Lucene's idf, ln(1 + (N − n + 0.5)/(n + 0.5)), over the words of
// bm25.Words; a query word counts as often as it occurs. Equal scores keep
// passage order, and the result is the top k of bm25.NewLucene over every
// passage, scores equal to the last bit: only the work differs. Passages
// that share no word with the query are never returned.
//
// The postings of each query word are read in blocks, in passage order, by
// MaxScore: once k passages are held, the words whose highest possible
// scores add up to less than the k-th score cannot make a passage enter on
// their own, and are only looked up for the passages the other words
// find; a block of postings whose highest score cannot lift a passage
// into the top k is skipped unread.
func (x *Index) Search(ctx context.Context, query string, k int) ([]Hit, error) {
	if k <= 0 || x.n == 0 || x.avgdl == 0 {
		return nil, nil
	}
	tokens := bm25.Words(query)
	var cursors []*cursor
	byWord := map[string]*cursor{}
	for _, w := range tokens {
		if c, ok := byWord[w]; ok {
			if c != nil {
				c.count++
			}
			continue
		}
		c, err := x.open(ctx, w)
		if err != nil {
			return nil, err
		}
		byWord[w] = c
		if c != nil {
			cursors = append(cursors, c)
		}
	}
	if len(cursors) == 0 {
		return nil, nil
	}
	// order: by upper bound, lowest first; bound[i] = the sum of the
	// bounds of cursors[0..i].
	for _, c := range cursors {
		c.ub = float64(c.count) * c.idf * c.listMax
		if err := c.seek(ctx, x, 0); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(cursors, func(a, b int) bool { return cursors[a].ub < cursors[b].ub })
	prefix := make([]float64, len(cursors))
	sum := 0.0
	for i, c := range cursors {
		sum += c.ub
		prefix[i] = sum
	}
	top := &hits{}
	theta := math.Inf(-1) // the k-th score once k are held
	// below reports whether a bound cannot beat the k-th score; bounds are
	// summed in another order than the scores, so they get a margin.
	below := func(bound float64) bool { return top.Len() == k && bound*(1+1e-9) <= theta }
	essential := 0 // cursors[essential:] are essential
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The next passage any essential word holds.
		d := uint32(done)
		for _, c := range cursors[essential:] {
			d = min(d, c.doc)
		}
		if d == done {
			break
		}
		// Skip blocks: up to the first block end among the essential
		// words, no passage scores more than their current blocks' bests
		// and the other words' bounds.
		if top.Len() == k {
			bound, end := 0.0, uint32(done)
			for _, c := range cursors[essential:] {
				if c.doc == done {
					continue
				}
				bound += float64(c.count) * c.idf * c.maxws[c.blk]
				end = min(end, c.lasts[c.blk])
			}
			if essential > 0 {
				bound += prefix[essential-1]
			}
			if below(bound) {
				for _, c := range cursors[essential:] {
					if err := c.seek(ctx, x, end+1); err != nil {
						return nil, err
					}
				}
				continue
			}
		}
		dl := float64(x.lengths[d])
		partial := 0.0
		for _, c := range cursors[essential:] {
			if c.doc == d {
				partial += float64(c.count) * c.idf * part(float64(c.tf()), dl, x.avgdl, x.k1, x.b)
			}
		}
		pruned := false
		for i := essential - 1; i >= 0; i-- {
			c := cursors[i]
			if below(partial + prefix[i]) {
				pruned = true
				break
			}
			blk, ok := c.blockOf(d)
			if !ok {
				continue
			}
			rest := 0.0
			if i > 0 {
				rest = prefix[i-1]
			}
			if below(partial + float64(c.count)*c.idf*c.maxws[blk] + rest) {
				// This word adds at most its block's best here, the
				// words before it at most their bounds.
				pruned = true
				break
			}
			if err := c.seek(ctx, x, d); err != nil {
				return nil, err
			}
			if c.doc == d {
				partial += float64(c.count) * c.idf * part(float64(c.tf()), dl, x.avgdl, x.k1, x.b)
			}
		}
		if !pruned && !below(partial) {
			// The exact score, summed in query order as bm25.Index.Scores
			// sums it (every cursor is at d or past it now).
			score := 0.0
			for _, w := range tokens {
				c := byWord[w]
				if c != nil && c.doc == d {
					score += c.idf * part(float64(c.tf()), dl, x.avgdl, x.k1, x.b)
				}
			}
			switch {
			case top.Len() < k:
				pushHit(top, Hit{Passage: int(d), Score: score})
			case score > theta:
				(*top)[0] = Hit{Passage: int(d), Score: score}
				fixHit(top)
			}
			if top.Len() == k {
				theta = (*top)[0].Score
				for essential < len(cursors) && prefix[essential]*(1+1e-9) <= theta {
					essential++
				}
			}
		}
		for _, c := range cursors[essential:] {
			if c.doc == d {
				if err := c.seek(ctx, x, d+1); err != nil {
					return nil, err
				}
			}
		}
		// A cursor that left the essential ones may lag behind d: it is
		// sought forward when next needed.
	}
	out := make([]Hit, top.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(top).(Hit)
	}
	if err := x.locate(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// hits is a min-heap of the best passages so far: the worst on top (the
// lower score, and of equal scores the later passage).
type hits []Hit

func (h hits) Len() int { return len(h) }
func (h hits) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].Passage > h[j].Passage
}
func (h hits) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hits) Push(v any)   { *h = append(*h, v.(Hit)) }
func pushHit(h *hits, x Hit) { heap.Push(h, x) }
func fixHit(h *hits)         { heap.Fix(h, 0) }

func (h *hits) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// done is a cursor's passage once its postings are spent.
const done = math.MaxUint32

// cursor walks one query word's postings.
type cursor struct {
	id      int64
	idf     float64
	count   int     // occurrences in the query
	listMax float64 // the highest term-frequency part of any posting
	ub      float64 // count · idf · listMax
	lasts   []uint32
	maxws   []float64
	blk     int // the block loaded, -1 for none
	docs    []uint32
	tfs     []uint32
	pos     int
	doc     uint32 // the current passage, or done
}

// open looks a word up; nil when no passage has it.
func (x *Index) open(ctx context.Context, word string) (*cursor, error) {
	var id, df int64
	var dir []byte
	err := x.term.QueryRowContext(ctx, word).Scan(&id, &df, &dir)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index: word %q: %w", word, err)
	}
	if len(dir) == 0 || len(dir)%12 != 0 || df <= 0 || df > int64(x.n) {
		return nil, fmt.Errorf("index: word %q: corrupt directory", word)
	}
	c := &cursor{id: id, idf: lucene(float64(x.n), float64(df)), count: 1, blk: -1}
	for i := 0; i < len(dir); i += 12 {
		c.lasts = append(c.lasts, binary.LittleEndian.Uint32(dir[i:]))
		w := math.Float64frombits(binary.LittleEndian.Uint64(dir[i+4:]))
		c.maxws = append(c.maxws, w)
		c.listMax = max(c.listMax, w)
	}
	return c, nil
}

func (c *cursor) tf() uint32 { return c.tfs[c.pos] }

// blockOf returns the block that holds target, if the postings reach it.
func (c *cursor) blockOf(target uint32) (int, bool) {
	from := max(c.blk, 0)
	i := from + sort.Search(len(c.lasts)-from, func(i int) bool { return c.lasts[from+i] >= target })
	return i, i < len(c.lasts)
}

// seek moves to the first posting at or after target, reading only the
// block that holds it.
func (c *cursor) seek(ctx context.Context, x *Index, target uint32) error {
	if c.doc == done || (c.blk >= 0 && c.doc >= target) {
		return nil
	}
	blk, ok := c.blockOf(target)
	if !ok {
		c.doc = done
		return nil
	}
	if blk != c.blk {
		var data []byte
		if err := x.block.QueryRowContext(ctx, c.id, blk).Scan(&data); err != nil {
			return fmt.Errorf("index: block %d of word %d: %w", blk, c.id, err)
		}
		c.docs, c.tfs = c.docs[:0], c.tfs[:0]
		prev := uint32(0)
		for len(data) > 0 {
			d, n := binary.Uvarint(data)
			tf, m := binary.Uvarint(data[n:])
			if n <= 0 || m <= 0 {
				return fmt.Errorf("index: block %d of word %d: corrupt", blk, c.id)
			}
			data = data[n+m:]
			prev += uint32(d)
			c.docs = append(c.docs, prev)
			c.tfs = append(c.tfs, uint32(tf))
		}
		if len(c.docs) == 0 || c.docs[len(c.docs)-1] != c.lasts[blk] {
			return fmt.Errorf("index: block %d of word %d: corrupt", blk, c.id)
		}
		c.blk, c.pos = blk, 0
	}
	c.pos += sort.Search(len(c.docs)-c.pos, func(i int) bool { return c.docs[c.pos+i] >= target })
	c.doc = c.docs[c.pos] // the block's last is >= target
	return nil
}
