package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
	"github.com/factreasoner/factreasoner-go/internal/tempfile"
)

// CreateOutput opens path to write a new output file. A path that does not
// exist is created. An existing regular file is refused with an error
// wrapping os.ErrExist, so that a finished result is not lost to a
// mistyped command, unless replace is true: it is then truncated. A device
// or pipe (such as /dev/stdout) is written as it is.
func CreateOutput(path string, replace bool) (*os.File, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if st, err := os.Stat(path); err == nil {
		switch {
		case !st.Mode().IsRegular():
			flags = os.O_WRONLY
		case replace:
			flags = os.O_WRONLY | os.O_TRUNC
		default:
			return nil, &os.PathError{Op: "create", Path: path, Err: os.ErrExist}
		}
	}
	return os.OpenFile(path, flags, 0o600)
}

// RemoveEmpty closes f, an output file a run created (CreateOutput,
// Resume) and that failed, first removing it when it is a regular file
// that holds nothing: a run that fails before its first line leaves no
// empty file behind, which would look like the result of no records. It
// is removed before it is closed, while Resume's lock is held, so that no
// other run has begun writing it.
func RemoveEmpty(f *os.File) error {
	var err error
	if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() && st.Size() == 0 {
		err = os.Remove(f.Name())
	}
	return errors.Join(err, f.Close())
}

// SpoolStdin copies r, standard input, to a file named "stdin" in a new
// temporary directory and returns its path: an input that is read more
// than once (to check a resumed output, to count its records) must be a
// file, and messages that name the file then say "stdin". remove removes
// the directory; on an error nothing is left behind. The directory is
// locked while it is in use (package internal/tempfile), and the
// directories of killed processes are removed when the next one is made.
// A line longer than maxLine bytes (an endless one from /dev/zero) stops
// the copy with an error, so that what is copied is bounded by what the
// readers could hold of it.
func SpoolStdin(r io.Reader, maxLine int64) (path string, remove func() error, err error) {
	return Spool(r, "stdin", maxLine)
}

// Spool is SpoolStdin for any stream that can be read only once (a pipe:
// /dev/stdin, a process substitution's /dev/fd/63, a named pipe), copied
// to a file called name.
func Spool(r io.Reader, name string, maxLine int64) (path string, remove func() error, err error) {
	tempfile.Clean("", spoolPattern)
	dir, err := tempfile.MkdirTemp("", spoolPattern)
	if err != nil {
		return "", nil, err
	}
	defer func() {
		if err != nil {
			dir.RemoveAll()
		}
	}()
	path = filepath.Join(dir.Path, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", nil, err
	}
	if _, err := io.Copy(f, &lineBound{r: r, max: maxLine}); err != nil {
		f.Close()
		what := "standard input"
		if name != "stdin" {
			what = name
		}
		return "", nil, fmt.Errorf("reading %s: %w", what, err)
	}
	if err := f.Close(); err != nil {
		return "", nil, err
	}
	return path, dir.RemoveAll, nil
}

// Input is the file to read for a command's input argument: arg itself
// when it is a file (refused at once, before any work, when it is missing,
// a directory or a device: safefile.CheckInput); or, for "-" (stdin) and
// for a pipe given by name (/dev/stdin, the /dev/fd/63 of a process
// substitution, a named pipe), a copy (Spool) named "stdin" or after the
// pipe, which remove removes (nil for a file). The readers read their
// input more than once (to tell its format, to count its records), and a
// pipe gives its data only once.
func Input(arg string, stdin io.Reader, maxLine int64) (path string, remove func() error, err error) {
	if arg == "-" {
		return Spool(stdin, "stdin", maxLine)
	}
	if st, err := os.Stat(arg); err == nil && st.Mode()&(fs.ModeNamedPipe|fs.ModeSocket) != 0 {
		f, err := os.Open(arg)
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		return Spool(f, filepath.Base(arg), maxLine)
	}
	if err := safefile.CheckInput(arg); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("%s: no such file", arg)
		}
		return "", nil, err
	}
	return arg, nil, nil
}

// spoolPattern names the directories of Spool.
const spoolPattern = "fr-stdin-*"

// lineBound passes r through until a line is longer than max bytes.
type lineBound struct {
	r    io.Reader
	max  int64
	line int64 // bytes of the current line so far
	n    int   // lines before it
}

func (b *lineBound) Read(p []byte) (int, error) {
	k, err := b.r.Read(p)
	chunk := p[:k]
	for {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			b.line += int64(len(chunk))
			break
		}
		b.line, b.n, chunk = 0, b.n+1, chunk[i+1:]
	}
	if b.line > b.max {
		return 0, fmt.Errorf("line %d is longer than %d bytes: no record nor JSON file is that long", b.n+1, b.max)
	}
	return k, err
}

// WriteFile creates path with what write writes, through a temporary file
// in the same directory that is synced and then renamed, so that path
// never holds a partial file: a write that fails, a full disk or a killed
// process leaves what was there (and at most a stray temporary file, named
// .BASE.*.tmp, when the process was killed, which the next WriteFile of
// the same path removes). Without replace an existing path is an error
// wrapping os.ErrExist and is left as it is. The file is created with
// mode perm; a file it replaces keeps its own. A path that is not a
// regular file, a device or pipe such as /dev/null or /dev/stdout, is
// written as it is, replace or not: renaming a file over it would replace
// the device. A symbolic link is followed: the file it names is replaced,
// not the link.
func WriteFile(path string, replace bool, perm os.FileMode, write func(*os.File) error) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err := write(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	// The temporary files of killed runs that wrote this path are
	// removed; this one is locked while it is written (internal/tempfile).
	pattern := "." + filepath.Base(path) + ".*.tmp"
	tempfile.Clean(filepath.Dir(path), pattern)
	tmp, err := tempfile.Create(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	defer tmp.Close() // after the rename: until then the lock says it is in use
	defer os.Remove(tmp.Name())
	if st, err := os.Stat(path); err == nil && replace {
		perm = st.Mode().Perm() // a file replaced keeps its mode
	}
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync() // the data is on disk before the name points at it
	}
	if err != nil {
		return err
	}
	if replace {
		return os.Rename(tmp.Name(), path)
	}
	// A hard link fails when path exists, so that a file created meanwhile
	// is not replaced either.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s: %w", path, os.ErrExist)
		}
		return err
	}
	return nil
}
