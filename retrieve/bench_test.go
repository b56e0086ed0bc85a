package retrieve

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/factreasoner/factreasoner-go/bm25"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/pystr"
)

// zipfPassages makes n passages of about 190 words (a 256-token passage)
// drawn from a Zipf-distributed vocabulary of 30,000 words, the shape of
// English text; deterministic.
func zipfPassages(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 2, 29999)
	out := make([]string, n)
	var b strings.Builder
	for i := range out {
		b.Reset()
		words := 150 + r.IntN(80)
		for j := 0; j < words; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "w%d", z.Uint64())
		}
		out[i] = b.String()
	}
	return out
}

// queries makes atom-like queries: a topic and eight words.
func queries(n int) []string {
	r := rand.New(rand.NewPCG(3, 4))
	z := rand.NewZipf(r, 1.1, 2, 29999)
	out := make([]string, n)
	for i := range out {
		words := []string{"Topic", "Name"}
		for range 8 {
			words = append(words, fmt.Sprintf("w%d", z.Uint64()))
		}
		out[i] = strings.Join(words, " ")
	}
	return out
}

var benchSizes = []int{1000, 3000, 10000}

// BenchmarkBM25Index: building the index of one topic's passages.
func BenchmarkBM25Index(b *testing.B) {
	for _, n := range benchSizes {
		docs := make([][]string, n)
		for i, p := range zipfPassages(n) {
			docs[i] = pystr.Fields(p)
		}
		b.Run(fmt.Sprintf("passages=%d", n), func(b *testing.B) {
			for b.Loop() {
				bm25.NewOkapi(docs)
			}
		})
	}
}

// BenchmarkBM25Query: scoring every passage for one query and taking the
// top 5, index built.
func BenchmarkBM25Query(b *testing.B) {
	qs := queries(100)
	for _, n := range benchSizes {
		docs := make([][]string, n)
		for i, p := range zipfPassages(n) {
			docs[i] = pystr.Fields(p)
		}
		m := bm25.NewOkapi(docs)
		b.Run(fmt.Sprintf("passages=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				bm25.TopK(m.Scores(pystr.Fields(qs[i%len(qs)])), 5)
				i++
			}
		})
	}
}

// BenchmarkRetrieveDocDB: the whole retrieval of FActScore (topic lookup in
// the SQLite knowledge base, BM25 over the topic's passages, top 5) for a
// topic of n passages: warm (the topic's index kept, as for the second and
// later atoms of a response) and cold (a new retriever each time: read,
// split and index the document, then rank).
func BenchmarkRetrieveDocDB(b *testing.B) {
	qs := queries(100)
	ctx := context.Background()
	for _, n := range benchSizes {
		path := filepath.Join(b.TempDir(), "kb.db")
		sdb, err := sql.Open("sqlite3", path)
		if err != nil {
			b.Fatal(err)
		}
		sdb.Exec(`CREATE TABLE documents (title TEXT PRIMARY KEY, text TEXT)`)
		sdb.Exec(`INSERT INTO documents VALUES (?, ?)`, "Topic Name", strings.Join(zipfPassages(n), Separator))
		sdb.Close()
		db, err := OpenDocDB(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("warm/passages=%d", n), func(b *testing.B) {
			r := NewBM25Retriever(db)
			if _, err := r.Retrieve(ctx, "Topic Name", qs[0], 5); err != nil { // index the topic
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				if _, err := r.Retrieve(ctx, "Topic Name", qs[i%len(qs)], 5); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("cold/passages=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := NewBM25Retriever(db).Retrieve(ctx, "Topic Name", qs[i%len(qs)], 5); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		db.Close()
	}
}

// processCPU is the CPU time (user and system) the process has used, in
// nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkSplitRoberta: cutting text into 256-token passages with the
// real roberta-base tokenizer (fr kb build's cost per document), on
// Wikipedia-like text of about 2,000 words and on the Flaherty knowledge
// base's 21 documents (lower-cased), with the sentence split and the
// window split it replaced.
func BenchmarkSplitRoberta(b *testing.B) {
	tok := loadRoberta(b)
	para := "Lanny Flaherty (July 27, 1942 – February 18, 2024) was an American actor. " +
		"He had roles in films and miniseries such as Lonesome Dove, Natural Born Killers, " +
		"Book of Shadows: Blair Witch 2 and Signs. He also had a brief role in Men in Black 3."
	pieces := make([]string, 40)
	for i := range pieces {
		pieces[i] = para
	}
	sets := []struct {
		name string
		docs []Document
	}{
		{"doc=wiki-like", []Document{{Title: "Lanny Flaherty", Pieces: pieces}}},
		{"doc=flaherty-kb", flahertyDocuments(b)},
	}
	for _, set := range sets {
		words := 0
		for _, d := range set.docs {
			words += len(strings.Fields(strings.Join(d.Pieces, " ")))
		}
		for _, split := range []struct {
			name string
			fn   splitFunc
		}{{"sentences", Split}, {"window", windowSplit}} {
			b.Run(set.name+"/split="+split.name, func(b *testing.B) {
				cpu := processCPU()
				for b.Loop() {
					if _, err := splitDocuments(set.docs, split.fn, tok, DefaultMaxTokens); err != nil {
						b.Fatal(err)
					}
				}
				// CPU time is less disturbed than wall time on a shared
				// machine.
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(words), "words")
			})
		}
	}
}

// BenchmarkContent: computing the content identity of a knowledge base
// that records none (FActScore's enwiki-20230401.db), by reading every
// document: 256 MiB of documents of FActScore's shape (passages of about
// 190 words, a dozen to a document) in a FActScore-format file. MB/s is of
// the documents' text; BENCHMARKS.md scales it to enwiki's 20 GB.
func BenchmarkContent(b *testing.B) {
	path := filepath.Join(b.TempDir(), "kb.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		b.Fatal(err)
	}
	db.Exec(`CREATE TABLE documents (title PRIMARY KEY, text)`)
	tx, _ := db.Begin()
	passages := zipfPassages(1000)
	var total int64
	for i := 0; total < 256<<20; i++ {
		first := i % (1000 - 12)
		doc := strings.Join(passages[first:first+12], Separator)
		title := fmt.Sprintf("Document %d", i)
		if _, err := tx.Exec(`INSERT INTO documents VALUES (?, ?)`, title, doc); err != nil {
			b.Fatal(err)
		}
		total += int64(len(title) + len(doc))
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	db.Close()
	kb, err := OpenDocDB(path)
	if err != nil {
		b.Fatal(err)
	}
	defer kb.Close()
	b.SetBytes(total)
	b.ResetTimer()
	for range b.N {
		if _, err := computeContent(context.Background(), kb.db, nil); err != nil {
			b.Fatal(err)
		}
	}
}
