// Package pystr reproduces the few Python string operations whose exact
// behaviour the FActScore reference depends on: str.split() with no
// arguments (BM25 tokens, the answer parser's keyword check) and str.strip()
// (the verification prompt).
//
// Python's notion of whitespace is Go's unicode.IsSpace plus the four ASCII
// information separators U+001C..U+001F, which Python counts as line
// boundaries. Using strings.Fields instead would split differently on text
// that holds those bytes.
package pystr

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports whether Python's str.isspace is true for r.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// Fields splits s as Python's s.split() does: around runs of whitespace,
// with no empty strings in the result.
func Fields(s string) []string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.FieldsFunc(s, IsSpace)
		}
	}
	// ASCII: a byte loop, several times faster (BM25 splits every passage).
	var out []string
	start := -1
	for i := 0; i < len(s); i++ {
		if asciiSpace(s[i]) {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// asciiSpace is IsSpace for an ASCII byte: \t \n \v \f \r, U+001C..U+001F
// and the space.
func asciiSpace(c byte) bool { return (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x20) }

// Strip removes leading and trailing whitespace as Python's s.strip() does.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// Punctuation is Python's string.punctuation: the ASCII punctuation
// characters.
const Punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// IsPunct reports whether r is in Python's string.punctuation.
func IsPunct(r rune) bool { return r < 0x80 && strings.ContainsRune(Punctuation, r) }
