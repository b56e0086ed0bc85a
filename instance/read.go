package instance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
	"github.com/factreasoner/factreasoner-go/jsonl"
)

// Error is a problem with one record of an input file, or with the file
// (Line 0, or wrapping ErrUnreadable: it cannot be read past).
type Error struct {
	File  string
	Line  int    // 1-based line of the offending value when known, else where the record starts; 0 when not known
	Field string // JSON path of the offending field, if any
	Err   error
	// end marks an error that ends the input: it wraps ErrUnreadable.
	end bool
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes an error that ends the input an ErrUnreadable.
func (e *Error) Is(target error) bool { return e.end && target == ErrUnreadable }

// ErrEmpty is returned (wrapped in *Error) for a file that holds no records.
var ErrEmpty = errors.New("no records in file")

// ErrUnreadable is wrapped by the *Error of an input that cannot be read
// on: neither jsonl nor JSON, JSON that breaks in a pretty-printed file
// (the records after the break cannot be found), a record of such a file
// longer than the limit, a file too large for its layout, an error of
// reading. It ends the input: a reader gives it once, and then io.EOF;
// Scan reports it whatever its skip. A caller that reads on after invalid
// records asks Skippable which errors it may read on after.
var ErrUnreadable = errors.New("the input cannot be read on")

// Skippable reports whether err is an invalid record that a caller may
// skip and read on after (--skip-invalid): an *Error that is neither an
// empty input (ErrEmpty) nor one that ends it (ErrUnreadable).
func Skippable(err error) bool {
	var ie *Error
	return errors.As(err, &ie) && !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrUnreadable)
}

// ending marks e as an error that ends the input.
func ending(e *Error) *Error {
	e.end = true
	return e
}

// Reader reads instances one at a time. It accepts jsonl (one object per
// line) and files holding one or more pretty-printed JSON objects, or a JSON
// array of objects (on one line or many). A UTF-8 byte order mark at the
// start is skipped.
//
// The layout is decided from the input as a whole, in a first pass that
// holds nothing (an input that cannot seek, such as a pipe, is held in
// memory for it, up to MaxDocumentBytes): an input that is valid JSON
// throughout is read as JSON when a value spans lines or is an array, else
// as jsonl (the same records either way); an input that is not valid JSON
// is jsonl when one of its lines (not indented) is a whole JSON object, so
// that broken lines, however many and wherever, never hide the records
// after them; an input that is neither is read as JSON up to its first
// error, which says that the file is neither.
//
// A record that is malformed or fails validation is reported as an *Error;
// in jsonl mode the reader can go on with the next line after it, so callers
// may skip bad records.
type Reader struct {
	name string
	src  io.Reader
	br   *bufio.Reader // src, once the layout is decided: document mode
	// split splits src into lines, once the layout is decided: jsonl
	// mode.
	split *jsonl.LineReader
	// MaxLineBytes bounds a jsonl line, MaxDocumentBytes a file of
	// pretty-printed JSON: longer input is an error before it is held in
	// memory (a long jsonl line is skipped whole). NewReader sets
	// DefaultMaxLineBytes and DefaultMaxDocumentBytes.
	MaxLineBytes, MaxDocumentBytes int

	line    int   // lines consumed so far (jsonl mode)
	stop    error // the error that ended the input, given once; then io.EOF
	mode    int
	neither bool // the input is neither jsonl nor valid JSON
	n       int  // records returned or reported so far
	// sawObject: a line of the input was a whole JSON object (jsonl
	// mode), as a jsonl file must have one.
	sawObject bool

	// Document mode: the decoder of the input, its lines, whether it is
	// in a top-level array and at which element, and the error that ends
	// the input (io.EOF once reported).
	dec        *json.Decoder
	lines      *lineIndex
	inArray    bool
	arrayIndex int
	docEr      error

	// count is what CountRecords asked the layout's pass to count;
	// records is its count, once counted. later is set instead for an
	// input whose layout is not scanned, for a pass of its own
	// (ScanRawWith).
	count   *counting
	records int
	counted bool
	later   *laterCount
}

// laterCount is the part of a regular file the records of which are yet
// to be counted.
type laterCount struct {
	r      io.ReaderAt
	off, n int64
}

// lineAt is a line of input and its 1-based number; tooLong marks one cut
// at the limit.
type lineAt struct {
	raw     []byte
	n       int
	tooLong bool
}

// Limits of a Reader.
const (
	DefaultMaxLineBytes     = jsonl.MaxLineBytes
	DefaultMaxDocumentBytes = 1 << 30
)

const (
	modeUnknown = iota
	modeLines
	modeDocument
)

// NewReader returns a reader of r; name is used in error messages.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, src: r, MaxLineBytes: DefaultMaxLineBytes, MaxDocumentBytes: DefaultMaxDocumentBytes}
}

// readBuffer is the Reader's buffer: a line shorter than it (a record
// with a few hundred passages) is copied out of it once, into a slice of
// its size, instead of growing a slice chunk by chunk. The runner's
// reader, which only splits lines, spent half its time growing them with
// a buffer of 64 KB.
const readBuffer = 1 << 20

// CountRecords has the pass that decides the layout of the input, which
// reads all of it before the first record is returned, count its records
// too: those, valid or not, that start on a line for which keep reports
// true (all of them when keep is nil; it may be called from several
// goroutines at once), as the reader numbers lines. It must be called
// before the first record is read; Records then says how many.
func (r *Reader) CountRecords(keep func(line int) bool) {
	r.count = &counting{keep: keep}
}

// Records is the count CountRecords asked for, once the first record has
// been read (by NextRaw or Next): the records, valid or invalid, that the
// reader gives or will give (a jsonl line too long is one, a blank line
// none). It is false before, without CountRecords, and for an input
// larger than MaxDocumentBytes, whose layout is not scanned (ScanRawWith
// counts those in a pass of its own).
func (r *Reader) Records() (int, bool) { return r.records, r.counted }

// setCount notes the count of the layout's pass, when one was asked for.
func (r *Reader) setCount(n int) {
	if r.count != nil {
		r.records, r.counted = n, true
	}
}

// Next returns the next valid instance, an *Error for an invalid record, or
// io.EOF at the end. An empty input gives an *Error wrapping ErrEmpty.
func (r *Reader) Next() (*Instance, error) {
	raw, err := r.NextRaw()
	if err != nil {
		return nil, err
	}
	return raw.Decode()
}

// readLine reads a line of at most MaxLineBytes (a longer one is returned
// empty, marked tooLong, as soon as that many of its bytes are read; its
// rest is read past on the next call). The first line loses a byte order
// mark.
func (r *Reader) readLine() (lineAt, error) {
	line, tooLong, err := r.split.Next()
	if err != nil {
		return lineAt{}, err
	}
	r.line++
	if r.line == 1 {
		line = bytes.TrimPrefix(line, bom)
	}
	return lineAt{raw: line, n: r.line, tooLong: tooLong}, nil
}

// bom is the UTF-8 byte order mark.
var bom = []byte{0xEF, 0xBB, 0xBF}

// detect decides between jsonl and document mode (see Reader) from a pass
// over the whole input, then starts reading it.
func (r *Reader) detect() error {
	src, mode, err := r.decide()
	if err != nil {
		r.stop = ending(&Error{File: r.name, Err: err})
		return r.stop
	}
	r.mode = mode
	if mode == modeDocument {
		r.br = bufio.NewReaderSize(src, readBuffer)
		return r.readDocument()
	}
	r.split = jsonl.NewLineReader(src, r.MaxLineBytes)
	return nil
}

// decide reads the input once to decide its layout and returns it again,
// from where it started, with the mode to read it in. A regular file is
// read in place (in parallel when it is jsonl; one longer than a document
// may be only to find a record line); anything else, a pipe, is held in
// memory, up to MaxDocumentBytes.
func (r *Reader) decide() (io.Reader, int, error) {
	if r.count != nil {
		r.count.maxLine = r.MaxLineBytes
	}
	if rs, size, ok := regularFile(r.src); ok {
		start, err := rs.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil, 0, err
		}
		n := size - start
		if n > int64(r.MaxDocumentBytes) {
			// Too long for a document: jsonl, if any line is a record.
			found, err := recordLineAhead(rs, r.MaxLineBytes)
			if err == nil {
				_, err = rs.Seek(start, io.SeekStart)
			}
			switch {
			case err != nil:
				return nil, 0, err
			case !found:
				return nil, 0, fmt.Errorf("the file is not jsonl (no line of it is a whole JSON object), and longer than %d bytes, the most a pretty-printed file may take", r.MaxDocumentBytes)
			}
			if ra, ok := r.src.(io.ReaderAt); ok && r.count != nil {
				r.later = &laterCount{r: ra, off: start, n: n}
			}
			return rs, modeLines, nil
		}
		if ra, ok := r.src.(io.ReaderAt); ok {
			if ok, records := parallelJSONL(ra, start, n, runtime.GOMAXPROCS(0), r.count); ok {
				r.setCount(records)
				return rs, modeLines, nil
			}
		}
		l, err := scanLayout(rs, r.MaxLineBytes, r.count)
		if err != nil {
			return nil, 0, err
		}
		if _, err := rs.Seek(start, io.SeekStart); err != nil {
			return nil, 0, err
		}
		r.neither = !l.valid && !l.objectLine
		mode := l.mode(r.MaxDocumentBytes)
		r.setCount(l.records.of(mode))
		return rs, mode, nil
	}
	// A stream: held in memory to be read twice, as far as a document
	// may go, in blocks (not grown and copied as one slice, which would
	// take twice as much); a longer input cannot be one, and is jsonl.
	held, err := holdUpTo(r.src, int64(r.MaxDocumentBytes)+1)
	if err != nil {
		return nil, 0, err
	}
	if held.size > int64(r.MaxDocumentBytes) {
		return io.MultiReader(held.reader(), r.src), modeLines, nil
	}
	l, err := scanLayout(held.reader(), r.MaxLineBytes, r.count)
	if err != nil {
		return nil, 0, err
	}
	r.neither = !l.valid && !l.objectLine
	mode := l.mode(r.MaxDocumentBytes)
	r.setCount(l.records.of(mode))
	return held.reader(), mode, nil
}

// regularFile returns src as a file to seek in, with its size, when it is
// a regular file. Anything else is a stream: a device such as /dev/zero
// seeks, but to nowhere, and has no end to find.
func regularFile(src io.Reader) (io.ReadSeeker, int64, bool) {
	rs, ok := src.(io.ReadSeeker)
	if !ok {
		return nil, 0, false
	}
	if st, ok := src.(interface{ Stat() (os.FileInfo, error) }); ok {
		fi, err := st.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return nil, 0, false
		}
		return rs, fi.Size(), true
	}
	// An in-memory reader (bytes.Reader, strings.Reader): its end is
	// its size.
	start, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, 0, false
	}
	end, err := rs.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, 0, false
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return nil, 0, false
	}
	return rs, end, true
}

// recordLineAhead reports whether a line of r, from where it is, is a
// record line: a whole JSON object (not indented), or one longer than
// maxLine, which only jsonl can hold (it is then an invalid record, said
// at once). Lines are read up to the first such, and none is held: a line
// is checked by the layout's scanner as it streams by, and a long one
// counted.
func recordLineAhead(r io.Reader, maxLine int) (bool, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var s jsonScanner
	for first := true; ; {
		s.reset()
		n, object := 0, false
		for {
			chunk, err := br.ReadSlice('\n')
			if first {
				chunk = bytes.TrimPrefix(chunk, bom)
				first = false
			}
			if n == 0 && len(chunk) > 0 {
				object = chunk[0] == '{'
			}
			n += len(chunk)
			if n > maxLine {
				return true, nil
			}
			if object && s.ok {
				s.feed(chunk)
			}
			switch {
			case err == nil:
			case errors.Is(err, bufio.ErrBufferFull):
				continue
			case err == io.EOF:
				return object && s.end() && s.values == 1, nil
			default:
				return false, err
			}
			if object && s.end() && s.values == 1 {
				return true, nil
			}
			break
		}
	}
}

// heldInput is the start of a stream, held in blocks.
type heldInput struct {
	blocks [][]byte
	size   int64
}

// holdUpTo reads r into blocks until its end or until it has read max
// bytes.
func holdUpTo(r io.Reader, max int64) (*heldInput, error) {
	h := &heldInput{}
	for h.size < max {
		b := make([]byte, min(int64(readBuffer), max-h.size))
		n, err := io.ReadFull(r, b)
		if n > 0 {
			h.blocks = append(h.blocks, b[:n])
			h.size += int64(n)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return h, nil
}

// reader reads what h holds, from its start.
func (h *heldInput) reader() io.Reader {
	rs := make([]io.Reader, len(h.blocks))
	for i, b := range h.blocks {
		rs[i] = bytes.NewReader(b)
	}
	return io.MultiReader(rs...)
}

// isObject reports whether a line is a complete JSON object (NaN and
// Infinity, which Python writes, allowed).
func isObject(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && t[0] == '{' && json.Valid(quoteNonFinite(t))
}

// readDocument starts decoding a file of pretty-printed JSON values, one
// record at a time (nextDoc): only the record being read is held.
func (r *Reader) readDocument() error {
	r.mode = modeDocument
	if b, _ := r.br.Peek(len(bom)); bytes.Equal(b, bom) {
		r.br.Discard(len(bom))
	}
	r.lines = &lineIndex{r: &nonFiniteQuoter{r: r.br}, limit: int64(r.MaxLineBytes)}
	r.dec = json.NewDecoder(r.lines)
	return nil
}

// nextDoc returns the next record of a pretty-printed file: the next
// top-level value, or the next element of a top-level array. A record
// that fails validation is reported and the next one read; invalid JSON
// cannot be resynchronised and ends the file (ErrUnreadable).
func (r *Reader) nextDoc() (*Instance, error) {
	for {
		if r.docEr != nil {
			// io.EOF, or an error that ends the input, given once.
			err := r.docEr
			r.docEr = io.EOF
			return nil, err
		}
		if r.inArray {
			if !r.dec.More() {
				if _, err := r.dec.Token(); err != nil { // ]
					r.docEr = r.jsonError(err, r.dec.InputOffset())
					continue
				}
				r.inArray = false
				continue
			}
			off := r.dec.InputOffset() + r.skipped(" \t\r\n,")
			in, err := r.decodeAt(off, r.arrayIndex)
			r.arrayIndex++
			if in == nil && err == nil {
				continue // invalid JSON: reported next
			}
			return in, err
		}
		if !r.dec.More() {
			var raw json.RawMessage
			err := r.dec.Decode(&raw) // the end, or a stray ] or }
			if err == io.EOF {
				r.docEr = io.EOF
				if r.n == 0 {
					return nil, &Error{File: r.name, Err: ErrEmpty}
				}
				return nil, io.EOF
			}
			if err == nil {
				err = errors.New("unexpected value")
			}
			r.docEr = r.jsonError(err, r.dec.InputOffset())
			continue
		}
		off := r.dec.InputOffset() // More has skipped the spaces: the value's first byte
		if r.skipped("[") == 1 {
			r.lines.release(off)
			if _, err := r.dec.Token(); err != nil {
				r.docEr = r.jsonError(err, off)
				continue
			}
			r.inArray, r.arrayIndex = true, 0
			continue
		}
		in, err := r.decodeAt(off, -1)
		if in == nil && err == nil {
			continue // invalid JSON: reported next
		}
		return in, err
	}
}

// skipped counts the bytes of set at the start of what the decoder holds
// unread: the comma and spaces before an array's next element, or an
// array's opening bracket.
func (r *Reader) skipped(set string) int64 {
	br := bufio.NewReaderSize(r.dec.Buffered(), 16)
	var n int64
	for {
		c, err := br.ReadByte()
		if err != nil || strings.IndexByte(set, c) < 0 {
			return n
		}
		if n++; len(set) == 1 {
			return n
		}
	}
}

// decodeAt decodes the value that starts at offset off of the (quoted)
// input, element index of an array (-1: a top-level value). Invalid JSON
// is kept in docEr, to be reported next, and gives nil, nil.
func (r *Reader) decodeAt(off int64, index int) (*Instance, error) {
	r.lines.release(off)
	line := r.lines.line(off)
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		r.docEr = r.jsonError(err, off)
		return nil, nil
	}
	r.n++
	in, err := decode(raw)
	if err == nil {
		in.Line = line
		return in, nil
	}
	e := r.wrap(line, raw, err).(*Error)
	if index >= 0 {
		if e.Field != "" {
			e.Field = fmt.Sprintf("element %d: %s", index, e.Field)
		} else {
			e.Err = fmt.Errorf("element %d: %w", index, e.Err)
		}
	}
	return nil, e
}

// jsonError is the *Error of invalid JSON in a pretty-printed file, at
// the line of the syntax error, else of the value that starts at off.
func (r *Reader) jsonError(err error, off int64) error {
	if errors.Is(err, errRecordTooLong) {
		return ending(&Error{File: r.name, Line: r.lines.line(off), Err: fmt.Errorf("a record is longer than %d bytes, the most a record may take; the records after it cannot be found", r.MaxLineBytes)})
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	err = fmt.Errorf("invalid JSON: %w", err)
	if r.neither {
		err = fmt.Errorf("%w; the file is not jsonl either (no line holds a whole JSON object)", err)
	}
	return ending(&Error{File: r.name, Line: r.lines.line(off), Err: err})
}

// wrap turns an error about the record raw, which starts on line line, into
// an *Error. With raw (a record of a pretty-printed file) the line is that
// of the offending value where it can be found: the field of a FieldError
// (or, when the field is missing, the nearest enclosing value that is
// there), or the position of a syntax error.
func (r *Reader) wrap(line int, raw []byte, err error) error {
	e := recordError(r.name, line, err)
	var fe *FieldError
	errors.As(err, &fe)
	if raw == nil {
		return e
	}
	off := -1
	var se *json.SyntaxError
	switch {
	case fe != nil:
		off = Locate(quoteNonFinite(raw), fe.Field)
	case errors.As(err, &se):
		off = int(se.Offset)
	}
	if off >= 0 {
		e.Line += bytes.Count(raw[:min(off, len(raw))], []byte{'\n'})
	}
	return e
}

// recordError is the *Error of the record at file:line: a FieldError's
// field becomes the Error's.
func recordError(file string, line int, err error) *Error {
	e := &Error{File: file, Line: line, Err: err}
	var fe *FieldError
	if errors.As(err, &fe) {
		e.Field, e.Err = fe.Field, errors.New(fe.Msg)
	}
	return e
}

// notObjectError is a record that is some other JSON value.
type notObjectError struct{ kind string }

func (e *notObjectError) Error() string { return "not a JSON object but " + e.kind }

// decode parses and validates one record. A record that decodes and
// validates in one pass (decodeValid) is taken as it is; any other is
// decoded again by decodeErr, whose passes name what is wrong.
func decode(raw []byte) (*Instance, error) {
	raw = quoteNonFinite(raw)
	if in := decodeValid(raw); in != nil {
		return in, nil
	}
	return decodeErr(raw)
}

// decodeErr decodes a record (quoted by quoteNonFinite) that decodeValid
// refused: the record whole, then its unknown fields, contexts and
// relations one by one, so that an error names its field and the index of
// its context or relation. It gives what decodeValid gives for a valid
// record.
func decodeErr(raw []byte) (*Instance, error) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] != '{' && json.Valid(t) {
		kinds := map[byte]string{'[': "an array", '"': "a string", 't': "a boolean", 'f': "a boolean", 'n': "null"}
		kind, ok := kinds[t[0]]
		if !ok {
			kind = "a number"
		}
		return nil, &notObjectError{kind}
	}
	// Contexts and relations are decoded one by one so that an error in
	// their probability names its index.
	var in struct {
		Instance
		Contexts  []json.RawMessage `json:"contexts"`
		Relations []json.RawMessage `json:"relations"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		if fe := typeError(raw, err); fe != nil {
			return nil, fe
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	out := in.Instance
	extra, err := extraFields(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	out.Extra = extra
	if in.Contexts != nil {
		out.Contexts = make([]Context, len(in.Contexts))
	}
	for i, rc := range in.Contexts {
		if err := decodeContext(rc, &out.Contexts[i]); err != nil {
			field := fmt.Sprintf("contexts[%d]", i)
			if err.Field != "" {
				field += "." + err.Field
			}
			return nil, &FieldError{field, err.Msg}
		}
	}
	out.Relations = nil // absent or null: none given
	if in.Relations != nil {
		out.Relations = make([]Relation, len(in.Relations)) // [] too: given, none
	}
	for i, rr := range in.Relations {
		if err := json.Unmarshal(rr, &out.Relations[i]); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				return nil, &FieldError{fmt.Sprintf("relations[%d].%s", i, fe.Field), fe.Msg}
			}
			if fe := typeError(rr, err); fe != nil {
				field := fmt.Sprintf("relations[%d]", i)
				if fe.Field != "" {
					field += "." + fe.Field
				}
				return nil, &FieldError{field, fe.Msg}
			}
			return nil, &FieldError{fmt.Sprintf("relations[%d]", i), err.Error()}
		}
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return &out, nil
}

// extraFields returns the fields of the JSON object raw that Instance does
// not know, in order. Names are matched as json.Unmarshal matches them,
// case-insensitively; of a repeated name the last value counts, as there.
func extraFields(raw []byte) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out []Field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if !knownField(name) {
			out = addField(out, name, v)
		}
	}
	return out, nil
}

// ReadFile reads every record of a file and stops at the first invalid one.
func ReadFile(path string) ([]*Instance, error) {
	f, err := safefile.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := NewReader(f, path)
	var out []*Instance
	for {
		in, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, in)
	}
}

// UnmarshalJSON decodes a relation, giving a field-naming error for a
// probability that is not a finite number (Python's json writes NaN and
// Infinity as bare words; quoteNonFinite turns them into strings first).
func (r *Relation) UnmarshalJSON(data []byte) error {
	var raw relationJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	r.Source, r.Target, r.Type = raw.Source, raw.Target, raw.Type
	p, err := parseProbability(raw.Probability)
	if err != nil {
		return err
	}
	if p == nil {
		return &FieldError{"probability", "missing probability"}
	}
	r.Probability = *p
	return nil
}

// decodeContext decodes one context of a record. Its probability is read
// as a relation's is (NaN and Infinity named as such, so that Validate
// can refuse them); a missing or null probability stays nil. Errors name
// the field inside the context.
func decodeContext(raw []byte, c *Context) *FieldError {
	var in contextJSON
	if err := json.Unmarshal(raw, &in); err != nil {
		if fe := typeError(raw, err); fe != nil {
			return fe
		}
		return &FieldError{"", "invalid JSON: " + err.Error()}
	}
	*c = in.Context
	p, err := parseProbability(in.Probability)
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return fe
		}
		return &FieldError{"probability", err.Error()}
	}
	c.Probability = p
	return nil
}

// parseProbability reads a probability field as quoteNonFinite leaves it:
// a number, or the strings "NaN", "Infinity" and "-Infinity" that stand for
// Python's bare words. A missing or null value is nil.
func parseProbability(raw json.RawMessage) (*float64, error) {
	p := bytes.TrimSpace(raw)
	if len(p) == 0 || string(p) == "null" {
		return nil, nil
	}
	var v float64
	if p[0] == '"' {
		var s string
		if err := json.Unmarshal(p, &s); err != nil {
			return nil, err
		}
		switch s {
		case "NaN":
			v = math.NaN()
		case "Infinity":
			v = math.Inf(1)
		case "-Infinity":
			v = math.Inf(-1)
		default:
			return nil, &FieldError{"probability", fmt.Sprintf("probability is the string %q, not a number", s)}
		}
		return &v, nil
	}
	v, err := strconv.ParseFloat(string(p), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, &FieldError{"probability", fmt.Sprintf("probability %s is not a number", p)}
	}
	return &v, nil
}

// quoteNonFinite rewrites the bare words NaN, Infinity and -Infinity that
// Python's json module emits (outside strings) as JSON strings, so that the
// decoder can report them against the field they sit in. Data without
// such a word, even in a string (a passage about a film called Infinity),
// is returned as it is; strings are skipped whole.
func quoteNonFinite(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	var out []byte // nil until a word is quoted
	copied := 0    // data[:copied] is in out
	for i := 0; i < len(data); i++ {
		if data[i] == '"' {
			end := stringEnd(data, i)
			if end < 0 {
				break // a string to the end
			}
			i = end - 1
			continue
		}
		for _, w := range nonFiniteWords {
			if bytes.HasPrefix(data[i:], []byte(w)) {
				if out == nil {
					out = make([]byte, 0, len(data)+16)
				}
				out = append(out, data[copied:i]...)
				out = append(append(append(out, '"'), w...), '"')
				copied = i + len(w)
				i = copied - 1
				break
			}
		}
	}
	if out == nil {
		return data
	}
	return append(out, data[copied:]...)
}

// nonFiniteWords are the bare words quoteNonFinite quotes, -Infinity
// before Infinity.
var nonFiniteWords = [...]string{"-Infinity", "Infinity", "NaN"}
