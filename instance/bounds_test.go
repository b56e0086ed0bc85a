package instance

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countingReader is a seekable input that counts the bytes read from it.
type countingReader struct {
	*strings.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	c.read += n
	return n, err
}

// TestSkipInvalidEndsAtUnreadable: --skip-invalid (Scan with skip) skips
// invalid records and reads on, but an input that cannot be read on is an
// error, skip or not, and not one record skipped: a file that is neither
// jsonl nor JSON, jsonl whose every line is broken, a pretty-printed file
// whose JSON breaks (the records after the break cannot be found), a
// record of such a file over the limit.
func TestSkipInvalidEndsAtUnreadable(t *testing.T) {
	pretty := "{\n  \"input\": \"Q\",\n  \"output\": \"R\"\n}\n"
	tests := []struct {
		name    string
		in      string
		records int    // read before the end
		skipped int    // invalid records skipped
		err     string // the error that ends the scan; "" for none
	}{
		{"jsonl with a broken line", good + "\noops\n" + good + "\n", 2, 1, ""},
		{"jsonl with an invalid record", good + "\n" + `{"input": "Q", "output": ""}` + "\n", 1, 1, ""},
		{"neither jsonl nor JSON", "this is\nnot json\n", 0, 0, "f.jsonl:1: invalid JSON: invalid character 'h' in literal true (expecting 'r'); the file is not jsonl either"},
		{"random bytes", "\xde\xad\xbe\xef\x00\x01\n\xff\n", 0, 0, "the file is not jsonl either"},
		{"one JSON value a line, none an object", "1\n2\n\"x\"\n", 0, 3, "no line of the file is a whole JSON object"},
		{"pretty, broken after a record", pretty + "{\n  \"input\": \n", 1, 0, "invalid JSON: unexpected EOF"},
		{"pretty, a record too long", pretty + "{\n  \"input\": \"" + strings.Repeat("x", 50000) + "\",\n  \"output\": \"R\"\n}\n" + pretty, 1, 0, "a record is longer than 4096 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.in), "f.jsonl")
			r.MaxLineBytes = 4096
			records, skipped := 0, 0
			var end error
			for range 100 {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if Skippable(err) {
					skipped++
					continue
				}
				if err != nil {
					end = err
					break
				}
				records++
			}
			if records != tc.records || skipped != tc.skipped {
				t.Errorf("%d records, %d skipped; want %d, %d (end %v)", records, skipped, tc.records, tc.skipped, end)
			}
			switch {
			case tc.err == "" && end != nil:
				t.Errorf("ended by %v", end)
			case tc.err != "" && (end == nil || !strings.Contains(end.Error(), tc.err) || !errors.Is(end, ErrUnreadable)):
				t.Errorf("ended by %v, want ErrUnreadable with %q", end, tc.err)
			}
			if end != nil {
				if _, err := r.Next(); err != io.EOF {
					t.Errorf("after the end: %v", err)
				}
			}
			// Scan with skip, as fr does: the same end.
			path := filepath.Join(t.TempDir(), "f.jsonl")
			os.WriteFile(path, []byte(tc.in), 0o600)
			if tc.name == "pretty, a record too long" {
				return // Scan reads with the default limit
			}
			err := Scan(path, func(*Error) {}, func(*Instance) error { return nil })
			if (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Scan with skip: %v, want %q", err, tc.err)
			}
		})
	}
}

// TestLongLineAtOnce: a line over the limit at the start of a file too
// large for a document is an invalid record said once the limit is read,
// not after the whole line: the layout is not scanned first (only jsonl
// can hold such a file), and the line's rest is read only by a caller
// that reads on. A file that large without a record line is not jsonl.
func TestLongLineAtOnce(t *testing.T) {
	const maxLine, maxDoc = 1 << 12, 1 << 14
	huge := `{"input": "` + strings.Repeat("a", 1<<22) + `"}` + "\n"
	src := &countingReader{Reader: strings.NewReader(huge + good + "\n")}
	r := NewReader(src, "f.jsonl")
	r.MaxLineBytes, r.MaxDocumentBytes = maxLine, maxDoc
	_, err := r.Next()
	if !Skippable(err) || !strings.Contains(err.Error(), "f.jsonl:1: the line is longer than 4096 bytes") {
		t.Fatalf("first record: %v", err)
	}
	if src.read > 2<<20 {
		t.Errorf("read %d bytes of a %d-byte line to say it is too long", src.read, len(huge))
	}
	if in, err := r.Next(); err != nil || in.Line != 2 {
		t.Errorf("the record after it: %v, %v", in, err)
	}
	r = NewReader(strings.NewReader(strings.Repeat("not json\n", maxDoc)), "g")
	r.MaxLineBytes, r.MaxDocumentBytes = maxLine, maxDoc
	if _, err := r.Next(); !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "not jsonl") {
		t.Errorf("a large file without records: %v", err)
	}
	// Broken lines, an indented object and {} {} on a line before the
	// first record line of a large file: jsonl, each an invalid record.
	lead := "oops\n  {\"input\": \"Q\"}\n{} {}\n{\"a\": [1, NaN]\n"
	r = NewReader(strings.NewReader(lead+strings.Repeat(good+"\n", maxDoc/len(good)+1)), "h")
	r.MaxLineBytes, r.MaxDocumentBytes = maxLine, maxDoc
	bad, n := 0, 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if !Skippable(err) && err != nil {
			t.Fatal(err)
		}
		if err != nil {
			bad++
		} else {
			n++
		}
	}
	if bad != 4 || n != maxDoc/len(good)+1 {
		t.Errorf("%d records, %d invalid", n, bad)
	}
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"x\n" + good + "\n", true},
		{"x\n  " + good + "\n", false},
		{"{} {}\n[1]\n", false},
		{`{"a": NaN}`, true},
		{"x\n" + strings.Repeat("y", maxLine+1), true},
		{"\xEF\xBB\xBF{}\n", true},
		{"", false},
	} {
		if got, err := recordLineAhead(strings.NewReader(tc.in), maxLine); got != tc.want || err != nil {
			t.Errorf("recordLineAhead(%.30q) = %v, %v", tc.in, got, err)
		}
	}
}

// TestPipeHeld: a stream (which cannot be read twice) is held in memory
// no further than a document may go, in blocks of the read buffer; a
// longer one is jsonl, read on from the stream.
func TestPipeHeld(t *testing.T) {
	const maxDoc = 3*readBuffer + 100
	in := strings.Repeat(good+"\n", maxDoc/len(good)+10)
	r := NewReader(struct{ io.Reader }{strings.NewReader(in)}, "pipe")
	r.MaxDocumentBytes = maxDoc
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if want := strings.Count(in, "\n"); n != want {
		t.Errorf("%d records, want %d", n, want)
	}
	h, err := holdUpTo(strings.NewReader(in), maxDoc+1)
	if err != nil || h.size != maxDoc+1 || len(h.blocks) != 4 {
		t.Errorf("held %d bytes in %d blocks, %v", h.size, len(h.blocks), err)
	}
}

// TestRelationsGivenNone: "relations": [] says the record's relations are
// given and there are none (not nil, and written back as []); an absent
// field or null says none are given (nil, and left out when written).
func TestRelationsGivenNone(t *testing.T) {
	base := `{"input": "Q", "output": "R", "atoms": [{"id": "a0", "text": "A"}], "contexts": [{"id": "c0", "text": "C"}]`
	for _, tc := range []struct {
		field string
		given bool
	}{
		{`, "relations": []`, true},
		{`, "relations": null`, false},
		{``, false},
		{`, "relations": [{"source": "c0", "target": "a0", "type": "entailment", "probability": 0.9}]`, true},
	} {
		for _, decode := range []func([]byte) (*Instance, error){decode, func(b []byte) (*Instance, error) { return decodeErr(b) }} {
			in, err := decode([]byte(base + tc.field + "}"))
			if err != nil {
				t.Fatal(err)
			}
			if (in.Relations != nil) != tc.given {
				t.Errorf("%q: relations %#v, given %v", tc.field, in.Relations, tc.given)
			}
			out, _ := json.Marshal(in)
			if strings.Contains(string(out), `"relations"`) != tc.given {
				t.Errorf("%q: written back as %s", tc.field, out)
			}
		}
	}
}
