package jsonl

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLineReader: the lines given back are those of the input, line
// breaks included, however the input arrives (whole, in halves, a byte at
// a time) and wherever the blocks end; a line longer than the limit is
// reported as too long and the next one read whole; a read error is
// returned as it is.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", lineBlock/3*2) // lines that cross blocks
	inputs := map[string]string{
		"short lines":           "a\nbb\n\nccc\n",
		"no final line break":   "a\nbb",
		"empty":                 "",
		"one line break":        "\n",
		"crossing blocks":       strings.Repeat(long+"\n", 5) + "end",
		"longer than a block":   "a\n" + strings.Repeat("y", 3*lineBlock) + "\nb\n",
		"too long, last":        "a\n" + strings.Repeat("z", 3*lineBlock),
		"too long, then a line": strings.Repeat("z", lineBlock+5) + "\nshort\n" + long + "\n",
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole":  func(r io.Reader) io.Reader { return r },
		"halves": iotest.HalfReader,
		"bytes":  iotest.OneByteReader,
	}
	for name, in := range inputs {
		for rname, wrap := range readers {
			if rname == "bytes" && len(in) > 1<<16 {
				continue
			}
			for _, limit := range []int{len(long) + 1, 1 << 30} {
				var want []string
				wantLong := 0
				for _, l := range strings.SplitAfter(in, "\n") {
					switch {
					case l == "":
					case len(l) > limit:
						want = append(want, "TOO LONG")
						wantLong++
					default:
						want = append(want, l)
					}
				}
				r := NewLineReader(wrap(strings.NewReader(in)), limit)
				var got []string
				gotLong := 0
				for {
					line, tooLong, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s, %s: %v", name, rname, err)
					}
					if tooLong {
						gotLong++
						got = append(got, "TOO LONG")
						continue
					}
					got = append(got, string(line))
				}
				if strings.Join(got, "|") != strings.Join(want, "|") || gotLong != wantLong {
					t.Errorf("%s, %s, limit %d: %d lines (%d too long), want %d (%d)", name, rname, limit, len(got), gotLong, len(want), wantLong)
				}
			}
		}
	}

	// A line given back is not changed by what comes after it, a long
	// line skipped included.
	r := NewLineReader(strings.NewReader("first\n"+strings.Repeat("w", 3*lineBlock)+"\nsecond\n"), lineBlock)
	first, _, _ := r.Next()
	_ = append(first, "overwritten"...)
	if _, tooLong, _ := r.Next(); !tooLong {
		t.Error("the long line was not too long")
	}
	second, _, _ := r.Next()
	if string(first) != "first\n" || string(second) != "second\n" {
		t.Errorf("lines %q, %q", first, second)
	}

	boom := errors.New("boom")
	r = NewLineReader(io.MultiReader(strings.NewReader("a\npartial"), iotest.ErrReader(boom)), 100)
	if l, _, err := r.Next(); string(l) != "a\n" || err != nil {
		t.Errorf("first line %q, %v", l, err)
	}
	if _, _, err := r.Next(); !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
}

// endless is an input of one line that never ends, counting what was
// read of it.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.read += len(p)
	return len(p), nil
}

// TestLineReaderTooLongAtOnce: a line over the limit is reported once
// the limit is passed, having read no more than a block beyond it and
// held no more than twice the limit: an endless line (a device, a pipe of
// zeros) is an answer, not a wait.
func TestLineReaderTooLongAtOnce(t *testing.T) {
	for _, limit := range []int{100, lineBlock, 8 * lineBlock} {
		src := &endless{}
		r := NewLineReader(src, limit)
		_, tooLong, err := r.Next()
		if err != nil || !tooLong {
			t.Fatalf("limit %d: tooLong %v, error %v", limit, tooLong, err)
		}
		if src.read > limit+1 || cap(r.block) > max(lineBlock, limit+1) {
			t.Errorf("limit %d: read %d bytes, holds %d, to tell the line is too long", limit, src.read, cap(r.block))
		}
	}
}
