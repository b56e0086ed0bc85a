package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/report"
)

// hostileSentence is the sentence of hostileContext that a5 ("Ada Lovelace
// invented the first electronic computer.") matches: characters beyond
// the Basic Multilingual Plane (two UTF-16 code units each, as JavaScript
// counts) and markup that must be shown as text, never run.
const hostileSentence = `The first electronic computer 💻 was ENIAC <img src=x onerror="window.pwned=1"> </script><script>window.pwned=2</script> & "ümlauts".`

// hostileContext puts hostileSentence after more than the report's 600
// characters of excerpt, behind text in which byte, character and UTF-16
// offsets all differ.
var hostileContext = strings.Repeat("Ünïcödé 🎉 Fülltext über Zürich. ", 30) + hostileSentence + strings.Repeat(" Noch mehr 🎉 Text.", 5)

// hostileReport is FR2 on the example, its Ada Lovelace record's context
// c_a5_0 (the premise of the contradiction of a5) replaced by
// hostileContext.
func hostileReport(t *testing.T) *report.Report {
	t.Helper()
	dir := t.TempDir()
	path := plannedSchema(t, readExampleRuns(t)[1], dir)
	lines := rawLines(t, path)
	l := lines[2] // the Ada Lovelace record
	var ctxs []map[string]any
	if err := json.Unmarshal(l["contexts"], &ctxs); err != nil {
		t.Fatal(err)
	}
	for _, c := range ctxs {
		if c["id"] == "c_a5_0" {
			c["text"] = hostileContext
		}
	}
	l["contexts"] = rawJSON(t, ctxs)
	path = filepath.Join(dir, "hostile.jsonl")
	writeLines(t, path, lines)
	run, err := report.ReadRun(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.New([]*report.Run{run}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// shownWhy returns what the page's data says the relation from source to
// target of response r, run run rests on: the text shown and the marked
// parts of it, read with JavaScript's UTF-16 offsets.
func shownWhy(t *testing.T, d pageData, r, run int, source, target string) (text string, marked []string) {
	t.Helper()
	resp := d.Responses[r]
	node := func(i int) string {
		if i < len(resp.A) {
			return resp.A[i][0].(string)
		}
		return resp.C[i-len(resp.A)][0].(string)
	}
	x := resp.R[run]
	if len(x.W) != len(x.Rel) {
		t.Fatalf("%d relations, %d records of what they rest on", len(x.Rel), len(x.W))
	}
	for k, rel := range x.Rel {
		if node(int(rel[0])) != source || node(int(rel[1])) != target {
			continue
		}
		w := x.W[k]
		if len(w) == 0 || len(w)%2 != 1 {
			t.Fatalf("%s → %s rests on %v", source, target, w)
		}
		text = resp.Tx[w[0]]
		units := utf16.Encode([]rune(text))
		for i := 1; i < len(w); i += 2 {
			if w[i] < 0 || w[i] > w[i+1] || w[i+1] > len(units) {
				t.Fatalf("%s → %s: marks %v outside the %d code units of the text", source, target, w[1:], len(units))
			}
			marked = append(marked, string(utf16.Decode(units[w[i]:w[i+1]])))
		}
		return text, marked
	}
	t.Fatalf("no relation %s → %s in response %d run %d", source, target, r, run)
	return "", nil
}

// TestHTMLWhyFlaherty: IBM's Flaherty record with its recorded relations.
// a20 ("He has worked in productions at the Public Theater", gold NS) is
// entailed by c_a20_2, the article on Aaron Lohr, another actor; the
// sentence the relation rests on lies beyond the first 600 characters the
// report used to show. The page marks that sentence in an excerpt around
// it.
func TestHTMLWhyFlaherty(t *testing.T) {
	rep := readBenchReport(t, benchRuns(t, 1))
	var b bytes.Buffer
	if err := rep.WriteHTML(context.Background(), &b, report.Builtin{}); err != nil {
		t.Fatal(err)
	}
	d := readPageData(t, b.Bytes())
	const sentence = "he has appeared in several productions at the public theater."
	resp := d.Responses[0]
	for i, c := range resp.C {
		if c[0] == "c_a20_2" && strings.Contains(resp.Tx[int(c[2].(float64))], sentence) {
			t.Fatalf("context %d: c_a20_2's own excerpt holds the sentence: the test no longer tests an excerpt around it", i)
		}
	}
	for run := range d.Runs { // FR1, FR2, FR3
		text, marked := shownWhy(t, d, 0, run, "c_a20_2", "a20")
		if len(marked) != 1 || marked[0] != sentence {
			t.Errorf("run %d: c_a20_2 → a20 marks %q, want %q", run, marked, sentence)
		}
		if !strings.HasPrefix(text, "… ") || !strings.HasSuffix(text, " …") || utf8.RuneCountInString(text) > 600+4 {
			t.Errorf("run %d: the excerpt around the sentence is %d characters: %q", run, utf8.RuneCountInString(text), text)
		}
	}
}

// TestHTMLWhyHostile: a sentence after multi-byte text is marked at the
// right UTF-16 offsets, and its markup stays data: the page has no
// element or script end from it.
func TestHTMLWhyHostile(t *testing.T) {
	var b bytes.Buffer
	if err := hostileReport(t).WriteHTML(context.Background(), &b, report.Builtin{}); err != nil {
		t.Fatal(err)
	}
	page := b.Bytes()
	d := readPageData(t, page)
	text, marked := shownWhy(t, d, 2, 0, "c_a5_0", "a5")
	if len(marked) != 1 || marked[0] != hostileSentence {
		t.Errorf("c_a5_0 → a5 marks %q, want %q", marked, hostileSentence)
	}
	if !strings.Contains(text, "🎉 Fülltext") || !strings.HasPrefix(text, "… ") {
		t.Errorf("the excerpt around the sentence: %q", text)
	}
	if n := bytes.Count(page, []byte("</script>")); n != 2 {
		t.Errorf("%d </script> tags, want 2: the context's text closes a script", n)
	}
	if m := regexp.MustCompile(`(?i)<img|<script>window`).Find(page); m != nil {
		t.Errorf("the context's markup is in the page as markup: %q", m)
	}
}
