package instance

import (
	"bytes"
	"io"
	"sync"
	"unicode/utf8"
)

// The records of an input are counted by the pass that decides its layout
// (Reader.CountRecords), which reads the whole input before the first
// record anyway: a run that shows how far it has come needs no pass of its
// own over the input, which would read it a second time (and, to count
// the valid records, decode them all twice).

// counting is what a Reader is asked to count: the records that start on a
// line for which keep reports true (every record when keep is nil); a
// jsonl line longer than maxLine is one (an invalid record).
type counting struct {
	keep    func(line int) bool
	maxLine int
}

// counts are the records a pass over an input found in each layout: the
// lines a Reader in jsonl mode takes for records, and the values it takes
// for records in document mode.
type counts struct {
	lines, values int
}

// of is the count of the mode the input is read in.
func (c counts) of(mode int) int {
	if mode == modeDocument {
		return c.values
	}
	return c.lines
}

// lineCounter counts, in text fed to it in chunks, the lines a Reader in
// jsonl mode returns as records or reports as invalid ones: those that
// are not blank (bytes.TrimSpace leaves something: Unicode spaces are
// blank), and those longer than the limit, numbered as the Reader numbers
// them (from 1, blank lines included) and kept by the counting's keep.
type lineCounter struct {
	counting
	line  int  // lines ended so far
	size  int  // bytes of the current line so far
	blank bool // the current line is blank so far
	// part holds the start of a rune that the chunk cut, while the line
	// is blank so far.
	part []byte
	n    int
}

func newLineCounter(c counting, base int) *lineCounter {
	return &lineCounter{counting: c, line: base, blank: true}
}

// feed counts the lines of a chunk (a line may go on in the next).
func (c *lineCounter) feed(p []byte) {
	for len(p) > 0 {
		if !c.blank || c.size > c.maxLine {
			// The line counts whatever follows: only its end matters.
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				c.size += len(p)
				return
			}
			c.size += i + 1
			p = p[i+1:]
			c.endLine()
			continue
		}
		b := p[0]
		switch {
		case b == '\n':
			c.size++
			p = p[1:]
			c.endLine()
			continue
		case b < utf8.RuneSelf && len(c.part) == 0:
			c.size++
			p = p[1:]
			c.blank = asciiSpace(b)
			continue
		}
		// A rune of several bytes (or a broken one), perhaps cut by the
		// end of the chunk.
		r := append(c.part, p[:min(len(p), utf8.UTFMax-len(c.part))]...)
		if !utf8.FullRune(r) {
			c.part = r
			c.size += len(p)
			return
		}
		_, n := utf8.DecodeRune(r)
		// Of its bytes, those in p: none when the held ones were broken
		// (blank is then false, and the rest of p is looked at as the
		// line's).
		k := max(n-len(c.part), 0)
		c.part = c.part[:0]
		c.size += k
		p = p[k:]
		// Blank as bytes.TrimSpace, which the Reader asks, has it.
		c.blank = len(bytes.TrimSpace(r[:n])) == 0
	}
}

func asciiSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r'
}

// endLine counts the line that has just ended.
func (c *lineCounter) endLine() {
	c.line++
	if (!c.blank || len(c.part) > 0 || c.size > c.maxLine) && (c.keep == nil || c.keep(c.line)) {
		c.n++
	}
	c.size, c.blank, c.part = 0, true, c.part[:0]
}

// end counts a last line that has no line break.
func (c *lineCounter) end() {
	if c.size > 0 {
		c.endLine()
	}
}

// countLines counts the record lines of the n bytes of r from off in one
// pass of its own: the count of an input too large for its layout to be
// scanned (jsonl, then). It stops with the first error of reading.
func countLines(r io.ReaderAt, off, n int64, c counting) (int, error) {
	lc := newLineCounter(c, 0)
	buf := make([]byte, 256<<10)
	for pos := int64(0); pos < n; {
		k, err := r.ReadAt(buf[:min(int64(len(buf)), n-pos)], off+pos)
		chunk := buf[:k]
		if pos == 0 {
			chunk = lc.trimBOM(chunk)
		}
		lc.feed(chunk)
		pos += int64(k)
		if err != nil && pos < n {
			return 0, err
		}
	}
	lc.end()
	return lc.n, nil
}

// trimBOM removes a byte order mark from the start of the input, which the
// Reader removes from the first line, and counts it in the line's size,
// as the Reader's limit does.
func (c *lineCounter) trimBOM(chunk []byte) []byte {
	if bytes.HasPrefix(chunk, bom) {
		c.size += len(bom)
		return chunk[len(bom):]
	}
	return chunk
}

// lineBreaks counts the line breaks of the bytes [start, end) of r from
// off.
func lineBreaks(r io.ReaderAt, off, start, end int64) int {
	buf := make([]byte, 256<<10)
	n := 0
	for pos := start; pos < end; {
		k, err := r.ReadAt(buf[:min(int64(len(buf)), end-pos)], off+pos)
		n += bytes.Count(buf[:k], []byte{'\n'})
		pos += int64(k)
		if err != nil {
			break
		}
	}
	return n
}

// bases are the lines before each of the ranges that start at starts
// (the last entry is the input's end): the first line of range i is
// bases[i]+1. The ranges are counted at once.
func bases(r io.ReaderAt, off int64, starts []int64) []int {
	breaks := make([]int, len(starts)-1)
	var wg sync.WaitGroup
	for i := range breaks {
		wg.Go(func() { breaks[i] = lineBreaks(r, off, starts[i], starts[i+1]) })
	}
	wg.Wait()
	out := make([]int, len(breaks))
	for i := 1; i < len(out); i++ {
		out[i] = out[i-1] + breaks[i-1]
	}
	return out
}
