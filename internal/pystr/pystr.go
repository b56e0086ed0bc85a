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
)

// IsSpace reports whether Python's str.isspace is true for r.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// Fields splits s as Python's s.split() does: around runs of whitespace,
// with no empty strings in the result.
func Fields(s string) []string { return strings.FieldsFunc(s, IsSpace) }

// Strip removes leading and trailing whitespace as Python's s.strip() does.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// Punctuation is Python's string.punctuation: the ASCII punctuation
// characters.
const Punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// IsPunct reports whether r is in Python's string.punctuation.
func IsPunct(r rune) bool { return r < 0x80 && strings.ContainsRune(Punctuation, r) }
