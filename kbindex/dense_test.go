package kbindex

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestVectorsSearch: the exact search returns the passages of highest
// cosine similarity, as sorting every passage's similarity does (ties in
// passage order: a vocabulary of 3 directions makes many), with more
// passages than one chunk.
func TestVectorsSearch(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	const n, dim = 20000, 6
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "kb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, _ := db.Begin()
	b, err := NewBuilder(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Embedding(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	vecs := make([][]float32, n)
	for i := range vecs {
		if _, err := b.Add(ctx, int64(i), 0, "w"); err != nil {
			t.Fatal(err)
		}
		v := make([]float32, dim)
		if i%2 == 0 { // one of three directions, scaled: ties
			v[r.IntN(3)] = float32(1 + r.IntN(3))
		} else {
			for j := range v {
				v[j] = float32(r.NormFloat64())
			}
		}
		vecs[i] = normalized(v)
		if err := b.AddVector(ctx, i, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.AddVector(ctx, 0, make([]float32, dim+1)); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Fatalf("a vector of another dimension: %v", err)
	}
	if _, err := b.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	tx.Commit()
	x, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if m, d, ok := x.EmbedModel(); m != "m" || d != dim || !ok {
		t.Fatalf("EmbedModel: %q %d %v", m, d, ok)
	}
	vs, err := x.Vectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 50 {
		q := make([]float32, dim)
		for j := range q {
			q[j] = float32(r.NormFloat64())
		}
		if trial%5 == 0 {
			q = []float32{1, 0, 0, 0, 0, 0}
		}
		qn := normalized(q)
		type scored struct {
			i int
			s float64
		}
		all := make([]scored, n)
		for i, v := range vecs {
			for j := range v {
				all[i].s += float64(v[j]) * float64(qn[j])
			}
			all[i].i = i
		}
		sort.SliceStable(all, func(a, b int) bool { return all[a].s > all[b].s })
		for _, k := range []int{1, 5, 30} {
			got, err := vs.Search(ctx, q, k)
			if err != nil {
				t.Fatal(err)
			}
			for j := range k {
				if got[j].Passage != all[j].i || got[j].Score != all[j].s || got[j].Doc != int64(all[j].i) {
					t.Fatalf("trial %d, k %d, rank %d: got %+v, want passage %d score %v", trial, k, j, got[j], all[j].i, all[j].s)
				}
			}
		}
	}
	if _, err := vs.Search(ctx, make([]float32, dim+1), 3); err == nil {
		t.Fatal("a query of another dimension was searched")
	}
}

func TestNoVectors(t *testing.T) {
	x, err := Open(context.Background(), build(t, []string{"a b", "c"}, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := x.EmbedModel(); ok {
		t.Fatal("an index without vectors has a model")
	}
	if _, err := x.Vectors(context.Background()); !errors.Is(err, ErrNoVectors) {
		t.Fatalf("got %v, want ErrNoVectors", err)
	}
}
