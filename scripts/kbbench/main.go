// Command kbbench measures the corpus-wide index of a knowledge base
// (package kbindex) on synthetic corpora (internal/testgen/corpusgen): build time,
// file size, and query latency (median, p99) at each size, beside a scan
// of every passage (bm25.NewLucene's Scores) where that fits in memory,
// and the exact dense search at each size. It prints a markdown table for
// BENCHMARKS.md:
//
//	go run ./scripts/kbbench -sizes 10000,100000,1000000
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/factreasoner/factreasoner-go/bm25"
	"github.com/factreasoner/factreasoner-go/internal/testgen/corpusgen"
	"github.com/factreasoner/factreasoner-go/kbindex"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

func main() {
	sizes := flag.String("sizes", "10000,100000,1000000", "corpus sizes, in passages")
	queries := flag.Int("queries", 1000, "queries per size")
	scanMax := flag.Int("scan-max", 100000, "largest size also searched by a scan of every passage")
	dim := flag.Int("dim", 384, "dimension of the dense vectors (0: no dense search)")
	denseMax := flag.Int("dense-max", 100000, "largest size with dense vectors")
	k := flag.Int("k", 5, "passages per query")
	dir := flag.String("dir", os.TempDir(), "where the knowledge bases are written (removed after)")
	flag.Parse()
	fmt.Printf("| passages | build | file | index | query median | p99 | scan median | own passage in top k | vectors | dense query median | p99 |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			fatal(err)
		}
		if err := bench(n, *queries, *k, n <= *scanMax, n <= *denseMax && *dim > 0, *dim, *dir); err != nil {
			fatal(err)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "kbbench:", err)
	os.Exit(1)
}

func bench(n, nq, k int, scan, dense bool, dim int, dir string) error {
	ctx := context.Background()
	path := filepath.Join(dir, fmt.Sprintf("kbbench-%d.db", n))
	os.Remove(path)
	defer os.Remove(path)
	gen := corpusgen.New(uint64(n))
	var sample []string // passages the queries are made from
	var sampleID []int  // and their ids
	var docs [][]string // for the scan
	start := time.Now()
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=OFF&_synchronous=OFF")
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if _, err := tx.Exec(`CREATE TABLE documents (title TEXT PRIMARY KEY, text TEXT)`); err != nil {
		return err
	}
	b, err := kbindex.NewBuilder(ctx, tx)
	if err != nil {
		return err
	}
	if dense {
		if err := b.Embedding(ctx, "random"); err != nil {
			return err
		}
	}
	vr := rand.New(rand.NewPCG(uint64(n), 7))
	const perDoc = 10
	for d := 0; d*perDoc < n; d++ {
		var ps []string
		for i := 0; i < perDoc && d*perDoc+i < n; i++ {
			p := gen.Passage()
			ps = append(ps, p)
			if vr.IntN(max(1, n/nq)) == 0 && len(sample) < nq {
				sample = append(sample, p)
				sampleID = append(sampleID, d*perDoc+i)
			}
			if scan {
				docs = append(docs, bm25.Words(p))
			}
		}
		res, err := tx.Exec(`INSERT INTO documents (title, text) VALUES (?, ?)`, fmt.Sprintf("doc %d", d), strings.Join(ps, retrieve.Separator))
		if err != nil {
			return err
		}
		doc, _ := res.LastInsertId()
		for i, p := range ps {
			id, err := b.Add(ctx, doc, i, p)
			if err != nil {
				return err
			}
			if dense {
				v := make([]float32, dim)
				for j := range v {
					v[j] = float32(vr.NormFloat64())
				}
				if err := b.AddVector(ctx, id, v); err != nil {
					return err
				}
			}
		}
		if d%10000 == 0 && d > 0 {
			fmt.Fprintf(os.Stderr, "kbbench: %d: %d passages written, %.0fs\n", n, d*perDoc, time.Since(start).Seconds())
		}
	}
	if _, err := b.Finish(ctx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if _, err := db.Exec(`VACUUM`); err != nil {
		return err
	}
	build := time.Since(start)
	// The index's payload: postings, the terms and their directories, the
	// passages' lengths and places (3 numbers a passage).
	var postings, terms, vectors int64
	db.QueryRow(`SELECT sum(length(data)) FROM kb_postings`).Scan(&postings)
	db.QueryRow(`SELECT sum(length(term) + length(dir) + 8) FROM kb_terms`).Scan(&terms)
	if dense {
		db.QueryRow(`SELECT sum(length(v)) FROM kb_vectors`).Scan(&vectors)
	}
	indexBytes := postings + terms + int64(n)*(4+12)
	db.Close()
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "kbbench: %d: built in %.1fs\n", n, build.Seconds())

	ro, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer ro.Close()
	x, err := kbindex.Open(ctx, ro)
	if err != nil {
		return err
	}
	defer x.Close()
	qs := make([]string, len(sample))
	for i, p := range sample {
		qs[i] = gen.Query(p)
	}
	var lat []time.Duration
	found := 0 // queries whose own passage is among the hits
	for i, q := range qs {
		t0 := time.Now()
		hits, err := x.Search(ctx, q, k)
		if err != nil {
			return err
		}
		lat = append(lat, time.Since(t0))
		for _, h := range hits {
			if h.Passage == sampleID[i] {
				found++
			}
		}
	}
	med, p99 := percentile(lat, 0.5), percentile(lat, 0.99)
	scanCell := "—"
	if scan {
		m := bm25.NewLucene(docs, bm25.DefaultK1, bm25.DefaultB)
		var sl []time.Duration
		for _, q := range qs[:min(len(qs), 100)] {
			t0 := time.Now()
			bm25.TopK(m.Scores(bm25.Words(q)), k)
			sl = append(sl, time.Since(t0))
		}
		scanCell = dur(percentile(sl, 0.5))
		docs = nil
		runtime.GC()
	}
	denseMed, denseP99 := "—", "—"
	if dense {
		t0 := time.Now()
		vs, err := x.Vectors(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "kbbench: %d: vectors read in %.1fs\n", n, time.Since(t0).Seconds())
		var dl []time.Duration
		for range min(len(qs), 100) {
			q := make([]float32, dim)
			for j := range q {
				q[j] = float32(vr.NormFloat64())
			}
			t0 := time.Now()
			if _, err := vs.Search(ctx, q, k); err != nil {
				return err
			}
			dl = append(dl, time.Since(t0))
		}
		denseMed, denseP99 = dur(percentile(dl, 0.5)), dur(percentile(dl, 0.99))
	}
	fmt.Printf("| %d | %.1f s | %s | %s | %s | %s | %s | %d/%d | %s | %s | %s |\n", n, build.Seconds(), size(st.Size()), size(indexBytes), dur(med), dur(p99), scanCell, found, len(qs), size(vectors), denseMed, denseP99)
	return nil
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func dur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func size(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.0f kB", float64(b)/(1<<10))
}
