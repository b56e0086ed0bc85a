package retrieve

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"github.com/factreasoner/factreasoner-go/bm25"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/safefile/safefiletest"
)

// writeFActScoreDB writes a knowledge base the way FActScore's builder
// does: CREATE TABLE documents (title PRIMARY KEY, text), passages decoded
// with RoBERTa's special tokens left in.
func writeFActScoreDB(t *testing.T, docs map[string][]string) string {
	t.Helper()
	var rows [][2]string
	for _, title := range slices.Sorted(maps.Keys(docs)) {
		rows = append(rows, [2]string{title, strings.Join(docs[title], Separator)})
	}
	return factScoreDB(t, rows)
}

var testKB = map[string][]string{
	"Ada Lovelace": {
		"<s>Ada Lovelace was an English mathematician and writer.</s>",
		"<s>She was born on 10 December 1815 in London.</s>",
		"<s>Lovelace worked on Charles Babbage's Analytical Engine.</s><s>She wrote the first published algorithm.</s>",
		"<s>She died on 27 November 1852.</s>",
	},
	"ada lovelace": {"<s>A different, lower-case title.</s>"},
}

func TestDocDBPassages(t *testing.T) {
	db, err := OpenDocDB(writeFActScoreDB(t, testKB))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Passages(context.Background(), "Ada Lovelace")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Ada Lovelace was an English mathematician and writer.",
		"She was born on 10 December 1815 in London.",
		"Lovelace worked on Charles Babbage's Analytical Engine.She wrote the first published algorithm.",
		"She died on 27 November 1852.",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("passages:\n got %q\nwant %q", got, want)
	}
	// Exact title match: case and spacing matter, as in FActScore.
	for _, title := range []string{"Ada lovelace", "Ada Lovelace ", "Charles Babbage"} {
		_, err := db.Passages(context.Background(), title)
		if !errors.Is(err, ErrTopicNotFound) {
			t.Errorf("title %q: err = %v, want ErrTopicNotFound", title, err)
		}
	}
}

func TestOpenDocDBErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenDocDB(filepath.Join(dir, "missing.db")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	empty := filepath.Join(dir, "empty.db")
	db, _ := sql.Open("sqlite3", empty)
	db.Exec(`CREATE TABLE other (x)`)
	db.Close()
	if _, err := OpenDocDB(empty); err == nil || !strings.Contains(err.Error(), "no documents table") {
		t.Errorf("no table: %v", err)
	}
	notdb := filepath.Join(dir, "text.db")
	os.WriteFile(notdb, []byte(strings.Repeat("not a database\n", 100)), 0o644)
	if _, err := OpenDocDB(notdb); err == nil {
		t.Error("text file opened as a knowledge base")
	}
	// Opening read-only never creates the file.
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("OpenDocDB created a file")
	}
}

func TestBM25Retriever(t *testing.T) {
	db, err := OpenDocDB(writeFActScoreDB(t, testKB))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := NewBM25Retriever(db)
	ctx := context.Background()
	ps, err := r.Retrieve(ctx, "Ada Lovelace", "Ada Lovelace was born on 10 December 1815.", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Text != "She was born on 10 December 1815 in London." || ps[0].Title != "Ada Lovelace" {
		t.Fatalf("retrieved %+v", ps)
	}
	// The ranking is BM25 over the topic's passages for topic + " " + atom.
	passages, _ := db.Passages(ctx, "Ada Lovelace")
	docs := make([][]string, len(passages))
	for i, p := range passages {
		docs[i] = strings.Fields(p)
	}
	query := strings.Fields("Ada Lovelace Lovelace died in 1852.")
	want := bm25.TopK(bm25.NewOkapi(docs).Scores(query), 3)
	ps, err = r.Retrieve(ctx, "Ada Lovelace", "  Lovelace died in 1852.\n", 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range want {
		if ps[i].Text != passages[j] {
			t.Errorf("rank %d: %q, want %q", i, ps[i].Text, passages[j])
		}
	}
	// k larger than the document: all passages.
	if ps, _ := r.Retrieve(ctx, "Ada Lovelace", "x", 10); len(ps) != 4 {
		t.Errorf("k=10 gave %d passages, want 4", len(ps))
	}
	if _, err := r.Retrieve(ctx, "Grace Hopper", "x", 3); !errors.Is(err, ErrTopicNotFound) || !strings.Contains(err.Error(), `"Grace Hopper"`) {
		t.Errorf("missing topic: %v", err)
	}
	if _, err := r.Retrieve(ctx, " ", "x", 3); !errors.Is(err, ErrNoTopic) {
		t.Errorf("empty topic: %v", err)
	}
}

// countingRetriever answers from a fixed list and counts calls.
type countingRetriever struct {
	calls int
	ps    []Passage
	err   error
}

func (c *countingRetriever) Identify() string { return "counting" }

func (c *countingRetriever) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	c.calls++
	if c.err != nil {
		return nil, c.err
	}
	return c.ps[:min(k, len(c.ps))], nil
}

func TestCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	cache, err := OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	src := &countingRetriever{ps: []Passage{{Title: "T", Text: "one", Link: "http://x"}, {Title: "T", Text: "two"}}}
	r := cache.Wrap("src1", src)
	ctx := context.Background()
	first, err := r.Retrieve(ctx, "T", "atom", 2)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := r.Retrieve(ctx, "T", "atom", 2)
	if src.calls != 1 || !reflect.DeepEqual(first, again) {
		t.Errorf("second lookup: calls %d, %+v vs %+v", src.calls, again, first)
	}
	// Another k, topic, atom or source is another key.
	r.Retrieve(ctx, "T", "atom", 1)
	r.Retrieve(ctx, "U", "atom", 2)
	r.Retrieve(ctx, "T", "other", 2)
	cache.Wrap("src2", src).Retrieve(ctx, "T", "atom", 2)
	// FActScore's key topic+"#"+query would make these two the same.
	r.Retrieve(ctx, "A#B", "C", 2)
	r.Retrieve(ctx, "A", "B#C", 2)
	if src.calls != 7 {
		t.Errorf("calls = %d, want 7", src.calls)
	}
	// Empty results are cached; errors are not.
	empty := &countingRetriever{}
	re := cache.Wrap("empty", empty)
	re.Retrieve(ctx, "T", "a", 3)
	got, err := re.Retrieve(ctx, "T", "a", 3)
	if err != nil || len(got) != 0 || empty.calls != 1 {
		t.Errorf("empty result: %v %v calls %d", got, err, empty.calls)
	}
	failing := &countingRetriever{err: ErrTopicNotFound}
	rf := cache.Wrap("failing", failing)
	rf.Retrieve(ctx, "T", "a", 3)
	if _, err := rf.Retrieve(ctx, "T", "a", 3); !errors.Is(err, ErrTopicNotFound) || failing.calls != 2 {
		t.Errorf("error: %v, calls %d", err, failing.calls)
	}
	cache.Close()
	// Persistent: a new process sees the entries.
	cache, err = OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	got, _ = cache.Wrap("src1", src).Retrieve(ctx, "T", "atom", 2)
	if src.calls != 7 || !reflect.DeepEqual(got, first) {
		t.Errorf("after reopening: calls %d, %+v", src.calls, got)
	}
}

// TestCacheRefusesKnowledgeBase: a knowledge base given as the retrieval
// cache is refused, and neither gains a table nor changes journal mode:
// its bytes stay as they were, and it still opens as a knowledge base.
func TestCacheRefusesKnowledgeBase(t *testing.T) {
	kb := writeFActScoreDB(t, testKB)
	before, err := os.ReadFile(kb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCache(kb); err == nil || !strings.Contains(err.Error(), kb) || !strings.Contains(err.Error(), "not a factreasoner-go cache") {
		t.Fatalf("got %v", err)
	}
	if after, _ := os.ReadFile(kb); !bytes.Equal(before, after) {
		t.Error("the knowledge base was modified")
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(kb + suffix); err == nil {
			t.Errorf("%s left beside the knowledge base", suffix)
		}
	}
	db, err := OpenDocDB(kb)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

func TestFill(t *testing.T) {
	in := &instance.Instance{
		Output: "x", Topic: "T",
		Atoms: []instance.Atom{
			{ID: "a0", Text: "first"},
			{ID: "a1", Text: "second", Contexts: []string{"c_old"}},
			{ID: "a2", Text: "third"},
		},
		Contexts: []instance.Context{{ID: "c_old", Text: "kept"}},
	}
	long := strings.Repeat("é", MaxContextChars+10)
	src := &countingRetriever{ps: []Passage{{Title: "P", Text: "p0", Link: "L"}, {Title: "E", Text: "  "}, {Title: "Q", Text: long}}}
	n, err := Fill(context.Background(), src, in, 3)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || src.calls != 2 {
		t.Errorf("filled %d atoms with %d calls, want 2 and 2", n, src.calls)
	}
	if err := in.Validate(); err != nil {
		t.Fatalf("filled record is invalid: %v", err)
	}
	if want := []string{"c_a0_0", "c_a0_1"}; !reflect.DeepEqual(in.Atoms[0].Contexts, want) {
		t.Errorf("a0 contexts %v, want %v", in.Atoms[0].Contexts, want)
	}
	if want := []string{"c_old"}; !reflect.DeepEqual(in.Atoms[1].Contexts, want) {
		t.Errorf("a1 contexts %v, want %v", in.Atoms[1].Contexts, want)
	}
	c := in.Contexts[1]
	if c.ID != "c_a0_0" || c.Title != "P" || c.Text != "p0" || c.Link != "L" {
		t.Errorf("context %+v", c)
	}
	if got := in.Contexts[2].Text; got != strings.Repeat("é", MaxContextChars) {
		t.Errorf("long text cut to %d characters, want %d", len([]rune(got)), MaxContextChars)
	}
	// An error leaves the record as it was and names the atom.
	in2 := &instance.Instance{Output: "x", Topic: "T", Atoms: []instance.Atom{{ID: "a0", Text: "x"}}}
	_, err = Fill(context.Background(), &countingRetriever{err: ErrTopicNotFound}, in2, 3)
	if !errors.Is(err, ErrTopicNotFound) || !strings.Contains(err.Error(), "atom a0") || len(in2.Contexts) != 0 {
		t.Errorf("error case: %v, %d contexts", err, len(in2.Contexts))
	}
	// An id clash is an error, not a silent duplicate.
	in3 := &instance.Instance{Output: "x", Atoms: []instance.Atom{{ID: "a0", Text: "x"}, {ID: "a1", Text: "y", Contexts: []string{"c_a0_0"}}},
		Contexts: []instance.Context{{ID: "c_a0_0", Text: "t"}}}
	if _, err := Fill(context.Background(), src, in3, 1); err == nil || !strings.Contains(err.Error(), "c_a0_0") {
		t.Errorf("id clash: %v", err)
	}
}

// TestFillQuery: the question's passages become contexts c_q_0, c_q_1, …
// (FactReasoner's ids), listed by no atom, kept as Fill keeps passages; a
// record that has query contexts, or no question, is left alone; an error
// leaves the record as it was.
func TestFillQuery(t *testing.T) {
	long := strings.Repeat("é", MaxContextChars+10)
	src := &countingRetriever{ps: []Passage{{Title: "P", Text: "p0", Link: "L", Source: "db"}, {Title: "E", Text: "  "}, {Title: "Q", Text: long}, {Title: "S", Snippet: "s"}}}
	in := &instance.Instance{Input: "Tell me about T.", Output: "x", Topic: "T", Atoms: []instance.Atom{{ID: "a0", Text: "x", Contexts: []string{"c_a0_0"}}},
		Contexts: []instance.Context{{ID: "c_a0_0", Text: "t"}}}
	n, err := FillQuery(context.Background(), src, in, 3)
	if err != nil || n != 2 || src.calls != 1 {
		t.Fatalf("added %d with %d calls: %v", n, src.calls, err)
	}
	want := []instance.Context{{ID: "c_a0_0", Text: "t"}, {ID: "c_q_0", Title: "P", Text: "p0", Link: "L", Source: "db"}, {ID: "c_q_1", Title: "Q", Text: strings.Repeat("é", MaxContextChars)}}
	if !reflect.DeepEqual(in.Contexts, want) || !reflect.DeepEqual(in.Atoms[0].Contexts, []string{"c_a0_0"}) {
		t.Errorf("contexts %+v", in.Contexts)
	}
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	if n, err := FillQuery(context.Background(), src, in, 3); n != 0 || err != nil || src.calls != 1 {
		t.Errorf("again: added %d (%v), %d calls", n, err, src.calls)
	}
	noQuestion := &instance.Instance{Output: "x", Atoms: []instance.Atom{{ID: "a0", Text: "x"}}}
	if n, err := FillQuery(context.Background(), src, noQuestion, 3); n != 0 || err != nil || src.calls != 1 {
		t.Errorf("no question: added %d (%v), %d calls", n, err, src.calls)
	}
	in2 := &instance.Instance{Input: "Q?", Output: "x", Topic: "T", Atoms: []instance.Atom{{ID: "a0", Text: "x"}}}
	if _, err := FillQuery(context.Background(), &countingRetriever{err: ErrTopicNotFound}, in2, 3); !errors.Is(err, ErrTopicNotFound) || !strings.Contains(err.Error(), "the question") || len(in2.Contexts) != 0 {
		t.Errorf("error case: %v, %d contexts", err, len(in2.Contexts))
	}
}

// TestOpenDocDBFileKinds: a knowledge base that is a named pipe (SQLite
// would block on it), a device or a directory is refused, saying what it
// is.
func TestOpenDocDBFileKinds(t *testing.T) {
	for _, kind := range safefiletest.Kinds {
		p := filepath.Join(t.TempDir(), "kb.db")
		safefiletest.Make(t, p, kind)
		err := safefiletest.Within(t, func() error {
			db, err := OpenDocDB(p)
			if err == nil {
				db.Close()
			}
			return err
		})
		if err == nil || !strings.Contains(err.Error(), kind) {
			t.Errorf("%s: error %v", kind, err)
		}
	}
}
