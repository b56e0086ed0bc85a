package retrieve

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/bm25"
)

// Excerpt returns text with whitespace runs collapsed to single spaces, cut
// to at most maxChars characters (code points) around the passage that best
// matches query, so that the part of a long page that speaks of the atom is
// kept; maxChars <= 0 keeps all of it.
//
// Text that fits is returned whole. Otherwise the text is split into
// pieces (its lines; lines longer than a quarter of maxChars at sentence
// ends, then between words), the pieces are ranked with BM25 for the query
// (NewBM25Lucene: k1 = 1.5, b = 0.75, an idf never below zero; lower-case
// words of letters and digits), and the excerpt is the
// best piece (the first on equal scores; the first piece when no word
// matches), grown by whole neighbouring pieces, one after and one before in
// turn, while it fits.
func Excerpt(text, query string, maxChars int) string {
	whole := strings.Join(strings.Fields(text), " ")
	if maxChars <= 0 || utf8.RuneCountInString(whole) <= maxChars {
		return whole
	}
	pieces := splitPieces(text, max(maxChars/4, 1))
	if len(pieces) == 0 {
		return ""
	}
	docs := make([][]string, len(pieces))
	for i, p := range pieces {
		docs[i] = words(p)
	}
	best := bm25.TopK(bm25.NewLucene(docs, bm25.DefaultK1, bm25.DefaultB).Scores(words(query)), 1)[0]
	lo, hi := best, best+1 // pieces[lo:hi]
	size := utf8.RuneCountInString(pieces[best])
	for grew := true; grew; {
		grew = false
		if hi < len(pieces) {
			if n := utf8.RuneCountInString(pieces[hi]) + 1; size+n <= maxChars {
				size += n
				hi++
				grew = true
			}
		}
		if lo > 0 {
			if n := utf8.RuneCountInString(pieces[lo-1]) + 1; size+n <= maxChars {
				size += n
				lo--
				grew = true
			}
		}
	}
	return strings.Join(pieces[lo:hi], " ")
}

// splitPieces splits text into its non-blank lines, whitespace collapsed,
// each at most size characters: longer lines are split after sentence
// ends where they can be, else between words, else (a word longer than
// size) within the word.
func splitPieces(text string, size int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		for line != "" {
			if utf8.RuneCountInString(line) <= size {
				out = append(out, line)
				break
			}
			cut := cutPoint(line, size)
			out = append(out, strings.TrimSpace(line[:cut]))
			line = strings.TrimSpace(line[cut:])
		}
	}
	return out
}

// cutPoint is the byte offset at which to end a piece of line that is
// longer than size characters: after the last sentence end within the
// first size characters that leaves at least half of them, else at the
// last space, else at size characters.
func cutPoint(line string, size int) int {
	limit, count := len(line), 0 // limit: the byte offset just past the first size characters
	for i := range line {
		if count == size {
			limit = i
			break
		}
		count++
	}
	head := line[:limit]
	if i := lastSentenceEnd(head); i > 0 && utf8.RuneCountInString(head[:i]) >= size/2 {
		return i
	}
	if i := strings.LastIndexByte(head, ' '); i > 0 {
		return i
	}
	return limit
}

// lastSentenceEnd is the offset just after the last ". ", "? " or "! " in
// s (before its space), or -1.
func lastSentenceEnd(s string) int {
	best := -1
	for _, end := range []string{". ", "? ", "! "} {
		if i := strings.LastIndex(s, end); i >= 0 && i+1 > best {
			best = i + 1
		}
	}
	return best
}

// words splits s into lower-case words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
