package retrieve

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/instance"
)

// listSource returns its passages, up to k, and records the k asked.
type listSource struct {
	passages []Passage
	err      error
	asked    []int
}

func (l *listSource) Identify() string { return "list" }

func (l *listSource) Retrieve(_ context.Context, _, _ string, k int) ([]Passage, error) {
	l.asked = append(l.asked, k)
	if l.err != nil {
		return nil, l.err
	}
	return l.passages[:min(k, len(l.passages))], nil
}

// TestMulti: sources in order, each with its own k, labelled with their
// names, duplicates (same page, same text) dropped, the first kept.
func TestMulti(t *testing.T) {
	db := &listSource{passages: []Passage{{Title: "Lanny Flaherty", Text: "He was born in 1942."}, {Title: "Lanny Flaherty", Text: "He was an actor."}}}
	wiki := &listSource{passages: []Passage{
		{Title: "Lanny Flaherty", Text: "Lanny Flaherty was an American actor.", Link: "https://en.wikipedia.org/wiki/Lanny_Flaherty", Source: "wikipedia"},
		{Title: "Pontotoc", Text: "Pontotoc is a city.", Link: "https://en.wikipedia.org/wiki/Pontotoc,_Mississippi"},
	}}
	web := &listSource{passages: []Passage{
		{Title: "Lanny Flaherty - Wikipedia", Snippet: "An American actor.", Link: "http://www.en.wikipedia.org/wiki/Lanny_Flaherty/#Life"},
		{Title: "Copy", Text: "He was an actor.", Link: "https://example.org/copy"},
		{Title: "IMDb", Snippet: "Born July 27, 1942.", Link: "https://www.imdb.com/name/nm0280890/"},
	}}
	m := &Multi{Sources: []Member{{Name: "db", Retriever: db}, {Name: "wikipedia", Retriever: wiki, K: 1}, {Name: "serper", Retriever: web, K: 5}}}
	ps, err := m.Retrieve(context.Background(), "Lanny Flaherty", "Lanny Flaherty was an actor.", 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Source+": "+p.Title)
	}
	want := []string{"db: Lanny Flaherty", "db: Lanny Flaherty", "wikipedia: Lanny Flaherty", "serper: IMDb"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %q, want %q", got, want)
	}
	if !reflect.DeepEqual(db.asked, []int{3}) || !reflect.DeepEqual(wiki.asked, []int{1}) || !reflect.DeepEqual(web.asked, []int{5}) {
		t.Errorf("k asked: db %v, wikipedia %v, serper %v", db.asked, wiki.asked, web.asked)
	}

	// Fill numbers the merged passages and records their sources.
	in := &instance.Instance{Topic: "Lanny Flaherty", Atoms: []instance.Atom{{ID: "a0", Text: "Lanny Flaherty was an actor."}}}
	if _, err := Fill(context.Background(), m, in, 3); err != nil {
		t.Fatal(err)
	}
	if len(in.Contexts) != 4 || in.Contexts[3].ID != "c_a0_3" || in.Contexts[3].Source != "serper" || in.Contexts[3].Link != "https://www.imdb.com/name/nm0280890/" || in.Contexts[0].Source != "db" {
		t.Errorf("contexts %+v", in.Contexts)
	}
}

// TestMultiMissingTopic: with SkipMissingTopics, a source that does not
// know the topic is skipped with one warning per topic; when no source
// knows it, or without the setting, the error comes back.
func TestMultiMissingTopic(t *testing.T) {
	missing := &listSource{err: fmt.Errorf("%w: %q", ErrTopicNotFound, "Nobody")}
	web := &listSource{passages: []Passage{{Title: "Web", Snippet: "a snippet", Link: "https://example.org/"}}}
	var warnings []string
	m := &Multi{Sources: []Member{{Name: "db", Retriever: missing}, {Name: "serper", Retriever: web}}, SkipMissingTopics: true,
		Warn: func(msg string) { warnings = append(warnings, msg) }}
	for i := 0; i < 3; i++ {
		ps, err := m.Retrieve(context.Background(), "Nobody", fmt.Sprint("atom ", i), 3)
		if err != nil || len(ps) != 1 || ps[0].Source != "serper" {
			t.Fatalf("%+v %v", ps, err)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "db") || !strings.Contains(warnings[0], `"Nobody"`) {
		t.Errorf("warnings %q", warnings)
	}
	m.SkipMissingTopics = false
	if _, err := m.Retrieve(context.Background(), "Nobody", "atom", 3); !errors.Is(err, ErrTopicNotFound) || !strings.HasPrefix(err.Error(), "db: ") {
		t.Errorf("without skip: %v", err)
	}
	all := &Multi{Sources: []Member{{Name: "db", Retriever: missing}, {Name: "db2", Retriever: missing}}, SkipMissingTopics: true}
	if _, err := all.Retrieve(context.Background(), "Nobody", "atom", 3); !errors.Is(err, ErrTopicNotFound) {
		t.Errorf("no source knows the topic: %v", err)
	}
	// Other errors are never skipped.
	boom := &Multi{Sources: []Member{{Name: "serper", Retriever: &listSource{err: errors.New("HTTP 403")}}, {Name: "db", Retriever: web}}, SkipMissingTopics: true}
	if _, err := boom.Retrieve(context.Background(), "T", "atom", 3); err == nil || err.Error() != "serper: HTTP 403" {
		t.Errorf("other error: %v", err)
	}
}

func TestNormalLink(t *testing.T) {
	same := []string{"https://www.Example.org/a/b/", "http://example.org/a/b", "https://example.org/a/b#top"}
	for _, l := range same {
		if got := normalLink(l); got != "example.org/a/b" {
			t.Errorf("%s: %q", l, got)
		}
	}
	if normalLink("https://example.org/a?id=1") == normalLink("https://example.org/a?id=2") {
		t.Error("queries are part of the page")
	}
}

// TestExcerpt: texts that fit are kept whole; longer ones are cut to the
// limit around the best-matching piece, from whole pieces.
func TestExcerpt(t *testing.T) {
	if got := Excerpt("  one\n\n two  three ", "x", 100); got != "one two three" {
		t.Errorf("short text: %q", got)
	}
	if got := Excerpt("a b c", "", 0); got != "a b c" {
		t.Errorf("no limit: %q", got)
	}
	var lines []string
	for i := 0; i < 20; i++ {
		lines = append(lines, fmt.Sprintf("Paragraph %d says nothing of interest here at all.", i))
	}
	lines[13] = "Paragraph 13 names the comet Herschel found."
	text := strings.Join(lines, "\n")
	got := Excerpt(text, "Which comet did Herschel find?", 200)
	if n := utf8.RuneCountInString(got); n > 200 {
		t.Errorf("%d characters", n)
	}
	// 44–51 characters a line: the best line (13) grown by its neighbours,
	// one after and one before in turn (14, 12, 15) while they fit.
	want := strings.Join([]string{lines[12], lines[13], lines[14], lines[15]}, " ")
	if got != want {
		t.Errorf("excerpt\n%q\nwant\n%q", got, want)
	}
	// No word matches: the start of the text.
	if got := Excerpt(text, "zebra", 120); !strings.HasPrefix(got, "Paragraph 0 ") {
		t.Errorf("no match: %q", got)
	}
	// A line longer than a quarter of the limit is split at sentence ends,
	// and a word longer than that within the word.
	long := strings.Repeat("Filler sentence number one. ", 10) + "The key fact is here. " + strings.Repeat("More filler words follow. ", 10)
	got = Excerpt(long, "key fact", 100)
	if utf8.RuneCountInString(got) > 100 || !strings.Contains(got, "The key fact is here.") {
		t.Errorf("long line: %q", got)
	}
	word := strings.Repeat("x", 500)
	if got := Excerpt(word, "x", 100); utf8.RuneCountInString(got) > 100 || !strings.HasPrefix(got, strings.Repeat("x", 25)+" ") {
		t.Errorf("long word: %d characters", utf8.RuneCountInString(got))
	}
}
