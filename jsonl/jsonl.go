// Package jsonl writes JSON-lines output that survives interruption. Every
// record is written as one complete line as soon as it is ready, so a crash
// loses at most the line being written; Resume reopens such a file, drops a
// torn last line and reports which input lines are already done.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
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

// Done is the set of input line numbers an existing output already holds.
type Done map[int]bool

// Resume opens path for appending, creating it if needed. Records already in
// the file must carry the input line they came from in a numeric field
// named lineField. A last line cut short by a crash (no newline, or not
// valid JSON) is removed; any other malformed line is an error, and nothing
// is changed.
func Resume(path, lineField string) (*os.File, Done, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	done := make(Done)
	br := bufio.NewReader(f)
	var good int64 // bytes up to the end of the last complete record
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		complete := err == nil
		var rec map[string]json.RawMessage
		if jerr := json.Unmarshal(line, &rec); jerr != nil || !complete {
			if _, perr := br.Peek(1); perr == io.EOF {
				break // a torn last line: drop it
			}
			f.Close()
			return nil, nil, fmt.Errorf("%s:%d: not a JSON record (is this an output file of this tool?)", path, n)
		}
		var ln int
		if jerr := json.Unmarshal(rec[lineField], &ln); jerr != nil || ln <= 0 {
			f.Close()
			return nil, nil, fmt.Errorf("%s:%d: field %s: missing or not a line number; cannot resume into this file", path, n, lineField)
		}
		done[ln] = true
		good += int64(len(line))
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

// ReadLines calls fn with each non-blank line of a file and its 1-based
// line number, stopping at the first error fn returns. Lines may be of any
// length.
func ReadLines(path string, fn func(line int, raw []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if len(raw) == 0 && err == io.EOF {
			return nil
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			if ferr := fn(line, raw); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}
