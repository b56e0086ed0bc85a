package instance

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// FuzzReader: the reader never panics, never holds more than its limits,
// reports every problem as an *Error with a line inside the input, returns
// only records that validate, and a record it returns reads back, written
// as a jsonl line, to the same record.
func FuzzReader(f *testing.F) {
	example, err := os.ReadFile("../testdata/example.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	first, _, _ := bytes.Cut(example, []byte("\n"))
	for _, seed := range []string{
		string(first),
		"[" + string(first) + "]",
		"\xEF\xBB\xBF" + string(first),
		`{"input": "Q", "output": ` + "\n" + string(first),
		"{\n  \"input\": \"Q\",\n  \"output\": \"R\",\n  \"id\": 7\n}\n",
		`{"input": "Q", "output": "R", "relations": [{"source": "c0", "target": "a0", "type": "entailment", "probability": NaN}]}`,
		"", "\n\n", "[]", "{}", "null", `"x"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "f")
		r.MaxLineBytes, r.MaxDocumentBytes = 1<<12, 1<<14
		lines := 1 + bytes.Count(data, []byte("\n"))
		for range 10_000 {
			in, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error of type %T: %v", err, err)
				}
				if e.Line < 0 || e.Line > lines {
					t.Fatalf("error at line %d of a %d-line input: %v", e.Line, lines, err)
				}
				if errors.Is(err, ErrEmpty) || errors.Is(err, ErrUnreadable) {
					if _, again := r.Next(); errors.Is(err, ErrUnreadable) && again != io.EOF {
						t.Fatalf("an error that ends the input (%v), then %v", err, again)
					}
					return
				}
				if !Skippable(err) {
					t.Fatalf("an error neither skippable nor ending the input: %v", err)
				}
				continue
			}
			if err := in.Validate(); err != nil {
				t.Fatalf("returned an invalid record: %v", err)
			}
			line, err := json.Marshal(in)
			if err != nil {
				t.Fatalf("writing a record read: %v", err)
			}
			back, err := NewReader(bytes.NewReader(line), "g").Next()
			if err != nil {
				t.Fatalf("reading back %s: %v", line, err)
			}
			again, _ := json.Marshal(back)
			if !bytes.Equal(again, line) {
				t.Fatalf("round trip changed the record:\n%s\n%s", line, again)
			}
		}
		t.Fatal("no end after 10,000 records")
	})
}

// FuzzParseLabeled: FActScore's labeled format never panics the parser,
// and a record it accepts converts to an instance whose atoms are the S
// and NS facts of relevant sentences.
func FuzzParseLabeled(f *testing.F) {
	f.Add([]byte(`{"input": "Q", "output": "R", "topic": "T", "annotations": [{"text": "R", "is-relevant": true, "human-atomic-facts": [{"text": "F", "label": "S"}, {"text": "G", "label": "IR"}]}]}`))
	f.Add([]byte(`{"input": "Q", "output": "R", "topic": "T", "annotations": null}`))
	f.Add([]byte(`{"annotations": [{"human-atomic-facts": [{"label": "X"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ParseLabeled(data)
		if err != nil {
			return
		}
		want := 0
		for _, a := range rec.Annotations {
			for _, fa := range a.HumanAtomicFacts {
				if a.IsRelevant && (fa.Label == Supported || fa.Label == NotSupported) {
					want++
				}
			}
		}
		in := rec.Instance()
		if len(in.Atoms) != want {
			t.Fatalf("%d atoms, want %d", len(in.Atoms), want)
		}
		for i, a := range in.Atoms {
			if a.ID != "a"+strings.TrimLeft(a.ID, "a") || (a.Label != Supported && a.Label != NotSupported) {
				t.Fatalf("atom %d: %+v", i, a)
			}
		}
	})
}
