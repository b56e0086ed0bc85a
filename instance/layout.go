package instance

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"sync"
)

// layout is what a pass over a whole input says about its lines and its
// JSON.
type layout struct {
	// valid: the input is a sequence of JSON values (NaN, Infinity and
	// -Infinity allowed, as Python writes them), whitespace between.
	valid bool
	// multiLine: a value spans lines (pretty-printed JSON); array: the
	// first value is an array (of records, on one line or many).
	multiLine, array bool
	// objectLine: a line that starts with '{' is a whole JSON object by
	// itself (a jsonl record, well-formed). Indented lines do not count:
	// a pretty-printed file may hold whole objects on inner lines.
	objectLine bool
	size       int64 // bytes read
	// records are the records counted in each mode, when the pass was
	// asked to count them.
	records counts
}

// mode is the reading the layout calls for.
func (l layout) mode(maxDocument int) int {
	switch {
	case !l.valid && l.objectLine:
		// Broken lines among records: read line by line, each broken
		// line an invalid record, whatever lines come first.
		return modeLines
	case !l.valid:
		// Neither jsonl nor JSON: read as JSON up to the error, which
		// says both.
		return modeDocument
	case l.multiLine && l.size > int64(maxDocument) && l.objectLine:
		return modeLines // too large for a document: its records are lines
	case l.multiLine || l.array:
		return modeDocument
	}
	// One value per line, each an object: jsonl (read as a document, it
	// would give the same records).
	return modeLines
}

// scanLayout reads r to its end and says what it holds; with cnt, it
// counts the records too, as a Reader finds them in either mode.
func scanLayout(r io.Reader, maxLine int, cnt *counting) (layout, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var (
		s     jsonScanner
		l     layout
		line  []byte // the current line, while it may be an object line
		keep  = true // the current line is still kept in line
		first = true
		lc    *lineCounter
		at    = 1 // the line the chunk read is on
	)
	s.reset()
	if cnt != nil {
		lc = newLineCounter(*cnt, 0)
		s.onRecord = func() {
			if cnt.keep == nil || cnt.keep(at) {
				l.records.values++
			}
		}
	}
	endLine := func() {
		if !l.objectLine && keep && len(line) > 0 && line[0] == '{' && isObject(line) {
			l.objectLine = true
		}
		line, keep = line[:0], true
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if first {
			if lc != nil {
				chunk = lc.trimBOM(chunk)
			} else {
				chunk = bytes.TrimPrefix(chunk, bom)
			}
			first = false
		}
		l.size += int64(len(chunk))
		if s.ok {
			if s.feed(chunk) {
				l.multiLine = true
			}
			l.array = l.array || s.topArray
		}
		if lc != nil {
			lc.feed(chunk)
		}
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			at++
		}
		if !l.objectLine && keep {
			if len(line)+len(chunk) > maxLine {
				keep = false
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			endLine()
		case errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			endLine()
			l.valid = s.end()
			if lc != nil {
				lc.end()
				l.records.lines = lc.n
			}
			return l, nil
		default:
			return l, err
		}
		if !s.ok && l.objectLine && lc == nil {
			return l, nil // jsonl with broken lines: the rest cannot change it (but for its count)
		}
	}
}

// jsonScanner checks JSON text one byte at a time, as encoding/json's
// scanner does, without holding it: a sequence of values, with Python's
// NaN, Infinity and -Infinity allowed as numbers.
type jsonScanner struct {
	ok       bool
	state    scanState
	stack    []byte // open containers: 'k' object before a key, 'v' object before a value, 'a' array
	lit      string // the literal being matched
	pos      int    // bytes of lit matched
	hex      int    // hex digits left of a \u escape
	topArray bool   // the first value is an array
	values   int    // top-level values begun
	// onRecord, when set, is called as each value that a Reader in
	// document mode takes for a record begins: a top-level value other
	// than an array, or an element of a top-level array.
	onRecord func()
}

type scanState uint8

const (
	beginValue scanState = iota
	beginValueOrEnd
	beginKeyOrEnd
	beginKey
	colon
	afterObjectValue
	afterArrayValue
	inString
	escape
	unicode
	literal
	// Numbers, as JSON's grammar has them: after '-', '0', more digits,
	// '.', fraction digits, 'e', the exponent's sign, its digits.
	neg
	zero
	integer
	dot
	fraction
	exponent
	expSign
	expDigits
)

func (s *jsonScanner) reset() {
	s.ok, s.state, s.stack, s.topArray, s.values = true, beginValue, s.stack[:0], false, 0
}

// end reports whether the text fed is a whole sequence of values.
func (s *jsonScanner) end() bool {
	switch s.state {
	case zero, integer, fraction, expDigits:
		s.endValue()
	}
	return s.ok && len(s.stack) == 0 && s.state == beginValue
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// endValue moves on after a value (a key is a value here too).
func (s *jsonScanner) endValue() {
	if len(s.stack) == 0 {
		s.state = beginValue
		return
	}
	switch s.stack[len(s.stack)-1] {
	case 'k':
		s.state = colon
	case 'v':
		s.state = afterObjectValue
	default:
		s.state = afterArrayValue
	}
}

// pop closes the innermost container.
func (s *jsonScanner) pop() {
	s.stack = s.stack[:len(s.stack)-1]
	s.endValue()
}

// feed feeds a chunk of text and reports whether a line ended inside a
// value. The bytes of a string, most of a record, are skipped in bulk.
func (s *jsonScanner) feed(chunk []byte) (lineInValue bool) {
	for i := 0; i < len(chunk) && s.ok; i++ {
		if s.state == inString {
			j := i
			for j < len(chunk) && chunk[j] != '"' && chunk[j] != '\\' && chunk[j] >= 0x20 {
				j++
			}
			if i = j; i == len(chunk) {
				break
			}
		}
		c := chunk[i]
		if !s.step(c) {
			break
		}
		if c == '\n' && len(s.stack) > 0 {
			lineInValue = true
		}
	}
	return lineInValue
}

// step feeds one byte; false (and ok false from then on) when the text
// cannot be JSON.
func (s *jsonScanner) step(c byte) bool {
	if s.ok && !s.next(c) {
		s.ok = false
	}
	return s.ok
}

func (s *jsonScanner) next(c byte) bool {
	switch s.state {
	case beginValueOrEnd:
		if c == ']' {
			s.pop()
			return true
		}
		return s.value(c)
	case beginValue:
		return s.value(c)
	case beginKeyOrEnd:
		if c == '}' {
			s.pop()
			return true
		}
		fallthrough
	case beginKey:
		switch {
		case isSpace(c):
		case c == '"':
			s.state = inString
		default:
			return false
		}
	case colon:
		switch {
		case isSpace(c):
		case c == ':':
			s.stack[len(s.stack)-1] = 'v'
			s.state = beginValue
		default:
			return false
		}
	case afterObjectValue, afterArrayValue:
		closer := byte('}')
		if s.state == afterArrayValue {
			closer = ']'
		}
		switch {
		case isSpace(c):
		case c == ',' && s.state == afterObjectValue:
			s.stack[len(s.stack)-1] = 'k'
			s.state = beginKey
		case c == ',':
			s.state = beginValue
		case c == closer:
			s.pop()
		default:
			return false
		}
	case inString:
		switch {
		case c == '"':
			s.endValue()
		case c == '\\':
			s.state = escape
		case c < 0x20:
			return false
		}
	case escape:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			s.state = inString
		case 'u':
			s.hex, s.state = 4, unicode
		default:
			return false
		}
	case unicode:
		if !isDigit(c) && !('a' <= c && c <= 'f') && !('A' <= c && c <= 'F') {
			return false
		}
		if s.hex--; s.hex == 0 {
			s.state = inString
		}
	case literal:
		if c != s.lit[s.pos] {
			return false
		}
		if s.pos++; s.pos == len(s.lit) {
			s.endValue()
		}
	case neg:
		switch {
		case c == '0':
			s.state = zero
		case isDigit(c):
			s.state = integer
		case c == 'I':
			s.lit, s.pos, s.state = "Infinity", 1, literal
		default:
			return false
		}
	case integer, zero:
		switch {
		case isDigit(c) && s.state == integer:
		case c == '.':
			s.state = dot
		case c == 'e' || c == 'E':
			s.state = exponent
		default:
			return s.after(c)
		}
	case dot:
		if !isDigit(c) {
			return false
		}
		s.state = fraction
	case fraction:
		switch {
		case isDigit(c):
		case c == 'e' || c == 'E':
			s.state = exponent
		default:
			return s.after(c)
		}
	case exponent:
		switch {
		case c == '+' || c == '-':
			s.state = expSign
		case isDigit(c):
			s.state = expDigits
		default:
			return false
		}
	case expSign:
		if !isDigit(c) {
			return false
		}
		s.state = expDigits
	case expDigits:
		if !isDigit(c) {
			return s.after(c)
		}
	}
	return true
}

// after ends a number at c, which cannot continue it, and reads c as what
// follows the value.
func (s *jsonScanner) after(c byte) bool {
	s.endValue()
	return s.next(c)
}

// value reads the first byte of a value.
func (s *jsonScanner) value(c byte) bool {
	if len(s.stack) == 0 && !isSpace(c) {
		s.topArray = s.topArray || (c == '[' && s.values == 0)
		s.values++
	}
	if s.onRecord != nil && !isSpace(c) && (len(s.stack) == 0 && c != '[' || len(s.stack) == 1 && s.stack[0] == 'a') {
		s.onRecord()
	}
	switch {
	case isSpace(c):
	case c == '{':
		s.stack = append(s.stack, 'k')
		s.state = beginKeyOrEnd
	case c == '[':
		s.stack = append(s.stack, 'a')
		s.state = beginValueOrEnd
	case c == '"':
		s.state = inString
	case c == '-':
		s.state = neg
	case c == '0':
		s.state = zero
	case isDigit(c):
		s.state = integer
	case c == 't' || c == 'f' || c == 'n' || c == 'N' || c == 'I':
		s.lit, s.pos, s.state = literals[c], 1, literal
	default:
		return false
	}
	return true
}

// literals are the words a value may be, by their first byte.
var literals = [256]string{'t': "true", 'f': "false", 'n': "null", 'N': "NaN", 'I': "Infinity"}

// parallelLayoutMin is the smallest input whose layout parallelJSONL
// checks on several cores; a smaller one is scanned in one pass, which
// takes a few milliseconds.
const parallelLayoutMin = 8 << 20

// parallelJSONL reports whether the n bytes of r from off are jsonl as
// scanLayout would find them (valid, no value across lines, the first
// value not an array), checking ranges of whole lines on workers cores at
// once: a file of records is read first for its layout, and on one core
// that pass alone took longer than reading its records. A range that
// starts at a line start is scanned from a scanner's first state: that is
// the state the one pass would be in there if every range before it ends
// between values, which each range checks of itself. false leaves the
// answer to scanLayout (pretty-printed JSON, a broken line, an error).
func parallelJSONL(r io.ReaderAt, off, n int64, workers int, cnt *counting) (ok bool, records int) {
	if workers < 2 || n < parallelLayoutMin {
		return false, 0
	}
	return jsonlParts(r, off, n, min(int64(workers), n/(parallelLayoutMin/2)), cnt)
}

// jsonlParts is parallelJSONL on parts ranges of about n/parts bytes.
// Counting the lines a predicate keeps needs the number of the first line
// of each range, and so the line breaks before it: counted first, a pass
// at the speed of memory over what the page cache holds.
func jsonlParts(r io.ReaderAt, off, n, parts int64, cnt *counting) (bool, int) {
	starts := make([]int64, parts+1)
	var wg sync.WaitGroup
	for i := range parts + 1 {
		wg.Go(func() { starts[i] = lineStart(r, off, n, i*n/parts) })
	}
	wg.Wait()
	base := make([]int, parts)
	if cnt != nil && cnt.keep != nil {
		base = bases(r, off, starts)
	}
	ok := make([]bool, parts)
	records := make([]int, parts)
	for i := range parts {
		wg.Go(func() {
			var lc *lineCounter
			if cnt != nil {
				lc = newLineCounter(*cnt, base[i])
			}
			ok[i] = jsonlRange(r, off, starts[i], starts[i+1], i == 0, lc)
			if lc != nil {
				records[i] = lc.n
			}
		})
	}
	wg.Wait()
	total := 0
	for _, k := range records {
		total += k
	}
	return !slices.Contains(ok, false), total
}

// lineStart is the offset, from off, of the first line that starts at or
// after at within the n bytes of r from off: at itself at 0 or just after a
// line break, else just after the next line break (n when there is none).
func lineStart(r io.ReaderAt, off, n, at int64) int64 {
	if at <= 0 || at >= n {
		return min(max(at, 0), n)
	}
	buf := make([]byte, 64<<10)
	for pos := at - 1; pos < n; {
		k, err := r.ReadAt(buf[:min(int64(len(buf)), n-pos)], off+pos)
		if i := bytes.IndexByte(buf[:k], '\n'); i >= 0 {
			return pos + int64(i) + 1
		}
		pos += int64(k)
		if err != nil {
			break
		}
	}
	return n
}

// jsonlRange scans the bytes [start, end) of r from off, whole lines, and
// reports whether they are values that each end on the line where they
// start, the range ending between values; first: the range starts the
// input (a byte order mark is skipped, and its first value must not be an
// array). lc, when not nil, counts the range's record lines.
func jsonlRange(r io.ReaderAt, off, start, end int64, first bool, lc *lineCounter) bool {
	var s jsonScanner
	s.reset()
	buf := make([]byte, 256<<10)
	for pos := start; pos < end; {
		k, err := r.ReadAt(buf[:min(int64(len(buf)), end-pos)], off+pos)
		chunk := buf[:k]
		if first && pos == start {
			if lc != nil {
				chunk = lc.trimBOM(chunk)
			} else {
				chunk = bytes.TrimPrefix(chunk, bom)
			}
		}
		if s.feed(chunk) || !s.ok {
			return false
		}
		if lc != nil {
			lc.feed(chunk)
		}
		pos += int64(k)
		if err != nil && pos < end {
			return false
		}
	}
	if lc != nil {
		lc.end()
	}
	return s.end() && !(first && s.topArray)
}
