package jsonl

import (
	"bytes"
	"io"
)

// MaxLineBytes is the longest line the readers of this project's JSON
// lines hold (a record of an input file, a line of an output file, a
// document of a knowledge base): a longer one is reported as too long
// once this many of its bytes have been read, and skipped without being
// held.
const MaxLineBytes = 64 << 20

// MaxOutputLineBytes is the longest output line of fr score the readers of
// output files hold: a record of up to MaxLineBytes, with the relations
// found for it (up to a million) and its marginals.
const MaxOutputLineBytes = 256 << 20

// LineReader splits its input into lines of at most Limit bytes, line
// breaks included. A line is a slice of a block the reader reads into,
// copied once from the input; a block stays in memory as long as a line
// of it does, and is never written again once a line of it is given out,
// so that lines stay valid after the next call. A line longer than Limit
// is reported as soon as Limit of its bytes are read without a line
// break, and the rest of it is read past, a buffer at a time and not
// held, by the next call: a line of gigabytes costs what Limit does, and
// the caller that stops at it does not wait for its end.
type LineReader struct {
	src   io.Reader
	limit int
	block []byte // block[pos:] is read and not yet returned; block[len:cap] is free
	pos   int
	// scanned: block[pos:scanned] holds no line break.
	scanned int
	err     error // of the last read
	// skipping: the line at pos was too long; its rest is dropped next.
	skipping bool
	scratch  []byte // what a too-long line is read past with
}

// lineBlock is the size of a block, unless a line needs more.
const lineBlock = 1 << 20

// NewLineReader returns a reader of the lines of r of at most limit bytes
// (MaxLineBytes when limit ≤ 0).
func NewLineReader(r io.Reader, limit int) *LineReader {
	if limit <= 0 {
		limit = MaxLineBytes
	}
	return &LineReader{src: r, limit: limit}
}

// Next returns the next line, with its line break when it has one. A line
// longer than the limit gives tooLong and no bytes. At the end it returns
// io.EOF, or the error of reading (after the lines before it).
func (l *LineReader) Next() (line []byte, tooLong bool, err error) {
	if l.skipping {
		if err := l.skip(); err != nil {
			return nil, false, err
		}
	}
	for {
		if i := bytes.IndexByte(l.block[l.scanned:], '\n'); i >= 0 {
			end := l.scanned + i + 1
			line = l.block[l.pos:end:end]
			l.pos, l.scanned = end, end
			if len(line) > l.limit {
				return nil, true, nil
			}
			return line, false, nil
		}
		l.scanned = len(l.block)
		if len(l.block)-l.pos > l.limit {
			// Too long already: say so now, and drop the rest next time.
			l.pos = len(l.block)
			l.skipping = l.err == nil
			return nil, true, nil
		}
		if l.err != nil {
			line = l.block[l.pos:len(l.block):len(l.block)]
			l.pos = len(l.block)
			switch {
			case l.err != io.EOF:
				return nil, false, l.err
			case len(line) > 0:
				return line, false, nil
			}
			return nil, false, io.EOF
		}
		if len(l.block) == cap(l.block) {
			// Full: the rest of the line starts a new block, room for
			// four times what it holds (a long line is copied a few
			// times, and leaves little garbage behind), and no more
			// than the limit needs.
			rest := len(l.block) - l.pos
			nb := make([]byte, rest, max(lineBlock, min(4*rest, l.limit+1)))
			copy(nb, l.block[l.pos:])
			l.block, l.pos, l.scanned = nb, 0, rest
		}
		// No more than the limit needs: past it, the line is too long.
		n, err := l.src.Read(l.block[len(l.block):min(cap(l.block), l.pos+l.limit+1)])
		l.block = l.block[:len(l.block)+n]
		l.err = err
	}
}

// skip reads past the rest of a line too long, up to its line break,
// through a buffer of its own: the blocks may hold lines given out. What
// follows the line break starts a new block.
func (l *LineReader) skip() error {
	l.skipping = false
	if l.scratch == nil {
		l.scratch = make([]byte, 256<<10)
	}
	for {
		n, err := l.src.Read(l.scratch)
		if i := bytes.IndexByte(l.scratch[:n], '\n'); i >= 0 {
			rest := l.scratch[i+1 : n]
			l.block = append(make([]byte, 0, max(lineBlock, len(rest))), rest...)
			l.pos, l.scanned, l.err = 0, 0, err
			return nil
		}
		if err != nil {
			l.block, l.pos, l.scanned, l.err = nil, 0, 0, err
			if err == io.EOF {
				return io.EOF
			}
			return err
		}
	}
}
