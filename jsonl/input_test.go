//go:build unix

package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInput: a file is read where it is; standard input ("-") and a named
// pipe are copied to a file named after them, which remove removes; a
// missing file, a directory and a device are refused at once.
func TestInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.WriteString("{\"a\": 1}\n")
			f.Close()
		}
	}()
	for _, tc := range []struct {
		arg, stdin    string
		name, content string // of the file read; name "" for arg itself
		wantErr       string
	}{
		{arg: file, content: "{}\n"},
		{arg: "-", stdin: "{\"b\": 2}\n", name: "stdin", content: "{\"b\": 2}\n"},
		{arg: fifo, name: "fifo", content: "{\"a\": 1}\n"},
		{arg: filepath.Join(dir, "missing.jsonl"), wantErr: "missing.jsonl: no such file"},
		{arg: dir, wantErr: "is a directory"},
		{arg: "/dev/null", wantErr: "is a character device"},
	} {
		path, remove, err := Input(tc.arg, strings.NewReader(tc.stdin), 1<<20)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: %q, %v; want an error with %q", tc.arg, path, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.arg, err)
		}
		got, _ := os.ReadFile(path)
		switch {
		case tc.name == "" && (path != tc.arg || remove != nil):
			t.Errorf("%s: read as %s (remove %v), want it where it is", tc.arg, path, remove != nil)
		case tc.name != "" && (filepath.Base(path) != tc.name || remove == nil):
			t.Errorf("%s: copied to %s, want a file named %s to remove", tc.arg, path, tc.name)
		case string(got) != tc.content:
			t.Errorf("%s: %q, want %q", tc.arg, got, tc.content)
		}
		if remove != nil {
			if err := remove(); err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s: %s left behind", tc.arg, path)
			}
		}
	}
}
