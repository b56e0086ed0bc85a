package instance

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLineSplitter: the lines given back are those of the input, line
// breaks included, however the input arrives (whole, in halves, a byte at
// a time) and wherever the blocks end; a line longer than the limit is
// reported as too long and the next one read whole; a read error is
// returned as it is.
func TestLineSplitter(t *testing.T) {
	long := strings.Repeat("x", lineBlock/3*2) // lines that cross blocks
	inputs := map[string]string{
		"short lines":         "a\nbb\n\nccc\n",
		"no final line break": "a\nbb",
		"empty":               "",
		"one line break":      "\n",
		"crossing blocks":     strings.Repeat(long+"\n", 5) + "end",
		"longer than a block": "a\n" + strings.Repeat("y", 3*lineBlock) + "\nb\n",
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
						wantLong++
					default:
						want = append(want, l)
					}
				}
				s := &lineSplitter{src: wrap(strings.NewReader(in))}
				var got []string
				gotLong := 0
				for {
					line, tooLong, err := s.next(limit)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s, %s: %v", name, rname, err)
					}
					if tooLong {
						gotLong++
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

	// A line given back is not changed by what comes after it.
	s := &lineSplitter{src: strings.NewReader("first\nsecond\n")}
	first, _, _ := s.next(100)
	_ = append(first, "overwritten"...)
	second, _, _ := s.next(100)
	if string(first) != "first\n" || string(second) != "second\n" {
		t.Errorf("lines %q, %q", first, second)
	}

	boom := errors.New("boom")
	s = &lineSplitter{src: io.MultiReader(strings.NewReader("a\npartial"), iotest.ErrReader(boom))}
	if l, _, err := s.next(100); string(l) != "a\n" || err != nil {
		t.Errorf("first line %q, %v", l, err)
	}
	if _, _, err := s.next(100); !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
}
