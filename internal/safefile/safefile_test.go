package safefile

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheck: a regular file within its bound passes (also through a
// symbolic link); a directory, a FIFO, a device, a socket and a file over
// the bound are refused saying what they are, before anything is read
// (a FIFO would block the reader, /dev/zero fill memory).
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.json")
	os.WriteFile(file, []byte(`{"a": 1}`), 0o600)
	link := filepath.Join(dir, "link.json")
	os.Symlink(file, link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	os.Symlink("/dev/zero", zero)
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tests := []struct {
		path string
		max  int64
		want string // "" for a file read
	}{
		{file, 100, ""},
		{link, 100, ""},
		{file, -1, ""},
		{file, 3, "more than the 3"},
		{dir, 100, "a directory"},
		{fifo, 100, "a named pipe"},
		{zero, 100, "a character device"},
		{sock, 100, "a socket"},
		{filepath.Join(dir, "missing"), 100, "no such file"},
	}
	for _, tt := range tests {
		data, err := ReadFile(tt.path, "config.json", tt.max)
		if tt.want == "" {
			if err != nil || string(data) != `{"a": 1}` {
				t.Errorf("%s: %q, %v", tt.path, data, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
			t.Errorf("%s: error %v, want one naming the file and %q", tt.path, err, tt.want)
		}
	}
	if err := CheckIfExists(filepath.Join(dir, "missing"), "cache", -1); err != nil {
		t.Errorf("a missing cache: %v", err)
	}
	if err := CheckIfExists(fifo, "cache", -1); err == nil {
		t.Error("a FIFO cache passes")
	}
}

// TestOpenInput: a regular file and a named pipe are inputs to read; a
// directory, a device that never ends, a missing file are refused before
// anything is read, saying what they are.
func TestOpenInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.jsonl")
	os.WriteFile(file, []byte("{}\n"), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{file, ""},
		{fifo, ""},
		{dir, "is a directory, not a file to read"},
		{"/dev/zero", "/dev/zero is a character device, not a file to read"},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		err := CheckInput(tc.path)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckInput(%s) = %v, want %q", tc.path, err, tc.want)
		}
		if tc.path == fifo {
			continue // opening it would wait for a writer
		}
		f, err := OpenInput(tc.path)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("OpenInput(%s) = %v, want %q", tc.path, err, tc.want)
		}
		if f != nil {
			f.Close()
		}
	}
}
