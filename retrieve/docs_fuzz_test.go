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
