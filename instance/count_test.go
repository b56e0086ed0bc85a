package instance

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// countInputs are inputs in every layout, with what makes a line a record
// or not: blank lines of ASCII and Unicode spaces, a byte order mark, CR
// LF, runes of several bytes, broken runes, broken lines, lines too long
// (over the 200 bytes the tests allow), no final line break.
var countInputs = map[string]string{
	"jsonl":                  strings.Repeat(countRec+"\n", 40),
	"crlf, blanks, BOM":      "\ufeff" + strings.Repeat(countRec+"\r\n\n  \n\t\v\f\r\n", 30),
	"BOM alone on line 1":    "\ufeff\n" + strings.Repeat(countRec+"\n", 5),
	"unicode spaces":         strings.Repeat(countRec+"\n\u00a0\u2003\n\u0085\n\u3000 \n", 10),
	"not a space: é, U+FEFF": strings.Repeat(countRec+"\né\n\ufeff\n", 10),
	"broken runes":           strings.Repeat(countRec+"\n\xe2\x80\n \xe2\n\xff\n", 10),
	"no final line break":    strings.Repeat(countRec+"\n", 20) + countRec,
	"spaces at the end":      strings.Repeat(countRec+"\n", 20) + "   ",
	"too long lines":         strings.Repeat(countRec+"\n"+strings.Repeat(" ", 300)+"\n"+strings.Repeat("x", 250)+"\n", 10),
	"a broken line":          strings.Repeat(countRec+"\n", 20) + `{"input": "q",` + "\n" + strings.Repeat(countRec+"\n", 20),
	"pretty-printed":         strings.Repeat("{\n  \"input\": \"q\",\n  \"output\": \"a\"\n}\n\n", 40),
	"array":                  "[" + strings.Repeat(countRec+",", 30) + countRec + "]\n",
	"array, one per line":    "[\n" + strings.Repeat("  "+countRec+",\n", 30) + "  " + countRec + "\n]\n",
	"arrays and values":      "[\n" + countRec + ",\n[1]\n]\n{\n\"input\": \"q\", \"output\": \"a\"\n}\n[\n" + countRec + "\n]\n",
	"values not objects":     "{\n\"input\": \"q\", \"output\": \"a\"\n}\n12\n\"s\"\n",
	"empty":                  "",
	"blank only":             "\n \n",
}

const countRec = `{"input": "q", "output": "a\nb {", "atoms": [{"id": "a0", "text": "x ] } é \" ["}]}`

// countKeeps are the predicates the tests count with.
var countKeeps = map[string]func(int) bool{
	"all":           nil,
	"odd lines":     func(l int) bool { return l%2 == 1 },
	"line%3 == 2":   func(l int) bool { return l%3 == 2 },
	"lines over 25": func(l int) bool { return l > 25 },
}

// recordLines are the lines of the records a Reader gives for in, valid or
// not: the reference the counts are checked against.
func recordLines(t *testing.T, in string) []int {
	t.Helper()
	r := NewReader(strings.NewReader(in), "in")
	r.MaxLineBytes = 200
	var lines []int
	for {
		raw, err := r.NextRaw()
		if err == io.EOF {
			return lines
		}
		var ie *Error
		switch {
		case err == nil:
			lines = append(lines, raw.Line)
		case errors.As(err, &ie) && Skippable(err):
			lines = append(lines, ie.Line)
		default:
			return lines // the end of the input
		}
	}
}

func kept(lines []int, keep func(int) bool) int {
	n := 0
	for _, l := range lines {
		if keep == nil || keep(l) {
			n++
		}
	}
	return n
}

// TestCountRecords: the records the pass that decides the layout counts
// are those the Reader gives, valid or not, that start on a line the
// predicate keeps, in every layout, whether the input is a file read in
// place, a stream held in memory, or a file read on several cores.
func TestCountRecords(t *testing.T) {
	for name, in := range countInputs {
		want := recordLines(t, in)
		for kname, keep := range countKeeps {
			// In place, and held as a stream is.
			for _, how := range []string{"in place", "stream"} {
				var src io.Reader = strings.NewReader(in)
				if how == "stream" {
					src = io.MultiReader(src) // no Seek: held in memory
				}
				r := NewReader(src, "in")
				r.MaxLineBytes = 200
				r.CountRecords(keep)
				r.NextRaw()
				n, ok := r.Records()
				if !ok || n != kept(want, keep) {
					t.Errorf("%s, %s, %s: counted %d (%v), the reader gives %d (lines %v)", name, how, kname, n, ok, kept(want, keep), want)
				}
			}
			// The count of the layout's pass in one go (scanLayout) and on
			// several cores: jsonl only, where the parts say so.
			l, err := scanLayout(strings.NewReader(in), 200, &counting{keep: keep, maxLine: 200})
			if err != nil {
				t.Fatal(err)
			}
			if l.mode(DefaultMaxDocumentBytes) != modeLines {
				continue
			}
			for parts := int64(1); parts <= 7; parts++ {
				prefix := "xyz" // an offset: the input starts after it
				r := bytes.NewReader([]byte(prefix + in))
				ok, n := jsonlParts(r, int64(len(prefix)), int64(len(in)), parts, &counting{keep: keep, maxLine: 200})
				if ok && n != kept(want, keep) {
					t.Errorf("%s, %s, %d parts: counted %d, the reader gives %d", name, kname, parts, n, kept(want, keep))
				}
			}
			// The pass of its own of a file too large for a layout.
			got, err := countLines(strings.NewReader(in), 0, int64(len(in)), counting{keep: keep, maxLine: 200})
			if err != nil || got != kept(want, keep) {
				t.Errorf("%s, %s: countLines %d (%v), the reader gives %d", name, kname, got, err, kept(want, keep))
			}
		}
	}
}

// TestLineCounterChunks: where the chunks end (inside a rune, between CR
// and LF, inside a long line) does not change the count.
func TestLineCounterChunks(t *testing.T) {
	for name, in := range countInputs {
		whole := newLineCounter(counting{maxLine: 200}, 0)
		whole.feed([]byte(in))
		whole.end()
		for size := 1; size <= 9; size++ {
			c := newLineCounter(counting{maxLine: 200}, 0)
			for b := []byte(in); len(b) > 0; {
				k := min(size, len(b))
				c.feed(b[:k])
				b = b[k:]
			}
			c.end()
			if c.n != whole.n || c.line != whole.line {
				t.Errorf("%s, chunks of %d: %d records of %d lines; whole, %d of %d", name, size, c.n, c.line, whole.n, whole.line)
			}
		}
	}
}

// TestScanRawWithCounted: ScanRawWith tells the count before the first
// record; a file larger than a document may be is counted by a pass of
// its own beside the scan, which tells the count from its goroutine
// before ScanRawWith returns (or not at all when the scan ends first).
func TestScanRawWithCounted(t *testing.T) {
	dir := t.TempDir()
	in := strings.Repeat(countRec+"\n\n", 30)
	path := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	odd := func(l int) bool { return l%4 == 1 } // the records are on lines 1, 3, 5...
	counted, seen := -1, 0
	err := ScanRawWith(context.Background(), path, ScanOptions{Keep: odd, Counted: func(n int) {
		if seen > 0 {
			t.Errorf("counted after %d records", seen)
		}
		counted = n
	}}, func(Raw) error { seen++; return nil })
	if err != nil || counted != 15 || seen != 30 {
		t.Errorf("counted %d of %d records (%v), want 15 of 30", counted, seen, err)
	}

	// Too large for a document (of 100 bytes here): counted beside the
	// scan. The first record waits for the count, so that the scan
	// cannot end before it.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := make(chan int, 1)
	seen = 0
	err = scanFile(context.Background(), f, path, 100, ScanOptions{Keep: odd, Counted: func(n int) { done <- n }}, func(Raw) error {
		if seen++; seen == 1 {
			select {
			case n := <-done:
				counted = n
			case <-time.After(time.Minute):
				t.Fatal("no count beside the scan")
			}
		}
		return nil
	})
	if err != nil || counted != 15 || seen != 30 {
		t.Errorf("counted %d of %d records beside the scan (%v), want 15 of 30", counted, seen, err)
	}
}

// BenchmarkLayoutCount measures what counting the records adds to the
// pass that decides the layout of 16 MiB of jsonl, on every core
// (jsonlParts) and in one pass (scanLayout): none, every record, the
// records of one shard of 4 (the lines are numbered first).
func BenchmarkLayoutCount(b *testing.B) {
	data := exampleJSONL(b)
	shard := func(l int) bool { return l%4 == 1 }
	for _, c := range []struct {
		name string
		cnt  *counting
	}{{"none", nil}, {"all", &counting{maxLine: DefaultMaxLineBytes}}, {"shard", &counting{keep: shard, maxLine: DefaultMaxLineBytes}}} {
		b.Run("parallel/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if ok, _ := parallelJSONL(bytes.NewReader(data), 0, int64(len(data)), runtime.GOMAXPROCS(0), c.cnt); !ok {
					b.Fatal("not jsonl")
				}
			}
		})
		b.Run("one-pass/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := scanLayout(bytes.NewReader(data), DefaultMaxLineBytes, c.cnt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
