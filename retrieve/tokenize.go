package retrieve

import (
	"unicode"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/hftokenizer"
)

// Tokenizer splits a text into tokens for sizing passages. Spans returns
// each token's byte range [start, end) in text, in order; a token that
// stands for whitespace alone may have an empty range.
type Tokenizer interface {
	Spans(text string) ([][2]int, error)
}

// HFTokenizer is a tokenizer described by a Hugging Face tokenizer.json
// (RoBERTa's byte-level BPE for FActScore's passages). No special tokens
// are added.
type HFTokenizer struct {
	tk *hftokenizer.Tokenizer
}

// LoadHFTokenizer reads a tokenizer.json.
func LoadHFTokenizer(path string) (*HFTokenizer, error) {
	tk, err := hftokenizer.Load(path)
	if err != nil {
		return nil, err
	}
	return &HFTokenizer{tk: tk}, nil
}

// Spans implements Tokenizer.
func (t *HFTokenizer) Spans(text string) ([][2]int, error) {
	toks, err := t.tk.Encode(text)
	if err != nil {
		return nil, err
	}
	return toks.Offsets, nil
}

// IDs returns the token ids of text without special tokens.
func (t *HFTokenizer) IDs(text string) ([]int, error) {
	toks, err := t.tk.Encode(text)
	if err != nil {
		return nil, err
	}
	return toks.IDs, nil
}

// WordTokenizer counts whitespace-separated words: the fallback when no
// tokenizer.json is at hand.
type WordTokenizer struct{}

// Spans implements Tokenizer.
func (WordTokenizer) Spans(text string) ([][2]int, error) {
	var spans [][2]int
	start := -1
	for i, r := range text {
		space := unicode.IsSpace(r)
		switch {
		case space && start >= 0:
			spans = append(spans, [2]int{start, i})
			start = -1
		case !space && start < 0:
			start = i
		}
	}
	if start >= 0 {
		spans = append(spans, [2]int{start, len(text)})
	}
	return spans, nil
}

// isSpaceOnly reports whether s is empty or all whitespace.
func isSpaceOnly(s string) bool {
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if !unicode.IsSpace(r) {
			return false
		}
		s = s[n:]
	}
	return true
}
