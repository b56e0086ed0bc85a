package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// runStdin runs the command line with stdin as standard input, as main
// does (execute: messages redacted, spooled inputs named).
func runStdin(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errw bytes.Buffer
	app := newApp()
	app.Reader, app.Writer, app.ErrWriter = strings.NewReader(stdin), &out, &errw
	err := execute(context.Background(), app, append([]string{"fr"}, args...))
	return out.String(), errw.String(), err
}

// TestExitStatus: 0 for success, 2 for a mistake in the command line (an
// unknown flag, a bad value, flags after the input, missing arguments), 1
// for work that fails; a usage mistake prints nothing on stdout.
func TestExitStatus(t *testing.T) {
	example := "../../testdata/example.jsonl"
	tests := []struct {
		args   []string
		status int
		msg    string
	}{
		{[]string{"score", "--nli", "given", example}, exitOK, ""},
		{[]string{"score", "--nope", example}, exitUsage, "flag provided but not defined: -nope"},
		{[]string{"score", example, "--version", "3"}, exitUsage, "put flags before"},
		{[]string{"score", "--k", "many", example}, exitUsage, "--k"},
		{[]string{"score", "--version", "9", example}, exitUsage, "--version"},
		{[]string{"score", "--nli", "oracle", example}, exitUsage, "--nli: unknown backend"},
		{[]string{"score", "--atom-prior", "1.5", example}, exitUsage, "atom prior"},
		{[]string{"score"}, exitUsage, "want exactly one INPUT"},
		{[]string{"compare", "--format", "xml", example}, exitUsage, "--format"},
		{[]string{"factscore", "--verifier", "oracle", example}, exitUsage, "--verifier"},
		{[]string{"score", "--nli", "llm", "--llm-model", "m", "--llm-reask", "-1", example}, exitUsage, "--llm-reask"},
		{[]string{"score", "--nli", "llm", "--llm-model", "m", "--llm-base-url", "ftp://x", example}, exitUsage, "--llm-base-url"},
		{[]string{"score", "--nli", "llm", "--llm-model", "m", "--llm-concurrency", "-1", example}, exitUsage, "--llm-concurrency"},
		{[]string{"score", "--nli", "llm", "--llm-model", "m", "--llm-timeout", "-1s", example}, exitUsage, "--llm-timeout"},
		{[]string{"score", "no-such-file.jsonl"}, exitFailure, "no such file"},
		{[]string{"bogus"}, exitUsage, `unknown command "bogus"`},
		{[]string{"report"}, exitUsage, "give at least one output file"},
		{[]string{"report", "--layout", "svg", example}, exitUsage, "--layout: unknown layout"},
		{[]string{"report", "--excerpt", "0", example}, exitUsage, "--excerpt 0"},
		{[]string{"kb", "bogus"}, exitUsage, `unknown command "bogus" (see fr kb --help)`},
		{[]string{"models", "list", "extra"}, exitUsage, `models list: takes no arguments, got "extra"`},
		{[]string{"score", "--nli", "llm", "--llm-model", "m", "--llm-base-url", "http://127.0.0.1:1/v1", "--llm-retries", "0", "--llm-cache", "off", example}, exitFailure, "127.0.0.1:1"},
	}
	for _, tc := range tests {
		out, _, err := run(t, context.Background(), tc.args...)
		if got := exitStatus(err); got != tc.status || (err != nil && !strings.Contains(err.Error(), tc.msg)) {
			t.Errorf("%v: status %d (%v), want %d and %q", tc.args, got, err, tc.status, tc.msg)
		}
		if tc.status == exitUsage && out != "" {
			t.Errorf("%v: a usage error wrote to stdout:\n%s", tc.args, out)
		}
	}
}

// TestHelpAndVersion: fr --version prints the program's version (the
// commands' --version is the graph version); fr help score is fr score
// --help.
func TestHelpAndVersion(t *testing.T) {
	out, _, err := run(t, context.Background(), "--version")
	if err != nil || !strings.HasPrefix(out, "fr version ") {
		t.Errorf("fr --version: %q, %v", out, err)
	}
	help, _, err := run(t, context.Background(), "help", "score")
	if err != nil || !strings.Contains(help, "fr score [command options]") || !strings.Contains(help, "--output-inputs") {
		t.Errorf("fr help score (%v):\n%s", err, help)
	}
	flagHelp, _, _ := run(t, context.Background(), "score", "--help")
	if flagHelp != help {
		t.Error("fr help score differs from fr score --help")
	}
}

// TestStdin: "-" reads the input from standard input, for the commands
// that read it more than once too (K median, a resumed output).
func TestStdin(t *testing.T) {
	data, err := os.ReadFile("../../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := run(t, context.Background(), "score", "--nli", "lexical", "--k", "median", "../../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := runStdin(t, string(data), "score", "--nli", "lexical", "--k", "median", "-")
	if err != nil || got != want {
		t.Errorf("score - (%v):\n%s\nwant\n%s", err, got, want)
	}
	// Messages name standard input as stdin, not the temporary copy read.
	_, _, err = runStdin(t, "{broken\n", "score", "--nli", "lexical", "-")
	if err == nil || !strings.HasPrefix(err.Error(), "stdin:1: invalid JSON") {
		t.Errorf("broken stdin: %v", err)
	}
	bad := `{"input": "q", "output": "r", "atoms": [{"id": "a0", "text": "x", "contexts": ["c9"]}], "contexts": []}` + "\n"
	_, stderr, err := runStdin(t, "\n"+bad+bad, "score", "--nli", "lexical", "--skip-invalid", "-")
	if err != nil || !strings.Contains(stderr, "stdin:2: atoms[0].contexts[0]: unknown context id") || strings.Contains(stderr, os.TempDir()) {
		t.Errorf("invalid records of stdin skipped (%v):\n%s", err, stderr)
	}
	cmp, _, err := runStdin(t, string(data), "compare", "--nli", "lexical", "--format", "csv", "-")
	if err != nil || strings.Count(cmp, "\n") != 4 {
		t.Errorf("compare - (%v):\n%s", err, cmp)
	}
}

// TestOutputFlag: -o of the commands that write a new file refuses to
// replace an existing file without --force; a device is written as it is.
func TestOutputFlag(t *testing.T) {
	in := "../../testdata/example.jsonl"
	out := writeFile(t, "out.jsonl", "precious\n")
	ctx := context.Background()
	_, _, err := run(t, ctx, "atomize", "--atomizer", "sentences", "-o", out, in)
	if exitStatus(err) != exitUsage || !strings.Contains(err.Error(), "--force") {
		t.Errorf("existing -o: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "precious\n" {
		t.Errorf("the existing file was changed: %q", b)
	}
	if _, _, err := run(t, ctx, "atomize", "--atomizer", "sentences", "--force", "-o", out, in); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); strings.Count(string(b), "\n") != 3 {
		t.Errorf("--force wrote %q", b)
	}
	if _, _, err := run(t, ctx, "atomize", "--atomizer", "sentences", "-o", os.DevNull, in); err != nil {
		t.Errorf("-o %s: %v", os.DevNull, err)
	}
	if _, _, err := run(t, ctx, "score", "--nli", "lexical", "-o", os.DevNull, in); err != nil {
		t.Errorf("score -o %s: %v", os.DevNull, err)
	}
}

// TestStdinEveryCommand (issue 15: "-" reads standard input wherever a
// command takes an input file): fr merge, fr report (its runs and --input)
// and fr uai solve (the model and --evidence) read "-" as fr score does;
// "-" twice is a usage error, since standard input can be read once.
func TestStdinEveryCommand(t *testing.T) {
	ctx := context.Background()
	scored, _, err := run(t, ctx, "score", "--nli", "lexical", "../../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := runStdin(t, scored, "merge", "-"); err != nil || got != scored {
		t.Errorf("merge - (%v):\n%s", err, got)
	}
	_, _, err = runStdin(t, scored, "merge", "-", "-")
	if exitStatus(err) != exitUsage || !strings.Contains(err.Error(), "more than once") {
		t.Errorf("merge - -: %v", err)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, err := runStdin(t, scored, "report", "--layout", "built-in", "-o", html, "-"); err != nil || !strings.Contains(stderr, "3 responses") {
		t.Errorf("report - (%v):\n%s", err, stderr)
	}
	model := refdata.Path(t, "merlin-vectors", "models", "fr_tiny3.uai")
	data, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := run(t, ctx, "uai", "solve", model)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := runStdin(t, string(data), "uai", "solve", "-"); err != nil || got != want {
		t.Errorf("uai solve - (%v):\n%s\nwant\n%s", err, got, want)
	}
	evid := refdata.Path(t, "merlin-vectors", "models", "fr_tiny3_c0true.evid")
	ev, err := os.ReadFile(evid)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err = run(t, ctx, "uai", "solve", "--evidence", evid, model)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := runStdin(t, string(ev), "uai", "solve", "--evidence", "-", model); err != nil || got != want {
		t.Errorf("uai solve --evidence - (%v):\n%s\nwant\n%s", err, got, want)
	}
}

// TestUsageStatusEveryCommand: fr report and fr kb build report mistakes in
// the command line, an existing -o file among them, with exit status 2, as
// the other commands do.
func TestUsageStatusEveryCommand(t *testing.T) {
	ctx := context.Background()
	scored := writeFile(t, "scored.jsonl", "")
	exists := writeFile(t, "exists.html", "precious\n")
	docs := writeFile(t, "docs.jsonl", `{"title": "A", "text": "a b c"}`+"\n")
	for _, args := range [][]string{
		{"report"},
		{"report", "--layout", "circles", scored},
		{"report", "--excerpt", "0", scored},
		{"report", scored, "--title", "x"},
		{"report", "-o", exists, scored},
		{"kb", "build", "-o", exists, docs},
	} {
		_, _, err := run(t, ctx, args...)
		if exitStatus(err) != exitUsage {
			t.Errorf("%v: status %d (%v), want %d", args, exitStatus(err), err, exitUsage)
		}
	}
	if b, _ := os.ReadFile(exists); string(b) != "precious\n" {
		t.Errorf("an existing -o file was changed: %q", b)
	}
}

// TestPipes (issue 32): an input given as a pipe, as a shell passes
// `cat x | fr score /dev/stdin`, a process substitution (/dev/fd/N) or a
// named pipe, is read as "-" is: once, whole, though the commands read
// their input more than once.
func TestPipes(t *testing.T) {
	ctx := context.Background()
	example := "../../testdata/example.jsonl"
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := run(t, ctx, "score", "--nli", "lexical", "--k", "median", example)
	if err != nil {
		t.Fatal(err)
	}
	feed := func(w io.WriteCloser) {
		w.Write(data)
		w.Close()
	}
	// An anonymous pipe by its /dev/fd name: /dev/stdin and <(...) are these.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go feed(w)
	got, _, err := run(t, ctx, "score", "--nli", "lexical", "--k", "median", fmt.Sprintf("/dev/fd/%d", r.Fd()))
	if err != nil || got != want {
		t.Errorf("score /dev/fd/N (%v):\n%s\nwant\n%s", err, got, want)
	}
	// /dev/stdin of a whole process fed by a pipe, as `cat x | fr score
	// /dev/stdin` runs, into an -o file (K the median, and the output
	// file checked against the input: it is read for each).
	out := filepath.Join(t.TempDir(), "out.jsonl")
	child := exec.Command(os.Args[0], "score", "--nli", "lexical", "--k", "median", "-o", out, "/dev/stdin")
	child.Env = append(os.Environ(), childEnv+"=1", "FACTREASONER_CACHE="+t.TempDir())
	child.Stdin = bytes.NewReader(data) // a pipe
	stderr, err := child.CombinedOutput()
	if got, _ := os.ReadFile(out); err != nil || string(got) != want {
		t.Errorf("score /dev/stdin in a pipeline (%v):\n%s\nwant\n%s\n%s", err, got, want, stderr)
	}
	// A named pipe.
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			feed(f)
		}
	}()
	got, _, err = run(t, ctx, "compare", "--nli", "lexical", "--format", "csv", fifo)
	if err != nil || strings.Count(got, "\n") != 4 {
		t.Errorf("compare FIFO (%v):\n%s", err, got)
	}
}

// TestScoreResponse (issue 32): fr score --query Q --response R --topic T
// scores that one answer with the same flags as a file holding it: the
// same line on stdout; its atoms with their P(true) on stderr. --query or
// --topic without --response, or with an INPUT file too, is a usage error.
func TestScoreResponse(t *testing.T) {
	ctx := context.Background()
	kb := filepath.Join(t.TempDir(), "kb.db")
	doc := writeTemp(t, "Marie Curie.txt", "Marie Curie was a Polish and naturalised-French physicist and chemist.\n\nShe was the first person to win two Nobel Prizes.\n")
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, doc); err != nil {
		t.Fatal(err)
	}
	const q, r, topic = "Who was Marie Curie?", "Marie Curie was a Polish physicist. She won two Nobel Prizes.", "Marie Curie"
	flags := []string{"score", "--atomizer", "sentences", "--nli", "lexical", "--db", kb, "--retrieval-cache", "off"}
	rec, _ := json.Marshal(map[string]string{"input": q, "output": r, "topic": topic})
	want, _, err := run(t, ctx, append(flags, writeFile(t, "one.jsonl", string(rec)+"\n"))...)
	if err != nil {
		t.Fatal(err)
	}
	got, stderr, err := run(t, ctx, append(flags, "--query", q, "--response", r, "--topic", topic)...)
	if err != nil || got != want {
		t.Fatalf("--response (%v):\n%s\nwant the line of the file\n%s", err, got, want)
	}
	for _, s := range []string{"1 response, mean Pr 0.5000", "a0   P(true) 0.8600 S  Marie Curie was a Polish physicist.", "a1   P(true) 0.5000 NS She won two Nobel Prizes."} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	for _, args := range [][]string{
		{"score", "--query", q, "--topic", topic},
		{"score", "--response", r, "../../testdata/example.jsonl"},
	} {
		if out, _, err := run(t, ctx, args...); exitStatus(err) != exitUsage || out != "" {
			t.Errorf("%v: %v (status %d), stdout %q", args, err, exitStatus(err), out)
		}
	}
}

// TestFailedRunLeavesNoFile (issue 30): a command whose run fails before
// its first line (its first record is invalid) leaves no empty -o file
// behind, nor --dot file; a file that held lines before (fr score
// resuming) keeps them, and a run that fails after its first line keeps
// what it wrote.
func TestFailedRunLeavesNoFile(t *testing.T) {
	ctx := context.Background()
	example, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	badFirst := writeFile(t, "bad-first.jsonl", "{\"input\": \"Q\", \"output\": \n"+string(example))
	badLabeled := writeFile(t, "bad-first-labeled.jsonl", "{\"input\": \"Q\", \"annotations\": 7}\n")
	badModel := writeFile(t, "bad.uai", "MARKOV\n1\nx\n")
	kb := filepath.Join(t.TempDir(), "kb.db")
	if _, stderr, err := run(t, ctx, "kb", "build", "-o", kb, writeFile(t, "Ruth Adair.txt", "Ruth Adair was born in Tulsa.")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, tc := range []struct {
		args []string // OUT is the file that must not be left behind
		in   string
	}{
		{[]string{"score", "--nli", "given", "-o", "OUT"}, badFirst},
		{[]string{"score", "--nli", "lexical", "--jobs", "3", "-o", "OUT"}, badFirst},
		{[]string{"atomize", "--atomizer", "sentences", "-o", "OUT"}, badFirst},
		{[]string{"compare", "--nli", "given", "-o", "OUT"}, badFirst},
		{[]string{"inspect", "-o", "OUT"}, badFirst},
		{[]string{"inspect", "--dot", "OUT"}, badFirst},
		{[]string{"factscore", "--gold", "-o", "OUT"}, badFirst},
		{[]string{"retrieve", "--db", kb, "-o", "OUT"}, badFirst},
		{[]string{"convert", "factscore", "-o", "OUT"}, badLabeled},
		{[]string{"uai", "solve", "-o", "OUT"}, badModel},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append(slices.Clone(tc.args), tc.in)
			for i, a := range args {
				if a == "OUT" {
					args[i] = out
				}
			}
			_, stderr, err := run(t, ctx, args...)
			if exitStatus(err) != exitFailure {
				t.Fatalf("exit status %d (%v), want %d\n%s", exitStatus(err), err, exitFailure, stderr)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the failed run left %s behind (%v)", out, err)
			}
		})
	}

	// fr score resuming a file of lines, and failing at once: the file
	// keeps them; failing after a first line: what it wrote stays.
	out := filepath.Join(t.TempDir(), "scored.jsonl")
	if _, stderr, err := run(t, ctx, "score", "--nli", "given", "-o", out, exampleFile); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	before, _ := os.ReadFile(out)
	if _, _, err := run(t, ctx, "score", "--nli", "given", "-o", out, writeFile(t, "more.jsonl", string(example)+"{\"input\": \"Q\", \"output\": \n")); err == nil {
		t.Fatal("a broken fourth line: no error")
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(after, before) {
		t.Errorf("resuming and failing changed the output:\n%s\nwas\n%s", after, before)
	}
	badSecond := writeFile(t, "bad-second.jsonl", strings.SplitAfter(string(example), "\n")[0]+"{\"input\": \"Q\", \"output\": \n")
	out = filepath.Join(t.TempDir(), "first.jsonl")
	if _, _, err := run(t, ctx, "score", "--nli", "given", "-o", out, badSecond); err == nil {
		t.Fatal("a broken second line: no error")
	}
	if lines := outputLines(t, out); len(lines) != 1 {
		t.Errorf("the run that failed after its first line left %d lines, want 1", len(lines))
	}
}
