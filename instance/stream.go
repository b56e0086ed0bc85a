package instance

import (
	"bytes"
	"errors"
	"io"
)

// errRecordTooLong stops the decoder of a pretty-printed file at a record
// longer than the reader's MaxLineBytes.
var errRecordTooLong = errors.New("record too long")

// lineIndex passes a stream through, remembering what it needs to tell
// the line of an offset from the record being read on (release): the
// chunks read since, and the lines before them. Reading more than limit
// bytes past that point is errRecordTooLong, so that one record cannot
// take more.
type lineIndex struct {
	r      io.Reader
	limit  int64
	total  int64   // bytes read
	from   int64   // the offset of the record being read
	chunks []chunk // read since from (the first may start before it)
	lines  int     // newlines before chunks[0]
}

type chunk struct {
	off  int64
	data []byte
}

func (l *lineIndex) Read(p []byte) (int, error) {
	if l.total-l.from > l.limit {
		return 0, errRecordTooLong
	}
	n, err := l.r.Read(p)
	if n > 0 {
		l.chunks = append(l.chunks, chunk{off: l.total, data: bytes.Clone(p[:n])})
		l.total += int64(n)
	}
	return n, err
}

// release forgets what lies before offset off: lines are asked for at off
// or after it from now on.
func (l *lineIndex) release(off int64) {
	l.from = off
	i := 0
	for i < len(l.chunks) && l.chunks[i].off+int64(len(l.chunks[i].data)) <= off {
		l.lines += bytes.Count(l.chunks[i].data, []byte{'\n'})
		i++
	}
	l.chunks = append(l.chunks[:0], l.chunks[i:]...)
}

// line is the 1-based line of offset off (at or after the last release).
func (l *lineIndex) line(off int64) int {
	n := l.lines
	for _, c := range l.chunks {
		if off < c.off {
			break
		}
		end := min(off-c.off, int64(len(c.data)))
		n += bytes.Count(c.data[:end], []byte{'\n'})
	}
	return 1 + n
}

// nonFiniteQuoter is quoteNonFinite on a stream: NaN, Infinity and
// -Infinity outside strings come out quoted.
type nonFiniteQuoter struct {
	r                 io.Reader
	buf               []byte // for reading
	in, out           []byte // read and not yet looked at; looked at and not yet returned
	eof               bool
	inString, escaped bool
}

var nonFinite = [][]byte{[]byte("-Infinity"), []byte("Infinity"), []byte("NaN")}

func (q *nonFiniteQuoter) Read(p []byte) (int, error) {
	for len(q.out) == 0 {
		if q.eof && len(q.in) == 0 {
			return 0, io.EOF
		}
		if !q.eof {
			if q.buf == nil {
				q.buf = make([]byte, 32<<10)
			}
			n, err := q.r.Read(q.buf)
			q.in = append(q.in, q.buf[:n]...)
			if err == io.EOF {
				q.eof = true
			} else if err != nil {
				return 0, err
			}
		}
		q.process()
	}
	n := copy(p, q.out)
	q.out = q.out[n:]
	if len(q.out) == 0 {
		q.out = q.out[:0:0] // let the backing array go once returned
	}
	return n, nil
}

// process moves what it can of in to out, quoting the words; a possible
// word cut at the end of in waits for more input.
func (q *nonFiniteQuoter) process() {
	i := 0
scan:
	for i < len(q.in) {
		c := q.in[i]
		switch {
		case q.inString:
			switch {
			case q.escaped:
				q.escaped = false
			case c == '\\':
				q.escaped = true
			case c == '"':
				q.inString = false
			}
		case c == '"':
			q.inString = true
		case c == 'N' || c == 'I' || c == '-':
			rest := q.in[i:]
			for _, w := range nonFinite {
				if bytes.HasPrefix(rest, w) {
					q.out = append(q.out, '"')
					q.out = append(q.out, w...)
					q.out = append(q.out, '"')
					i += len(w)
					continue scan
				}
				if !q.eof && len(rest) < len(w) && bytes.HasPrefix(w, rest) {
					break scan // maybe a word: wait for the rest
				}
			}
		}
		q.out = append(q.out, c)
		i++
	}
	q.in = append(q.in[:0], q.in[i:]...)
}
