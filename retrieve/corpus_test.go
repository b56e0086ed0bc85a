package retrieve

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/bm25"
	"github.com/factreasoner/factreasoner-go/kbindex"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// corpusDocs are documents about several subjects, none of them the
// record's topic.
var corpusDocs = []Document{
	{Title: "Pump manual", Pieces: []string{"The pump must be primed before first use. Fill the housing with water.", "Replace the impeller seal every 2,000 hours of operation."}},
	{Title: "Leave policy", Pieces: []string{"Employees accrue 25 days of paid leave per year.", "Unused leave expires at the end of March of the following year."}},
	{Title: "Solar array", Pieces: []string{"The array produces 4.2 kW at peak.", "Panels are cleaned twice a year; the inverter is replaced after 12 years."}},
	{Title: "Lanny Flaherty", Pieces: []string{"Lanny Flaherty was an American actor born in Pontotoc, Mississippi."}},
}

// buildKB writes docs to a knowledge base with Builder, embedding its
// passages with e when it is not nil.
func buildKB(t *testing.T, docs []Document, e Embedder, model string) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kb.db")
	b, err := NewBuilder(path, BuildOptions{MaxTokens: 12, Embedder: e, EmbedModel: model})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := b.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	return path
}

// allPassages reads every passage of a knowledge base, in index order
// (documents in rowid order, each document's passages in order).
func allPassages(t *testing.T, db *DocDB) []Passage {
	t.Helper()
	rows, err := db.db.Query(`SELECT title, text FROM documents ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []Passage
	for rows.Next() {
		var title, text string
		rows.Scan(&title, &text)
		for _, p := range splitPassages(text) {
			out = append(out, Passage{Title: title, Text: p, Source: "db"})
		}
	}
	return out
}

func TestKBScopes(t *testing.T) {
	ctx := context.Background()
	srv := llmtest.NewEmbeddings(t, "hash-64", 64)
	client, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "hash-64"})
	if err != nil {
		t.Fatal(err)
	}
	path := buildKB(t, corpusDocs, client, "hash-64")
	db, err := OpenDocDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := allPassages(t, db)
	if srv.Texts() != len(all) {
		t.Fatalf("%d passages embedded, the knowledge base has %d", srv.Texts(), len(all))
	}
	corpus, err := NewCorpus(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer corpus.Close()
	words := make([][]string, len(all))
	for i, p := range all {
		words[i] = bm25.Words(p.Text)
	}
	lucene := bm25.NewLucene(words, bm25.DefaultK1, bm25.DefaultB)
	// The references: BM25 over every passage, cosine over every passage,
	// and their fusion.
	byWords := func(query string, k int) []kbindex.Hit {
		s := lucene.Scores(bm25.Words(query))
		var out []kbindex.Hit
		for _, i := range bm25.TopK(s, len(s)) {
			if s[i] > 0 && len(out) < k {
				out = append(out, kbindex.Hit{Passage: i})
			}
		}
		return out
	}
	byVector := func(query string, k int) []kbindex.Hit {
		q := llmtest.HashEmbedding(query, 64)
		type sc struct {
			i int
			s float64
		}
		var ss []sc
		for i, p := range all {
			v := llmtest.HashEmbedding(p.Text, 64)
			s := 0.0
			for j := range v {
				s += float64(v[j]) * float64(q[j])
			}
			ss = append(ss, sc{i, s})
		}
		sort.SliceStable(ss, func(a, b int) bool { return ss[a].s > ss[b].s })
		var out []kbindex.Hit
		for _, x := range ss[:min(k, len(ss))] {
			out = append(out, kbindex.Hit{Passage: x.i})
		}
		return out
	}
	texts := func(hs []kbindex.Hit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, all[h.Passage].Text)
		}
		return out
	}
	got := func(ps []Passage) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Text)
		}
		return out
	}
	dense, err := NewVectorSearch(ctx, corpus, RankDense, client, "")
	if err != nil {
		t.Fatal(err)
	}
	hybrid, err := NewVectorSearch(ctx, corpus, RankHybrid, client, "hash-64")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		r      Retriever
		topic  string
		atom   string
		want   func(q string, k int) []string
		titles []string
	}{
		{"bm25, no topic", corpus, "", "How often is the impeller seal replaced?", func(q string, k int) []string { return texts(byWords(q, k)) }, nil},
		{"bm25, a topic that is no title", corpus, "Acme", "paid leave days per year", func(q string, k int) []string { return texts(byWords(q, k)) }, nil},
		{"dense", dense, "", "when is the inverter replaced", func(q string, k int) []string { return texts(byVector(q, k)) }, nil},
		{"hybrid", hybrid, "", "the pump seal and the inverter", func(q string, k int) []string {
			return texts(Fuse(k, byWords(q, max(FusionDepth, 2*k)), byVector(q, max(FusionDepth, 2*k))))
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []int{1, 3, 20} {
				ps, err := tc.r.Retrieve(ctx, tc.topic, tc.atom, k)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.want(CorpusQuery(tc.topic, tc.atom), k)
				if fmt.Sprint(got(ps)) != fmt.Sprint(want) {
					t.Fatalf("k %d:\n got %q\nwant %q", k, got(ps), want)
				}
			}
		})
	}
	// The db source: a record with a topic keeps FActScore's retrieval, one
	// without is searched in every passage; with ScopeCorpus, every record.
	topicOnly := NewBM25Retriever(db)
	for _, scope := range []Scope{ScopeTopic, ScopeCorpus} {
		kb := &KB{Topic: topicOnly, Corpus: corpus, Scope: scope, CorpusName: corpus.Source()}
		ps, err := kb.Retrieve(ctx, "Lanny Flaherty", "born in Mississippi", 2)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := topicOnly.Retrieve(ctx, "Lanny Flaherty", "born in Mississippi", 2)
		if scope == ScopeCorpus {
			want, _ = corpus.Retrieve(ctx, "Lanny Flaherty", "born in Mississippi", 2)
		}
		if fmt.Sprint(ps) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", scope, ps, want)
		}
		ps, err = kb.Retrieve(ctx, "", "paid leave", 1)
		if err != nil || len(ps) != 1 || ps[0].Title != "Leave policy" {
			t.Errorf("%s, no topic: %v, %v", scope, ps, err)
		}
	}
	// Queries embedded by another model are refused.
	if _, err := NewVectorSearch(ctx, corpus, RankDense, client, "other-model"); err == nil || !strings.Contains(err.Error(), `"hash-64"`) {
		t.Errorf("another model: %v", err)
	}
	// An endpoint whose vectors have another dimension is refused at the
	// first query.
	other := llmtest.NewEmbeddings(t, "hash-64", 32)
	oc, _ := llm.New(llm.Config{BaseURL: other.BaseURL(), Model: "hash-64"})
	od, err := NewVectorSearch(ctx, corpus, RankDense, oc, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := od.Retrieve(ctx, "", "pump", 3); err == nil || !strings.Contains(err.Error(), "32 dimensions") {
		t.Errorf("another dimension: %v", err)
	}
}

// TestKBWithoutIndex: a knowledge base in FActScore's format without the
// corpus-wide index serves records with a topic as before; a record
// without one is ErrNoTopic, and the message says how to get an index.
func TestKBWithoutIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "factscore.db")
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	raw.Exec(`CREATE TABLE documents (title PRIMARY KEY, text)`)
	raw.Exec(`INSERT INTO documents VALUES ('A', 'a passage about a' || ? || 'another about b')`, Separator)
	raw.Close()
	db, err := OpenDocDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = NewCorpus(ctx, db)
	if !errors.Is(err, kbindex.ErrNoIndex) {
		t.Fatalf("NewCorpus: %v", err)
	}
	kb := &KB{Topic: NewBM25Retriever(db)}
	if ps, err := kb.Retrieve(ctx, "A", "b", 1); err != nil || len(ps) != 1 {
		t.Fatalf("with a topic: %v, %v", ps, err)
	}
	_, err = kb.Retrieve(ctx, "", "b", 1)
	if !errors.Is(err, ErrNoTopic) || !strings.Contains(err.Error(), "fr kb build") {
		t.Fatalf("without a topic: %v", err)
	}
	if kb.Source() != NewBM25Retriever(db).Source() {
		t.Errorf("the cache's name of a knowledge base without an index changed: %s", kb.Source())
	}
}
