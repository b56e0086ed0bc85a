package kbindex_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/mattn/go-sqlite3"

	"github.com/factreasoner/factreasoner-go/kbindex"
)

// An index written beside a knowledge base's documents, then searched for
// the passages that best match a claim. By hand: N = 3, mean length 25/3;
// "the" is in 2 passages (idf ln 1.6 = 0.470), "seal" in 1 (ln 8/3 =
// 0.981); both passages that hold them have 8 words, a term part of
// 2.5/(1 + 1.5·(0.25 + 0.75·8/(25/3))) = 1.018: 1.451·1.018 = 1.477 and
// 0.470·1.018 = 0.479.
func ExampleIndex_Search() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "kbindex")
	defer os.RemoveAll(dir)
	db, _ := sql.Open("sqlite3", filepath.Join(dir, "kb.db"))
	defer db.Close()
	tx, _ := db.Begin()
	b, _ := kbindex.NewBuilder(ctx, tx)
	for i, p := range []string{
		"The pump must be primed before first use.",
		"Replace the impeller seal every 2,000 hours.",
		"Employees accrue 25 days of paid leave per year.",
	} {
		b.Add(ctx, 1, i, p) // passage i of document 1
	}
	b.Finish(ctx)
	tx.Commit()

	x, err := kbindex.Open(ctx, db)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Close()
	hits, _ := x.Search(ctx, "How often is the seal replaced?", 2)
	for _, h := range hits {
		fmt.Printf("passage %d of document %d, score %.3f\n", h.Ord, h.Doc, h.Score)
	}
	// Output:
	// passage 1 of document 1, score 1.477
	// passage 0 of document 1, score 0.479
}
