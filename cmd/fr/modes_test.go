package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPrivateFiles: the caches and outputs fr creates are 0600, in
// directories it creates 0700 (caches hold model answers and retrieved
// pages); a directory that exists keeps its mode. The umask is opened up,
// so that only the modes fr asks for count.
func TestPrivateFiles(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	root := t.TempDir()
	cache := filepath.Join(root, "cache", "fr") // created by fr
	t.Setenv("FACTREASONER_CACHE", cache)
	out := filepath.Join(root, "out") // exists, shared
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	doc := filepath.Join(root, "Ada Lovelace.txt")
	os.WriteFile(doc, []byte("Ada Lovelace was born in 1815.\n\nAda Lovelace died in 1852.\n"), 0o600)
	in := filepath.Join(root, "in.jsonl")
	os.WriteFile(in, []byte(`{"input": "Bio of Ada", "output": "Ada Lovelace was born in 1815.", "topic": "Ada Lovelace", "atoms": [{"id": "a0", "text": "Ada Lovelace was born in 1815."}]}`+"\n"), 0o600)
	kb := filepath.Join(out, "kb.db")
	steps := [][]string{
		{"kb", "build", "-o", kb, doc},
		{"retrieve", "--db", kb, "-o", filepath.Join(out, "retrieved.jsonl"), in}, // the retrieval cache, in the cache directory
		{"score", "--nli", "lexical", "--cache", "auto", "-o", filepath.Join(out, "scored.jsonl"), filepath.Join(out, "retrieved.jsonl")},
		{"merge", "-o", filepath.Join(out, "merged.jsonl"), filepath.Join(out, "scored.jsonl")},
		{"report", "--layout", "built-in", "--plots", filepath.Join(out, "plots"), "-o", filepath.Join(out, "report.html"), filepath.Join(out, "scored.jsonl")},
		{"inspect", "--nli", "lexical", "--dot", filepath.Join(out, "net.dot"), filepath.Join(out, "retrieved.jsonl")},
	}
	for _, args := range steps {
		if _, stderr, err := run(t, ctx, args...); err != nil {
			t.Fatalf("fr %s: %v\n%s", strings.Join(args, " "), err, stderr)
		}
	}
	var files int
	for _, dir := range []string{cache, out} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			st, _ := os.Stat(p)
			want := fs.FileMode(0o600)
			switch {
			case p == out:
				want = 0o755 // it existed: untouched
			case d.IsDir():
				want = 0o700
			default:
				files++
			}
			if st.Mode().Perm() != want {
				t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), want)
			}
			return nil
		})
	}
	for _, p := range []string{filepath.Join(cache, "retrieval-cache.sqlite"), filepath.Join(cache, "nli-cache.sqlite"), filepath.Join(out, "report.html")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was not written: %v", p, err)
		}
	}
	if files < 10 {
		t.Errorf("only %d files checked", files)
	}
	if st, _ := os.Stat(filepath.Dir(cache)); st.Mode().Perm() != 0o700 {
		t.Errorf("%s: mode %v, want 0700", filepath.Dir(cache), st.Mode().Perm())
	}
}
