package jsonl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
		{"no line field", "{\"x\":1}\n", "", nil, "field line"},
	}
	for _, tc := range tests {
		path := filepath.Join(t.TempDir(), "out.jsonl")
		if tc.content != "" {
			os.WriteFile(path, []byte(tc.content), 0o644)
		}
		f, done, err := Resume(path, "line")
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
			if !done[l] {
				t.Errorf("%s: line %d not done", tc.name, l)
			}
		}
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
	err := ReadLines(path, func(line int, raw []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", line, strings.TrimSpace(string(raw))))
		return nil
	})
	if err != nil || strings.Join(got, " ") != "1:a 4:b 5:c" {
		t.Errorf("got %v, %v", got, err)
	}
	stop := errors.New("stop")
	if err := ReadLines(path, func(int, []byte) error { return stop }); err != stop {
		t.Errorf("error not passed through: %v", err)
	}
}
