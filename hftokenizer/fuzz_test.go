package hftokenizer

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzEncode: no text makes the tokenizer panic, for every family; a valid
// text gives offsets inside it (start <= end), one per token, and the same
// answer twice; an invalid one gives ErrInvalidUTF8. Seeds: the adversarial
// strings of the parity fixtures.
func FuzzEncode(f *testing.F) {
	var strs []fixtureString
	readJSON(f, filepath.Join("testdata", "parity", "strings.json"), &strs)
	for _, s := range strs {
		f.Add(s.Text)
	}
	f.Add("a\xffb")
	var toks []*Tokenizer
	for _, name := range []string{"roberta-base", "bert-strip-accents", "deberta-v3", "unigram-byte-fallback", "wordpiece-components", "unigram-components"} {
		var fx variantFixture
		readJSON(f, filepath.Join("testdata", "parity", name+".json"), &fx)
		toks = append(toks, loadVariant(f, &fx))
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, tok := range toks {
			e, err := tok.Encode(text)
			if !utf8.ValidString(text) {
				if !errors.Is(err, ErrInvalidUTF8) {
					t.Fatalf("%q: error %v, want ErrInvalidUTF8", text, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%q: %v", text, err)
			}
			if len(e.Offsets) != e.Len() || len(e.Tokens) != e.Len() || len(e.TypeIDs) != e.Len() {
				t.Fatalf("%q: %d ids, %d offsets, %d tokens", text, e.Len(), len(e.Offsets), len(e.Tokens))
			}
			for _, o := range e.Offsets {
				if o[0] < 0 || o[0] > o[1] || o[1] > len(text) {
					t.Fatalf("%q: offsets %v outside the text", text, e.Offsets)
				}
			}
			again, _ := tok.Encode(text)
			if !slices.Equal(e.IDs, again.IDs) || !slices.Equal(e.Offsets, again.Offsets) {
				t.Fatalf("%q: two encodings differ", text)
			}
			ids, _ := tok.PairIDs(e, 0, e.Len(), e, 0, e.Len())
			if p := tok.Pair(e, 0, e.Len(), e, 0, e.Len()); !slices.Equal(ids, p.IDs) {
				t.Fatalf("%q: PairIDs %v, Pair %v", text, ids, p.IDs)
			}
		}
	})
}
