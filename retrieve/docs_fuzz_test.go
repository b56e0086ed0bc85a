package retrieve

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseDocLine: kb build's jsonl document reader never panics, accepts
// only a document with a title and string pieces, and a document it
// accepts reads back, written again, to the same document.
func FuzzParseDocLine(f *testing.F) {
	for _, seed := range []string{
		`{"title": "Lanny Flaherty", "text": "Lanny Flaherty was an American actor."}`,
		`{"title": "A", "text": ["one", "two", ""]}`,
		`{"title": "A", "text": null}`, `{"title": "A", "text": [null]}`, `{"title": "", "text": "x"}`,
		`{"text": "x"}`, `[]`, `{"title": "A", "text": 3}`, `{"title": "A", "text": {"a": "b"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseDocLine(data)
		if err != nil {
			return
		}
		if strings.TrimSpace(d.Title) == "" {
			t.Fatalf("accepted a document without a title: %q", data)
		}
		pieces := append([]string{}, d.Pieces...) // [] and not null for no pieces
		line, err := json.Marshal(map[string]any{"title": d.Title, "text": pieces})
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseDocLine(line)
		if err != nil || back.Title != d.Title || len(back.Pieces) != len(d.Pieces) || len(d.Pieces) > 0 && !reflect.DeepEqual(back.Pieces, d.Pieces) {
			t.Fatalf("round trip of %s: %+v, %v", line, back, err)
		}
	})
}

// FuzzSplit: on any text (pieces at blank lines) and passage size, Split
// never fails, and its passages (counted in words) fit, give the text back
// in order, and from 4 words up are never a lone word unless the text is
// one word.
func FuzzSplit(f *testing.F) {
	f.Add("One two three. Four five six. Seven eight.", uint8(5))
	f.Add("a b c d e f g", uint8(3))
	f.Add("Career\n\nHe acted. He sang. Yes. He did.", uint8(4))
	f.Add("he was born in 1942 in the u. s. army base. he died in 2024.", uint8(6))
	f.Add("Dr. Smith met Mr. Jones in St. Louis.\nThey talked\nfor hours.\n\n\n...", uint8(4))
	f.Fuzz(func(t *testing.T, text string, size uint8) {
		max := int(size%40) + 1
		ps, err := Split(paragraphs(text), WordTokenizer{}, max)
		if err != nil {
			t.Fatal(err)
		}
		words := strings.Fields(text)
		var got []string
		for _, p := range ps {
			w := strings.Fields(p)
			if len(w) > max || len(w) == 0 {
				t.Fatalf("passage of %d words, max %d: %q", len(w), max, p)
			}
			if len(w) == 1 && max >= 4 && len(words) > 1 {
				t.Fatalf("one-word passage %q (max %d) of %q", p, max, text)
			}
			got = append(got, w...)
		}
		if !reflect.DeepEqual(got, words) && len(words) > 0 {
			t.Fatalf("passages %q do not give back %q", ps, text)
		}
	})
}
