package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so that path never holds a partial file. Without overwrite an
// existing path is left alone and an error returned.
func writeFileAtomic(path string, data []byte, overwrite bool) error {
	return WriteFile(path, overwrite, func(w *os.File) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFile creates path with what write writes, through a temporary file
// in the same directory, so that path never holds a partial file and a
// failed write leaves what was there. Without overwrite an existing path is
// an error wrapping os.ErrExist and is left as it is. A path that is not a
// regular file, a device or pipe such as /dev/null or /dev/stdout, is
// written as it is, overwrite or not: renaming a file over it would replace
// the device. A symbolic link is followed: the file it names is replaced,
// not the link.
func WriteFile(path string, overwrite bool, write func(*os.File) error) error {
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
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if overwrite {
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
