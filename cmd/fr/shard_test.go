package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli/remotenlitest"
)

// buildFR builds the fr command into a temporary directory and returns its
// path, for tests that run it as separate processes.
func buildFR(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	path := filepath.Join(t.TempDir(), "fr")
	if out, err := exec.Command(goBin, "build", "-o", path, ".").CombinedOutput(); err != nil {
		t.Fatalf("building fr: %v\n%s", err, out)
	}
	return path
}

// TestShardProcesses is the scale-out of docs/scale-out.md on one machine:
// four processes of the built fr binary, one per shard, score at once
// against one remote NLI server (a loopback server running the test model)
// and share one NLI cache file; fr merge joins their outputs into the
// output of a single run, byte for byte. Run again, on the warm cache, the
// shards ask the server nothing and merge to the same bytes.
func TestShardProcesses(t *testing.T) {
	fr := buildFR(t)
	lib, err := onnxnli.FindLibrary("") // for the server, before the cache directory moves
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(onnxnli.LibraryEnvVar, lib)
	dir := t.TempDir()
	t.Setenv("FACTREASONER_CACHE", filepath.Join(dir, "cache")) // keep the LLM and retrieval caches here
	srv := remotenlitest.Start(t, tinyRoberta, "roberta-nli")
	input := scaleInput(t)
	// FR2: FR3's passage-passage pairs on the Flaherty passages take the
	// 64-token test model 12 minutes of sequences (every chunk of one passage
	// with every chunk of the other, see docs/nli.md), and the shards'
	// agreement does not depend on the version.
	args := []string{"score", "--version", "2", "--pairs-per-atom", "2", "--nli", "remote", "--nli-endpoint", srv.URL, "--nli-remote-model", "roberta-nli", "--nli-model", tinyRoberta}
	want, stderr, err := run(t, context.Background(), append(args, input)...)
	if err != nil {
		t.Fatalf("the single run: %v\n%s", err, stderr)
	}
	if n := strings.Count(want, "\n"); n != 12 {
		t.Fatalf("the single run wrote %d lines, want 12", n)
	}
	cache := filepath.Join(dir, "nli-cache.sqlite")
	inferences := func() int {
		n := 0
		for _, r := range srv.Requests() {
			if strings.HasSuffix(r, "/infer") {
				n++
			}
		}
		return n
	}
	// round runs the four shards at once, then merges their outputs.
	round := func(name string) string {
		const shards = 4
		cmds := make([]*exec.Cmd, shards)
		errs := make([]bytes.Buffer, shards)
		var outs []string
		for i := range shards {
			out := filepath.Join(dir, fmt.Sprintf("%s-shard-%d.jsonl", name, i))
			outs = append(outs, out)
			cmds[i] = exec.Command(fr, append(args, "--cache", cache, "--shard", fmt.Sprintf("%d/%d", i, shards), "-o", out, input)...)
			cmds[i].Stderr = &errs[i]
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%s: shard %d/%d: %v\n%s", name, i, shards, err, errs[i].String())
			}
		}
		merged := filepath.Join(dir, name+".jsonl")
		if out, err := exec.Command(fr, append([]string{"merge", "--input", input, "-o", merged}, outs...)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: fr merge: %v\n%s", name, err, out)
		}
		got, err := os.ReadFile(merged)
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
	if got := round("cold"); got != want {
		t.Errorf("the merged shards differ from the single run:\n%s\nwant\n%s", got, want)
	}
	before := inferences()
	if got := round("warm"); got != want {
		t.Errorf("the merged shards on the warm cache differ from the single run")
	}
	if n := inferences() - before; n != 0 {
		t.Errorf("on the warm cache the shards sent %d inference requests, want 0: the cache the four processes shared lost answers", n)
	}
}

// TestScaleOutDocFlags: every flag of an fr score or fr merge command on
// docs/scale-out.md (in its scripts and manifests, a command's lines joined
// where they end in a backslash, and in its prose) is a flag of that
// command, so the page cannot drift from the command.
func TestScaleOutDocFlags(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "scale-out.md"))
	if err != nil {
		t.Fatal(err)
	}
	flags := make(map[string]map[string]bool) // command → its flag names
	for _, c := range newApp().Commands {
		if c.Name == "score" || c.Name == "merge" {
			flags[c.Name] = make(map[string]bool)
			for _, f := range c.Flags {
				for _, n := range f.Names() {
					flags[c.Name][n] = true
				}
			}
		}
	}
	// The commands: lines that run fr, with their continuation lines, and
	// spans of inline code in the prose.
	var commands []string
	lines := strings.Split(string(doc), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimPrefix(strings.TrimSpace(lines[i]), "exec ")
		if !strings.HasPrefix(line, "fr score") && !strings.HasPrefix(line, "fr merge") {
			continue
		}
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
		}
		commands = append(commands, line)
	}
	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(string(doc), -1) {
		if strings.HasPrefix(m[1], "fr score") || strings.HasPrefix(m[1], "fr merge") || strings.HasPrefix(m[1], "--") {
			commands = append(commands, m[1])
		}
	}
	checked := 0
	for _, c := range commands {
		words := strings.Fields(c)
		known := func(name string) bool { return flags["score"][name] || flags["merge"][name] } // a flag named in prose
		if len(words) > 1 && words[0] == "fr" {
			cmd := flags[words[1]]
			known = func(name string) bool { return cmd[name] }
			words = words[2:]
		}
		for _, w := range words {
			if !strings.HasPrefix(w, "-") || w == "-" {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
			checked++
			if !known(name) {
				t.Errorf("docs/scale-out.md: %s is not a flag of %q", w, c)
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d flags found on the page: the test no longer reads its commands", checked)
	}
}
