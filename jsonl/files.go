package jsonl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// SpoolStdin copies r, standard input, to a file named "stdin" in a new
// temporary directory and returns its path: an input that is read more
// than once (to check a resumed output, to count its records) must be a
// file, and messages that name the file then say "stdin". The caller
// removes the directory, filepath.Dir(path), when done; on an error
// nothing is left behind.
func SpoolStdin(r io.Reader) (path string, err error) { return Spool(r, "stdin") }

// Spool is SpoolStdin for any stream that can be read only once (a pipe:
// /dev/stdin, a process substitution's /dev/fd/63, a named pipe), copied
// to a file called name.
func Spool(r io.Reader, name string) (path string, err error) {
	dir, err := os.MkdirTemp("", "fr-stdin-")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	path = filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		what := "standard input"
		if name != "stdin" {
			what = name
		}
		return "", fmt.Errorf("reading %s: %w", what, err)
	}
	return path, f.Close()
}

// WriteFile creates path with what write writes, through a temporary file
// in the same directory that is synced and then renamed, so that path
// never holds a partial file: a write that fails, a full disk or a killed
// process leaves what was there (and at most a stray temporary file, named
// .BASE.*.tmp, when the process was killed). Without replace an existing
// path is an error wrapping os.ErrExist and is left as it is. The file is
// created with mode perm. A path that is not a regular file, a device or
// pipe such as /dev/null or /dev/stdout, is written as it is, replace or
// not: renaming a file over it would replace the device. A symbolic link
// is followed: the file it names is replaced, not the link.
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
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync() // the data is on disk before the name points at it
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
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
