package report

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/evidence"
	"github.com/factreasoner/factreasoner-go/instance"
)

// why finds what the relations of one response rest on: for a relation,
// the sentences of its source context (the NLI premise) that best match
// its target's text (evidence.Best), shown as an excerpt of the context
// with those sentences marked. It splits each context once, and answers
// each pair once for all the runs of the response.
type why struct {
	texts    map[string]string // the text of each atom and context, as shown
	heads    map[string]int    // the index in the page's texts of each context's excerpt
	premises map[string]*evidence.Index
	pairs    map[[2]string][]int
	n        int // Options.ExcerptRunes
	add      func(text string) int
}

// newWhy returns a why for one response, n characters to an excerpt, add
// putting a text into the page's texts and giving its index; the caller
// fills texts (every atom and context) and heads.
func newWhy(n int, add func(text string) int) *why {
	return &why{texts: make(map[string]string), heads: make(map[string]int), premises: make(map[string]*evidence.Index),
		pairs: make(map[[2]string][]int), n: n, add: add}
}

// shownText is the text the report shows of a context.
func shownText(c instance.Context) string {
	if c.Text != "" {
		return c.Text
	}
	return c.Snippet
}

// relation returns the page's record of what the relation from source to
// target rests on: [x, start, end, ...], x the index in the page's texts
// of the source's excerpt and each start, end a marked sentence in it, in
// UTF-16 code units (the offsets of JavaScript's strings); [x] alone when
// no sentence of the source shares a word with the target.
func (w *why) relation(source, target string) []int {
	key := [2]string{source, target}
	if r, ok := w.pairs[key]; ok {
		return r
	}
	if _, ok := w.heads[source]; !ok {
		return []int{} // not a context: nothing to show
	}
	x, ok := w.premises[source]
	if !ok {
		x = evidence.NewIndex(w.texts[source])
		w.premises[source] = x
	}
	spans := x.Best(w.texts[target])
	var r []int
	if text, marks, ok := excerptAround(x.Text(), spans, w.n); ok {
		r = append([]int{w.add(text)}, marks...)
	} else {
		r = append([]int{w.heads[source]}, marks...)
	}
	w.pairs[key] = r
	return r
}

// excerptAround returns the excerpt of s to show with spans marked (spans
// in text order), and the marks: the start and end of each span in it, in
// UTF-16 code units. When the spans lie in s's own excerpt (excerpt(s, n))
// it returns false and the marks in that excerpt. Otherwise the excerpt
// holds the spans whole, and text around them up to n characters in all
// where there is room, cut between words, an ellipsis for each cut.
func excerptAround(s string, spans []evidence.Span, n int) (string, []int, bool) {
	if len(spans) == 0 {
		return "", nil, false
	}
	head := excerpt(s, n)
	if len(head) == len(s) || spans[len(spans)-1].End <= len(head)-len(" …") {
		return "", marks(s, 0, "", spans), false
	}
	from, to := spans[0].Start, spans[len(spans)-1].End
	room := n - utf8.RuneCountInString(s[from:to])
	if room > 0 {
		// Half the room before the spans, the rest after them.
		start := from
		for k := 0; k < room/2 && start > 0; k++ {
			_, size := utf8.DecodeLastRuneInString(s[:start])
			start -= size
		}
		room -= utf8.RuneCountInString(s[start:from])
		end := to
		for k := 0; k < room && end < len(s); k++ {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		// Cut between words: a cut within a word moves to the space
		// nearest the spans (or to the spans, when there is none).
		if r, _ := utf8.DecodeLastRuneInString(s[:start]); start > 0 && !unicode.IsSpace(r) {
			if i := strings.IndexFunc(s[start:from], unicode.IsSpace); i >= 0 {
				start += i
			} else {
				start = from
			}
		}
		if r, _ := utf8.DecodeRuneInString(s[end:]); end < len(s) && !unicode.IsSpace(r) {
			if i := strings.LastIndexFunc(s[to:end], unicode.IsSpace); i >= 0 {
				end = to + i
			} else {
				end = to
			}
		}
		from, to = start, end
	}
	body := strings.TrimSpace(s[from:to])
	lead := len(s[from:to]) - len(strings.TrimLeftFunc(s[from:to], unicode.IsSpace))
	from += lead
	prefix, suffix := "", ""
	if from > 0 {
		prefix = "… "
	}
	if from+len(body) < len(s) {
		suffix = " …"
	}
	return prefix + body + suffix, marks(s, from, prefix, spans), true
}

// marks are the spans' starts and ends in the text prefix+s[from:], in
// UTF-16 code units.
func marks(s string, from int, prefix string, spans []evidence.Span) []int {
	out := make([]int, 0, 2*len(spans))
	at, pos := from, utf16Len(prefix)
	for _, sp := range spans {
		pos += utf16Len(s[at:sp.Start])
		out = append(out, pos)
		pos += utf16Len(s[sp.Start:sp.End])
		out = append(out, pos)
		at = sp.End
	}
	return out
}

// utf16Len is the length of s in UTF-16 code units, as JavaScript counts
// it once the page's JSON is parsed: two for a character beyond the Basic
// Multilingual Plane, one for any other, and one for each byte of invalid
// UTF-8 (which encoding/json writes as U+FFFD).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
