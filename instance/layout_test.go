package instance

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReaderBrokenLeadingLines: however many broken lines lead a jsonl
// file, and whatever they start with ('[' included), the valid records
// after them are read and each broken line is reported; a file that is
// neither jsonl nor JSON says so.
func TestReaderBrokenLeadingLines(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		inputs int
		errs   []string // prefixes, in order
	}{
		{"two broken leading lines", `{"input": "Q", "output": ` + "\n" + `{"input": ` + "\n" + good + "\n" + good + "\n",
			2, []string{"f.jsonl:1: invalid JSON", "f.jsonl:2: invalid JSON"}},
		{"three broken leading lines", "oops\n{\n\"x\": 1\n" + good + "\n",
			1, []string{"f.jsonl:1: invalid JSON", "f.jsonl:2: invalid JSON", "f.jsonl:3: invalid JSON"}},
		{"first line starts with [", `[{"input": "Q", "output": "R"` + "\n" + good + "\n" + good + "\n",
			2, []string{"f.jsonl:1: invalid JSON"}},
		{"a lone [ first", "[\n" + good + "\n" + good + "\n",
			2, []string{"f.jsonl:1: invalid JSON"}},
		{"broken lines everywhere", "{\n" + good + "\n{\"input\":\n" + good + "\n]\n",
			2, []string{"f.jsonl:1: invalid JSON", "f.jsonl:3: invalid JSON", "f.jsonl:5: invalid JSON"}},
		{"a pretty-printed record among records", good + "\n{\n  \"input\": \"Q\",\n  \"output\": \"R\"\n}\n" + good + "\n",
			3, nil},
		{"neither jsonl nor JSON", "this is\nnot json\n", 0, []string{"f.jsonl:1: invalid JSON: invalid character 'h' in literal true (expecting 'r'); the file is not jsonl either"}},
		{"pretty, broken: neither", "{\n  \"input\": \"Q\",\n  \"output\": \n", 0, []string{"f.jsonl:1: invalid JSON: unexpected EOF; the file is not jsonl either"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ins, errs := readAll(t, tc.in)
			if len(ins) != tc.inputs {
				t.Errorf("%d records, want %d (errors %v)", len(ins), tc.inputs, errs)
			}
			if len(errs) != len(tc.errs) {
				t.Fatalf("errors %v, want %d", errs, len(tc.errs))
			}
			for i, e := range errs {
				if !strings.HasPrefix(e.Error(), tc.errs[i]) {
					t.Errorf("error %q, want prefix %q", e, tc.errs[i])
				}
			}
		})
	}
	// Scan, as fr score --skip-invalid reads, finds the records too.
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte(tests[0].in), 0o600); err != nil {
		t.Fatal(err)
	}
	var n, skipped int
	err := Scan(path, func(*Error) { skipped++ }, func(*Instance) error { n++; return nil })
	if err != nil || n != 2 || skipped != 2 {
		t.Errorf("Scan: %d records, %d skipped, %v; want 2, 2", n, skipped, err)
	}
}

// TestReaderPipe: an input that cannot seek is decided as a file is.
func TestReaderPipe(t *testing.T) {
	in := "oops\n[\n" + good + "\n" + good + "\n"
	pr, pw := io.Pipe()
	go func() { io.WriteString(pw, in); pw.Close() }()
	r := NewReader(struct{ io.Reader }{pr}, "pipe")
	var n, bad int
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			bad++
			continue
		}
		n++
	}
	if n != 2 || bad != 2 {
		t.Errorf("%d records, %d errors; want 2, 2", n, bad)
	}
}

// validSequence reports, with encoding/json, whether data is a sequence of
// JSON values.
func validSequence(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// FuzzLayoutScanner: the streaming scanner that decides the layout agrees
// with encoding/json on which inputs are sequences of JSON values, and on
// NaN and Infinity with the quoting the reader applies.
func FuzzLayoutScanner(f *testing.F) {
	for _, s := range []string{good, "[1, 2.5e-3, -0, true, null]", `{"a": {"b": [{}]}}`, "1 2 3", `"\u00e9\n"`,
		"{", "}", "[1,]", `{"a" 1}`, "01", "1.", "-", "1e", "1e+", `"\x"`, `"\u12"`, "tru", "NaN", "-Infinity", "[NaN, Infinity]", "nul"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s jsonScanner
		s.reset()
		for _, c := range data {
			if !s.step(c) {
				break
			}
		}
		got := s.end()
		if want := validSequence(data); !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) && got != want {
			t.Fatalf("scanner says valid=%v, encoding/json %v, for %q", got, want, data)
		}
		if got && !validSequence(quoteNonFinite(data)) {
			t.Fatalf("scanner says valid, but not after quoting NaN and Infinity: %q", data)
		}
	})
}

// FuzzReaderBrokenLines: valid records among arbitrary other lines are
// all read, and each other line is at most one error, unless the whole
// input is valid JSON (then it is read as JSON and holds them anyway).
func FuzzReaderBrokenLines(f *testing.F) {
	f.Add([]byte("{\n[\n"), uint8(3))
	f.Add([]byte("[{\"input\": \"Q\"\n"), uint8(1))
	f.Add([]byte("oops\n\n}\n"), uint8(7))
	f.Fuzz(func(t *testing.T, junk []byte, where uint8) {
		lines := strings.Split(string(junk), "\n")
		if len(lines) > 20 {
			lines = lines[:20]
		}
		var b strings.Builder
		planted := 0
		for i, l := range lines {
			if where>>(i%8)&1 == 1 {
				b.WriteString(good + "\n")
				planted++
			}
			b.WriteString(l + "\n")
		}
		b.WriteString(good + "\n")
		planted++
		in := b.String()
		r := NewReader(strings.NewReader(in), "f")
		var got, bad int
		for range 1000 {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error of type %T: %v", err, err)
				}
				bad++
				if !Skippable(err) {
					break
				}
				continue
			}
			if rec.Input == "Q" && rec.Output == "R NaN Infinity" {
				got++
			}
		}
		if validSequence(quoteNonFinite([]byte(in))) {
			return // JSON throughout: the records may be parts of others
		}
		if got < planted {
			t.Fatalf("%d of %d planted records read (%d errors) from %q", got, planted, bad, in)
		}
		if bad > len(lines) {
			t.Fatalf("%d errors for %d other lines", bad, len(lines))
		}
	})
}

// exampleJSONL is 16 MiB of testdata/example.jsonl's records, repeated.
func exampleJSONL(b *testing.B) []byte {
	example, err := os.ReadFile("../testdata/example.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Repeat(example, (16<<20)/len(example))
}

// BenchmarkScanLayout measures the first pass over a jsonl file (the
// reader's cost of deciding the layout from the whole input).
func BenchmarkScanLayout(b *testing.B) {
	data := exampleJSONL(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := scanLayout(bytes.NewReader(data), DefaultMaxLineBytes, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadJSONL is the whole read of the same file, the first pass
// included.
func BenchmarkReadJSONL(b *testing.B) {
	data := exampleJSONL(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r := NewReader(bytes.NewReader(data), "f")
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
