package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
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
	// The two Flaherty records: each atom's own contexts and 3 others,
	// and context pairs.
	lines := strings.Split(strings.TrimSpace(want), "\n")
	def := strconv.Itoa(assess.DefaultPairsPerAtom)
	if len(lines) != 12 || !regexp.MustCompile(`"nli_pairs":\d+,"nli_pairs_own":\d+,"nli_pairs_other":[1-9]\d*,"nli_pairs_pruned":[1-9]\d*,"pairs_per_atom":"own\+`+def+`"`).MatchString(lines[4]) {
		t.Fatalf("%d lines; line 5: %.300s", len(lines), lines[4])
	}
	m := regexp.MustCompile(`; (\d+) NLI pairs asked \((\d+) own, (\d+) added by similarity\), (\d+) pruned \(--pairs-per-atom own\+` + def + `\)`).FindStringSubmatch(stderr)
	if m == nil || m[4] == "0" || atoi(m[1]) != atoi(m[2])+atoi(m[3]) {
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
	if err == nil || !strings.Contains(err.Error(), "is an input of the command") {
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
	old := bytes.Replace(first, []byte(`,"pairs_per_atom":"own+2"`), nil, 1)
	if bytes.Equal(old, first) {
		t.Fatal("no pairs_per_atom in the output line")
	}
	// Before each atom's own contexts were always asked, K was the most
	// contexts asked per atom: such a line is another run's.
	def := strconv.Itoa(assess.DefaultPairsPerAtom)
	topK := bytes.Replace(first, []byte(`,"pairs_per_atom":"own+2"`), []byte(`,"pairs_per_atom":"2"`), 1)
	tests := []struct {
		name    string
		content []byte
		setting string
		want    string
	}{
		{"same", first, "2", ""},
		{"same, written out", first, "own+2", ""},
		{"other K", first, "3", `:1: field "pairs_per_atom" is "own+2" there but "own+3" in this run (--pairs-per-atom)`},
		{"all", first, "all", `:1: field "pairs_per_atom" is "own+2" there but "all" in this run`},
		{"own only", first, "0", `:1: field "pairs_per_atom" is "own+2" there but "own" in this run`},
		{"before pruning, all", old, "all", ""},
		{"before pruning, default", old, def, `:1: field "pairs_per_atom" is "all" there but "own+` + def + `" in this run`},
		{"the best K of all contexts", topK, "2", `:1: field "pairs_per_atom" is "2" there but "own+2" in this run`},
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
	for _, bad := range []string{"-3", "some", "own+x", "own-1"} {
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
	srv := llmtest.New(t, nliJudge)
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
		{"--nli", "llm", "--llm-base-url", srv.BaseURL(), "--llm-model", "judge", "--llm-cache", "LLMCACHE"},
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
				"--cache", filepath.Join(sub, "nli.sqlite"), "--retrieval-cache", filepath.Join(sub, "retrieval.sqlite")}, backend...), input)
			if i := slices.Index(args, "LLMCACHE"); i >= 0 { // the LLM's cache, where there is an LLM
				args[i] = filepath.Join(sub, "llm.sqlite")
			}
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

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// TestMergeDiskFull: fr merge that cannot write its whole output (a file
// size limit, as a full disk) fails and leaves no partial output: an
// existing -o file keeps its content, a new one is not created, and no
// temporary file is left.
func TestMergeDiskFull(t *testing.T) {
	input := scaleInput(t)
	dir := t.TempDir()
	var shards []string
	size := 0
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i))
		if _, stderr, err := run(t, context.Background(), "score", "--nli", "lexical", "--shard", fmt.Sprintf("%d/2", i), "-o", out, input); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		st, _ := os.Stat(out)
		size += int(st.Size())
		shards = append(shards, out)
	}
	existing := filepath.Join(dir, "merged.jsonl")
	if err := os.WriteFile(existing, []byte("the previous output\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh.jsonl")
	for _, out := range []string{existing, fresh} {
		cmd := exec.Command(os.Args[0], append([]string{"merge", "-o", out, "--force"}, shards...)...)
		cmd.Env = append(os.Environ(), childEnv+"=1", fmt.Sprintf("FR_TEST_FSIZE=%d", size/2))
		msg, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("merge into %s with room for half of it succeeded:\n%s", out, msg)
		}
		got, err := os.ReadFile(out)
		switch {
		case out == existing && string(got) != "the previous output\n":
			t.Errorf("the existing output became %d bytes (%v)\n%s", len(got), err, msg)
		case out == fresh && err == nil:
			t.Errorf("a partial output of %d bytes was left\n%s", len(got), msg)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
