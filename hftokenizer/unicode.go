package hftokenizer

import (
	"unicode"
)

// Character classes as the Rust tokenizers crate sees them. Go's unicode
// tables (Unicode 15.0) and Rust's (std, the unicode_categories crate and
// Oniguruma) agree on every class below for the characters the parity
// fixtures exercise; where the Rust definition is not Go's, the Rust one is
// written out here (see each function).

// isWhitespace is Rust's char::is_whitespace (the White_Space property),
// which is Go's unicode.IsSpace.
func isWhitespace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || (r >= '\t' && r <= '\r')
	}
	return unicode.IsSpace(r)
}

// isNumeric is Rust's char::is_numeric: general category N (Nd, Nl, No).
func isNumeric(r rune) bool {
	if r < 0x80 {
		return r >= '0' && r <= '9'
	}
	return unicode.IsNumber(r)
}

// isBertPunc is the tokenizers crate's is_bert_punc: ASCII punctuation
// (which includes symbols such as $ + < = > ^ ` | ~) or category P.
func isBertPunc(r rune) bool {
	if r < 0x80 {
		return (r >= '!' && r <= '/') || (r >= ':' && r <= '@') || (r >= '[' && r <= '`') || (r >= '{' && r <= '~')
	}
	return unicode.IsPunct(r)
}

// isOther is the unicode_categories crate's is_other as BertNormalizer
// uses it: Cc, Cf, Co and Cs. Unassigned code points (Cn) are not
// included: the Rust tokenizer keeps them (checked by the fixtures).
func isOther(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// isMarkNonspacing is category Mn.
func isMarkNonspacing(r rune) bool {
	if r < 0x300 {
		return false
	}
	return unicode.Is(unicode.Mn, r)
}

// isChineseChar is BertNormalizer's CJK test: the CJK Unified Ideographs
// blocks and their extensions, and the compatibility ideographs.
func isChineseChar(r rune) bool {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF,
		r >= 0x3400 && r <= 0x4DBF,
		r >= 0x20000 && r <= 0x2A6DF,
		r >= 0x2A700 && r <= 0x2B73F,
		r >= 0x2B740 && r <= 0x2B81F,
		r >= 0x2B920 && r <= 0x2CEAF,
		r >= 0xF900 && r <= 0xFAFF,
		r >= 0x2F800 && r <= 0x2FA1F:
		return true
	}
	return false
}

// Oniguruma's Unicode classes, which the regular expressions of
// tokenizer.json files (run by Oniguruma in the Rust crate) mean by \s, \w
// and \d; Go's regexp means ASCII by them.

// isOnigSpace is Oniguruma's \s: U+0009-U+000D, U+0085 and category Z.
func isOnigSpace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || (r >= '\t' && r <= '\r')
	}
	return r == 0x85 || unicode.In(r, unicode.Z)
}

// isOnigWord is Oniguruma's (and the Rust regex crate's) Unicode \w, the
// Word property: Alphabetic (L, Nl, Other_Alphabetic), M, Nd, Pc and
// Join_Control (the zero-width joiners).
func isOnigWord(r rune) bool {
	if r < 0x80 {
		return r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
	}
	return unicode.In(r, unicode.L, unicode.Nl, unicode.Other_Alphabetic, unicode.M, unicode.Nd, unicode.Pc, unicode.Join_Control)
}

// isRegexWord is the Rust regex crate's \w, which AddedVocabulary's
// single_word test uses: the same Word property.
func isRegexWord(r rune) bool { return isOnigWord(r) }

// isMark is category M (Mn, Mc, Me): the StripAccents normalizer removes
// every combining mark (unicode-normalization's is_combining_mark), where
// BertNormalizer removes Mn only.
func isMark(r rune) bool {
	if r < 0x300 {
		return false
	}
	return unicode.Is(unicode.M, r)
}

// toLower is Rust's char::to_lowercase: the simple mapping, except U+0130
// (İ), whose full mapping (SpecialCasing, unconditional) is two characters.
func toLower(r rune, out []rune) []rune {
	if r < 0x80 {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(out, r)
	}
	if r == 0x130 {
		return append(out, 'i', 0x307)
	}
	return append(out, unicode.ToLower(r))
}

// isLetter is \p{L}.
func isLetter(r rune) bool {
	if r < 0x80 {
		return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
	}
	return unicode.IsLetter(r)
}

// isNumber is \p{N}.
func isNumber(r rune) bool { return isNumeric(r) }
