package kbindex

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"
)

// ErrNoVectors is returned (wrapped) by Index.Vectors for a knowledge base
// built without an embedding model.
var ErrNoVectors = errors.New("the knowledge base has no passage vectors (build it with fr kb build --embed-model)")

// Embedding starts storing a vector for each passage, made by the named
// model; call it before AddVector. The model's name is recorded with the
// vectors, and queries must be embedded by it.
func (b *Builder) Embedding(ctx context.Context, model string) error {
	if model == "" {
		return errors.New("index: no embedding model named")
	}
	if _, err := b.tx.ExecContext(ctx, `CREATE TABLE kb_vectors (id INTEGER PRIMARY KEY, v BLOB NOT NULL)`); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	b.embedModel = model
	return nil
}

// AddVector stores the vector of passage id (as Add returned it), scaled
// to length 1. Every vector must have the dimension of the first.
func (b *Builder) AddVector(ctx context.Context, id int, v []float32) error {
	if b.embedModel == "" {
		return errors.New("index: AddVector before Embedding")
	}
	if b.embedDim == 0 {
		b.embedDim = len(v)
	}
	if len(v) != b.embedDim || len(v) == 0 {
		return fmt.Errorf("index: passage %d: a vector of %d dimensions, the others have %d", id, len(v), b.embedDim)
	}
	if id < 0 || id >= len(b.lengths) {
		return fmt.Errorf("index: passage %d: no such passage", id)
	}
	if _, err := b.tx.ExecContext(ctx, `INSERT INTO kb_vectors (id, v) VALUES (?, ?)`, id, encodeVector(normalized(v))); err != nil {
		return fmt.Errorf("index: passage %d: %w", id, err)
	}
	b.vectors++
	return nil
}

// finishVectors checks that every passage has its vector and records the
// model and dimension.
func (b *Builder) finishVectors(ctx context.Context) error {
	if b.embedModel == "" {
		return nil
	}
	if b.vectors != len(b.lengths) {
		return fmt.Errorf("index: %d vectors for %d passages", b.vectors, len(b.lengths))
	}
	for _, kv := range [][2]string{{"embed_model", b.embedModel}, {"embed_dim", strconv.Itoa(b.embedDim)}} {
		if _, err := b.tx.ExecContext(ctx, `INSERT INTO kb_index (key, value) VALUES (?, ?)`, kv[0], kv[1]); err != nil {
			return fmt.Errorf("index: %w", err)
		}
	}
	return nil
}

func normalized(v []float32) []float32 {
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(float64(x) / norm)
	}
	return out
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// Vectors are the passages' vectors, held in memory (4 bytes a dimension
// a passage) and searched exactly: every passage's cosine similarity to
// the query, on every core.
type Vectors struct {
	x     *Index
	model string
	dim   int
	data  []float32 // passage i's vector at [i·dim, (i+1)·dim)
}

// EmbedModel returns the embedding model and dimension the knowledge base's
// vectors were made with, and false when it has none. It reads no vector.
func (x *Index) EmbedModel() (model string, dim int, ok bool) {
	return x.embedModel, x.embedDim, x.embedModel != ""
}

// Vectors reads the passages' vectors (once; later calls share them). A
// knowledge base without them gives an error wrapping ErrNoVectors.
func (x *Index) Vectors(ctx context.Context) (*Vectors, error) {
	x.vecOnce.Do(func() { x.vec, x.vecErr = x.readVectors(ctx) })
	return x.vec, x.vecErr
}

func (x *Index) readVectors(ctx context.Context) (*Vectors, error) {
	if x.embedModel == "" {
		return nil, ErrNoVectors
	}
	if x.embedDim <= 0 || int64(x.embedDim)*int64(x.n) > math.MaxInt32*4 {
		return nil, fmt.Errorf("the index's vectors: %d passages of %d dimensions", x.n, x.embedDim)
	}
	v := &Vectors{x: x, model: x.embedModel, dim: x.embedDim, data: make([]float32, x.n*x.embedDim)}
	rows, err := x.db.QueryContext(ctx, `SELECT id, v FROM kb_vectors ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	count := 0
	for rows.Next() {
		var id int
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, err
		}
		if id < 0 || id >= x.n || len(raw) != 4*x.embedDim {
			return nil, fmt.Errorf("the index's vector of passage %d: %d bytes, want %d", id, len(raw), 4*x.embedDim)
		}
		dst := v.data[id*x.embedDim : (id+1)*x.embedDim]
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		count++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if count != x.n {
		return nil, fmt.Errorf("the index has %d vectors for %d passages", count, x.n)
	}
	return v, nil
}

// Model is the embedding model the vectors were made with; Dim their
// dimension.
func (v *Vectors) Model() string { return v.model }
func (v *Vectors) Dim() int      { return v.dim }

// Search returns the k passages whose vectors are most similar (cosine) to
// q, best first; equal scores keep passage order. q must have the
// vectors' dimension.
func (v *Vectors) Search(ctx context.Context, q []float32, k int) ([]Hit, error) {
	if len(q) != v.dim {
		return nil, fmt.Errorf("a query vector of %d dimensions for vectors of %d (model %s)", len(q), v.dim, v.model)
	}
	q = normalized(q)
	n := v.x.n
	k = min(k, n)
	if k <= 0 {
		return nil, nil
	}
	// Fixed chunks, each keeping its own top k, merged in chunk order: the
	// same hits whatever the number of cores.
	const chunk = 8192
	parts := make([][]Hit, (n+chunk-1)/chunk)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for c := range parts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			top := &hits{}
			for i := c * chunk; i < min(n, (c+1)*chunk); i++ {
				row := v.data[i*v.dim : (i+1)*v.dim]
				var s float64
				for j, x := range row {
					s += float64(x) * float64(q[j])
				}
				switch {
				case top.Len() < k:
					pushHit(top, Hit{Passage: i, Score: s})
				case s > (*top)[0].Score:
					(*top)[0] = Hit{Passage: i, Score: s}
					fixHit(top)
				}
			}
			parts[c] = *top
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var all []Hit
	for _, p := range parts {
		all = append(all, p...)
	}
	sort.Slice(all, func(a, b int) bool {
		if all[a].Score != all[b].Score {
			return all[a].Score > all[b].Score
		}
		return all[a].Passage < all[b].Passage
	})
	all = all[:min(k, len(all))]
	if err := v.x.locate(ctx, all); err != nil {
		return nil, err
	}
	return all, nil
}

// locate fills in each hit's document and place.
func (x *Index) locate(ctx context.Context, hs []Hit) error {
	for i := range hs {
		if err := x.where.QueryRowContext(ctx, hs[i].Passage).Scan(&hs[i].Doc, &hs[i].Ord); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				err = errors.New("not in the index")
			}
			return fmt.Errorf("index: passage %d: %w", hs[i].Passage, err)
		}
	}
	return nil
}
