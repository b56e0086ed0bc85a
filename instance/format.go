package instance

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
	"github.com/factreasoner/factreasoner-go/jsonl"
)

// Format is the layout of an input file.
type Format int

// Input formats.
const (
	// FactReasoner is FactReasoner jsonl (or pretty-printed JSON), the
	// format of Instance.
	FactReasoner Format = iota
	// FActScoreLabeled is FActScore's human-labeled format: records with
	// "annotations" (see LabeledRecord).
	FActScoreLabeled
)

func (f Format) String() string {
	if f == FActScoreLabeled {
		return "FActScore labeled"
	}
	return "FactReasoner"
}

// DetectFormat tells the format of the file at path from its first
// record line (the first line, not indented, that is a whole JSON object,
// however many broken lines come before it, or one longer than a record
// may be): FActScore's labeled format
// when it has an "annotations" field, else FactReasoner's (whose reader
// reports whatever is wrong with the file). A file without such a line
// (pretty-printed JSON, or nothing readable) is FactReasoner's.
func DetectFormat(path string) (Format, error) {
	f, err := safefile.OpenInput(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := &Reader{split: jsonl.NewLineReader(f, DefaultMaxLineBytes), MaxLineBytes: DefaultMaxLineBytes}
	for {
		l, err := r.readLine() // bounded; the first loses a byte order mark
		if l.tooLong {
			// A record line in any format, and an invalid one: the
			// reader of FactReasoner's format says so.
			return FactReasoner, nil
		}
		line := l.raw
		if !l.tooLong && len(line) > 0 && line[0] == '{' && isObject(line) {
			var rec map[string]json.RawMessage
			if json.Unmarshal(quoteNonFinite(line), &rec) == nil {
				if _, ok := rec["annotations"]; ok {
					return FActScoreLabeled, nil
				}
				return FactReasoner, nil
			}
		}
		if err == io.EOF {
			return FactReasoner, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// ReadLabeled calls fn for each record of a file in FActScore's labeled
// format, with the line it is on. A malformed record stops the reading with
// an *Error naming the file, line and field.
func ReadLabeled(path string, fn func(line int, r *LabeledRecord) error) error {
	return jsonl.ReadLines(path, jsonl.MaxLineBytes, func(line int, raw []byte) error {
		rec, err := ParseLabeled(raw)
		if err != nil {
			e := &Error{File: path, Line: line, Err: err}
			var fe *FieldError
			if errors.As(err, &fe) {
				e.Field, e.Err = fe.Field, errors.New(fe.Msg)
			}
			return e
		}
		return fn(line, rec)
	})
}

// Scan calls fn for each valid record of the FactReasoner file at path, in
// order. An invalid record stops the scan with its *Error, unless skip is
// not nil: then skip is called with the error and the scan goes on with the
// next record (an empty file is always an error). Scan returns the first
// error of fn, or of reading.
func Scan(path string, skip func(*Error), fn func(*Instance) error) error {
	return ScanRaw(path, skip, func(raw Raw) error {
		in, err := raw.Decode()
		var ie *Error
		if errors.As(err, &ie) && skip != nil {
			skip(ie)
			return nil
		}
		if err != nil {
			return err
		}
		return fn(in)
	})
}
