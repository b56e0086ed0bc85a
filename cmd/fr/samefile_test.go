package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputIsInput: a -o (or --dot) that names an input of the command,
// by the same name, through a symbolic link or through a hard link, is
// refused before anything is written, even with --force, and the input is
// left as it was; every command with -o and inputs.
func TestOutputIsInput(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	example, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	scored := filepath.Join("..", "..", "testdata", "report", "example.fr2.jsonl")
	scoredData, err := os.ReadFile(scored)
	if err != nil {
		t.Fatal(err)
	}
	doc := "Lanny Flaherty was an American actor. He was born in 1942.\n"
	for _, tc := range []struct {
		name    string
		content []byte
		args    func(in, out string) []string
	}{
		{"retrieve", example, func(in, out string) []string {
			return []string{"retrieve", "--source", "wikipedia", "--retrieval-cache", "off", "-o", out, "--force", in}
		}},
		{"atomize", example, func(in, out string) []string {
			return []string{"atomize", "--atomizer", "sentences", "-o", out, "--force", in}
		}},
		{"score", example, func(in, out string) []string { return []string{"score", "--nli", "given", "-o", out, in} }},
		{"convert", example, func(in, out string) []string { return []string{"convert", "factscore", "-o", out, "--force", in} }},
		{"merge", scoredData, func(in, out string) []string { return []string{"merge", "-o", out, "--force", in} }},
		{"merge --input", example, func(in, out string) []string {
			return []string{"merge", "--input", in, "-o", out, "--force", scored}
		}},
		{"report", scoredData, func(in, out string) []string { return []string{"report", "-o", out, "--force", in} }},
		{"inspect --dot", example, func(in, out string) []string { return []string{"inspect", "--nli", "given", "--dot", out, in} }},
		{"kb build", []byte(doc), func(in, out string) []string { return []string{"kb", "build", "-o", out, "--force", in} }},
	} {
		for _, how := range []string{"same name", "symlink", "hard link"} {
			t.Run(tc.name+"/"+how, func(t *testing.T) {
				dir := t.TempDir()
				in := filepath.Join(dir, "in.jsonl")
				if tc.name == "kb build" {
					in = filepath.Join(dir, "doc.txt")
				}
				if err := os.WriteFile(in, tc.content, 0o600); err != nil {
					t.Fatal(err)
				}
				out := in
				switch how {
				case "symlink":
					out = filepath.Join(dir, "link")
					if err := os.Symlink(in, out); err != nil {
						t.Fatal(err)
					}
				case "hard link":
					out = filepath.Join(dir, "hard")
					if err := os.Link(in, out); err != nil {
						t.Fatal(err)
					}
				}
				_, stderr, err := run(t, context.Background(), tc.args(in, out)...)
				if err == nil || exitStatus(err) != exitUsage || !strings.Contains(err.Error(), out) {
					t.Errorf("error %v (exit %d), want a usage error naming %s\n%s", err, exitStatus(err), out, stderr)
				}
				if got, _ := os.ReadFile(in); string(got) != string(tc.content) {
					t.Errorf("the input changed: %d bytes, was %d", len(got), len(tc.content))
				}
			})
		}
	}
}
