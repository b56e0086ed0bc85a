package jsonl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestResume(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string // file content after Resume
		done    []int
		wantErr string
	}{
		{"new file", "", "", nil, ""},
		{"complete lines", "{\"line\":1}\n{\"line\":3}\n", "{\"line\":1}\n{\"line\":3}\n", []int{1, 3}, ""},
		{"torn last line", "{\"line\":1}\n{\"line\":3,\"x\":[1,", "{\"line\":1}\n", []int{1}, ""},
		{"unterminated but valid last line", "{\"line\":1}\n{\"line\":3}", "{\"line\":1}\n", []int{1}, ""},
		{"garbage in the middle", "{\"line\":1}\nnot json\n{\"line\":3}\n", "", nil, ":2: not a JSON record"},
		// Not torn by a crash (a torn line has no newline and begins an
		// object): someone's data, refused and kept, never cut.
		{"a one-line text file", "garbage\n", "", nil, ":1: not a JSON record"},
		{"a complete last line that is not JSON", "{\"line\":1}\nnotes\n", "", nil, ":2: not a JSON record"},
		{"text without a newline", "my notes", "", nil, ":1: not a JSON record"},
		{"a blank last line", "{\"line\":1}\n\n", "{\"line\":1}\n", []int{1}, ""},
		{"no line field", "{\"x\":1}\n", "", nil, "field line"},
		{"line recorded twice", "{\"line\":1}\n{\"line\":2}\n{\"line\":1}\n", "", nil, ":3: field line: input line 1 is already recorded at line 1"},
	}
	for _, tc := range tests {
		path := filepath.Join(t.TempDir(), "out.jsonl")
		if tc.content != "" {
			os.WriteFile(path, []byte(tc.content), 0o644)
		}
		f, done, err := Resume(path, "line", nil, nil)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.wantErr)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.content {
				t.Errorf("%s: file changed on error", tc.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := NewWriter(f).Write(map[string]int{"line": 9}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		b, _ := os.ReadFile(path)
		if string(b) != tc.want+"{\"line\":9}\n" {
			t.Errorf("%s: file %q", tc.name, b)
		}
		if len(done) != len(tc.done) {
			t.Errorf("%s: done %v, want %v", tc.name, done, tc.done)
		}
		for _, l := range tc.done {
			if _, ok := done[l]; !ok {
				t.Errorf("%s: line %d not done", tc.name, l)
			}
		}
	}
}

// TestResumeKeepAndCheck: Resume returns the kept fields of each record and
// its line in the file, and an error from check leaves the file as it was,
// torn last line included.
func TestResumeKeepAndCheck(t *testing.T) {
	content := "{\"line\":4,\"v\":\"FR2\",\"x\":[1]}\n{\"line\":2,\"w\":1}\n{\"line\":3,"
	path := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("another run")
	var seen Done
	_, _, err := Resume(path, "line", []string{"v", "w"}, func(d Done) error { seen = d; return refuse })
	if err != refuse {
		t.Errorf("check's error not returned as is: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != content {
		t.Errorf("file changed after check refused: %q", b)
	}
	if len(seen) != 2 || seen[4].Line != 1 || seen[2].Line != 2 || string(seen[4].Fields["v"]) != `"FR2"` ||
		len(seen[4].Fields) != 1 || string(seen[2].Fields["w"]) != "1" || len(seen[2].Fields) != 1 {
		t.Errorf("check saw %v", seen)
	}
	f, done, err := Resume(path, "line", []string{"v"}, func(Done) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b, _ := os.ReadFile(path); string(b) != content[:strings.LastIndex(content, "\n")+1] || len(done) != 2 {
		t.Errorf("after check accepted: file %q, done %v", b, done)
	}
}

func TestWriterNoHTMLEscape(t *testing.T) {
	var b strings.Builder
	NewWriter(&b).Write(map[string]string{"s": "a<b & c>d"})
	if b.String() != "{\"s\":\"a<b & c>d\"}\n" {
		t.Errorf("got %q", b.String())
	}
}

func TestReadLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(path, []byte("a\n\n  \nb\nc"), 0o644)
	var got []string
	err := ReadLines(path, 0, func(line int, raw []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", line, strings.TrimSpace(string(raw))))
		return nil
	})
	if err != nil || strings.Join(got, " ") != "1:a 4:b 5:c" {
		t.Errorf("got %v, %v", got, err)
	}
	stop := errors.New("stop")
	if err := ReadLines(path, 0, func(int, []byte) error { return stop }); err != stop {
		t.Errorf("error not passed through: %v", err)
	}
	// A line over the limit is an error naming it; a directory or a
	// device is refused before it is read.
	os.WriteFile(path, []byte("a\n"+strings.Repeat("b", 100)+"\nc\n"), 0o644)
	err = ReadLines(path, 50, func(int, []byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), path+":2: the line is longer than 50 bytes") {
		t.Errorf("long line: %v", err)
	}
	for _, p := range []string{t.TempDir(), "/dev/zero"} {
		err := ReadLines(p, 0, func(int, []byte) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "not a file to read") {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestResumeLocked: a second writer of the same output file is refused
// while the first holds it, and may resume once it has closed it.
func TestResumeLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	f, _, err := Resume(path, "line", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Resume(path, "line", nil, nil); err == nil || !strings.Contains(err.Error(), "another process is writing") {
		t.Errorf("second writer: %v", err)
	}
	f.Close()
	g, _, err := Resume(path, "line", nil, nil)
	if err != nil {
		t.Errorf("after the first closed it: %v", err)
	} else {
		g.Close()
	}
}

// TestResumeNotRegular: -o /dev/null and -o /dev/stdout into a pipe are
// written as they are: nothing read (a pipe would block forever), nothing
// truncated (a device refuses it).
func TestResumeNotRegular(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses /dev/fd, /dev/null")
	}
	f, done, err := Resume(os.DevNull, "line", nil, nil)
	if err != nil || len(done) != 0 {
		t.Fatalf("/dev/null: %v", err)
	}
	f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	f, _, err = Resume(fmt.Sprintf("/dev/fd/%d", w.Fd()), "line", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := NewWriter(f).Write(map[string]int{"line": 1}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	w.Close()
	if s := <-got; s != "{\"line\":1}\n" {
		t.Errorf("the pipe got %q", s)
	}
}
