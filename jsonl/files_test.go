package jsonl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

func TestCreateOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	write := func(replace bool, text string) error {
		f, err := CreateOutput(path, replace)
		if err != nil {
			return err
		}
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
		return f.Close()
	}
	read := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if err := write(false, "first\n"); err != nil {
		t.Fatalf("a new file: %v", err)
	}
	if err := write(false, "second\n"); !errors.Is(err, os.ErrExist) {
		t.Errorf("an existing file without replace: %v, want os.ErrExist", err)
	}
	if got := read(); got != "first\n" {
		t.Errorf("a refused output changed the file: %q", got)
	}
	if err := write(true, "2\n"); err != nil {
		t.Fatalf("replace: %v", err)
	}
	if got := read(); got != "2\n" {
		t.Errorf("replaced file holds %q, want %q (truncated)", got, "2\n")
	}
	// A device is written as it is, without replace.
	f, err := CreateOutput(os.DevNull, false)
	if err != nil {
		t.Fatalf("%s: %v", os.DevNull, err)
	}
	f.Close()
}

func TestSpoolStdin(t *testing.T) {
	path, err := SpoolStdin(strings.NewReader("{\"a\": 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(path))
	if filepath.Base(path) != "stdin" {
		t.Errorf("spooled to %s, want a file named stdin", path)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "{\"a\": 1}\n" {
		t.Errorf("spooled %q, %v", b, err)
	}
	_, err = SpoolStdin(iotest.ErrReader(errors.New("broken pipe")))
	if err == nil || !strings.Contains(err.Error(), "reading standard input: broken pipe") {
		t.Errorf("a failed read: %v, want it named", err)
	}
}

// TestWriteFile: the file appears whole or not at all: a failed write
// leaves what was there and no temporary file; without replace an existing
// file is refused and kept; the mode is the one asked for.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	write := func(s string, fail bool) func(*os.File) error {
		return func(f *os.File) error {
			f.WriteString(s)
			if fail {
				return errors.New("disk full")
			}
			return nil
		}
	}
	if err := WriteFile(path, false, 0o600, write("half", true)); err == nil {
		t.Error("a failed write succeeded")
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a failed write left a file")
	}
	if err := WriteFile(path, false, 0o600, write("one\n", false)); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, false, 0o600, write("two\n", false)); !errors.Is(err, os.ErrExist) {
		t.Errorf("without replace: %v", err)
	}
	if err := WriteFile(path, true, 0o600, write("three", true)); err == nil {
		t.Error("a failed replace succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != "one\n" {
		t.Errorf("the file holds %q after failed writes", got)
	}
	if err := WriteFile(path, true, 0o600, write("four\n", false)); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if got, _ := os.ReadFile(path); string(got) != "four\n" || st.Mode().Perm() != 0o600 {
		t.Errorf("after replace: %q, mode %v", got, st.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
