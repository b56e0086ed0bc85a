package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// maxHostileRSS bounds the peak memory of a command given an input it
// cannot use: a few times the largest cap on what is held of one line
// (jsonl.MaxOutputLineBytes, 256 MiB), whatever the input's size. Before
// the caps were applied everywhere, a 2 GiB line cost up to 4.3 GB and
// /dev/zero ran some commands out of memory (BENCHMARKS.md, "Hostile
// inputs").
const maxHostileRSS = 1 << 30

// TestHostileInputs: every command given, as its input file, a
// directory, a device that never ends (/dev/zero), a missing file, random
// bytes or a 2 GiB line (a sparse file: no disk) ends with an error on
// stderr that names the file and says what is wrong, exit status 1,
// within bounded memory: no hang (a 2 GiB line is not read whole before
// it is refused), no crash; what is no file to read is refused in one
// line, before a run begins (no summary of a run that never was).
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	random := make([]byte, 1<<20)
	rand.Read(random)
	longLine := write("line2g.jsonl", []byte(`{"input": "Q", "output": "`))
	if err := os.Truncate(longLine, 2<<30); err != nil {
		t.Skipf("no sparse 2 GiB file here: %v", err)
	}
	inputs := map[string]string{
		"a directory":  t.TempDir(),
		"/dev/zero":    "/dev/zero",
		"missing":      filepath.Join(dir, "missing.jsonl"),
		"random":       write("random.bin", random),
		"a 2 GiB line": longLine,
	}
	run := filepath.Join("..", "..", "testdata", "report", "example.fr2.jsonl")
	model := write("m.uai", []byte("MARKOV\n1\n2\n1\n1 0\n2\n0.5 0.5\n"))
	kb := filepath.Join(dir, "kb.db")
	if _, stderr, err := runChild(t, nil, "kb", "build", "-o", kb, write("Ruth Adair.txt", []byte("Ruth Adair was born in Tulsa."))); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	commands := [][]string{
		{"score", "IN"},
		{"score", "--nli", "given", "--skip-invalid", "IN"},
		{"compare", "IN"},
		{"compare", "--skip-invalid", "IN"},
		{"inspect", "IN"},
		{"report", "IN"},
		{"report", "--input", "IN", run},
		{"merge", "IN"},
		{"merge", "--input", "IN", run},
		{"uai", "solve", "IN"},
		{"uai", "solve", "--evidence", "IN", model},
		{"kb", "build", "-o", filepath.Join(dir, "out.db"), "--force", "IN"},
		{"convert", "factscore", "IN"},
		{"factscore", "--gold", "IN"},
		{"veriscore", "--verifier", "nli", "--nli", "given", "--atomizer", "sentences", "IN"},
		{"factverify", "--verifier", "nli", "--nli", "given", "--atomizer", "sentences", "IN"},
		{"atomize", "--atomizer", "sentences", "IN"},
		{"retrieve", "--db", kb, "IN"},
		{"models", "tokenize", "--nli-model", tinyRoberta, "IN"},
	}
	for name, in := range inputs {
		for _, cmd := range commands {
			args := make([]string, len(cmd))
			for i, a := range cmd {
				args[i] = strings.ReplaceAll(a, "IN", in)
			}
			t.Run(name+": "+strings.Join(cmd, " "), func(t *testing.T) {
				t.Parallel()
				child := exec.Command(os.Args[0], args...)
				child.Env = append(os.Environ(), childEnv+"=1", "FACTREASONER_CACHE="+t.TempDir())
				var stderr bytes.Buffer
				child.Stderr = &stderr
				err := child.Run()
				lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
				last := lines[len(lines)-1]
				if code := child.ProcessState.ExitCode(); code != 1 {
					t.Fatalf("exit status %d (%v), want 1:\n%s", code, err, stderr.String())
				}
				if name == "a directory" && cmd[0] == "kb" {
					// A directory of documents, without any.
					if !strings.Contains(last, "no document has any text") {
						t.Errorf("stderr:\n%s", stderr.String())
					}
					return
				}
				// What is not a file to read is refused before any work,
				// and a run's summary (what it did of a file it began
				// reading) does not come before the error.
				refused := name == "a directory" || name == "/dev/zero" || name == "missing"
				if !strings.HasPrefix(last, "fr: ") || !strings.Contains(last, in) || refused && len(lines) != 1 {
					t.Errorf("want an error naming %s, got:\n%s", in, stderr.String())
				}
				if rss := child.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10; rss > maxHostileRSS {
					t.Errorf("peak memory %d MiB, more than %d", rss>>20, maxHostileRSS>>20)
				}
			})
		}
	}
}

// TestSkipInvalidEverywhere: --skip-invalid means the same in every
// command that has it: an invalid record is reported on stderr, counted
// and skipped, the run goes on with the others and exits 0 (compare too,
// with a bad first line, where it used to drop the whole file); a file
// that is neither jsonl nor JSON is an error, exit 1, and no empty result.
func TestSkipInvalidEverywhere(t *testing.T) {
	ctx := context.Background()
	example, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	records := strings.Split(strings.TrimSpace(string(example)), "\n")
	badFirst := writeFile(t, "bad-first.jsonl", "{\"input\": \"Q\", \"output\": \n"+strings.Join(records, "\n")+"\n")
	neither := writeFile(t, "neither.txt", "this is\nnot json\nat all\n")
	out := filepath.Join(t.TempDir(), "scored.jsonl")
	if _, stderr, err := run(t, ctx, "score", "--nli", "given", "-o", out, exampleFile); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	scored, _ := os.ReadFile(out)
	badFirstScored := writeFile(t, "bad-first-scored.jsonl", "{\"oops\n"+string(scored))
	for _, tc := range []struct {
		args []string
		want string // in stdout
	}{
		{[]string{"score", "--nli", "given"}, `"line":4`},
		{[]string{"compare", "--nli", "given"}, "| FR2 | 3 |"},
		{[]string{"factscore", "--verifier", "nli", "--nli", "given"}, `"line":4`},
		{[]string{"atomize", "--atomizer", "sentences"}, "Marie Curie"},
	} {
		args := append(append(tc.args, "--skip-invalid"), badFirst)
		stdout, stderr, err := run(t, ctx, args...)
		if err != nil || !strings.Contains(stdout, tc.want) || !strings.Contains(stderr, "bad-first.jsonl:1: invalid JSON") || !strings.Contains(stderr, "1 invalid skipped") {
			t.Errorf("%v: %v\nstdout %.300s\nstderr %s", args, err, stdout, stderr)
		}
		args = append(append(tc.args, "--skip-invalid"), neither)
		stdout, stderr, err = run(t, ctx, args...)
		if err == nil || exitStatus(err) != 1 || !strings.Contains(err.Error(), "not jsonl") || stdout != "" {
			t.Errorf("%v: %v, stdout %q\n%s", args, err, stdout, stderr)
		}
	}
	// A recorded run whose first line is broken: the other lines compared.
	stdout, stderr, err := run(t, ctx, "compare", "--skip-invalid", badFirstScored)
	if err != nil || !strings.Contains(stdout, "| FR2 | 3 |") || !strings.Contains(stderr, "1 invalid skipped") {
		t.Errorf("compare --skip-invalid of a recorded run: %v\n%s\n%s", err, stdout, stderr)
	}
	if _, _, err := run(t, ctx, "compare", badFirstScored); err == nil {
		t.Error("compare without --skip-invalid read past a broken line")
	}
}

// TestTempFilesOfKilledRuns: a run killed (kill -9) while it reads
// standard input leaves its copy of it behind, and the next run that
// reads standard input removes it; a stray temporary output of a killed
// fr report (or fr kb build) is removed by the next run that writes the
// same file, and a replaced report keeps the file's mode.
func TestTempFilesOfKilledRuns(t *testing.T) {
	tmp := t.TempDir()
	child := exec.Command(os.Args[0], "score", "--nli", "given", "-")
	child.Env = append(os.Environ(), childEnv+"=1", "TMPDIR="+tmp)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(stdin, `{"input": "Q", "output": "R"}`) // and the pipe stays open: the copy waits
	var left []string
	for range 500 { // until the copy has begun
		if left, _ = filepath.Glob(filepath.Join(tmp, "fr-stdin-*", "stdin")); len(left) > 0 {
			break
		}
		exec.Command("sleep", "0.01").Run()
	}
	child.Process.Kill() // SIGKILL
	child.Wait()
	stdin.Close()
	if len(left) != 1 {
		t.Fatalf("no copy of standard input while the run was reading it: %v", left)
	}
	if _, err := os.Stat(left[0]); err != nil {
		t.Fatalf("the killed run's copy is gone already: %v", err)
	}
	next := exec.Command(os.Args[0], "score", "--nli", "given", "-")
	next.Env = child.Env
	next.Stdin = strings.NewReader(mustRead(t, exampleFile))
	if msg, err := next.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	if now, _ := filepath.Glob(filepath.Join(tmp, "fr-stdin-*")); len(now) != 0 {
		t.Errorf("left after the next run: %v", now)
	}

	dir := t.TempDir()
	report := filepath.Join(dir, "report.html")
	run := filepath.Join("..", "..", "testdata", "report", "example.fr2.jsonl")
	stray := filepath.Join(dir, ".report.html.123456.tmp") // as a killed report leaves it
	os.WriteFile(stray, []byte("<html>half"), 0o600)
	os.WriteFile(report, []byte("old"), 0o640)
	input := filepath.Join("..", "..", "testdata", "report", "example-input.jsonl")
	if _, stderr, err := runChild(t, nil, "report", "--layout", "built-in", "--force", "--input", input, "-o", report, run); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, err := os.Stat(stray); err == nil {
		t.Error("the stray temporary report was left")
	}
	if st, _ := os.Stat(report); st.Mode().Perm() != 0o640 {
		t.Errorf("the replaced report's mode is %v, want 0640", st.Mode().Perm())
	}

	// The same for a knowledge base's staging file.
	kb := filepath.Join(dir, "kb.db")
	strayKB := filepath.Join(dir, ".kb.db.987654.tmp")
	os.WriteFile(strayKB, []byte("SQLite format 3\x00half"), 0o600)
	if _, stderr, err := runChild(t, nil, "kb", "build", "-o", kb, writeFile(t, "Ruth Adair.txt", "Ruth Adair was born in Tulsa.")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, err := os.Stat(strayKB); err == nil {
		t.Error("the stray staging file of a knowledge base was left")
	}
}

// TestControlSequencesEscaped: texts of a record that would command a
// terminal (set its title, clear the screen, turn text around) reach no
// stream raw: fr inspect shows them escaped, as does fr compare's table of
// a run named so, and a message naming such a file.
func TestControlSequencesEscaped(t *testing.T) {
	ctx := context.Background()
	const (
		title = "\x1b]0;owned\x07"
		clear = "\x1b[2J\x1b[H"
		csi   = "\u009b31m"
		bidi  = "\u202e"
	)
	rec := `{"input": "Q` + clear + `", "output": "R", "topic": "T", ` +
		`"atoms": [{"id": "a0", "text": "Marie Curie` + title + ` was born in Warsaw` + bidi + `.", "contexts": ["c0"]}], ` +
		`"contexts": [{"id": "c0", "title": "Curie` + csi + `", "text": "She was born in Warsaw` + clear + `."}], ` +
		`"relations": [{"source": "c0", "target": "a0", "type": "entailment", "probability": 0.9}]}`
	in := writeFile(t, "curie.jsonl", strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`).Replace(rec)+"\n")
	raw := func(where, s string) {
		t.Helper()
		for _, c := range []string{"\x1b", "\x07", csi[:2], bidi} {
			if strings.Contains(s, c) {
				t.Errorf("%s holds %q raw:\n%q", where, c, s)
			}
		}
	}
	out, stderr, err := run(t, ctx, "inspect", "--contexts", in)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	raw("fr inspect's output", out)
	if !strings.Contains(out, `Marie Curie\u001b]0;owned\u0007 was born in Warsaw\u202e.`) {
		t.Errorf("the atom is not shown escaped:\n%s", out)
	}
	scored := filepath.Join(t.TempDir(), "run"+title+".jsonl")
	if _, stderr, err := run(t, ctx, "score", "--nli", "given", "-o", scored, in); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	other := filepath.Join(t.TempDir(), "other.jsonl")
	if _, stderr, err := run(t, ctx, "score", "--nli", "given", "--version", "3", "-o", other, in); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, format := range []string{"markdown", "csv", "json"} {
		out, stderr, err := run(t, ctx, "compare", "--format", format, scored, other)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		raw("fr compare --format "+format, out+stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad"+title+".jsonl")
	os.WriteFile(bad, []byte("{oops\n"), 0o600)
	_, stderr, err = run(t, ctx, "score", bad)
	raw("a message naming the file", stderr+"\n"+err.Error())
}

// TestRescoreOutput: an output line is an input line: scored again with
// the default --nli auto (no model), it gives the same marginals and
// scores from the relations it records, also when they were all neutral
// (the line then records "relations": [], relations given and none).
func TestRescoreOutput(t *testing.T) {
	ctx := context.Background()
	neutral := `{"input": "Q", "output": "Ruth Adair was born in Tulsa.", "topic": "Ruth Adair", "atoms": [{"id": "a0", "text": "Ruth Adair was born in Tulsa."}], ` +
		`"contexts": [{"id": "c0", "title": "Weather", "text": "It rained heavily over the plains in April."}]}`
	example := strings.TrimSpace(mustRead(t, exampleFile))
	in := writeFile(t, "in.jsonl", neutral+"\n"+example+"\n")
	for _, version := range []string{"1", "2", "3"} {
		first := filepath.Join(t.TempDir(), "first.jsonl")
		if _, stderr, err := run(t, ctx, "score", "--version", version, "--nli", "lexical", "-o", first, in); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		if !strings.Contains(strings.SplitN(mustRead(t, first), "\n", 2)[0], `"relations":[]`) {
			t.Errorf("FR%s: the all-neutral record's line does not say it has no relations", version)
		}
		again, stderr, err := run(t, ctx, "score", "--version", version, first)
		if err != nil {
			t.Fatalf("FR%s: scoring the output again: %v\n%s", version, err, stderr)
		}
		was := outputLines(t, first)
		now := scoreLines(t, again)
		if len(now) != len(was) {
			t.Fatalf("FR%s: %d lines, then %d", version, len(was), len(now))
		}
		for i := range was {
			for _, field := range []string{"marginals", "context_marginals", "factuality_score", "f1_k", "entropy"} {
				a, _ := json.Marshal(was[i][field])
				b, _ := json.Marshal(now[i][field])
				if string(a) != string(b) {
					t.Errorf("FR%s line %d: %s %s, scored again %s", version, i+1, field, a, b)
				}
			}
			if now[i]["nli_backend"] != "given" {
				t.Errorf("FR%s line %d: scored again by %v, not from its relations", version, i+1, now[i]["nli_backend"])
			}
		}
	}
}

// TestFormatPointers: a file given to a command that does not read its
// format fails with an error that says what the file is and which
// command reads it: FActScore's labeled format to fr score (fr factscore
// --gold, fr convert factscore), an output of fr factscore to fr score
// and fr inspect (fr compare), a FactReasoner file to fr convert
// factscore (fr score).
func TestFormatPointers(t *testing.T) {
	ctx := context.Background()
	labeledAll, err := os.ReadFile(filepath.Join("..", "..", "testdata", "refdata", "factscore-labeled", "ChatGPT.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	labeled := writeFile(t, "labeled.jsonl", strings.Join(strings.SplitN(string(labeledAll), "\n", 4)[:3], "\n")+"\n")
	fsOut, stderr, err := run(t, ctx, "factscore", "--gold", labeled)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	factscoreRun := writeFile(t, "factscore.jsonl", fsOut)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"score", labeled}, "is FActScore's human-labeled format (\"annotations\"): fr factscore --gold scores its labels, and fr convert factscore"},
		{[]string{"compare", labeled}, "fr factscore --gold"},
		{[]string{"score", factscoreRun}, "is an output of fr factscore: fr compare and fr report read it"},
		{[]string{"inspect", factscoreRun}, "is an output of fr factscore"},
		{[]string{"factscore", "--gold", factscoreRun}, "is an output of fr factscore"},
		{[]string{"convert", "factscore", exampleFile}, "is a FactReasoner file: fr score"},
	} {
		_, stderr, err := run(t, ctx, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a pointer %q\n%s", tc.args, err, tc.want, stderr)
		}
	}
	// The commands that read a format say nothing more about it.
	if _, _, err := run(t, ctx, "score", "--nli", "given", writeFile(t, "bad.jsonl", "{\"input\": \"Q\", \"output\": \"\"}\n")); err == nil || strings.Contains(err.Error(), " is a") {
		t.Errorf("an invalid FactReasoner record: %v", err)
	}
}

// TestCompareWarnsDifferentRecords: fr compare sets recorded runs side
// by side, but says so when they answer different questions on the same
// input line (fr report refuses such runs), or hold results of different
// lines; runs of the same input get no warning.
func TestCompareWarnsDifferentRecords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	score := func(name, input string, args ...string) string {
		out := filepath.Join(dir, name)
		if _, stderr, err := run(t, ctx, append(append([]string{"score", "--nli", "given", "-o", out}, args...), input)...); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		return out
	}
	fr2 := score("fr2.jsonl", exampleFile)
	fr3 := score("fr3.jsonl", exampleFile, "--version", "3")
	lines := strings.SplitN(mustRead(t, exampleFile), "\n", 3)
	other := writeFile(t, "other.jsonl", strings.Replace(lines[0], "Marie Curie.", "Pierre Curie.", 1)+"\n"+lines[1]+"\n")
	fr3other := score("fr3-other.jsonl", other, "--version", "3")
	if _, stderr, err := run(t, ctx, "compare", fr2, fr3); err != nil || strings.Contains(stderr, "warning") {
		t.Errorf("runs of the same input: %v\n%s", err, stderr)
	}
	out, stderr, err := run(t, ctx, "compare", fr2, fr3other)
	if err != nil || !strings.Contains(out, "| FR3 | 2 |") {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	for _, want := range []string{
		"warning: the runs answer different questions on 1 input lines, first " + fr2 + ":1 and " + fr3other + ":1 (input line 1: question \"Question: Tell me a bio of Marie Curie.\" and \"Question: Tell me a bio of Pierre Curie.\")",
		"warning: " + fr2 + " has results for 3 input lines and " + fr3other + " for 2, 2 of them the same",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestCacheRefusalsAlike: a file that is not a cache of its kind (here a
// knowledge base) given to --cache, --llm-cache or --retrieval-cache is
// refused alike: a usage error (exit status 2) naming the flag, the file
// left as it was.
func TestCacheRefusalsAlike(t *testing.T) {
	ctx := context.Background()
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	kb := filepath.Join(t.TempDir(), "kb.db")
	if _, stderr, err := run(t, ctx, "kb", "build", "-o", kb, writeFile(t, "Ruth Adair.txt", "Ruth Adair was born in Tulsa.")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	before := mustRead(t, kb)
	for _, args := range [][]string{
		{"score", "--nli", "lexical", "--cache", kb, exampleFile},
		{"atomize", "--atomizer", "llm", "--llm-model", "m", "--llm-base-url", "http://" + closedPort(t) + "/v1", "--llm-cache", kb, exampleFile},
		{"retrieve", "--db", kb, "--retrieval-cache", kb, exampleFile},
	} {
		flag := args[len(args)-3]
		_, _, err := run(t, ctx, args...)
		if err == nil || exitStatus(err) != exitUsage || !strings.HasPrefix(err.Error(), flag+": ") || !strings.Contains(err.Error(), "not a factreasoner-go cache") {
			t.Errorf("%s: exit %d: %v", flag, exitStatus(err), err)
		}
	}
	if mustRead(t, kb) != before {
		t.Error("the knowledge base was changed")
	}
}
