package jsonl

import (
	"errors"
	"io"
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

// TestSpoolStdin: standard input is copied to a file named stdin, in a
// directory that remove removes; a read error is named; an endless line
// stops the copy once it is longer than the bound, and leaves nothing; a
// directory left by a killed run is removed by the next.
func TestSpoolStdin(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	path, remove, err := SpoolStdin(strings.NewReader("{\"a\": 1}\n"), 100)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "stdin" {
		t.Errorf("spooled to %s, want a file named stdin", path)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "{\"a\": 1}\n" {
		t.Errorf("spooled %q, %v", b, err)
	}
	if err := remove(); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Dir(path)); err == nil {
		t.Error("remove left the directory")
	}
	_, _, err = SpoolStdin(iotest.ErrReader(errors.New("broken pipe")), 100)
	if err == nil || !strings.Contains(err.Error(), "reading standard input: broken pipe") {
		t.Errorf("a failed read: %v, want it named", err)
	}
	_, _, err = SpoolStdin(io.MultiReader(strings.NewReader("{}\n{}\n"), zeros{}), 1<<20)
	if err == nil || !strings.Contains(err.Error(), "line 3 is longer than 1048576 bytes") {
		t.Errorf("an endless line: %v", err)
	}
	// A killed run's directory (its lock gone with it) goes; a live
	// one's stays.
	live, removeLive, err := SpoolStdin(strings.NewReader("x\n"), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer removeLive()
	dead := filepath.Join(os.TempDir(), "fr-stdin-12345")
	os.MkdirAll(dead, 0o700)
	os.WriteFile(filepath.Join(dead, "stdin"), []byte("x\n"), 0o600)
	_, removeNext, err := SpoolStdin(strings.NewReader("y\n"), 100)
	if err != nil {
		t.Fatal(err)
	}
	removeNext()
	if _, err := os.Stat(dead); err == nil {
		t.Error("the directory of a killed run was left")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live run's input was removed: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "fr-stdin-*")); len(left) != 1 {
		t.Errorf("left: %v", left)
	}
}

// TestSpool: a pipe given by name is copied as standard input is, to a
// file of its name, under the same bound on a line; errors name it.
func TestSpool(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	path, remove, err := Spool(strings.NewReader("{}\n"), "63", 100)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if b, err := os.ReadFile(path); filepath.Base(path) != "63" || err != nil || string(b) != "{}\n" {
		t.Errorf("spooled %q to %s, %v", b, path, err)
	}
	_, _, err = Spool(io.MultiReader(strings.NewReader("{}\n"), zeros{}), "63", 1<<20)
	if err == nil || !strings.Contains(err.Error(), "reading 63: line 2 is longer than 1048576 bytes") {
		t.Errorf("an endless line from a pipe: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "fr-stdin-*")); len(left) != 1 {
		t.Errorf("left: %v", left)
	}
}

// zeros is an endless input of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
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
	// A file replaced keeps its mode; a stray temporary file of a killed
	// run (unlocked) is removed, one in use is not.
	os.Chmod(path, 0o644)
	stray := filepath.Join(dir, ".out.jsonl.1234.tmp")
	os.WriteFile(stray, []byte("half"), 0o600)
	if err := WriteFile(path, true, 0o600, write("five\n", false)); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("a replaced file's mode became %v", st.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestRemoveEmpty: the output of a failed run is removed when it holds
// nothing, kept when it holds something; a device is never removed; the
// file is closed either way.
func TestRemoveEmpty(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		removed       bool
	}{
		{"empty", "", true},
		{"a line", "{\"line\": 1}\n", false},
		{"a torn line", "{\"li", false},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := RemoveEmpty(f); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) != tc.removed {
			t.Errorf("%s: removed %v, want %v", tc.name, err != nil, tc.removed)
		}
		if _, err := f.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s: not closed (%v)", tc.name, err)
		}
	}
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := RemoveEmpty(f); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Errorf("%s removed: %v", os.DevNull, err)
	}
}
