package retrieve

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"github.com/factreasoner/factreasoner-go/kbindex"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/internal/sentence"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
		max    int
		want   []string
	}{
		{"fits", []string{"a b c"}, 5, []string{"a b c"}},
		// Sentences stay whole: the old split gave "One two three. Four
		// five" and "six. Seven eight."
		{"sentences kept whole", []string{"One two three. Four five six. Seven eight."}, 5,
			[]string{"One two three.", "Four five six. Seven eight."}},
		// A sentence longer than a passage is cut into near-equal parts at
		// words (the old split left "g" alone).
		{"long sentence cut evenly", []string{"a b c d e f g"}, 3, []string{"a b", "c d", "e f g"}},
		{"last part of a long sentence takes the next", []string{"a b c d e f. G h."}, 5, []string{"a b c", "d e f. G h."}},
		{"one-word sentence joins the previous", []string{"One two three. Yes. Four five six."}, 4,
			[]string{"One two three. Yes.", "Four five six."}},
		{"one-word piece (a heading) joins the next", []string{"Career", "He acted. He sang."}, 3,
			[]string{"Career\nHe acted.", "He sang."}},
		{"one-word document", []string{"Hello"}, 3, []string{"Hello"}},
		{"lower-cased text", []string{"he was born in 1942 in the u. s. army base. he died in 2024."}, 12,
			[]string{"he was born in 1942 in the u. s. army base.", "he died in 2024."}},
		{"abbreviations", []string{"Dr. Smith met Mr. Jones in St. Louis. They talked."}, 8,
			[]string{"Dr. Smith met Mr. Jones in St. Louis.", "They talked."}},
		// A full passage ends at a piece boundary in its second half.
		{"paragraphs stay together", []string{"A b c d e.", "E f. G h i j."}, 8, []string{"A b c d e.", "E f. G h i j."}},
		{"packed pieces", []string{"A b.", "C d.", "E f g h."}, 5, []string{"A b.\nC d.", "E f g h."}},
		// A line break ends a sentence unless the next line goes on in
		// lower case (then "Tulsa." is a one-word sentence, joined).
		{"wrapped lines", []string{"He was born in\nTulsa. He left\nit soon after."}, 5,
			[]string{"He was born in\nTulsa.", "He left\nit soon after."}},
		{"empty pieces dropped", []string{"  ", "a", "", "b"}, 10, []string{"a\nb"}},
		{"nothing", []string{" ", ""}, 10, nil},
	}
	for _, tt := range tests {
		got, err := Split(tt.pieces, WordTokenizer{}, tt.max)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Split(%q, %d) = %q, want %q", tt.name, tt.pieces, tt.max, got, tt.want)
		}
	}
	if _, err := Split([]string{"a"}, WordTokenizer{}, 0); err == nil {
		t.Error("max 0 accepted")
	}
}

func loadRoberta(t testing.TB) *HFTokenizer {
	t.Helper()
	tok, err := LoadHFTokenizer(refdata.Path(t, "tokenizers", "roberta-base", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestRobertaTokenizer checks hftokenizer's reading of the real roberta-base
// tokenizer.json against ids RoBERTa is known to give (testdata/refdata/README.md: "Hello
// world" → <s> 31414 232 </s>) and that spans index the text.
func TestRobertaTokenizer(t *testing.T) {
	tok := loadRoberta(t)
	ids, err := tok.IDs("Hello world")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []int{31414, 232}) {
		t.Errorf("Hello world → %v, want [31414 232]", ids)
	}
	text := "Varèse Sarabande – july 27, 1942\n\n東京"
	spans, err := tok.Spans(text)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ = tok.IDs(text)
	if len(spans) != len(ids) || len(spans) < 10 {
		t.Fatalf("%d spans for %d ids", len(spans), len(ids))
	}
	prev := 0
	for i, s := range spans {
		if s[0] < 0 || s[1] > len(text) || s[0] > s[1] || s[1] < prev {
			t.Errorf("span %d %v out of order or range", i, s)
		}
		prev = s[0]
	}
}

// memoTokenizer remembers a tokenizer's spans: the real-text tests split
// the same sentences at several sizes.
type memoTokenizer struct {
	tok  Tokenizer
	seen map[string][][2]int
}

func (m *memoTokenizer) Spans(text string) ([][2]int, error) {
	if s, ok := m.seen[text]; ok {
		return s, nil
	}
	s, err := m.tok.Spans(text)
	if err == nil {
		m.seen[text] = s
	}
	return s, err
}

// realTexts are documents of real text: the Flaherty instance's Wikipedia
// contexts (lower-cased and tokenized) and the first 60 of ChatGPT's
// biographies in FActScore's labeled data (ordinary text).
func realTexts(t *testing.T) []Document {
	t.Helper()
	docs := flahertyDocuments(t)
	f, err := os.Open(refdata.Path(t, "factscore-labeled", "ChatGPT.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	for range 60 {
		var r struct{ Topic, Output string }
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, Document{Title: r.Topic, Pieces: paragraphs(r.Output)})
	}
	return docs
}

// sentenceEnds are the offsets in text where a sentence ends by package
// sentence's rules (whose own tests hold them), every line taken apart,
// with 0 and len(text): Split's boundaries must be among them, or inside
// a sentence longer than a passage.
func sentenceEnds(text string) []int {
	ends := sentence.Ends
	if strings.IndexFunc(text, unicode.IsUpper) < 0 {
		ends = sentence.CaselessEnds
	}
	out := []int{0}
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		for _, e := range ends(line) {
			out = append(out, off+e)
		}
		out = append(out, off+len(strings.TrimRight(line, "\n")))
		off += len(line)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestSplitRealText: on real text, passages fit (re-tokenized with
// roberta-base), give the text back, are never a lone word, and neither
// start nor end inside a sentence unless that sentence alone is longer than
// a passage.
func TestSplitRealText(t *testing.T) {
	rob := loadRoberta(t)
	tok := &memoTokenizer{tok: rob, seen: map[string][][2]int{}}
	docs := realTexts(t)
	longCut := 0
	for _, max := range []int{256, 48} {
		for _, d := range docs {
			ps, err := Split(d.Pieces, tok, max)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(trimmedPieces(d.Pieces), "\n")
			ends := sentenceEnds(text)
			pos := 0
			var spans [][2]int
			for _, p := range ps {
				i := strings.Index(text[pos:], p)
				if i < 0 || strings.TrimSpace(text[pos:pos+i]) != "" {
					t.Fatalf("%s, max %d: passage %.60q is not the next span of the text", d.Title, max, p)
				}
				spans = append(spans, [2]int{pos + i, pos + i + len(p)})
				pos += i + len(p)
				if ids, _ := rob.IDs(p); len(ids) > max {
					t.Errorf("%s: passage of %d tokens > %d: %.60q", d.Title, len(ids), max, p)
				}
				if len(strings.Fields(p)) == 1 && len(strings.Fields(text)) > 1 {
					t.Errorf("%s, max %d: one-word passage %q", d.Title, max, p)
				}
			}
			if strings.TrimSpace(text[pos:]) != "" {
				t.Errorf("%s, max %d: text after the last passage", d.Title, max)
			}
			for k := 1; k < len(spans); k++ {
				end, start := spans[k-1][1], spans[k][0]
				if slices.Contains(ends, end) {
					continue
				}
				// Inside a sentence, which must be longer than a passage.
				i, _ := slices.BinarySearch(ends, end)
				lo, hi := ends[i-1], ends[i]
				if hi < start {
					t.Fatalf("%s: no end between passages", d.Title)
				}
				if ids, _ := rob.IDs(strings.TrimSpace(text[lo:hi])); len(ids) <= max {
					t.Errorf("%s, max %d: cut inside a sentence of %d tokens: %q | %q", d.Title, max, len(ids), text[lo:end], text[end:hi])
				}
				longCut++
			}
		}
	}
	if longCut == 0 {
		t.Error("no sentence was longer than 48 tokens; the cut of long sentences went untested")
	}
	t.Logf("%d documents; %d cuts inside sentences longer than a passage", len(docs), longCut)
}

func TestBuilder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kb.db")
	b, err := NewBuilder(path, BuildOptions{MaxTokens: 4, Tokenizer: WordTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	docs := []Document{
		{Title: "B", Pieces: []string{"b1 b2 b3 b4 b5 b6"}},
		{Title: "A", Pieces: []string{"a1 a2", "a3"}},
		{Title: "B", Pieces: []string{"b1 b2 b3 b4 b5 b6", "b7"}}, // repeated title; its first piece is a duplicate
		{Title: "Empty", Pieces: []string{"  "}},
	}
	for _, d := range docs {
		if err := b.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Add(ctx, Document{Title: " "}); err == nil {
		t.Error("document without title accepted")
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("file in place before Finish")
	}
	stats, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The index: 3 passages, 10 distinct words each in one passage. The
	// content identity recorded is TestContent's.
	want := BuildStats{Documents: 2, Passages: 3, Pieces: 5, DuplicatePieces: 1, RepeatedTitles: 1, EmptyDocuments: 1,
		Index: kbindex.Stats{Passages: 3, Terms: 10, Postings: 10, Blocks: 10}, Content: stats.Content}
	if stats != want || !strings.HasPrefix(stats.Content, "sha256:") {
		t.Errorf("stats %+v, want %+v", stats, want)
	}
	db, err := OpenDocDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for title, want := range map[string][]string{
		"B": {"b1 b2 b3", "b4 b5 b6\nb7"},
		"A": {"a1 a2\na3"},
	} {
		got, err := db.Passages(ctx, title)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, %v; want %q", title, got, err, want)
		}
	}
	// FActScore's format: its table, its schema, passages joined by the
	// separator; the corpus-wide index beside it, in tables of its own.
	var schema []string
	rows, err := db.db.Query(`SELECT sql FROM sqlite_master WHERE name NOT LIKE 'kb\_%' ESCAPE '\' AND tbl_name NOT LIKE 'kb\_%' ESCAPE '\'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var q sql.NullString
		rows.Scan(&q)
		schema = append(schema, q.String)
	}
	rows.Close()
	// (The empty entry is the primary key's automatic index.)
	if want := []string{"CREATE TABLE documents (title TEXT PRIMARY KEY, text TEXT)", ""}; !reflect.DeepEqual(schema, want) {
		t.Errorf("schema %q, want %q", schema, want)
	}
	var raw string
	db.db.QueryRow(`SELECT text FROM documents WHERE title = 'B'`).Scan(&raw)
	if want := "b1 b2 b3" + Separator + "b4 b5 b6\nb7"; raw != want {
		t.Errorf("stored text %q, want %q", raw, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only kb.db", len(entries))
	}
	if _, err := NewBuilder(path, BuildOptions{}); !errors.Is(err, os.ErrExist) || !strings.Contains(err.Error(), "exists") {
		t.Errorf("existing file: %v", err)
	}
}

func TestBuilderAbort(t *testing.T) {
	dir := t.TempDir()
	b, err := NewBuilder(filepath.Join(dir, "kb.db"), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Add(context.Background(), Document{Title: "x", Pieces: []string{"y"}})
	b.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("abort left %d files", len(entries))
	}
}

func TestLoadHFTokenizerErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "tokenizer.json")
	os.WriteFile(bad, []byte(`{"model": {"type": "BPE", "vocab": 7}}`), 0o644)
	if _, err := LoadHFTokenizer(bad); err == nil {
		t.Error("malformed tokenizer.json accepted")
	}
	if _, err := LoadHFTokenizer(filepath.Join(dir, "none.json")); err == nil {
		t.Error("missing file accepted")
	}
}

// TestBuild: Build from files writes what a Builder given the same
// documents writes, the same stats and content identity, and says how far
// it has come, stage by stage; an existing file is refused unless it may
// be replaced.
func TestBuild(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "1.jsonl"), filepath.Join(dir, "2.jsonl")
	os.WriteFile(first, []byte(`{"title": "B", "text": ["b1 b2 b3 b4 b5 b6"]}`+"\n"+`{"title": "A", "text": ["a1 a2", "a3"]}`+"\n"), 0o644)
	os.WriteFile(second, []byte(`{"title": "B", "text": ["b1 b2 b3 b4 b5 b6", "b7"]}`+"\n"), 0o644)
	ctx := context.Background()

	b, err := NewBuilder(filepath.Join(dir, "by-hand.db"), BuildOptions{MaxTokens: 4, Tokenizer: WordTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Document{{"B", []string{"b1 b2 b3 b4 b5 b6"}}, {"A", []string{"a1 a2", "a3"}}, {"B", []string{"b1 b2 b3 b4 b5 b6", "b7"}}} {
		if err := b.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	want, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}

	var stages []string
	last := map[string]BuildProgress{}
	opts := BuildOptions{MaxTokens: 4, Tokenizer: WordTokenizer{}, Progress: func(p BuildProgress) {
		if len(stages) == 0 || stages[len(stages)-1] != p.Stage {
			stages = append(stages, p.Stage)
		}
		last[p.Stage] = p
	}}
	path := filepath.Join(dir, "kb.db")
	got, err := Build(ctx, path, []string{first, second}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || want.Documents != 2 || want.RepeatedTitles != 1 {
		t.Errorf("stats %+v, want %+v", got, want)
	}
	if !reflect.DeepEqual(stages, []string{BuildRead, BuildSplit, BuildIndex}) ||
		last[BuildRead] != (BuildProgress{Stage: BuildRead, Done: 3, File: second}) ||
		last[BuildSplit] != (BuildProgress{Stage: BuildSplit, Done: 2, Total: 2}) ||
		last[BuildIndex].Done != want.Index.Terms || last[BuildIndex].Total != want.Index.Terms {
		t.Errorf("progress: stages %v, last %+v", stages, last)
	}
	if _, err := Build(ctx, path, []string{first}, BuildOptions{}); !errors.Is(err, os.ErrExist) {
		t.Errorf("existing file: %v, want os.ErrExist", err)
	}
	if st, err := Build(ctx, path, []string{second}, BuildOptions{Overwrite: true}); err != nil || st.Documents != 1 {
		t.Errorf("replacing it: %+v, %v", st, err)
	}
}
