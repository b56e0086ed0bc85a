package hftokenizer

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// match is a piece of a string that a pattern found (match) or the text
// between two such pieces.
type match struct {
	a, b  int
	match bool
}

// pattern finds the pieces of a string (Rust's Pattern): consecutive
// ranges covering it, each marked as a match or not. An empty string gives
// one empty non-match.
type pattern interface {
	findMatches(s string) []match
}

// runeClass matches every character for which it is true, each on its own
// (Rust's Pattern for Fn(char) -> bool and for char).
type runeClass func(rune) bool

func (f runeClass) findMatches(s string) []match {
	if s == "" {
		return []match{{0, 0, false}}
	}
	var out []match
	last := 0
	for i, r := range s {
		if !f(r) {
			continue
		}
		w := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, w = utf8.DecodeRuneInString(s[i:])
		}
		if last < i {
			out = append(out, match{last, i, false})
		}
		out = append(out, match{i, i + w, true})
		last = i + w
	}
	if last < len(s) {
		out = append(out, match{last, len(s), false})
	}
	return out
}

// literal matches the occurrences of a string, leftmost first, without
// overlap (Rust escapes it into a regular expression).
type literal string

func (l literal) findMatches(s string) []match {
	if s == "" {
		return []match{{0, 0, false}}
	}
	var out []match
	prev := 0
	if l == "" {
		return []match{{0, len(s), false}}
	}
	for i := 0; i <= len(s); {
		k := strings.Index(s[i:], string(l))
		if k < 0 {
			break
		}
		a, b := i+k, i+k+len(l)
		if prev != a {
			out = append(out, match{prev, a, false})
		}
		out = append(out, match{a, b, true})
		prev, i = b, b
	}
	if prev != len(s) {
		out = append(out, match{prev, len(s), false})
	}
	return out
}

// goRegexp is a regular expression of the file, translated to Go's syntax.
type goRegexp struct{ re *regexp.Regexp }

func (g goRegexp) findMatches(s string) []match {
	if s == "" {
		return []match{{0, 0, false}}
	}
	var out []match
	prev := 0
	for _, m := range g.re.FindAllStringIndex(s, -1) {
		if prev != m[0] {
			out = append(out, match{prev, m[0], false})
		}
		out = append(out, match{m[0], m[1], true})
		prev = m[1]
	}
	if prev != len(s) {
		out = append(out, match{prev, len(s), false})
	}
	return out
}

// invert swaps matches and non-matches (Rust's Invert).
type invert struct{ p pattern }

func (v invert) findMatches(s string) []match {
	m := v.p.findMatches(s)
	for i := range m {
		m[i].match = !m[i].match
	}
	return m
}

// gpt2Source is GPT-2's pre-tokenizing pattern, which ByteLevel uses and
// Split pre-tokenizers of byte-level models repeat. Its lookahead (?!\S) is
// beyond Go's regexp; gpt2Pattern matches it by hand.
const gpt2Source = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// gpt2Pattern splits text as GPT-2's pattern does (run by Oniguruma, so \s
// is Oniguruma's Unicode \s), alternatives tried in order at each position:
// every piece is a match.
type gpt2Pattern struct{}

func (gpt2Pattern) findMatches(s string) []match {
	if s == "" {
		return []match{{0, 0, false}}
	}
	out := make([]match, 0, len(s)/4+1)
	for i := 0; i < len(s); {
		n := gpt2Piece(s[i:])
		out = append(out, match{i, i + n, true})
		i += n
	}
	return out
}

var contractions = [...]string{"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"}

// gpt2Piece returns the byte length of the piece that starts s.
func gpt2Piece(s string) int {
	if s[0] == '\'' {
		for _, c := range contractions {
			if strings.HasPrefix(s, c) {
				return len(c)
			}
		}
	}
	// ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`
	start := 0
	if s[0] == ' ' {
		start = 1
	}
	if start < len(s) {
		r, _ := utf8.DecodeRuneInString(s[start:])
		switch {
		case isLetter(r):
			return start + runLength(s[start:], isLetter)
		case isNumber(r):
			return start + runLength(s[start:], isNumber)
		case isGPT2Other(r):
			return start + runLength(s[start:], isGPT2Other)
		}
	}
	// `\s+(?!\S)` then `\s+`: a run of whitespace followed by something
	// else gives back its last character, unless that is all it has.
	ws := runLength(s, isOnigSpace)
	if ws == 0 {
		// Not reached for valid text: every rune is a letter, number,
		// space or other.
		_, n := utf8.DecodeRuneInString(s)
		return n
	}
	if ws == len(s) {
		return ws
	}
	_, last := utf8.DecodeLastRuneInString(s[:ws])
	if ws > last {
		return ws - last
	}
	return ws
}

// isGPT2Other is [^\s\p{L}\p{N}].
func isGPT2Other(r rune) bool { return !isOnigSpace(r) && !isLetter(r) && !isNumber(r) }

// runLength is the byte length of the longest prefix of s whose runes all
// satisfy class.
func runLength(s string, class func(rune) bool) int {
	for i, r := range s {
		if !class(r) {
			return i
		}
	}
	return len(s)
}

// wordsPattern is the Whitespace pre-tokenizer's `\w+|[^\w\s]+` (Oniguruma
// classes): runs of word characters and runs of other non-space ones.
type wordsPattern struct{}

func (wordsPattern) findMatches(s string) []match {
	if s == "" {
		return []match{{0, 0, false}}
	}
	var out []match
	prev := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		var class func(rune) bool
		switch {
		case isOnigWord(r):
			class = isOnigWord
		case !isOnigSpace(r):
			class = func(r rune) bool { return !isOnigWord(r) && !isOnigSpace(r) }
		default:
			i += w
			continue
		}
		n := runLength(s[i:], class)
		if prev != i {
			out = append(out, match{prev, i, false})
		}
		out = append(out, match{i, i + n, true})
		i += n
		prev = i
	}
	if prev != len(s) {
		out = append(out, match{prev, len(s), false})
	}
	return out
}

// compileRegex turns a regular expression of a tokenizer.json (Oniguruma's
// syntax, as the Rust crate runs it) into a pattern. GPT-2's pattern gets
// the hand-written matcher; anything else is translated to Go's syntax
// (Oniguruma's Unicode \s, \w, \d spelled out; ^ and $ at line ends, as in
// Oniguruma's default Ruby syntax) and compiled, and what Go's regexp
// cannot express (lookaround, backreferences) is refused.
func compileRegex(src string) (pattern, error) {
	if src == gpt2Source {
		return gpt2Pattern{}, nil
	}
	tr, err := translateRegex(src)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile("(?m)" + tr)
	if err != nil {
		return nil, fmt.Errorf("regular expression %q is beyond Go's regexp (RE2): %w", src, err)
	}
	return goRegexp{re}, nil
}

// Oniguruma's Unicode classes in Go's syntax, inside a character class.
const onigSpace = `\t-\r\x{85}\p{Z}`

// onigWord is the Word property (see isOnigWord) as the inside of a Go
// character class: Go's regexp knows categories, not Other_Alphabetic or
// Join_Control, so those are listed as ranges.
var onigWord = func() string {
	var b strings.Builder
	b.WriteString(`\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}`)
	for _, t := range []*unicode.RangeTable{unicode.Other_Alphabetic, unicode.Join_Control} {
		var ranges []unicode.Range32
		for _, r := range t.R16 {
			ranges = append(ranges, unicode.Range32{Lo: uint32(r.Lo), Hi: uint32(r.Hi), Stride: uint32(r.Stride)})
		}
		for _, r := range append(ranges, t.R32...) {
			if r.Stride == 1 {
				fmt.Fprintf(&b, `\x{%x}-\x{%x}`, r.Lo, r.Hi)
				continue
			}
			for lo := r.Lo; lo <= r.Hi; lo += r.Stride {
				fmt.Fprintf(&b, `\x{%x}`, lo)
			}
		}
	}
	return b.String()
}()

func translateRegex(src string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && i+1 < len(src):
			e := src[i+1]
			i++
			var in, out string
			switch e {
			case 's':
				in, out = onigSpace, "["+onigSpace+"]"
			case 'S':
				out = "[^" + onigSpace + "]"
			case 'w':
				in, out = onigWord, "["+onigWord+"]"
			case 'W':
				out = "[^" + onigWord + "]"
			case 'd':
				in, out = `\p{Nd}`, `\p{Nd}`
			case 'D':
				in, out = `\P{Nd}`, `\P{Nd}`
			case 'h', 'H', 'R', 'X', 'K', 'G', 'Z':
				return "", fmt.Errorf("regular expression %q: \\%c is not supported", src, e)
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			switch {
			case !inClass:
				b.WriteString(out)
			case in != "":
				b.WriteString(in)
			default:
				return "", fmt.Errorf("regular expression %q: \\%c inside a character class is not supported", src, e)
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal.
			if i+1 < len(src) && src[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == '[' && inClass:
			return "", fmt.Errorf("regular expression %q: nested character classes and POSIX classes are not supported", src)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
