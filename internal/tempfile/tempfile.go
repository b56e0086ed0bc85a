// Package tempfile makes temporary files and directories that a killed
// process (kill -9, a lost machine) does not leave behind for good: each
// is locked (an advisory lock, which the system drops when its process
// dies) for as long as it is in use, and Clean, run by the next process
// that makes one of the same name, removes those whose lock no process
// holds.
package tempfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// attempts bounds the retries of Create and MkdirTemp when a cleaner
// takes a file the moment it is made.
const attempts = 10

// Create creates a new temporary file in dir (os.TempDir() when empty)
// named by pattern, as os.CreateTemp does, and locks it. The lock is held
// until the file is closed; the caller removes (or renames) the file when
// done, as with os.CreateTemp.
func Create(dir, pattern string) (*os.File, error) {
	for range attempts {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		if held(f) {
			return f, nil
		}
		f.Close() // a cleaner took it first, and removes it
	}
	return nil, fmt.Errorf("%s: temporary files removed as they are made", filepath.Join(dir, pattern))
}

// held takes the lock of f, a file just made, and reports whether f is
// still the file of its name: a cleaner (Clean) that found it unlocked the
// moment it was made holds the lock, or has removed it already.
func held(f *os.File) bool {
	if tryLock(f) != nil {
		return false
	}
	st, err1 := f.Stat()
	cur, err2 := os.Stat(f.Name())
	return err1 == nil && err2 == nil && os.SameFile(st, cur)
}

// lockName is the file of a temporary directory that holds its lock.
const lockName = ".lock"

// Dir is a temporary directory, locked while it is open.
type Dir struct {
	Path string
	lock *os.File
}

// MkdirTemp creates a new temporary directory in dir (os.TempDir() when
// empty) named by pattern, as os.MkdirTemp does, and locks it (a file of
// its own holds the lock). RemoveAll removes it.
func MkdirTemp(dir, pattern string) (*Dir, error) {
	for range attempts {
		path, err := os.MkdirTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(path, lockName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // removed by a cleaner the moment it was made
			}
			os.RemoveAll(path)
			return nil, err
		}
		if held(f) {
			return &Dir{Path: path, lock: f}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s: temporary directories removed as they are made", filepath.Join(dir, pattern))
}

// RemoveAll removes the directory and what it holds, and drops its lock.
func (d *Dir) RemoveAll() error {
	err := os.RemoveAll(d.Path)
	d.lock.Close()
	return err
}

// Clean removes what matches pattern in dir (a pattern of Create or
// MkdirTemp: its "*" matches anything) and no running process holds: the
// temporary files and directories of processes that were killed before
// they could remove them. Errors are ignored: what cannot be removed now
// is tried again the next time.
func Clean(dir, pattern string) {
	if !canLock {
		return // no locks here: whose a file is cannot be told
	}
	if dir == "" {
		dir = os.TempDir()
	}
	matches, _ := filepath.Glob(filepath.Join(dir, pattern))
	for _, path := range matches {
		st, err := os.Lstat(path)
		switch {
		case err != nil:
		case st.Mode().IsRegular():
			removeUnheld(path, path, os.Remove)
		case st.IsDir():
			removeUnheld(filepath.Join(path, lockName), path, os.RemoveAll)
		}
	}
}

// removeUnheld removes path (with remove) when the lock of the file lock
// is not held, holding it while it does; a directory without its lock
// file (a process killed while it made it) too.
func removeUnheld(lock, path string, remove func(string) error) {
	f, err := os.OpenFile(lock, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) && lock != path {
		remove(path)
		return
	}
	if err != nil {
		return
	}
	defer f.Close()
	if tryLock(f) == nil {
		remove(path)
	}
}
