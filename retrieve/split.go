package retrieve

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/internal/sentence"
)

// Split cuts a document's pieces into passages of at most maxTokens tokens
// that keep sentences whole.
//
// The pieces (trimmed, empty ones dropped) are joined by newlines into one
// text, and every passage is an exact span of it, trimmed: the passages,
// joined, give the text back up to white space. The text is cut into
// sentences (by the rules of the sentence atomizer, atomize.Sentences,
// which knows titles, initials, abbreviations and decimals; the end of a
// piece ends a sentence, and so does a line break unless the next line goes on in
// lower case; a text with no upper-case letter is read as lower-cased text,
// where the case of the next word tells nothing). Passages are filled with
// whole sentences, in order, as many as fit; a full passage ends at the
// last piece boundary in it when that falls in its second half, so that
// paragraphs stay together. Sizes are counted by tokenizing each sentence
// and then each passage on its own, so no passage has more than maxTokens
// tokens.
//
// A sentence is cut only when it alone has more than maxTokens tokens: into
// as few near-equal parts as fit, at word boundaries (inside a word only
// when a single word has more than maxTokens tokens). A one-word sentence
// (a heading, "Yes.") stays with a neighbour: the next one when it ends a
// piece (a heading belongs to what follows), else the previous one, or the
// other when the first would be too long (when both would be, the first,
// and the pair is cut as a long sentence). So no passage is a lone word
// unless the whole document is.
//
// Passages do not overlap: repeating up to a quarter of a passage's
// sentences at the next one's start retrieved no better on the Flaherty
// knowledge base (BENCHMARKS.md, Retrieval).
func Split(pieces []string, tok Tokenizer, maxTokens int) ([]string, error) {
	if maxTokens < 1 {
		return nil, fmt.Errorf("passage size %d: want at least 1 token", maxTokens)
	}
	kept := trimmedPieces(pieces)
	if len(kept) == 0 {
		return nil, nil
	}
	text := strings.Join(kept, "\n")
	s := splitter{text: text, tok: tok, max: maxTokens, caseless: strings.IndexFunc(text, unicode.IsUpper) < 0}
	units, err := s.sentences(kept)
	if err != nil {
		return nil, err
	}
	if units, err = s.joinLoneWords(units); err != nil {
		return nil, err
	}
	if units, err = s.cutLong(units); err != nil {
		return nil, err
	}
	return s.pack(units)
}

// trimmedPieces are the pieces without surrounding white space, empty ones
// dropped.
func trimmedPieces(pieces []string) []string {
	var kept []string
	for _, p := range pieces {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return kept
}

// splitter holds one document's text while it is cut.
type splitter struct {
	text     string
	tok      Tokenizer
	max      int
	caseless bool // no upper-case letter: lower-cased text
}

// unit is a span of the text that passages keep whole: a sentence, or part
// of one that is too long for a passage.
type unit struct {
	lo, hi   int  // byte range in the text, without surrounding white space
	tokens   int  // tokens of text[lo:hi] on its own
	pieceEnd bool // the unit ends a piece
}

// count tokenizes text[lo:hi] on its own.
func (s *splitter) count(lo, hi int) (int, error) {
	spans, err := s.tok.Spans(s.text[lo:hi])
	return len(spans), err
}

// sentences cuts the text (the pieces joined by newlines) into sentences.
func (s *splitter) sentences(pieces []string) ([]unit, error) {
	ends := sentence.Ends
	if s.caseless {
		ends = sentence.CaselessEnds
	}
	var units []unit
	add := func(lo, hi int) error {
		lo, hi = trimSpan(s.text, lo, hi)
		if lo == hi {
			return nil
		}
		n, err := s.count(lo, hi)
		units = append(units, unit{lo: lo, hi: hi, tokens: n})
		return err
	}
	off := 0 // of the piece in the text
	for _, p := range pieces {
		for _, seg := range s.lines(p) {
			lo, hi := off+seg[0], off+seg[1]
			start := lo
			for _, e := range ends(s.text[lo:hi]) {
				if err := add(start, lo+e); err != nil {
					return nil, err
				}
				start = lo + e
			}
			if err := add(start, hi); err != nil {
				return nil, err
			}
		}
		if len(units) > 0 {
			units[len(units)-1].pieceEnd = true
		}
		off += len(p) + 1 // and the newline that joins the next
	}
	return units, nil
}

// lines cuts a piece at the line breaks that end a sentence, and returns
// the byte ranges between them: in lower-cased text all line breaks, else
// those not followed by a line that goes on in lower case, and always a
// blank line.
func (s *splitter) lines(piece string) [][2]int {
	var segs [][2]int
	start := 0
	for i := 0; i < len(piece); i++ {
		if piece[i] != '\n' {
			continue
		}
		next := strings.TrimLeft(piece[i+1:], " \t\r\f\v")
		r, _ := utf8.DecodeRuneInString(next)
		if s.caseless || !unicode.IsLower(r) || strings.TrimSpace(piece[start:i]) == "" {
			segs = append(segs, [2]int{start, i})
			start = i + 1
		}
	}
	return append(segs, [2]int{start, len(piece)})
}

// joinLoneWords joins each one-word unit to a neighbour (see Split).
func (s *splitter) joinLoneWords(units []unit) ([]unit, error) {
	if len(units) < 2 {
		return units, nil
	}
	out := make([]unit, 0, len(units))
	for i, u := range units {
		if strings.IndexFunc(s.text[u.lo:u.hi], unicode.IsSpace) >= 0 {
			out = append(out, u) // more than one word (units are trimmed)
			continue
		}
		hasPrev, hasNext := len(out) > 0, i+1 < len(units)
		join := func(toNext bool) (unit, error) {
			if toNext {
				return s.span(u, units[i+1])
			}
			return s.span(out[len(out)-1], u)
		}
		// The neighbour it prefers: the next one after a piece of its own
		// (a heading), else the previous one.
		toNext := !hasPrev || u.pieceEnd && hasNext
		joined, err := join(toNext)
		if err != nil {
			return nil, err
		}
		if joined.tokens > s.max && (toNext && hasPrev || !toNext && hasNext) {
			other, err := join(!toNext)
			if err != nil {
				return nil, err
			}
			if other.tokens <= s.max {
				toNext, joined = !toNext, other
			}
		}
		// Too long either way: the preferred join stands, and its
		// sentence is cut as a long one.
		if toNext {
			units[i+1] = joined // appended as the next unit, of two words or more
		} else {
			out[len(out)-1] = joined
		}
	}
	return out, nil
}

// span is the unit from the start of a to the end of b, which follows it.
func (s *splitter) span(a, b unit) (unit, error) {
	u := unit{lo: a.lo, hi: b.hi, pieceEnd: b.pieceEnd}
	var err error
	u.tokens, err = s.count(u.lo, u.hi)
	return u, err
}

// cutLong cuts each unit longer than a passage into as few near-equal
// parts as fit, at word boundaries: the only place where a passage may
// begin or end inside a sentence.
func (s *splitter) cutLong(units []unit) ([]unit, error) {
	var out []unit
	for _, u := range units {
		if u.tokens <= s.max {
			out = append(out, u)
			continue
		}
		parts, err := s.cutSentence(u)
		if err != nil {
			return nil, err
		}
		out = append(out, parts...)
	}
	return out, nil
}

// cutSentence cuts one long unit. It tries k = ⌈tokens / max⌉ parts first
// and one more each time a part, tokenized on its own, does not fit.
func (s *splitter) cutSentence(u unit) ([]unit, error) {
	text := s.text[u.lo:u.hi]
	spans, err := s.tok.Spans(text)
	if err != nil {
		return nil, err
	}
	n := len(spans)
	wordStart := func(j int) bool { return startsWord(text, spans, j) }
	for k := (n + s.max - 1) / s.max; k <= n; k++ {
		cuts, ok := evenCuts(n, k, s.max, wordStart)
		if !ok {
			continue
		}
		parts := make([]unit, 0, k)
		fits := true
		for i := range k {
			a, b := cuts[i], cuts[i+1]
			lo, hi := trimSpan(s.text, u.lo+spans[a][0], u.lo+spans[b-1][1])
			if lo == hi {
				continue
			}
			m, err := s.count(lo, hi)
			if err != nil {
				return nil, err
			}
			if m > s.max && b-a > 1 {
				fits = false
				break
			}
			parts = append(parts, unit{lo: lo, hi: hi, tokens: m})
		}
		if fits {
			parts[len(parts)-1].pieceEnd = u.pieceEnd
			return parts, nil
		}
	}
	// Unreachable: with k = n every part is one token.
	return nil, fmt.Errorf("cannot cut a sentence of %d tokens into passages of %d", n, s.max)
}

// evenCuts chooses k-1 cut points among tokens 1..n-1 so that each of the
// k parts has at most limit tokens and the parts are near n/k tokens each:
// the word start nearest to each even target that keeps the rest feasible,
// else (a word longer than a part) the target itself. It returns the cuts
// with 0 and n around them.
func evenCuts(n, k, limit int, wordStart func(int) bool) ([]int, bool) {
	cuts := []int{0}
	prev := 0
	for i := 1; i < k; i++ {
		lo := max(prev+1, n-(k-i)*limit) // the rest must fit in k-i parts
		hi := min(prev+limit, n-(k-i))   // and each needs a token
		if lo > hi {
			return nil, false
		}
		target := min(hi, max(lo, i*n/k))
		best := -1
		for d := 0; target-d >= lo || target+d <= hi; d++ {
			if j := target - d; j >= lo && wordStart(j) {
				best = j
				break
			}
			if j := target + d; j <= hi && wordStart(j) {
				best = j
				break
			}
		}
		if best < 0 {
			best = target
		}
		cuts = append(cuts, best)
		prev = best
	}
	if n-prev > limit {
		return nil, false
	}
	return append(cuts, n), true
}

// startsWord reports whether a word starts at token j of text: white space
// separates it from token j-1, in the gap between them or as a white-space
// token (tokens cover everything else).
func startsWord(text string, spans [][2]int, j int) bool {
	if j <= 0 || j >= len(spans) {
		return true
	}
	if spans[j][0] > spans[j-1][1] {
		return true
	}
	return isSpaceOnly(text[spans[j-1][0]:spans[j-1][1]]) || isSpaceOnly(text[spans[j][0]:spans[j][1]])
}

// pack fills passages with whole units.
func (s *splitter) pack(units []unit) ([]string, error) {
	var out []string
	for i := 0; i < len(units); {
		sum, j := units[i].tokens, i+1
		for j < len(units) && sum+units[j].tokens <= s.max {
			sum += units[j].tokens
			j++
		}
		if j < len(units) {
			// Full: end at the last piece boundary in the second half.
			acc := 0
			for m := i; m < j-1; m++ {
				acc += units[m].tokens
				if units[m].pieceEnd && acc > s.max/2 {
					j = m + 1
				}
			}
		}
		// Tokenized on its own a passage can differ from the sum of its
		// units (a unit's first word reads differently after a space): drop
		// units from its end until it fits. One unit always fits.
		for {
			lo, hi := units[i].lo, units[j-1].hi
			n, err := s.count(lo, hi)
			if err != nil {
				return nil, err
			}
			if n <= s.max || j-i == 1 {
				out = append(out, s.text[lo:hi])
				break
			}
			j--
		}
		i = j
	}
	return out, nil
}

// trimSpan narrows text[lo:hi] to exclude white space at either end.
func trimSpan(text string, lo, hi int) (int, int) {
	span := text[lo:hi]
	lo += len(span) - len(strings.TrimLeftFunc(span, unicode.IsSpace))
	return lo, lo + len(strings.TrimSpace(span))
}
