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

	"github.com/factreasoner/factreasoner-go/internal/fakeinfer"
	"github.com/factreasoner/factreasoner-go/internal/fakellm"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
)

// scaleInput is a file of 12 records: the test fixtures (with relations,
// scored by the lexical backend here all the same) and the Flaherty
// biography twice.
func scaleInput(t *testing.T) string {
	t.Helper()
	flaherty, _ := flahertyWithRelations(t)
	fl, err := os.ReadFile(flaherty)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 10 {
		b.WriteString(record(i, nil) + "\n")
		if i == 3 || i == 7 {
			b.Write(fl)
		}
	}
	return writeFile(t, "in.jsonl", b.String())
}

// TestScoreJobsAndShards: fr score --jobs N writes what --jobs 1 does,
// byte for byte; the outputs of --shard I/N for every I, merged by fr
// merge, are the single run's output; each line reports its NLI pairs and
// the stderr summary their totals.
func TestScoreJobsAndShards(t *testing.T) {
	input := scaleInput(t)
	args := []string{"score", "--nli", "lexical", "--version", "3"}
	want, stderr, err := run(t, context.Background(), append(args, "--jobs", "1", input)...)
	if err != nil {
		t.Fatal(err)
	}
	// The two Flaherty records: 26 atoms × 5 contexts, and context pairs.
	lines := strings.Split(strings.TrimSpace(want), "\n")
	if len(lines) != 12 || !strings.Contains(lines[4], `"nli_pairs_pruned":`) || !strings.Contains(lines[4], `"pairs_per_atom":"5"`) {
		t.Fatalf("%d lines; line 5: %.300s", len(lines), lines[4])
	}
	if m := regexp.MustCompile(`; (\d+) NLI pairs asked, (\d+) pruned \(--pairs-per-atom 5\)`).FindStringSubmatch(stderr); m == nil || m[2] == "0" {
		t.Errorf("summary without pairs asked and pruned:\n%s", stderr)
	}
	for _, jobs := range []string{"2", "5"} {
		got, _, err := run(t, context.Background(), append(args, "--jobs", jobs, input)...)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("--jobs %s output differs from --jobs 1", jobs)
		}
	}
	var shards []string
	for _, s := range []string{"0/3", "1/3", "2/3"} {
		out := filepath.Join(t.TempDir(), "shard.jsonl")
		if _, stderr, err := run(t, context.Background(), append(args, "--shard", s, "-o", out, input)...); err != nil || !strings.Contains(stderr, "in other shards (shard "+s+")") {
			t.Fatalf("shard %s: %v\n%s", s, err, stderr)
		}
		shards = append(shards, out)
	}
	merged, _, err := run(t, context.Background(), append([]string{"merge", "--input", input}, shards...)...)
	if err != nil {
		t.Fatal(err)
	}
	if merged != want {
		t.Errorf("merged shards differ from the single run")
	}
	_, _, err = run(t, context.Background(), "merge", "--input", input, shards[0], shards[2])
	if err == nil || !strings.Contains(err.Error(), "4 records of "+input+" have no result in the outputs, at lines [1 4 7 10]") {
		t.Errorf("merge without shard 1/3: %v", err)
	}
	_, _, err = run(t, context.Background(), "merge", "-o", shards[1], "--force", shards[0], shards[1])
	if err == nil || !strings.Contains(err.Error(), "is one of the outputs to merge") {
		t.Errorf("merge -o into an output: %v", err)
	}

	// Resume works per shard: the first line of shard 1/3's output is
	// kept, the rest scored again to the same output; another shard's
	// output is refused.
	full, err := os.ReadFile(shards[1])
	if err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(t.TempDir(), "part.jsonl")
	os.WriteFile(part, full[:bytes.IndexByte(full, '\n')+1], 0o644)
	if _, stderr, err := run(t, context.Background(), append(args, "--shard", "1/3", "-o", part, input)...); err != nil || !strings.Contains(stderr, "1 records already scored") {
		t.Fatalf("resuming shard 1/3: %v\n%s", err, stderr)
	}
	if got, _ := os.ReadFile(part); !bytes.Equal(got, full) {
		t.Errorf("resumed shard differs from the uninterrupted one")
	}
	_, _, err = run(t, context.Background(), append(args, "--shard", "2/3", "-o", part, input)...)
	if err == nil || !strings.Contains(err.Error(), part+":1: holds the result of input line 1, which is not in shard 2/3") {
		t.Errorf("resuming another shard's output: %v", err)
	}
}

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
	srv := fakeinfer.Start(t, tinyRoberta, "roberta-nli")
	input := scaleInput(t)
	args := []string{"score", "--version", "3", "--pairs-per-atom", "2", "--nli", "remote", "--nli-endpoint", srv.URL, "--nli-remote-model", "roberta-nli", "--nli-model", tinyRoberta}
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

// TestScoreResumePruning: an output is resumed only with the pruning it
// was written with; lines written before pruning existed asked every pair.
func TestScoreResumePruning(t *testing.T) {
	input := scaleInput(t)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	if _, _, err := run(t, context.Background(), "score", "--nli", "lexical", "--pairs-per-atom", "2", "-o", out, input); err != nil {
		t.Fatal(err)
	}
	full, _ := os.ReadFile(out)
	first := full[:bytes.IndexByte(full, '\n')+1]
	old := bytes.Replace(first, []byte(`,"pairs_per_atom":"2"`), nil, 1)
	if bytes.Equal(old, first) {
		t.Fatal("no pairs_per_atom in the output line")
	}
	tests := []struct {
		name    string
		content []byte
		setting string
		want    string
	}{
		{"same", first, "2", ""},
		{"other K", first, "3", `:1: field "pairs_per_atom" is "2" there but "3" in this run (--pairs-per-atom)`},
		{"all", first, "all", `:1: field "pairs_per_atom" is "2" there but "all" in this run`},
		{"before pruning, all", old, "all", ""},
		{"before pruning, default", old, "5", `:1: field "pairs_per_atom" is "all" there but "5" in this run`},
	}
	for _, tc := range tests {
		path := filepath.Join(t.TempDir(), "out.jsonl")
		os.WriteFile(path, tc.content, 0o644)
		_, _, err := run(t, context.Background(), "score", "--nli", "lexical", "--pairs-per-atom", tc.setting, "-o", path, input)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), path+tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, bad := range []string{"0", "-3", "some"} {
		if _, _, err := run(t, context.Background(), "score", "--nli", "lexical", "--pairs-per-atom", bad, input); exitStatus(err) != 2 {
			t.Errorf("--pairs-per-atom %s: %v (exit %d), want a usage error", bad, err, exitStatus(err))
		}
	}
	for _, bad := range [][]string{{"--jobs", "0"}, {"--jobs", "many"}, {"--jobs", "100000000000000"}, {"--shard", "3/3"}, {"--shard", "1"}} {
		if _, _, err := run(t, context.Background(), append(append([]string{"score", "--nli", "lexical"}, bad...), input)...); exitStatus(err) != 2 {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
}

// TestScoreJobsParts: the parts a run shares between the records in
// flight, used at once: the llm client with its answer cache and the NLI
// cache, the sentence atomizer, the knowledge base's BM25 retriever with
// its retrieval cache, and the onnx backend. --jobs 4 writes what --jobs 1
// writes. Under the race detector (scripts/test) this is the check that
// they are safe for concurrent use.
func TestScoreJobsParts(t *testing.T) {
	srv := fakellm.New(t, nliJudge)
	kb := filepath.Join(t.TempDir(), "kb.db")
	ctx := context.Background()
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, flahertyDocs(t)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 8 {
		switch i % 3 {
		case 0: // atoms, no contexts: retrieved
			b.WriteString(bornRecord)
		case 1: // no atoms: the sentence atomizer
			b.WriteString(rawRecord + "\n")
		default: // atoms and contexts
			b.WriteString(record(i, nil) + "\n")
		}
	}
	input := writeFile(t, "in.jsonl", b.String())
	backends := [][]string{
		{"--nli", "llm", "--llm-base-url", srv.BaseURL(), "--llm-model", "judge"},
		{"--nli", "lexical"},
	}
	if _, err := os.Stat(filepath.Join(tinyRoberta, "model.onnx")); err == nil {
		backends = append(backends, []string{"--nli", "onnx", "--nli-model", tinyRoberta})
	}
	for _, backend := range backends {
		dir := t.TempDir()
		var want string
		for _, jobs := range []string{"1", "4"} {
			// Fresh caches each time, so that both runs fill them.
			sub := filepath.Join(dir, jobs)
			os.Mkdir(sub, 0o755)
			args := append(append([]string{"score", "--version", "3", "--jobs", jobs, "--atomizer", "sentences", "--db", kb,
				"--cache", filepath.Join(sub, "nli.sqlite"), "--llm-cache", filepath.Join(sub, "llm.sqlite"),
				"--retrieval-cache", filepath.Join(sub, "retrieval.sqlite")}, backend...), input)
			out, stderr, err := run(t, ctx, args...)
			if err != nil {
				t.Fatalf("%s --jobs %s: %v\n%s", backend[1], jobs, err, stderr)
			}
			if jobs == "1" {
				want = out
				if n := strings.Count(out, "\n"); n != 8 {
					t.Fatalf("%s: %d lines", backend[1], n)
				}
			} else if out != want {
				t.Errorf("%s: --jobs %s output differs from --jobs 1", backend[1], jobs)
			}
		}
	}
}
