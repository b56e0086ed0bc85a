package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// TestOtherSolverSettings is issue 22's case: an output scored by exact
// inference, cut to its first line, is not resumed by damped loopy BP, nor
// merged with BP's lines, nor by BP with other settings: the error names
// the field that differs (run.inference) and both values, and the file is
// left as it was. The same settings resume.
func TestOtherSolverSettings(t *testing.T) {
	ctx := context.Background()
	input := writeFile(t, "in.jsonl", record(0, nil)+"\n"+record(1, nil)+"\n"+record(2, nil)+"\n")
	exact := []string{"--version", "3", "--nli", "given", "--algorithm", "exact"}
	bp := []string{"--version", "3", "--nli", "given", "--algorithm", "bp", "--damping", "0.5", "--tolerance", "1e-3"}
	score := func(out string, args []string) error {
		_, _, err := run(t, ctx, append(append([]string{"score", "-o", out}, args...), input)...)
		return err
	}
	firstLine := func(path string) []byte {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data[:bytes.IndexByte(data, '\n')+1]
	}
	full := filepath.Join(t.TempDir(), "exact.jsonl")
	if err := score(full, exact); err != nil {
		t.Fatal(err)
	}
	cut := firstLine(full)
	for _, tc := range []struct {
		name string
		args []string
		want string // "" when the run resumes
	}{
		{"same settings", exact, ""},
		{"damped BP", bp, `:1: field "run.inference" is "exact[maxmem=536870912,budget=2s]" there but "bp[damping=0.5,tol=0.001,maxiter=1000,maxmem=536870912,errbudget=300000000]" in this run (--solver, --algorithm, --max-memory, --damping, --tolerance, --max-iterations, --error-budget)`},
		{"exact, other budget", append(exact[:len(exact):len(exact)], "--exact-budget", "3s"), `field "run.inference" is "exact[maxmem=536870912,budget=2s]" there but "exact[maxmem=536870912,budget=3s]"`},
	} {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		os.WriteFile(out, cut, 0o644)
		err := score(out, tc.args)
		got, _ := os.ReadFile(out)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && len(outputLines(t, out)) != 3:
			t.Errorf("%s: %d lines after resuming", tc.name, len(outputLines(t, out)))
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v\nwant it to contain %s", tc.name, err, tc.want)
		case tc.want != "" && !bytes.Equal(got, cut):
			t.Errorf("%s: the refused file was changed", tc.name)
		}
	}

	// fr merge: exact's line 1 and BP's lines are not one run.
	bpOut := filepath.Join(t.TempDir(), "bp.jsonl")
	if err := score(bpOut, bp); err != nil {
		t.Fatal(err)
	}
	bpData, _ := os.ReadFile(bpOut)
	rest := filepath.Join(t.TempDir(), "rest.jsonl")
	os.WriteFile(rest, bpData[bytes.IndexByte(bpData, '\n')+1:], 0o644)
	first := filepath.Join(t.TempDir(), "first.jsonl")
	os.WriteFile(first, cut, 0o644)
	_, _, err := run(t, ctx, "merge", first, rest)
	if err == nil || !strings.Contains(err.Error(), `field "run.inference" is "bp[damping=0.5,tol=0.001,maxiter=1000,maxmem=536870912,errbudget=300000000]", but "exact[maxmem=536870912,budget=2s]" at `+first+":1") {
		t.Errorf("merge: %v", err)
	}
	// The same run's parts merge into its whole output.
	exactData, _ := os.ReadFile(full)
	exactRest := filepath.Join(t.TempDir(), "exact-rest.jsonl")
	os.WriteFile(exactRest, exactData[len(cut):], 0o644)
	merged, _, err := run(t, ctx, "merge", first, exactRest)
	if err != nil || merged != string(exactData) {
		t.Errorf("merge of one run: %v\n%s", err, merged)
	}
}

// TestOneRunManyBackends is issue 23's case: under --nli auto, records
// with relations are scored from them and the others by the model, and
// fr report and fr compare take the output for the one run it is; the
// shipped example, whose records all carry relations, scores without a
// model, and its output renders.
func TestOneRunManyBackends(t *testing.T) {
	ctx := context.Background()
	mixed := "../../testdata/report/example-input.jsonl" // records 1 and 2 without relations
	out, errOut, err := run(t, ctx, "score", "--version", "3", "--nli-model", tinyRoberta, mixed)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	lines := scoreLines(t, out)
	if len(lines) != 3 || lines[0]["nli_backend"] != "onnx" || lines[2]["nli_backend"] != "given" {
		t.Fatalf("backends: %d lines, %v, %v", len(lines), lines[0]["nli_backend"], lines[2]["nli_backend"])
	}
	path := filepath.Join(t.TempDir(), "out.jsonl")
	os.WriteFile(path, []byte(out), 0o644)
	page := filepath.Join(t.TempDir(), "r.html")
	if _, errOut, err := run(t, ctx, "report", "--layout", "built-in", "-o", page, path); err != nil || !strings.Contains(errOut, "1 run, 3 responses") {
		t.Errorf("report: %v\n%s", err, errOut)
	}
	table, _, err := run(t, ctx, "compare", "--format", "csv", path)
	if rows := strings.Count(strings.TrimSpace(table), "\n"); err != nil || rows != 1 {
		t.Errorf("compare: %v, %d rows:\n%s", err, rows, table)
	}

	// The shipped example: every record scores from its relations, no
	// model asked and no warning, and the output renders.
	out, errOut, err = run(t, ctx, "score", "--version", "3", exampleFile)
	if err != nil || strings.Contains(errOut, "warning") {
		t.Fatalf("example: %v\n%s", err, errOut)
	}
	for i, l := range scoreLines(t, out) {
		if l["nli_backend"] != "given" || l["num_relations"].(float64) == 0 || l["predictions"] != l["references"] {
			t.Errorf("example record %d: backend %v, %v relations, predictions %v, gold %v", i+1, l["nli_backend"], l["num_relations"], l["predictions"], l["references"])
		}
	}
	os.WriteFile(path, []byte(out), 0o644)
	if _, errOut, err := run(t, ctx, "report", "--layout", "built-in", "-o", page, "--force", path); err != nil {
		t.Errorf("report of the example: %v\n%s", err, errOut)
	}
}

// resumeRig scores one input file into outputs that hold some of its lines,
// for the tests of what resumes into what.
type resumeRig struct {
	t     *testing.T
	input string
}

// score runs fr score -o out with args on the rig's input.
func (r resumeRig) score(out string, args []string) error {
	_, stderr, err := run(r.t, context.Background(), append(append([]string{"score", "-o", out}, args...), r.input)...)
	if err != nil {
		return fmt.Errorf("%w\n%s", err, stderr)
	}
	return nil
}

// lines are the lines of a whole run with args, each with its newline.
func (r resumeRig) lines(args []string) [][]byte {
	out := filepath.Join(r.t.TempDir(), "full.jsonl")
	if err := r.score(out, args); err != nil {
		r.t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	ls := bytes.SplitAfter(data, []byte("\n"))
	return ls[:len(ls)-1] // after the last newline: nothing
}

// file writes lines into a new file.
func (r resumeRig) file(ls ...[]byte) string {
	path := filepath.Join(r.t.TempDir(), "part.jsonl")
	os.WriteFile(path, bytes.Join(ls, nil), 0o644)
	return path
}

// resumeCase is an output holding one line (kept) and a run resumed into
// it (args): want is what its error says, "" when it resumes.
type resumeCase struct {
	name string
	kept []byte
	args []string
	want string
}

// check resumes each case: a refused one names the field and leaves the
// file as it was; one that resumes completes the output to total lines.
func (r resumeRig) check(total int, cases []resumeCase) {
	for _, tc := range cases {
		out := r.file(tc.kept)
		err := r.score(out, tc.args)
		got, _ := os.ReadFile(out)
		switch {
		case tc.want == "" && err != nil:
			r.t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && len(outputLines(r.t, out)) != total:
			r.t.Errorf("%s: %d lines after resuming", tc.name, len(outputLines(r.t, out)))
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			r.t.Errorf("%s: error %v\nwant it to contain %s", tc.name, err, tc.want)
		case tc.want != "" && !bytes.Equal(got, tc.kept):
			r.t.Errorf("%s: the refused file was changed", tc.name)
		}
	}
}

// TestOtherAtomizer (issue 30): the atomizer that made a record's atoms is
// part of its line's identity, and only of the lines of records that came
// without atoms. A run with another atomizer does not resume into a line
// it made, nor merge with it; a line whose record brought its atoms takes
// any; and a run resumes into its own lines (which it did not: the
// abstention rule, on every line, was missing from what it compared).
func TestOtherAtomizer(t *testing.T) {
	ctx := context.Background()
	raw2 := strings.Replace(rawRecord, "She died in 2015.", "She died in 2011.", 1)
	input := writeFile(t, "in.jsonl", rawRecord+"\n"+raw2+"\n"+record(3, nil)+"\n")
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: `["Ruth Adair was born in Tulsa."]`}
	})
	sentences := []string{"--nli", "lexical", "--atomizer", "sentences"}
	llmAtoms := []string{"--nli", "lexical", "--atomizer", "llm", "--revise=false", "--llm-model", "m", "--llm-base-url", srv.BaseURL(), "--llm-cache", "off"}
	rig := resumeRig{t, input}
	bySentences, byLLM := rig.lines(sentences), rig.lines(llmAtoms)
	file := rig.file
	got := outputLines(t, file(bySentences...))
	if r := got[0]["run"].(map[string]any); r["atomizer"] != "sentences" || r["abstention"] != "generic" {
		t.Errorf("the atomized line's run: %v", r)
	}
	if r := got[2]["run"].(map[string]any); r["atomizer"] != nil || r["abstention"] != nil {
		t.Errorf("the run of the line whose record brought its atoms: %v", r)
	}
	rig.check(3, []resumeCase{
		{"the same atomizer", bySentences[0], sentences, ""},
		{"another atomizer", bySentences[0], llmAtoms, `:1: field "run.atomizer" is "sentences" there but "llm:m" in this run`},
		{"no atomizer", bySentences[0], []string{"--nli", "lexical"}, `:1: field "run.atomizer" is "sentences" there but "none" in this run`},
		{"another atomizer, atoms brought", bySentences[2], llmAtoms, ""},
	})

	// fr merge: lines atomized by two atomizers are not one run; a line
	// whose record brought its atoms joins any.
	if _, _, err := run(t, ctx, "merge", file(bySentences[0]), file(byLLM[1])); err == nil || !strings.Contains(err.Error(), `field "run.atomizer" is "llm:m", but "sentences" at `) {
		t.Errorf("merge of two atomizers: %v", err)
	}
	if _, _, err := run(t, ctx, "merge", file(bySentences[:2]...), file(byLLM[2])); err != nil {
		t.Errorf("merge with a line of brought atoms: %v", err)
	}
}

// TestOtherEvidence (issue 30): the knowledge sources that retrieved a
// record's contexts are part of its line's identity, a knowledge base by
// its content: a run resumes into an output of the same knowledge base
// under another path, and is refused one retrieved from another knowledge
// base or another source, naming the field (run.sources); fr merge
// refuses shards of two knowledge bases. A line whose record brought its
// contexts agrees with any source.
func TestOtherEvidence(t *testing.T) {
	ctx := context.Background()
	build := func(text string) string {
		kb := filepath.Join(t.TempDir(), "kb.db")
		doc := writeTemp(t, "Lanny Flaherty.txt", text)
		if _, _, err := run(t, ctx, "kb", "build", "-o", kb, doc); err != nil {
			t.Fatal(err)
		}
		return kb
	}
	kb1 := build("Lanny Flaherty was an American actor.\n\nHe was born on July 27, 1942.\n")
	kb2 := build("Lanny Flaherty was an Irish baker.\n\nHe was born in 1950.\n")
	data, _ := os.ReadFile(kb1)
	kb1Copy := writeFile(t, "copy.db", string(data))
	wiki := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("list") == "search" {
			json.NewEncoder(w).Encode(map[string]any{"query": map[string]any{"search": []any{map[string]any{"title": "Lanny Flaherty"}}}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"query": map[string]any{"pages": []any{map[string]any{
			"title": "Lanny Flaherty", "extract": "Lanny Flaherty was an American actor.", "fullurl": "https://en.wikipedia.org/wiki/Lanny_Flaherty"}}}})
	}))
	defer wiki.Close()
	second := strings.Replace(bornRecord, "born on July 27, 1942.\"", "born on July 27, 1942, in Mississippi.\"", 1)
	input := writeFile(t, "in.jsonl", bornRecord+second+record(3, nil)+"\n")
	base := []string{"--nli", "lexical", "--retrieval-cache", "off"}
	withDB := func(kb string) []string { return append(base[:len(base):len(base)], "--db", kb) }
	rig := resumeRig{t, input}
	file := rig.file
	fromKB1, fromKB2 := rig.lines(withDB(kb1)), rig.lines(withDB(kb2))
	got := outputLines(t, file(fromKB1...))
	if r := got[0]["run"].(map[string]any); !strings.HasPrefix(fmt.Sprint(r["sources"]), "db[kb=sha256:") || r["retrieval"] != "top_k=3,query_contexts=3" {
		t.Errorf("the retrieved line's run: %v", r)
	}
	if r := got[2]["run"].(map[string]any); r["sources"] != nil || r["retrieval"] != nil {
		t.Errorf("the run of the line whose record brought its contexts: %v", r)
	}
	wikipedia := append(base[:len(base):len(base)], "--source", "wikipedia", "--wikipedia-endpoint", wiki.URL, "--wikipedia-interval", "0s")
	if !bytes.Contains(fromKB1[2], []byte(`"run":{`)) || !bytes.Contains(fromKB1[2], []byte(`"k":"half"`)) {
		t.Fatalf("the line of brought contexts has no run to edit: %s", fromKB1[2])
	}
	rig.check(3, []resumeCase{
		{"the same knowledge base", fromKB1[0], withDB(kb1), ""},
		{"a copy of it elsewhere", fromKB1[0], withDB(kb1Copy), ""},
		{"another knowledge base", fromKB1[0], withDB(kb2), `:1: field "run.sources" is "db[kb=sha256:`},
		{"another source", fromKB1[0], wikipedia, `:1: field "run.sources" is "db[kb=sha256:`},
		{"another knowledge base, contexts brought", fromKB1[2], withDB(kb2), ""},
		// Lines written before run.sources: a retrieved line without it
		// agrees with any knowledge base (it cannot say which it had);
		// one that brought its contexts, with run.retrieval on it as the
		// earlier writer put it on every line, with any too.
		{"an earlier line, retrieved", regexp.MustCompile(`,"sources":"[^"]*"`).ReplaceAll(fromKB1[0], nil), withDB(kb2), ""},
		{"an earlier line, contexts brought", bytes.Replace(fromKB1[2], []byte(`"k":"half"`), []byte(`"k":"half","retrieval":"top_k=3,query_contexts=3"`), 1), withDB(kb2), ""},
	})

	// fr merge: shards of two knowledge bases are not one run; a line
	// whose record brought its contexts joins any.
	if _, _, err := run(t, ctx, "merge", file(fromKB1[0]), file(fromKB2[1])); err == nil || !strings.Contains(err.Error(), `field "run.sources" is "db[kb=sha256:`) {
		t.Errorf("merge of two knowledge bases: %v", err)
	}
	if _, _, err := run(t, ctx, "merge", file(fromKB1[:2]...), file(fromKB2[2])); err != nil {
		t.Errorf("merge with a line of brought contexts: %v", err)
	}
}
