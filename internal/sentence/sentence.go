// Package sentence finds where the sentences of English prose end, without
// a model: for the sentence atomizer (package atomize) and for cutting
// knowledge-base documents into passages (package retrieve).
//
// A sentence ends at a run of terminators (. ! ? …) and any closing quotes
// or brackets after it, when white space or the end of the text follows.
// The usual traps are known: titles ("Dr. Smith", "Mr."), abbreviations that
// precede numbers ("No. 5", "Jan. 5", "p. 12"), Latin abbreviations ("e.g.",
// "i.e.", "vs."), initials ("John F. Kennedy", "J. R. R. Tolkien"), dotted
// acronyms ("U.S.", "Ph.D."), decimals ("3.5") and ellipses. After an
// initial, an acronym or an abbreviation that may also end a sentence
// ("Inc.", "etc.", "a.m.") the sentence ends only when the next word is a
// common sentence opening ("He", "The", "In", ...): "He moved to the U.S. He
// ..." is two sentences, "the U.S. Army" one.
//
// In ordinary text a sentence never ends before a lower-case word. Some
// corpora are lower-cased (the Wikipedia passages of FactReasoner's
// reference data are); CaselessEnds reads them with the same rules, taking
// any single letter for an initial and any word for a possible opening.
package sentence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ends returns the byte offsets in s at which its sentences end: each is
// just after a sentence's terminators and closing marks, so that s[0:e0],
// s[e0:e1], ... and the rest after the last offset are its sentences (with
// the white space between them). A line break is white space like any
// other: callers decide what lines mean.
func Ends(s string) []int { return ends(s, false) }

// CaselessEnds is Ends for text without case (lower-cased corpora), where
// the case of the next word cannot tell a sentence end from an
// abbreviation. A terminator followed by a comma, semicolon, colon or
// closing bracket (as in tokenized text: "robert downey jr. , tommy") ends
// no sentence.
func CaselessEnds(s string) []int { return ends(s, true) }

const (
	terminators = ".!?…"
	closers     = "\"'”’)]»"
	// continuers cannot open a sentence: a terminator before one of them
	// is an abbreviation's period (only consulted in caseless text, where
	// the next word's case does not tell).
	continuers = ",;:)]}%"
)

func ends(s string, caseless bool) []int {
	var out []int
	start := 0
	for i := 0; i < len(s); {
		// Most of a text is ASCII letters and spaces: pass them by byte.
		if b := s[i]; b < utf8.RuneSelf && b != '.' && b != '!' && b != '?' {
			i++
			continue
		}
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
		if next == "" || endsSentence(s[start:term], next, lone, caseless) {
			out = append(out, j)
			start = j
		}
		i = j
	}
	return out
}

// endsSentence decides whether a terminator ends the sentence, given the
// text before it and the (non-empty) text after it.
func endsSentence(before, next string, lonePeriod, caseless bool) bool {
	r, _ := utf8.DecodeRuneInString(next)
	if caseless {
		if strings.ContainsRune(continuers, r) {
			return false
		}
	} else if unicode.IsLower(r) {
		return false
	}
	if !lonePeriod {
		return true
	}
	word := lastWord(before)
	lw := strings.ToLower(word)
	opening := sentenceOpenings[firstWord(next)]
	if caseless {
		opening = caselessOpenings[strings.ToLower(firstWord(next))]
	}
	startsWithDigit := unicode.IsDigit(r)
	switch {
	case isInitial(word, caseless): // before the lists: "C." is an initial, "c." circa
		// An initial before another is one of a run ("U. S. A."), even
		// when the next is a word that opens sentences ("A", "I").
		return opening && !startsWithInitial(next, caseless)
	case neverFinal[lw]:
		return false
	case (beforeNumber[lw] || wordBeforeNumber[lw]) && startsWithDigit:
		return false
	case wordBeforeNumber[lw]:
		return true
	case beforeNumber[lw] || mayBeFinal[lw] || isDottedAcronym(word):
		return opening
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

// isInitial: a single capital letter, or in caseless text any single letter.
func isInitial(w string, caseless bool) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && (unicode.IsUpper(r) || caseless && unicode.IsLetter(r))
}

// startsWithInitial: s starts with an initial and its period ("A. Smith").
func startsWithInitial(s string, caseless bool) bool {
	_, n := utf8.DecodeRuneInString(s)
	return isInitial(s[:n], caseless) && strings.HasPrefix(s[n:], ".")
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
	"nos", "vol", "vols", "fig", "figs", "eq", "eqs", "p", "pp", "ch", "sec", "op",
	"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
)

// wordBeforeNumber are abbreviations usually followed by a number that are
// also common words: never a sentence end before a digit ("No. 5", "Art.
// 12"), else always one ("he said no. Nobody came", "European art.
// Provenance"), since the word is far more common than the abbreviation.
var wordBeforeNumber = set("no", "art")

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
	"Then", "Both", "Many", "Some", "One", "From", "With", "For", "By", "Throughout", "Born", "All",
)

// caselessOpenings are sentenceOpenings in lower case.
var caselessOpenings = func() map[string]bool {
	m := make(map[string]bool, len(sentenceOpenings))
	for w := range sentenceOpenings {
		m[strings.ToLower(w)] = true
	}
	return m
}()
