package retrieve

import (
	"fmt"
	"os"
	"unicode"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// Tokenizer splits a text into tokens for sizing passages. Spans returns
// each token's byte range [start, end) in text, in order; a token that
// stands for whitespace alone may have an empty range.
type Tokenizer interface {
	Spans(text string) ([][2]int, error)
}

// HFTokenizer is a tokenizer described by a Hugging Face tokenizer.json
// (RoBERTa's byte-level BPE for FActScore's passages), run by
// github.com/sugarme/tokenizer. No special tokens are added.
type HFTokenizer struct {
	tk *tokenizer.Tokenizer
}

// LoadHFTokenizer reads a tokenizer.json.
func LoadHFTokenizer(path string) (t *HFTokenizer, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	// sugarme asserts the types of the file's fields and panics on a
	// malformed file; that must be an error here.
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("tokenizer %s: malformed tokenizer.json: %v", path, p)
		}
	}()
	tk, err := pretrained.FromFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	// Passages are sized here; the library must not cut or pad.
	tk.WithTruncation(nil)
	tk.WithPadding(nil)
	return &HFTokenizer{tk: tk}, nil
}

// Spans implements Tokenizer.
func (t *HFTokenizer) Spans(text string) (spans [][2]int, err error) {
	if text == "" {
		return nil, nil
	}
	defer func() {
		if p := recover(); p != nil {
			spans, err = nil, fmt.Errorf("tokenizer failed: %v", p)
		}
	}()
	enc, err := t.tk.EncodeSingle(text, false)
	if err != nil {
		return nil, err
	}
	spans = make([][2]int, len(enc.Offsets))
	for i, o := range enc.Offsets {
		if len(o) != 2 || o[0] < 0 || o[1] < o[0] || o[1] > len(text) {
			return nil, fmt.Errorf("tokenizer gave token %d the range %v outside the text (%d bytes)", i, o, len(text))
		}
		spans[i] = [2]int{o[0], o[1]}
	}
	return spans, nil
}

// IDs returns the token ids of text without special tokens.
func (t *HFTokenizer) IDs(text string) (ids []int, err error) {
	defer func() {
		if p := recover(); p != nil {
			ids, err = nil, fmt.Errorf("tokenizer failed: %v", p)
		}
	}()
	enc, err := t.tk.EncodeSingle(text, false)
	if err != nil {
		return nil, err
	}
	return enc.Ids, nil
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
