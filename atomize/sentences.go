package atomize

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentences is an Atomizer that needs no model: each sentence of the
// response is an atom. It is coarser than an LLM atomizer (a sentence often
// holds several facts) but free, fast and deterministic.
//
// The splitter knows the usual traps of English text: titles ("Dr. Smith",
// "Mr."), abbreviations that precede numbers ("No. 5", "Jan. 5", "p. 12"),
// Latin abbreviations ("e.g.", "i.e.", "vs."), initials ("John F. Kennedy",
// "J. R. R. Tolkien"), dotted acronyms ("U.S.", "Ph.D."), decimals ("3.5"),
// ellipses, and closing quotes and brackets after the final period. After
// an initial, an acronym or an abbreviation that may also end a sentence
// ("Inc.", "etc.", "a.m.") it splits only when the next word is a common
// sentence opening ("He", "The", "In", ...): "He moved to the U.S. He ..."
// is two sentences, "the U.S. Army" one. A line break ends a sentence
// unless the next line goes on in lower case; list markers ("- ", "1. ")
// are removed and markdown headings dropped.
type Sentences struct{}

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

const (
	terminators = ".!?…"
	closers     = "\"'”’)]»"
)

// splitSegment splits one segment at its sentence ends.
func splitSegment(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !strings.ContainsRune(terminators, r) {
			i += size
			continue
		}
		// The run of terminators and closing marks that ends here.
		term := i
		j := i
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !strings.ContainsRune(terminators, r) {
				break
			}
			j += n
		}
		lone := j-term == 1 && s[term] == '.' // a single period, not "?!" or "..."
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !strings.ContainsRune(closers, r) {
				break
			}
			j += n
		}
		if j < len(s) {
			if r, _ := utf8.DecodeRuneInString(s[j:]); !unicode.IsSpace(r) {
				i = j // "3.5", "U.S.A", "example.com": no end here
				continue
			}
		}
		next := strings.TrimLeftFunc(s[j:], unicode.IsSpace)
		if next == "" || endsSentence(s[start:term], next, lone) {
			if sent := strings.TrimSpace(s[start:j]); hasLetterOrDigit(sent) {
				out = append(out, sent)
			}
			start = j
		}
		i = j
	}
	if sent := strings.TrimSpace(s[start:]); hasLetterOrDigit(sent) {
		out = append(out, sent)
	}
	return out
}

// endsSentence decides whether a terminator ends the sentence, given the
// text before it and the (non-empty) text after it.
func endsSentence(before, next string, lonePeriod bool) bool {
	r, _ := utf8.DecodeRuneInString(next)
	if unicode.IsLower(r) {
		return false
	}
	if !lonePeriod {
		return true
	}
	word := lastWord(before)
	lw := strings.ToLower(word)
	nextWord := firstWord(next)
	startsWithDigit := unicode.IsDigit(r)
	switch {
	case isInitial(word): // before the lists: "C." is an initial, "c." circa
		return sentenceOpenings[nextWord]
	case neverFinal[lw]:
		return false
	case beforeNumber[lw] && startsWithDigit:
		return false
	case beforeNumber[lw] || mayBeFinal[lw] || isDottedAcronym(word):
		return sentenceOpenings[nextWord]
	}
	return true
}

// lastWord is the word the period follows, without opening punctuation.
func lastWord(s string) string {
	i := strings.LastIndexFunc(s, unicode.IsSpace)
	w := s[i+1:]
	return strings.TrimLeft(w, "\"'“‘([«")
}

// firstWord is the first word of s, without opening punctuation.
func firstWord(s string) string {
	s = strings.TrimLeft(s, "\"'“‘([«")
	if i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }); i >= 0 {
		return s[:i]
	}
	return s
}

func isInitial(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && unicode.IsUpper(r)
}

// isDottedAcronym: "U.S", "Ph.D", "a.m" (the final period is not part of w).
func isDottedAcronym(w string) bool {
	if !strings.Contains(w, ".") {
		return false
	}
	for _, p := range strings.Split(w, ".") {
		if n := utf8.RuneCountInString(p); n == 0 || n > 3 {
			return false
		}
		for _, r := range p {
			if !unicode.IsLetter(r) {
				return false
			}
		}
	}
	return true
}

func hasLetterOrDigit(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// neverFinal are abbreviations that do not end sentences: titles, which
// precede a name, and Latin abbreviations, which precede more text.
var neverFinal = set(
	"mr", "mrs", "ms", "messrs", "mme", "mlle", "dr", "prof", "rev", "hon", "fr",
	"gen", "col", "lt", "maj", "capt", "cmdr", "sgt", "adm", "gov", "sen", "rep", "pres", "supt",
	"e.g", "i.e", "cf", "vs", "v", "viz", "approx", "ca", "c", "al",
)

// beforeNumber are abbreviations usually followed by a number: never a
// sentence end before a digit, else only before a sentence opening.
var beforeNumber = set(
	"no", "nos", "vol", "vols", "fig", "figs", "eq", "eqs", "p", "pp", "ch", "sec", "op", "art",
	"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
)

// mayBeFinal are abbreviations that end sentences as often as not.
var mayBeFinal = set(
	"inc", "ltd", "co", "corp", "bros", "llc", "plc", "jr", "sr", "etc",
	"st", "mt", "ft", "ave", "blvd", "rd", "dept", "univ", "est",
)

// sentenceOpenings are words that commonly start a sentence, and after
// which an ambiguous period is taken to end one.
var sentenceOpenings = set(
	"The", "A", "An", "He", "She", "It", "They", "We", "I", "You", "His", "Her", "Its", "Their", "Our", "My",
	"This", "That", "These", "Those", "There", "Here", "In", "On", "At", "After", "Before", "During", "As",
	"But", "And", "However", "Also", "When", "While", "Since", "Although", "Though", "Today", "Later",
	"Then", "Both", "Many", "Some", "One", "From", "With", "For", "By", "Throughout", "Born",
)
