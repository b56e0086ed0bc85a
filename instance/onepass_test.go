package instance

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"testing"
)

// onePassCases are records that decodeValid must decode (and decodeErr
// decode the same), among them the corners of json.Unmarshal's matching
// of names.
var onePassCases = []struct{ name, record string }{
	{"plain", `{"input": "Q", "output": "R"}`},
	{"spaces", " \t{ \"input\" : \"Q\" ,\n\"output\":\"R\" }\r\n"},
	{"extra fields in order", `{"id": 7, "input": "Q", "cat": ["a", {"b": null}], "output": "R", "z": "x"}`},
	{"repeated extra field moves to the end", `{"id": 1, "input": "Q", "cat": 2, "output": "R", "id": "last"}`},
	{"names case-insensitive", `{"INPUT": "Q", "Output": "R", "Topic": "T"}`},
	{"escaped names", `{"\u0069nput": "Q", "output": "R", "\u00e9t\u00e9": 1, "a\"b": 2}`},
	{"repeated known field: last counts", `{"input": "A", "output": "R", "input": "Q"}`},
	{"repeated atoms decode into the same slice", `{"input": "Q", "output": "R", "atoms": [{"id": "a0", "text": "x", "label": "S"}], "atoms": [{"id": "a0", "text": "y"}]}`},
	{"null values", `{"input": "Q", "output": "R", "topic": null, "atoms": null, "contexts": null, "relations": null}`},
	{"empty arrays", `{"input": "Q", "output": "R", "atoms": [], "contexts": [], "relations": []}`},
	{"repeated contexts: last counts whole", `{"input": "Q", "output": "R", "contexts": [{"id": "c0", "title": "T", "text": "x"}], "contexts": [{"id": "c0", "text": "y"}]}`},
	{"contexts and relations", `{"input": "Q", "output": "R", "atoms": [{"id": "a0", "text": "x", "contexts": ["c0"]}], "contexts": [{"id": "c0", "text": "y", "probability": 0.5}, {"id": "c1", "snippet": "s", "probability": null}], "relations": [{"source": "c0", "target": "a0", "type": "entailment", "probability": 1e-400}]}`},
	{"strings with escapes and brackets", `{"input": "Q \\\" ]}", "output": "R\\\\", "x": "\"{[", "y": [[], {}, "]"]}`},
	{"NaN in a string", `{"input": "NaN", "output": "Infinity"}`},
}

// TestDecodeValid: the one-pass decoder takes the records it should, and
// gives the same Instance as the field-by-field decoder.
func TestDecodeValid(t *testing.T) {
	example, err := os.ReadFile("../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cases := onePassCases
	for i, line := range bytes.Split(bytes.TrimSpace(example), []byte("\n")) {
		cases = append(cases, struct{ name, record string }{fmt.Sprint("example line ", i+1), string(line)})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := quoteNonFinite([]byte(c.record))
			want, err := decodeErr(raw)
			if err != nil {
				t.Fatalf("decodeErr: %v", err)
			}
			got := decodeValid(raw)
			if got == nil {
				t.Fatal("decodeValid refused a valid record")
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeValid gives\n%#v\ndecodeErr\n%#v", got, want)
			}
		})
	}
}

// FuzzDecodeValid: whatever the one-pass decoder accepts, the
// field-by-field decoder accepts too, as the same Instance.
func FuzzDecodeValid(f *testing.F) {
	for _, c := range onePassCases {
		f.Add([]byte(c.record))
	}
	for _, s := range []string{
		`{"input": "Q", "output": "R", "relations": [{"source": "c0", "target": "a0", "type": "entailment", "probability": NaN}]}`,
		`{"input": "Q", "output": "R", "contexts": [{"id": "c0", "text": "y", "probability": Infinity}]}`,
		`{"input": "Q", "output": "R", "relations": [null]}`,
		`{"input": "Q", "output": "R", "contexts": [1], "contexts": []}`,
		`{"input": "Q", "output": "R",}`, `{"input": "Q" "output": "R"}`, `{"input": "Q", "output": tru}`,
		`{"input": "Q", "output": "R"} x`, `[{"input": "Q", "output": "R"}]`, "{\"in\x01put\": 1}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw := quoteNonFinite(data)
		got := decodeValid(raw)
		if got == nil {
			return
		}
		want, err := decodeErr(raw)
		if err != nil {
			t.Fatalf("decodeValid accepted what decodeErr refuses (%v)", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeValid gives\n%#v\ndecodeErr\n%#v", got, want)
		}
	})
}
