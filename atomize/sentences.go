package atomize

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/internal/sentence"
)

// Sentences is an Atomizer that needs no model: each sentence of the
// response is an atom. It is coarser than an LLM atomizer (a sentence often
// holds several facts) but free, fast and deterministic.
//
// The splitter (package internal/sentence) knows the usual traps of English
// text: titles ("Dr. Smith", "Mr."), abbreviations that precede numbers
// ("No. 5", "Jan. 5", "p. 12"), Latin abbreviations ("e.g.", "i.e.", "vs."),
// initials ("John F. Kennedy", "J. R. R. Tolkien"), dotted acronyms ("U.S.",
// "Ph.D."), decimals ("3.5"), ellipses, and closing quotes and brackets
// after the final period. After an initial, an acronym or an abbreviation
// that may also end a sentence ("Inc.", "etc.", "a.m.") it splits only when
// the next word is a common sentence opening ("He", "The", "In", ...): "He
// moved to the U.S. He ..." is two sentences, "the U.S. Army" one. A line
// break ends a sentence
// unless the next line goes on in lower case; list markers ("- ", "1. ")
// are removed and markdown headings dropped.
type Sentences struct{}

// Identify says what the atomizer is: "sentences".
func (Sentences) Identify() string { return "sentences" }

// Atomize splits response into sentences.
func (Sentences) Atomize(_ context.Context, response string) ([]string, error) {
	return SplitSentences(response), nil
}

// SplitSentences splits text into sentences as Sentences describes.
func SplitSentences(text string) []string {
	var out []string
	for _, seg := range segments(text) {
		out = append(out, splitSegment(seg)...)
	}
	return out
}

// segments joins the lines of text into runs that may hold several
// sentences but never part of one sentence and part of another line's.
func segments(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var segs []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			segs = append(segs, s)
		}
		cur.Reset()
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			flush()
			continue
		}
		if strings.HasPrefix(line, "#") {
			flush() // a markdown heading names a topic; it states nothing
			continue
		}
		body, marker := stripListMarker(line)
		r, _ := utf8.DecodeRuneInString(body)
		if marker || !unicode.IsLower(r) {
			flush()
		} else if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(body)
	}
	flush()
	return segs
}

// stripListMarker removes a bullet or number that starts a list item.
func stripListMarker(line string) (string, bool) {
	for _, m := range []string{"- ", "* ", "+ ", "• ", "– "} {
		if strings.HasPrefix(line, m) {
			return strings.TrimSpace(line[len(m):]), true
		}
	}
	i := 0
	for i < len(line) && i < 3 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
		return strings.TrimSpace(line[i+2:]), true
	}
	return line, false
}

// splitSegment splits one segment at its sentence ends.
func splitSegment(s string) []string {
	var out []string
	start := 0
	for _, end := range append(sentence.Ends(s), len(s)) {
		if sent := strings.TrimSpace(s[start:end]); hasLetterOrDigit(sent) {
			out = append(out, sent)
		}
		start = end
	}
	return out
}

func hasLetterOrDigit(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
