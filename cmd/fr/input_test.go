package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/jsonl"
)

// record returns a valid one-line record about subject n, with an edit
// applied to its JSON text.
func record(n int, edit func(string) string) string {
	s := `{"input": "Q?", "output": "Response NUM.", "topic": "T", ` +
		`"atoms": [{"id": "a0", "text": "Atom NUM zero.", "label": "S", "contexts": ["c_a0_0"]}, {"id": "a1", "text": "Atom NUM one.", "contexts": ["c_a0_0", "c_a1_0"]}], ` +
		`"contexts": [{"id": "c_a0_0", "title": "T", "text": "Evidence NUM."}, {"id": "c_a1_0", "title": "U", "text": "More evidence NUM."}], ` +
		`"relations": [{"source": "c_a0_0", "target": "a0", "type": "entailment", "probability": 0.9}, {"source": "c_a1_0", "target": "a1", "type": "contradiction", "probability": 0.7}]}`
	s = strings.ReplaceAll(s, "NUM", string(rune('A'+n)))
	if edit != nil {
		s = edit(s)
	}
	return s
}

func replace(old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			panic("fixture edit does not apply: " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBadInput: each kind of bad record gives an error naming file:line and
// field; what was written before stays valid; --skip-invalid goes on.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		bad  string // line 2 of the file
		want string // after "file:2: "
	}{
		{"malformed JSON", `{"input": "Q?", "output": `, "invalid JSON"},
		{"unknown context id", record(1, replace(`"contexts": ["c_a0_0", "c_a1_0"]`, `"contexts": ["c_a0_0", "c_zz"]`)), `atoms[1].contexts[1]: unknown context id "c_zz"`},
		{"duplicate atom id", record(1, replace(`"id": "a1"`, `"id": "a0"`)), `atoms[1].id: duplicate id "a0"`},
		{"duplicate context id", record(1, replace(`"id": "c_a1_0"`, `"id": "c_a0_0"`)), `contexts[1].id: duplicate id "c_a0_0"`},
		{"atom without text", record(1, replace(`"text": "Atom B zero.", `, ``)), `atoms[0].text: atom "a0" has no text`},
		{"context prior out of range", record(1, replace(`"text": "Evidence B."`, `"text": "Evidence B.", "probability": 1.2`)), `contexts[0].probability: probability 1.2 is not in [0, 1]`},
		{"context prior NaN", record(1, replace(`"text": "More evidence B."`, `"text": "More evidence B.", "probability": NaN`)), `contexts[1].probability: probability NaN is not in [0, 1]`},
		{"NaN probability", record(1, replace(`"probability": 0.9`, `"probability": NaN`)), "relations[0].probability: probability NaN is not in [0, 1]"},
		{"probability out of range", record(1, replace(`"probability": 0.7`, `"probability": 1.5`)), "relations[1].probability: probability 1.5 is not in [0, 1]"},
		{"unknown relation type", record(1, replace(`"type": "entailment"`, `"type": "supports"`)), `relations[0].type: unknown relation type "supports"`},
		{"relation to unknown id", record(1, replace(`"target": "a0"`, `"target": "a7"`)), `relations[0].target: target "a7" is not an atom or context id`},
		{"empty response without atoms", `{"input": "Q?", "output": "  "}`, "output: empty response, and no atoms given"},
		{"wrong type", record(1, replace(`"label": "S"`, `"label": 1`)), "atoms[0].label: expected string, got JSON number"},
		{"wrong type in a list", record(1, replace(`["c_a0_0", "c_a1_0"]`, `["c_a0_0", 7]`)), "atoms[1].contexts[1]: expected string, got JSON number"},
		{"not an object", `[1, 2]`, "the line is not a JSON object but an array"},
		{"a string", `"x"`, "the line is not a JSON object but a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "in.jsonl", record(0, nil)+"\n"+tc.bad+"\n"+record(2, nil)+"\n")
			out := filepath.Join(t.TempDir(), "out.jsonl")
			_, _, err := run(t, context.Background(), "score", "--nli", "given", "-o", out, path)
			if err == nil || !strings.Contains(err.Error(), path+":2: "+tc.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, path+":2: "+tc.want)
			}
			lines := outputLines(t, out)
			if len(lines) != 1 || lines[0]["line"] != 1.0 {
				t.Errorf("output after the error: %v (want line 1's record only)", lines)
			}

			// --skip-invalid reports the line and scores the others.
			stdout, stderr, err := run(t, context.Background(), "score", "--nli", "given", "--skip-invalid", path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stderr, path+":2: ") {
				t.Errorf("stderr does not name the bad line:\n%s", stderr)
			}
			var got []float64
			for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
				var r map[string]any
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatalf("invalid output line %q", l)
				}
				got = append(got, r["line"].(float64))
			}
			if len(got) != 2 || got[0] != 1 || got[1] != 3 {
				t.Errorf("scored lines %v, want [1 3]", got)
			}
		})
	}
}

func TestEmptyFile(t *testing.T) {
	for _, content := range []string{"", "\n  \n"} {
		path := writeFile(t, "empty.jsonl", content)
		_, _, err := run(t, context.Background(), "score", "--nli", "given", path)
		if err == nil || !strings.Contains(err.Error(), path+": no records in file") {
			t.Errorf("empty file %q: %v", content, err)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func outputLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("%s: invalid line %q", path, l)
		}
		out = append(out, r)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("%s does not end with a newline", path)
	}
	return out
}

// TestResume: a run killed part-way and restarted with the same -o ends
// with the same file as an uninterrupted run; so does a run whose last line
// was torn by the kill.
func TestResume(t *testing.T) {
	var lines []string
	for i := range 6 {
		lines = append(lines, record(i, nil))
	}
	path := writeFile(t, "in.jsonl", strings.Join(lines, "\n")+"\n")
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl")
	if _, _, err := run(t, context.Background(), "score", "--nli", "given", "--version", "3", "-o", full, path); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(full)
	if n := bytes.Count(want, []byte("\n")); n != 6 {
		t.Fatalf("uninterrupted run wrote %d lines, want 6", n)
	}

	// Interrupted: the run is stopped (its context cancelled) right after
	// the second record is written, as by Ctrl-C.
	part := filepath.Join(dir, "part.jsonl")
	app := newApp()
	app.Writer, app.ErrWriter = io.Discard, io.Discard
	for _, cmd := range app.Commands {
		if cmd.Name != "score" {
			continue
		}
		cmd.Action = func(c *cli.Context) error {
			p, err := openPipeline(c, path)
			if err != nil {
				return err
			}
			defer p.Close()
			f, done, err := jsonl.Resume(part, "line", nil, nil)
			if err != nil {
				return err
			}
			defer f.Close()
			ctx, cancel := context.WithCancel(c.Context)
			_, err = batch.ScoreFile(ctx, p.Pipeline, path, graph.FR3, &cancelAfter{w: f, n: 2, cancel: cancel}, done, batch.FileOptions{})
			return err
		}
	}
	err := app.Run([]string{"fr", "score", "--nli", "given", path})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	if got, _ := os.ReadFile(part); !bytes.Equal(got, want[:len(got)]) || bytes.Count(got, []byte("\n")) != 2 {
		t.Fatalf("interrupted run wrote:\n%s", got)
	}
	_, stderr, err := run(t, context.Background(), "score", "--nli", "given", "--version", "3", "-o", part, path)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(part); !bytes.Equal(got, want) {
		t.Errorf("resumed file differs from the uninterrupted run\n%s", stderr)
	}
	if !strings.Contains(stderr, "2 records already scored") {
		t.Errorf("resume not reported on stderr:\n%s", stderr)
	}

	// Torn: the kill cut the fourth line in half.
	torn := filepath.Join(dir, "torn.jsonl")
	cut := bytes.Index(want, []byte("\n"))
	for range 2 {
		cut += 1 + bytes.Index(want[cut+1:], []byte("\n"))
	}
	os.WriteFile(torn, want[:cut+1+40], 0o644)
	if _, _, err := run(t, context.Background(), "score", "--nli", "given", "--version", "3", "-o", torn, path); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(torn); !bytes.Equal(got, want) {
		t.Errorf("resumed torn file differs from the uninterrupted run:\n%s", got)
	}
}

// TestDeterministic: the same input and flags give byte-identical output.
func TestDeterministic(t *testing.T) {
	var lines []string
	for i := range 4 {
		lines = append(lines, record(i, nil))
	}
	path := writeFile(t, "in.jsonl", strings.Join(lines, "\n")+"\n")
	for _, args := range [][]string{
		{"score", "--nli", "given", "--version", "1"},
		{"score", "--nli", "given", "--version", "3"},
		{"score", "--nli", "lexical", "--version", "3"},
		{"compare", "--nli", "lexical", "--format", "json"},
	} {
		a, _, err := run(t, context.Background(), append(args, path)...)
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := run(t, context.Background(), append(args, path)...)
		if a != b || a == "" {
			t.Errorf("%v: two runs differ", args)
		}
	}
}

// cancelAfter cancels a context once n writes have passed through it.
type cancelAfter struct {
	w      io.Writer
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return n, err
}

// TestResumeOtherRun: resuming into an output file written by another run
// (another version, NLI backend, K, solver or priors, or another input file: other
// input text, fewer records, other contexts) is refused with an error
// naming the file, its line and the field that differs, and the file is
// left as it was; the same run, or one that differs only in how the same
// backend was chosen, resumes.
func TestResumeOtherRun(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir()) // --nli auto finds no ONNX model
	var lines []string
	for i := range 3 {
		lines = append(lines, record(i, nil))
	}
	input := writeFile(t, "in.jsonl", strings.Join(lines, "\n")+"\n")
	first2 := writeFile(t, "first2.jsonl", strings.Join(lines[:2], "\n")+"\n")
	other := writeFile(t, "other.jsonl", strings.ReplaceAll(strings.Join(lines, "\n"), `"input": "Q?"`, `"input": "Another question?"`)+"\n")
	short := writeFile(t, "short.jsonl", lines[0]+"\n")
	moreContexts := writeFile(t, "more.jsonl", lines[0]+"\n"+record(1, replace(`{"id": "c_a1_0"`, `{"id": "c_x", "text": "X."}, {"id": "c_a1_0"`))+"\n")
	part := filepath.Join(t.TempDir(), "part.jsonl")
	if _, _, err := run(t, context.Background(), "score", "--nli", "given", "--version", "2", "-o", part, first2); err != nil {
		t.Fatal(err)
	}
	partial, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	torn := append(append([]byte{}, partial...), `{"factuality_score": 0.5, "num_a`...)
	// A context's probability is its prior: another probability, or a
	// line written before the contexts' own priors were read, is another
	// run.
	withPrior := func(p string) string {
		var ls []string
		for i := range 3 {
			more := `"text": "More evidence ` + string(rune('A'+i)) + `."`
			ls = append(ls, record(i, replace(more, more+`, "probability": `+p)))
		}
		return writeFile(t, "prior"+p+".jsonl", strings.Join(ls, "\n")+"\n")
	}
	priors7, priors8 := withPrior("0.7"), withPrior("0.8")
	part7 := filepath.Join(t.TempDir(), "part7.jsonl")
	if _, _, err := run(t, context.Background(), "score", "--nli", "given", "--version", "2", "-o", part7, writeFile(t, "first2prior.jsonl", strings.Join(strings.Split(mustRead(t, priors7), "\n")[:2], "\n")+"\n")); err != nil {
		t.Fatal(err)
	}
	partial7, err := os.ReadFile(part7)
	if err != nil {
		t.Fatal(err)
	}
	old7 := regexp.MustCompile(`,"context_priors":\{[^}]*\}`).ReplaceAll(partial7, nil)
	if bytes.Equal(old7, partial7) {
		t.Fatal("no context_priors in the output")
	}

	tests := []struct {
		name    string
		content []byte
		args    []string
		want    string // error after "OUT:"; "" when the run resumes
	}{
		{"same run", partial, []string{"--nli", "given", "--version", "2", input}, ""},
		{"auto chooses the same backend", partial, []string{"--nli", "auto", input}, ""},
		{"version", partial, []string{"--nli", "given", "--version", "3", input}, `1: field "version" is "FR2" there but "FR3" in this run`},
		{"backend", partial, []string{"--nli", "lexical", "--version", "2", input}, `1: field "run.nli" is "given" there but "lexical:coverage-v1" in this run`},
		{"k", partial, []string{"--nli", "given", "--k", "3", input}, `1: field "run.k" is "half" there but "3" in this run (--k)`},
		{"other contexts", partial, []string{"--nli", "given", moreContexts}, `2: field "num_contexts" is 2 there but 3 in this run`},
		{"solver", partial, []string{"--nli", "given", "--solver", "merlin", input}, `1: field "run.inference" is "auto[`},
		{"atom prior", partial, []string{"--nli", "given", "--version", "2", "--atom-prior", "0.6", input}, `1: field "priors" is "use_priors true, atom_prior 0.5, context_prior 0.9" there but "use_priors true, atom_prior 0.6, context_prior 0.9" in this run`},
		{"factor tables", partial, []string{"--nli", "given", "--version", "2", "--use-priors=false", input}, `1: field "priors" is "use_priors true, atom_prior 0.5, context_prior 0.9" there but "use_priors false, atom_prior 0.5, context_prior 0.9" in this run`},
		{"input text", partial, []string{"--nli", "given", other}, `1: field "input" is "Q?" there but "Another question?" in this run`},
		{"shorter input", partial, []string{"--nli", "given", short}, "2: holds the result of line 2 of " + short + ", which has no valid record"},
		{"torn last line", torn, []string{"--nli", "given", "--version", "1", input}, `1: field "version" is "FR2" there but "FR1" in this run`},
		{"same context priors", partial7, []string{"--nli", "given", "--version", "2", priors7}, ""},
		{"context priors given", partial, []string{"--nli", "given", "--version", "2", priors7}, `1: field "priors.context_priors" is "none" there but "c_a1_0 0.7" in this run (a context's "probability" is its prior)`},
		{"other context priors", partial7, []string{"--nli", "given", "--version", "2", priors8}, `1: field "priors.context_priors" is "c_a1_0 0.7" there but "c_a1_0 0.8" in this run (a context's "probability" is its prior)`},
		{"context priors not read", old7, []string{"--nli", "given", "--version", "2", priors7}, `1: field "priors.context_priors" is "none" there but "c_a1_0 0.7" in this run (a context's "probability" is its prior)`},
	}
	for _, tc := range tests {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		if err := os.WriteFile(out, tc.content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := run(t, context.Background(), append([]string{"score", "-o", out}, tc.args...)...)
		got, _ := os.ReadFile(out)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if n := len(outputLines(t, out)); n != 3 || !bytes.HasPrefix(got, tc.content) {
				t.Errorf("%s: %d lines after resuming, want the 2 kept and 1 new", tc.name, n)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), out+":"+tc.want) || !strings.Contains(err.Error(), "remove") {
			t.Errorf("%s: error %v\nwant it to contain %q and suggest what to do", tc.name, err, out+":"+tc.want)
		}
		if !bytes.Equal(got, tc.content) {
			t.Errorf("%s: the refused file was changed", tc.name)
		}
	}
}

// TestBrokenFirstLine: a jsonl file whose first line is broken is still
// jsonl: the first line is reported with its number and, with
// --skip-invalid, every valid record after it is scored.
func TestBrokenFirstLine(t *testing.T) {
	path := writeFile(t, "in.jsonl", "\xEF\xBB\xBF"+`{"input": "Q?", "output": `+"\n"+record(1, nil)+"\n"+record(2, nil)+"\n")
	out, stderr, err := run(t, context.Background(), "score", "--nli", "given", "--skip-invalid", path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n != 2 || !strings.Contains(out, `"line":2`) || !strings.Contains(out, `"line":3`) {
		t.Errorf("%d lines written:\n%s", n, out)
	}
	if !strings.Contains(stderr, path+":1: invalid JSON") {
		t.Errorf("stderr: %s", stderr)
	}
	if _, _, err := run(t, context.Background(), "score", "--nli", "given", path); err == nil || !strings.HasPrefix(err.Error(), path+":1: invalid JSON") {
		t.Errorf("without --skip-invalid: %v", err)
	}
}

// TestAtomlessRecord: a record that ends up without atoms (none given and
// no atomizer, or an atomizer that finds none) cannot be scored: an
// invalid record naming its line and field, skipped and counted under
// --skip-invalid like any other.
func TestAtomlessRecord(t *testing.T) {
	noAtoms := `{"input": "Q?", "output": "Nothing here.", "contexts": [{"id": "c0", "text": "Evidence."}]}`
	path := writeFile(t, "in.jsonl", record(1, nil)+"\n"+noAtoms+"\n"+record(2, nil)+"\n")
	ctx := context.Background()
	if _, _, err := run(t, ctx, "score", "--nli", "given", path); err == nil || !strings.Contains(err.Error(), path+":2: atoms: the record has no atoms") {
		t.Errorf("without --skip-invalid: %v", err)
	}
	out, stderr, err := run(t, ctx, "score", "--nli", "given", "--skip-invalid", path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "\n") != 2 || !strings.Contains(stderr, "skipping invalid record: "+path+":2: atoms") || !strings.Contains(stderr, "1 invalid skipped") {
		t.Errorf("--skip-invalid: stdout\n%s\nstderr\n%s", out, stderr)
	}
	// The sentence splitter finds no atom in a response of punctuation.
	blank := `{"input": "Q?", "output": "…", "contexts": [{"id": "c0", "text": "Evidence."}]}`
	path = writeFile(t, "blank.jsonl", blank+"\n")
	if _, _, err := run(t, ctx, "score", "--nli", "lexical", "--atomizer", "sentences", path); err == nil || !strings.Contains(err.Error(), path+":1: output: the atomizer found no atoms") {
		t.Errorf("atomizer finds none: %v", err)
	}
}
