package hftokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/normalizer"
	"github.com/sugarme/tokenizer/pretokenizer"
)

// byteLevel is RoBERTa's (GPT-2's) byte-level pre-tokenizer. It replaces
// sugarme's, whose Go regexp cannot express the lookahead of GPT-2's
// pattern (`\s+(?!\S)`) and leaves it out: a run of whitespace that ends in
// a newline or tab before a word ("\n\nHe") then stays one piece ("ĊĊ"),
// where the Hugging Face tokenizers that the models were trained with split
// off its last character ("Ċ", "Ċ"). Different pieces give different token
// ids, so the model would see text it was not trained on.
type byteLevel struct {
	addPrefixSpace bool
}

// PreTokenize implements tokenizer.PreTokenizer.
func (b byteLevel) PreTokenize(pts *tokenizer.PreTokenizedString) (*tokenizer.PreTokenizedString, error) {
	split := pts.Split(func(_ int, n *normalizer.NormalizedString) []tokenizer.SplitIdx {
		if b.addPrefixSpace && !strings.HasPrefix(n.GetNormalized(), " ") {
			n = n.Prepend(" ")
		}
		pieces := n.Split(gpt2Pattern{}, normalizer.IsolatedBehavior)
		out := make([]tokenizer.SplitIdx, len(pieces))
		for i := range pieces {
			out[i] = tokenizer.SplitIdx{Normalized: &pieces[i]}
		}
		return out
	})
	// Map every byte to its printable stand-in, as sugarme's ByteLevel does.
	return split.Normalize(func(n *normalizer.NormalizedString) *normalizer.NormalizedString {
		s := n.GetNormalized()
		changes := make([]normalizer.ChangeMap, 0, len(s))
		for _, r := range s {
			var buf [utf8.UTFMax]byte
			k := utf8.EncodeRune(buf[:], r)
			for i := 0; i < k; i++ {
				change := 0
				if i > 0 {
					change = 1
				}
				changes = append(changes, normalizer.ChangeMap{RuneVal: pretokenizer.BytesChar[buf[i]], Changes: change})
			}
		}
		return n.Transform(changes, 0)
	}), nil
}

// gpt2Pattern splits text as GPT-2's pattern
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// does, alternatives tried in order at each position.
type gpt2Pattern struct{}

// FindMatches implements normalizer.Pattern: contiguous pieces covering s.
func (gpt2Pattern) FindMatches(s string) []normalizer.OffsetsMatch {
	if s == "" {
		return []normalizer.OffsetsMatch{{Offsets: []int{0, 0}, Match: false}}
	}
	var out []normalizer.OffsetsMatch
	for i := 0; i < len(s); {
		n := gpt2Piece(s[i:])
		out = append(out, normalizer.OffsetsMatch{Offsets: []int{i, i + n}, Match: true})
		i += n
	}
	return out
}

var contractions = [...]string{"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"}

// gpt2Piece returns the byte length of the piece that starts s.
func gpt2Piece(s string) int {
	for _, c := range contractions {
		if strings.HasPrefix(s, c) {
			return len(c)
		}
	}
	// ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`
	start := 0
	if s[0] == ' ' {
		start = 1
	}
	if start < len(s) {
		r, _ := utf8.DecodeRuneInString(s[start:])
		for _, class := range []func(rune) bool{unicode.IsLetter, unicode.IsNumber, isOther} {
			if class(r) {
				return start + runLength(s[start:], class)
			}
		}
	}
	// `\s+(?!\S)` then `\s+`: a run of whitespace followed by something
	// else gives back its last character, unless that is all it has.
	ws := runLength(s, unicode.IsSpace)
	if ws == 0 {
		// Not reached for valid text: every rune is a letter, number,
		// space or other. Invalid UTF-8 decodes as U+FFFD, an "other".
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

// isOther is [^\s\p{L}\p{N}].
func isOther(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r)
}

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
