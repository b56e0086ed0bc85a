package instance

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzNonFiniteQuoter: the streaming quoter writes what quoteNonFinite
// writes, however its input is cut into reads.
func FuzzNonFiniteQuoter(f *testing.F) {
	for _, s := range []string{`{"p": NaN, "q": -Infinity, "s": "NaN \" Infinity"}`, "[Infinity,-1,-Inf", "N", "-", `"\\"NaN`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data)), iotest.HalfReader(bytes.NewReader(data))} {
			got, err := io.ReadAll(&nonFiniteQuoter{r: r})
			if err != nil {
				t.Fatal(err)
			}
			if want := quoteNonFinite(data); !bytes.Equal(got, want) {
				t.Fatalf("quoted %q as %q, want %q", data, got, want)
			}
		}
	})
}

// FuzzLineIndex: the line of every offset is the count of newlines before
// it, as far back as the last release.
func FuzzLineIndex(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc\n"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		l := &lineIndex{r: iotest.HalfReader(bytes.NewReader(data)), limit: 1 << 20}
		buf := make([]byte, 1+int(step)%7)
		var off int64
		for {
			n, err := l.Read(buf)
			for i := off; i < l.total; i++ {
				if got, want := l.line(i), 1+bytes.Count(data[:i], []byte{'\n'}); got != want {
					t.Fatalf("line(%d) = %d, want %d", i, got, want)
				}
			}
			off = l.total
			if step%3 == 0 {
				l.release(l.total - int64(n)/2)
				off = l.from
			}
			if err != nil {
				break
			}
		}
	})
}

// TestDocumentStream: a pretty-printed file is read one record at a time:
// a record that fails validation is reported and the next ones read, a
// record over MaxLineBytes is an error naming its line, and records of an
// array are read as they come.
func TestDocumentStream(t *testing.T) {
	rec := func(output string) string {
		return "{\n  \"input\": \"Q\",\n  \"output\": \"" + output + "\"\n}\n"
	}
	in := rec("R1") + rec("") + rec("R3")
	ins, errs := readAll(t, in)
	if len(ins) != 2 || ins[1].Output != "R3" || ins[1].Line != 9 || len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "f.jsonl:7: output") {
		t.Errorf("records %d, errors %v", len(ins), errs)
	}
	long := rec("R1") + rec(strings.Repeat("x", 5000)) + rec("R3")
	r := NewReader(strings.NewReader(long), "f.json")
	r.MaxLineBytes = 1000
	var got []string
	for {
		in, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			got = append(got, err.Error())
			continue
		}
		got = append(got, in.Output)
	}
	if len(got) != 2 || got[0] != "R1" || !strings.HasPrefix(got[1], "f.json:5: a record is longer than 1000 bytes") {
		t.Errorf("got %q", got)
	}
	arr := "[\n" + strings.TrimSuffix(rec("A"), "\n") + ",\n" + strings.TrimSuffix(rec("B"), "\n") + "\n]\n"
	ins, errs = readAll(t, arr)
	if len(ins) != 2 || ins[0].Line != 2 || ins[1].Line != 6 || errs != nil {
		t.Errorf("array: %d records, lines %v, errors %v", len(ins), []int{ins[0].Line}, errs)
	}
}
