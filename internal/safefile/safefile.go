// Package safefile opens the files a model or a cache is read from only
// when they are what they claim to be: a regular file (through symbolic
// links) of bounded size. A directory, a named pipe (which would block the
// reader forever), a device (/dev/zero would fill memory) or a socket is
// refused with an error that says what it is, before anything is read.
//
// Input files (records, results, models in the UAI format) are opened by
// OpenInput, which also lets a stream through: a named pipe (process
// substitution, /dev/stdin as a pipe) or a terminal.
package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/term"
)

// Check returns the information of the file at path when it is a regular
// file of at most max bytes (max < 0: of any size); what names the file in
// errors ("tokenizer.json"). A path that does not exist gives an error
// wrapping fs.ErrNotExist.
func Check(path, what string, max int64) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, what, st, max); err != nil {
		return nil, err
	}
	return st, nil
}

func regular(path, what string, st fs.FileInfo, max int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s %s is %s, not a regular file", what, path, kind(st.Mode()))
	}
	if max >= 0 && st.Size() > max {
		return fmt.Errorf("%s %s is %d bytes, more than the %d it may take", what, path, st.Size(), max)
	}
	return nil
}

// kind names a file type that is not regular.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a file"
}

// ReadFile reads the regular file at path, of at most max bytes (see
// Check). The file is checked again once open, and read no further than
// max, so that one swapped for something else meanwhile is caught too.
func ReadFile(path, what string, max int64) ([]byte, error) {
	if _, err := Check(path, what, max); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := regular(path, what, st, max); err != nil {
		return nil, err
	}
	if max < 0 {
		return io.ReadAll(f)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s %s is more than the %d bytes it may take", what, path, max)
	}
	return data, nil
}

// CheckIfExists is Check for a file that may not exist yet (a cache to be
// created): a missing path is fine.
func CheckIfExists(path, what string, max int64) error {
	_, err := Check(path, what, max)
	if err != nil && os.IsNotExist(err) {
		return nil
	}
	return err
}

// OpenInput opens the input file at path when it is one to read records
// from: a regular file, a named pipe or a terminal. A directory, a device
// (/dev/zero and /dev/urandom never end), a socket or a missing file is
// an error that says so, before anything is read; the file is checked
// once open, so that one swapped meanwhile is caught too.
func OpenInput(path string) (*os.File, error) {
	if err := CheckInput(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = input(path, st, f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CheckInput is OpenInput's check without opening the file (a named pipe
// would be read from by opening it): it says why path is no input file
// to read, or nil.
func CheckInput(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeCharDevice == 0 {
		return input(path, st, nil)
	}
	// A character device may be a terminal: open it to ask (opening
	// one reads nothing).
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return input(path, st, f)
}

// input says why the file path, of information st (open as f, or nil when
// it is not a character device), is no input file.
func input(path string, st fs.FileInfo, f *os.File) error {
	m := st.Mode()
	switch {
	case m.IsRegular(), m&fs.ModeNamedPipe != 0:
		return nil
	case m&fs.ModeCharDevice != 0 && f != nil && term.IsTerminal(int(f.Fd())):
		return nil
	}
	return fmt.Errorf("%s is %s, not a file to read", path, kind(m))
}
