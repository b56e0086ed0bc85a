package retrieve

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
		max    int
		want   []string
	}{
		{"fits", []string{"a b c"}, 5, []string{"a b c"}},
		{"word cut", []string{"a b c d e f g"}, 3, []string{"a b c", "d e f", "g"}},
		// Pieces are packed while they fit; a passage ends at a piece
		// boundary in the second half of the window.
		{"packed pieces", []string{"a b", "c d", "e f g h"}, 5, []string{"a b\nc d", "e f g h"}},
		{"piece boundary preferred", []string{"a b c", "d e f g"}, 5, []string{"a b c", "d e f g"}},
		// A boundary in the first half is too early: fill the window.
		{"early boundary ignored", []string{"a", "b c d e f g"}, 4, []string{"a\nb c d", "e f g"}},
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

// TestRobertaTokenizer checks sugarme's reading of the real roberta-base
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

func TestSplitRoberta(t *testing.T) {
	tok := loadRoberta(t)
	var inst struct {
		Contexts []struct{ Text string }
	}
	data, err := os.ReadFile(refdata.Path(t, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &inst); err != nil {
		t.Fatal(err)
	}
	long := 0
	for _, c := range inst.Contexts {
		for _, max := range []int{256, 40} {
			ps, err := Split([]string{c.Text}, tok, max)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				ids, _ := tok.IDs(p)
				if len(ids) > max {
					t.Errorf("passage of %d tokens > %d: %.60q", len(ids), max, p)
				}
			}
			// Nothing is lost or reordered: the passages, joined, give the
			// text back up to whitespace.
			if got, want := strings.Join(strings.Fields(strings.Join(ps, " ")), " "), strings.Join(strings.Fields(c.Text), " "); got != want {
				t.Errorf("max %d: passages do not reassemble the text", max)
			}
			if max == 256 && len(ps) > 1 {
				long++
			}
		}
	}
	if long == 0 {
		t.Error("no context was long enough to need two 256-token passages; the test proves nothing")
	}
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
	want := BuildStats{Documents: 2, Passages: 3, Pieces: 5, DuplicatePieces: 1, RepeatedTitles: 1, EmptyDocuments: 1}
	if stats != want {
		t.Errorf("stats %+v, want %+v", stats, want)
	}
	db, err := OpenDocDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for title, want := range map[string][]string{
		"B": {"b1 b2 b3 b4", "b5 b6\nb7"},
		"A": {"a1 a2\na3"},
	} {
		got, err := db.Passages(ctx, title)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, %v; want %q", title, got, err, want)
		}
	}
	var n int
	db.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'staging%'`).Scan(&n)
	if n != 0 {
		t.Error("staging tables left in the knowledge base")
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
