package instance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// Raw is a record of an input file as a Reader finds it, before it is
// decoded: a jsonl line, or a record of a pretty-printed file (which is
// decoded whole, so its records come decoded). Splitting a file into
// records is cheap and decoding them is not, so a program that scores
// records on several cores splits on one goroutine and decodes on many.
type Raw struct {
	File string // the file's name, for errors
	Line int    // the 1-based line where the record starts
	data []byte // the jsonl line, when in is nil
	in   *Instance
}

// NextRaw returns the next record without decoding it, an *Error for a
// record that cannot even be split off (a jsonl line longer than
// MaxLineBytes, a broken pretty-printed file), or io.EOF at the end; an
// empty input gives an *Error wrapping ErrEmpty. Next is NextRaw and
// Decode.
func (r *Reader) NextRaw() (Raw, error) {
	if r.stop != nil {
		return Raw{}, io.EOF // the error that ended the input was given
	}
	if r.mode == modeUnknown {
		if err := r.detect(); err != nil {
			return Raw{}, err
		}
	}
	if r.mode == modeDocument {
		in, err := r.nextDoc()
		if err != nil {
			return Raw{}, err
		}
		return Raw{File: r.name, Line: in.Line, in: in}, nil
	}
	for {
		l, err := r.readLine()
		if err == io.EOF {
			switch {
			case r.n == 0:
				return Raw{}, &Error{File: r.name, Err: ErrEmpty}
			case !r.sawObject:
				// Every line was broken: not jsonl with some invalid
				// records but no jsonl at all, whatever was skipped.
				r.stop = ending(&Error{File: r.name, Err: errors.New("no line of the file is a whole JSON object: it is not jsonl (one record object per line), nor JSON")})
				return Raw{}, r.stop
			}
			return Raw{}, io.EOF
		}
		if err != nil {
			r.stop = ending(&Error{File: r.name, Line: r.line + 1, Err: err})
			return Raw{}, r.stop
		}
		if l.tooLong {
			r.n++
			return Raw{}, &Error{File: r.name, Line: l.n, Err: fmt.Errorf("the line is longer than %d bytes, the most a record may take", r.MaxLineBytes)}
		}
		if len(bytes.TrimSpace(l.raw)) == 0 {
			continue
		}
		r.n++
		if !r.sawObject {
			r.sawObject = isObject(l.raw) // the first record line only, usually
		}
		return Raw{File: r.name, Line: l.n, data: l.raw}, nil
	}
}

// Decode parses and validates the record: the instance Next returns for
// it, or the *Error of an invalid record. It is safe to call from any
// goroutine.
func (raw Raw) Decode() (*Instance, error) {
	if raw.in != nil {
		return raw.in, nil
	}
	in, err := decode(raw.data)
	if err != nil {
		var no *notObjectError
		if errors.As(err, &no) {
			return nil, &Error{File: raw.File, Line: raw.Line, Err: fmt.Errorf("the line is %v; jsonl needs one record object per line", no)}
		}
		return nil, recordError(raw.File, raw.Line, err)
	}
	in.Line = raw.Line
	return in, nil
}

// ScanRaw calls fn for each record of the FactReasoner file at path, in
// order, undecoded (see Raw; Scan is ScanRaw with each record decoded). A
// record that cannot be split off stops the scan with its *Error, unless
// skip is not nil: then skip is called with the error and the scan goes on
// (an empty file is always an error). ScanRaw returns the first error of
// fn, or of reading. An error that ends the input (ErrUnreadable: not
// jsonl nor JSON, broken JSON in a pretty-printed file) ends the scan,
// skip or not: the records after it cannot be found.
func ScanRaw(path string, skip func(*Error), fn func(Raw) error) error {
	return ScanRawContext(context.Background(), path, skip, fn)
}

// ScanRawContext is ScanRaw that stops reading, with ctx's error, once ctx
// is done, also inside a record: a pass over a file beside a run that has
// stopped (skipping a line of gigabytes, say) ends with it.
func ScanRawContext(ctx context.Context, path string, skip func(*Error), fn func(Raw) error) error {
	return ScanRawWith(ctx, path, ScanOptions{Skip: skip}, fn)
}

// ScanOptions say what ScanRawWith does beside giving the records to fn.
type ScanOptions struct {
	// Skip is ScanRaw's skip.
	Skip func(*Error)
	// Counted, when set, is told how many records the file holds, valid
	// or not, that start on a line for which Keep reports true (all of
	// them when Keep is nil; Keep may be called from several goroutines
	// at once): before fn is given the first record, from the pass that
	// decides the file's layout, which reads all of it anyway
	// (Reader.CountRecords); or, for a file larger than a document may
	// be (DefaultMaxDocumentBytes), whose layout is not scanned, by a pass
	// of its own beside the scan, from that pass's goroutine, when it is
	// done: perhaps not at all when the scan ends first, and never after
	// ScanRawWith has returned.
	Counted func(records int)
	Keep    func(line int) bool
}

// ScanRawWith is ScanRawContext with options: the file is opened once,
// and its records are counted by the pass that tells its layout.
func ScanRawWith(ctx context.Context, path string, o ScanOptions, fn func(Raw) error) error {
	f, err := safefile.OpenInput(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return scanFile(ctx, f, path, DefaultMaxDocumentBytes, o, fn)
}

// scanFile is ScanRawWith on an open file, read as a document up to
// maxDocument bytes.
func scanFile(ctx context.Context, f *os.File, path string, maxDocument int, o ScanOptions, fn func(Raw) error) error {
	ctx, cancel := context.WithCancel(ctx)
	var pass sync.WaitGroup // counting beside the scan
	defer func() { cancel(); pass.Wait() }()
	r := NewReader(ctxFile{f, ctx}, path)
	r.MaxDocumentBytes = maxDocument
	if o.Counted != nil {
		r.CountRecords(o.Keep)
	}
	told := o.Counted == nil
	for {
		raw, err := r.NextRaw()
		if !told && r.mode != modeUnknown {
			told = true
			if n, ok := r.Records(); ok {
				o.Counted(n)
			} else if l := r.later; l != nil {
				pass.Go(func() {
					n, err := countLines(l.r, l.off, l.n, counting{keep: o.Keep, maxLine: r.MaxLineBytes})
					if err == nil && ctx.Err() == nil {
						o.Counted(n)
					}
				})
			}
		}
		if err == io.EOF {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		var ie *Error
		if o.Skip != nil && Skippable(err) && errors.As(err, &ie) {
			o.Skip(ie)
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(raw); err != nil {
			return err
		}
	}
}

// ctxFile is a file whose reads fail with ctx's error once ctx is done.
type ctxFile struct {
	*os.File
	ctx context.Context
}

func (f ctxFile) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	return f.File.Read(p)
}

func (f ctxFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	return f.File.ReadAt(p, off)
}
