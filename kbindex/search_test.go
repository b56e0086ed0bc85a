package kbindex

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/factreasoner/factreasoner-go/bm25"
)

// build writes an index of passages (each its own document) to a new
// database, flushing runs of at most runLimit postings.
func build(t testing.TB, passages []string, runLimit int) *sql.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "kb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBuilder(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if runLimit > 0 {
		b.runLimit = runLimit
	}
	for i, p := range passages {
		id, err := b.Add(ctx, int64(100+i/3), i%3, p)
		if err != nil || id != i {
			t.Fatalf("Add %d: id %d, %v", i, id, err)
		}
	}
	if _, err := b.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return db
}

// bruteForce is the reference: every passage scored by bm25.NewLucene,
// the top k of those that match (score above 0), ties in passage order.
func bruteForce(m *bm25.Index, query string, k int) []Hit {
	scores := m.Scores(bm25.Words(query))
	var out []Hit
	for _, i := range bm25.TopK(scores, len(scores)) {
		if scores[i] <= 0 || len(out) == k {
			break
		}
		out = append(out, Hit{Passage: i, Doc: int64(100 + i/3), Ord: i % 3, Score: scores[i]})
	}
	return out
}

func randomText(r *rand.Rand, z *rand.Zipf, words int) string {
	var b strings.Builder
	for j := range words {
		if j > 0 {
			b.WriteString([]string{" ", ", ", ". ", " ("}[r.IntN(4)])
		}
		w := fmt.Sprintf("w%d", z.Uint64())
		if r.IntN(5) == 0 {
			w = strings.ToUpper(w)
		}
		b.WriteString(w)
	}
	return b.String()
}

// TestSearchMatchesBruteForce: the index's top k is bm25.NewLucene's over
// every passage, ids and scores to the last bit, on corpora with many
// ties (a vocabulary of 8 words), with empty passages, with words in
// hundreds of blocks, written in one run or in many.
func TestSearchMatchesBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name     string
		passages int
		vocab    uint64
		words    int // most words a passage
		runLimit int
	}{
		{"ties", 300, 8, 6, 0},
		{"ties, runs of 50 postings", 300, 8, 6, 50},
		{"zipf", 3000, 5000, 60, 0},
		{"zipf, runs of 10000 postings", 3000, 5000, 60, 10000},
		{"long lists", 20000, 300, 12, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.passages), tc.vocab))
			z := rand.NewZipf(r, 1.2, 1, tc.vocab-1)
			passages := make([]string, tc.passages)
			docs := make([][]string, tc.passages)
			for i := range passages {
				if r.IntN(50) > 0 { // some stay empty
					passages[i] = randomText(r, z, 1+r.IntN(tc.words))
				}
				docs[i] = bm25.Words(passages[i])
			}
			ref := bm25.NewLucene(docs, bm25.DefaultK1, bm25.DefaultB)
			x, err := Open(context.Background(), build(t, passages, tc.runLimit))
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			queries := []string{"", "nothing matches this", "w0", "w0 w0 w1", "W3, w3 (w900)"}
			for range 200 {
				queries = append(queries, randomText(r, z, 1+r.IntN(12)))
			}
			for _, q := range queries {
				for _, k := range []int{1, 3, 5, 50} {
					got, err := x.Search(context.Background(), q, k)
					if err != nil {
						t.Fatal(err)
					}
					want := bruteForce(ref, q, k)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("query %q, k %d:\n got %v\nwant %v", q, k, got, want)
					}
				}
			}
		})
	}
}

func TestOpenWithoutIndex(t *testing.T) {
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "kb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE documents (title TEXT PRIMARY KEY, text TEXT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), db); err != ErrNoIndex {
		t.Fatalf("got %v, want ErrNoIndex", err)
	}
}
