// Package jsonl writes JSON-lines output that survives interruption. Every
// record is written as one complete line as soon as it is ready, so a crash
// loses at most the line being written; Resume reopens such a file, drops a
// torn last line and reports which input lines are already done.
package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// Writer writes one JSON value per line.
type Writer struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

// NewWriter returns a writer to w. Each Write is a single call to w.Write.
func NewWriter(w io.Writer) *Writer {
	jw := &Writer{w: w}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	return jw
}

// Write encodes v as one line.
func (w *Writer) Write(v any) error {
	w.buf.Reset()
	if err := w.enc.Encode(v); err != nil { // Encode appends the newline
		return err
	}
	_, err := w.w.Write(w.buf.Bytes())
	return err
}

// Done maps the input line numbers an existing output already holds to
// what was kept of their records.
type Done map[int]Stored

// Stored is a record already in an output file.
type Stored struct {
	Line   int                        // the record's line in the output file
	Fields map[string]json.RawMessage // the fields Resume was asked to keep, those present
}

// Resume opens path for appending, creating it if needed. Records already in
// the file must carry the input line they came from in a numeric field
// named lineField, each input line at most once; of each, the fields named
// in keep are returned in Done. A last line cut short by a crash (the
// beginning of an object, without its newline) is removed; any other
// malformed line, the last one included, is an error, and nothing is
// changed. So is an error from check, which, when not
// nil, is given what the file holds before anything is changed, to say
// whether it may be resumed.
//
// The file is locked (an advisory lock, released when it is closed), so
// that a second process resuming the same file is refused instead of
// interleaving its lines. A path that is not a regular file (/dev/stdout, a
// pipe, /dev/null) holds nothing to resume: it is opened for writing as it
// is.
func Resume(path, lineField string, keep []string, check func(Done) error) (*os.File, Done, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		return f, Done{}, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: another process is writing this file (%v); wait for it, or give another output file", path, err)
	}
	done, good, err := scan(f, path, lineField, keep)
	if err == nil && check != nil {
		err = check(done)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, done, nil
}

// scan reads the records of an output file and returns them and the size
// of the file without a torn last line.
func scan(r io.Reader, path, lineField string, keep []string) (Done, int64, error) {
	done := make(Done)
	lr := NewLineReader(r, MaxOutputLineBytes)
	var good int64 // bytes up to the end of the last complete record
	for n := 1; ; n++ {
		line, tooLong, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		if tooLong {
			return nil, 0, fmt.Errorf("%s:%d: the line is longer than %d bytes, the most an output line may take (is this an output file of this tool?)", path, n, MaxOutputLineBytes)
		}
		complete := bytes.HasSuffix(line, []byte{'\n'})
		var rec map[string]json.RawMessage
		if jerr := json.Unmarshal(line, &rec); jerr != nil || !complete {
			// Writer writes each line, newline included, in one call, so a
			// crash can only cut the last line before its newline: a
			// beginning of an object. A last line with its newline, or
			// that is not an object's beginning, was not torn by us; it is
			// someone's data (a one-line text file given as -o), kept.
			torn := !complete && bytes.HasPrefix(line, []byte("{"))
			blank := complete && len(bytes.TrimSpace(line)) == 0
			if _, _, perr := lr.Next(); perr == io.EOF && (torn || blank) {
				break // a torn (or blank) last line: drop it
			}
			return nil, 0, fmt.Errorf("%s:%d: not a JSON record (is this an output file of this tool?)", path, n)
		}
		var ln int
		if jerr := json.Unmarshal(rec[lineField], &ln); jerr != nil || ln <= 0 {
			return nil, 0, fmt.Errorf("%s:%d: field %s: missing or not a line number; cannot resume into this file", path, n, lineField)
		}
		if prev, ok := done[ln]; ok {
			return nil, 0, fmt.Errorf("%s:%d: field %s: input line %d is already recorded at line %d; cannot resume into this file", path, n, lineField, ln, prev.Line)
		}
		st := Stored{Line: n, Fields: make(map[string]json.RawMessage, len(keep))}
		for _, k := range keep {
			if v, ok := rec[k]; ok {
				st.Fields[k] = v
			}
		}
		done[ln] = st
		good += int64(len(line))
	}
	return done, good, nil
}

// ReadLines calls fn with each non-blank line of a file and its 1-based
// line number, stopping at the first error fn returns. A line longer than
// limit bytes (MaxLineBytes when limit ≤ 0) is an error naming it, found
// once that much of it is read. The file must be one to read records
// from: a directory or a device is refused before it is read.
func ReadLines(path string, limit int, fn func(line int, raw []byte) error) error {
	f, err := safefile.OpenInput(path)
	if err != nil {
		return err
	}
	defer f.Close()
	lr := NewLineReader(f, limit)
	for line := 1; ; line++ {
		raw, tooLong, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if tooLong {
			return fmt.Errorf("%s:%d: the line is longer than %d bytes, the most a line may take", path, line, lr.limit)
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			if ferr := fn(line, raw); ferr != nil {
				return ferr
			}
		}
	}
}
