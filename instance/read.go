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
	"slices"
	"strconv"
	"strings"
)

// Error is a problem with one record of an input file.
type Error struct {
	File  string
	Line  int    // 1-based line of the offending value when known, else where the record starts; 0 when not known
	Field string // JSON path of the offending field, if any
	Err   error
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

// ErrEmpty is returned (wrapped in *Error) for a file that holds no records.
var ErrEmpty = errors.New("no records in file")

// Reader reads instances one at a time. It accepts jsonl (one object per
// line) and files holding one or more pretty-printed JSON objects, or a JSON
// array of objects (on one line or many). A UTF-8 byte order mark at the
// start is skipped.
//
// The layout is decided from content that cannot be mistaken: a file whose
// first non-blank line is a complete JSON object is jsonl; so is one whose
// first line is broken but whose second non-blank line is a complete
// object (the first line is then reported as an invalid record, and the
// others are read). Anything else is read as pretty-printed JSON.
//
// A record that is malformed or fails validation is reported as an *Error;
// in jsonl mode the reader can go on with the next line after it, so callers
// may skip bad records.
type Reader struct {
	name string
	br   *bufio.Reader
	// MaxLineBytes bounds a jsonl line, MaxDocumentBytes a file of
	// pretty-printed JSON: longer input is an error before it is held in
	// memory (a long jsonl line is skipped whole). NewReader sets
	// DefaultMaxLineBytes and DefaultMaxDocumentBytes.
	MaxLineBytes, MaxDocumentBytes int

	line    int      // lines consumed so far (jsonl mode)
	pending []lineAt // lines read while deciding the layout, not yet returned
	mode    int
	doc     []*Instance // pending records (document mode)
	docEr   error
	n       int // records returned or reported so far
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
	DefaultMaxLineBytes     = 64 << 20
	DefaultMaxDocumentBytes = 1 << 30
)

const (
	modeUnknown = iota
	modeLines
	modeDocument
)

// NewReader returns a reader of r; name is used in error messages.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, br: bufio.NewReaderSize(r, readBuffer), MaxLineBytes: DefaultMaxLineBytes, MaxDocumentBytes: DefaultMaxDocumentBytes}
}

// readBuffer is the Reader's buffer: a line shorter than it (a record
// with a few hundred passages) is copied out of it once, into a slice of
// its size, instead of growing a slice chunk by chunk. The runner's
// reader, which only splits lines, spent half its time growing them with
// a buffer of 64 KB.
const readBuffer = 1 << 20

// Next returns the next valid instance, an *Error for an invalid record, or
// io.EOF at the end. An empty input gives an *Error wrapping ErrEmpty.
func (r *Reader) Next() (*Instance, error) {
	raw, err := r.NextRaw()
	if err != nil {
		return nil, err
	}
	return raw.Decode()
}

// nextLine returns the next line: one read while deciding the layout, else
// one from the input. io.EOF comes only when nothing is left.
func (r *Reader) nextLine() (lineAt, error) {
	if len(r.pending) > 0 {
		l := r.pending[0]
		r.pending = r.pending[1:]
		return l, nil
	}
	return r.readLine()
}

// readLine reads a line of at most MaxLineBytes (a longer one is consumed
// whole and returned cut, marked tooLong). The first line loses a byte
// order mark.
func (r *Reader) readLine() (lineAt, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > r.MaxLineBytes {
				tooLong = true
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return lineAt{}, err
		}
		if len(buf) == 0 && !tooLong && err == io.EOF {
			return lineAt{}, io.EOF
		}
		r.line++
		if r.line == 1 {
			buf = bytes.TrimPrefix(buf, bom)
		}
		return lineAt{raw: buf, n: r.line, tooLong: tooLong}, nil
	}
}

// bom is the UTF-8 byte order mark.
var bom = []byte{0xEF, 0xBB, 0xBF}

// detect decides between jsonl and document mode (see Reader) by reading
// the first two non-blank lines; they are kept for Next or for the
// document.
func (r *Reader) detect() error {
	first, second := -1, -1 // indexes in pending
	for second < 0 {
		l, err := r.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return &Error{File: r.name, Line: r.line + 1, Err: err}
		}
		r.pending = append(r.pending, l)
		switch {
		case len(bytes.TrimSpace(l.raw)) == 0 && !l.tooLong:
		case first < 0:
			first = len(r.pending) - 1
			if l.tooLong || isObject(l.raw) {
				// Only jsonl holds a whole object, or a line this long,
				// on its first line.
				r.mode = modeLines
				return nil
			}
			if t := bytes.TrimSpace(l.raw); t[0] == '[' {
				return r.readDocument() // an array, on one line or many
			}
		default:
			second = len(r.pending) - 1
		}
	}
	if first < 0 || (second >= 0 && (r.pending[second].tooLong || isObject(r.pending[second].raw))) {
		r.mode = modeLines // empty input (Next reports it), or jsonl with a broken first line
		return nil
	}
	return r.readDocument()
}

// isObject reports whether a line is a complete JSON object (NaN and
// Infinity, which Python writes, allowed).
func isObject(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && t[0] == '{' && json.Valid(quoteNonFinite(t))
}

// readDocument decodes a file of pretty-printed JSON values: the lines
// read so far and the rest of the input.
func (r *Reader) readDocument() error {
	r.mode = modeDocument
	var head []byte
	for _, l := range r.pending {
		if l.tooLong {
			return &Error{File: r.name, Line: l.n, Err: fmt.Errorf("the file is not jsonl and its line is longer than %d bytes", r.MaxLineBytes)}
		}
		head = append(head, l.raw...)
	}
	r.pending = nil
	rest, err := io.ReadAll(io.LimitReader(r.br, int64(r.MaxDocumentBytes-len(head)+1)))
	if err != nil {
		return &Error{File: r.name, Err: err}
	}
	data := append(head, rest...)
	if len(data) > r.MaxDocumentBytes {
		return &Error{File: r.name, Err: fmt.Errorf("the file is not jsonl, and longer than %d bytes, the most a pretty-printed file may take (write one record per line)", r.MaxDocumentBytes)}
	}
	data = quoteNonFinite(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		start := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		// The value starts at the first non-space byte after start.
		off := int(start) + len(data[start:]) - len(bytes.TrimLeft(data[start:], " \t\r\n"))
		line := 1 + bytes.Count(data[:off], []byte{'\n'})
		if err != nil {
			if se, ok := err.(*json.SyntaxError); ok {
				line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte{'\n'})
			}
			r.docEr = &Error{File: r.name, Line: line, Err: fmt.Errorf("invalid JSON: %w", err)}
			break
		}
		if raw[0] == '[' {
			if err := r.readArray(raw, line); err != nil {
				r.docEr = err
				break
			}
			continue
		}
		in, err := decode(raw)
		if err != nil {
			r.docEr = r.wrap(line, raw, err)
			break
		}
		in.Line = line
		r.doc = append(r.doc, in)
	}
	return nil
}

// readArray decodes a JSON array of records that starts on line line; each
// record's Line is the line its element starts on.
func (r *Reader) readArray(raw []byte, line int) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // [
		return &Error{File: r.name, Line: line, Err: fmt.Errorf("invalid JSON: %w", err)}
	}
	for i := 0; dec.More(); i++ {
		off := valueStart(raw, int(dec.InputOffset()))
		elemLine := line + bytes.Count(raw[:off], []byte{'\n'})
		var item json.RawMessage
		if err := dec.Decode(&item); err != nil {
			return &Error{File: r.name, Line: elemLine, Err: fmt.Errorf("invalid JSON: %w", err)}
		}
		in, err := decode(item)
		if err != nil {
			e := r.wrap(elemLine, item, err).(*Error)
			if e.Field != "" {
				e.Field = fmt.Sprintf("element %d: %s", i, e.Field)
			} else {
				e.Err = fmt.Errorf("element %d: %w", i, e.Err)
			}
			return e
		}
		in.Line = elemLine
		r.doc = append(r.doc, in)
	}
	return nil
}

func (r *Reader) nextDoc() (*Instance, error) {
	if len(r.doc) > 0 {
		in := r.doc[0]
		r.doc = r.doc[1:]
		r.n++
		return in, nil
	}
	if r.docEr != nil {
		err := r.docEr
		r.docEr = nil
		r.n++
		// A broken document cannot be resynchronised: stop after the error.
		r.doc = nil
		return nil, err
	}
	if r.n == 0 {
		return nil, &Error{File: r.name, Err: ErrEmpty}
	}
	return nil, io.EOF
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
		off = locate(quoteNonFinite(raw), fe.Field)
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

// decode parses and validates one record.
func decode(raw []byte) (*Instance, error) {
	raw = quoteNonFinite(raw)
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
	out.Relations = make([]Relation, len(in.Relations))
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
	if len(out.Relations) == 0 {
		out.Relations = nil
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
		known := false
		for _, f := range instanceFields {
			known = known || strings.EqualFold(f, name)
		}
		if known {
			continue
		}
		i := slices.IndexFunc(out, func(f Field) bool { return f.Name == name })
		if i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
		out = append(out, Field{Name: name, Value: v})
	}
	return out, nil
}

// ReadFile reads every record of a file and stops at the first invalid one.
func ReadFile(path string) ([]*Instance, error) {
	f, err := os.Open(path)
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
	var raw struct {
		Source      string          `json:"source"`
		Target      string          `json:"target"`
		Type        string          `json:"type"`
		Probability json.RawMessage `json:"probability"`
	}
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
	var in struct {
		Context
		Probability json.RawMessage `json:"probability"`
	}
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
// decoder can report them against the field they sit in.
func quoteNonFinite(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	var out []byte
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		replaced := false
		for _, w := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(data[i:], []byte(w)) {
				out = append(out, '"')
				out = append(out, w...)
				out = append(out, '"')
				i += len(w) - 1
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, c)
		}
	}
	return out
}
