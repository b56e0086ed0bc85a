package report_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/report"
)

// rawLines reads a jsonl file as generic objects.
func rawLines(t testing.TB, path string) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func writeLines(t testing.TB, path string, lines []map[string]json.RawMessage) {
	t.Helper()
	var b strings.Builder
	for _, m := range lines {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rawJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestReadRunWithInput reads fr score outputs that do not record their
// atoms, contexts and relations, joined with the input they were scored
// from: the probabilities are the output's, the atoms and contexts the
// input's, and for the given backend the relations those of the input.
func TestReadRunWithInput(t *testing.T) {
	runs := readExampleRuns(t)
	fr3, lexical := runs[2], runs[3]
	if fr3.Version != "FR3" || fr3.Backend != "given" || !fr3.Relations || len(fr3.Results) != 3 {
		t.Fatalf("FR3 run: %s %s relations %v, %d results", fr3.Version, fr3.Backend, fr3.Relations, len(fr3.Results))
	}
	res, ok := fr3.Result(3)
	if !ok {
		t.Fatal("no result for input line 3")
	}
	rec := exampleRecord(t, 3)
	if res.Output != rec.Output || !reflect.DeepEqual(res.Atoms, rec.Atoms) || !reflect.DeepEqual(res.Contexts, rec.Contexts) {
		t.Error("the atoms, contexts or response are not the input record's")
	}
	// Every relation of this record becomes a factor (no duplicates, none
	// neutral), so the network's relations are the input's.
	got := slices.Clone(res.Relations)
	want := slices.Clone(rec.Relations)
	key := func(a, b instance.Relation) int { return strings.Compare(a.Source+a.Target, b.Source+b.Target) }
	slices.SortFunc(got, key)
	slices.SortFunc(want, key)
	if !res.RelationsKnown || !reflect.DeepEqual(got, want) {
		t.Errorf("relations:\n got %v\nwant %v", got, want)
	}
	// P(true) as the output file says, for atoms and contexts.
	raw := rawLines(t, exampleRunFiles[2])[2]
	var marginals []struct {
		Variable      string
		Probabilities [2]float64
	}
	json.Unmarshal(raw["marginals"], &marginals)
	var ctxs []struct {
		Variable      string
		Probabilities [2]float64
	}
	json.Unmarshal(raw["context_marginals"], &ctxs)
	if len(res.PTrue) != len(marginals)+len(ctxs) {
		t.Errorf("%d variables, the output has %d", len(res.PTrue), len(marginals)+len(ctxs))
	}
	for _, m := range append(marginals, ctxs...) {
		if res.PTrue[m.Variable] != m.Probabilities[1] {
			t.Errorf("P(true) of %s = %v, the output says %v", m.Variable, res.PTrue[m.Variable], m.Probabilities[1])
		}
	}
	if res.Scores.Gold == nil || res.Scores.Gold.TruePositive != 5 || res.Scores.Precision != 5.0/6 {
		t.Errorf("scores as recorded: %+v %+v", res.Scores, res.Scores.Gold)
	}
	// The lexical backend's relations are in no file.
	if lexical.Relations {
		t.Error("the lexical run claims to know its relations")
	}
	for _, r := range lexical.Results {
		if r.RelationsKnown || r.Relations != nil {
			t.Errorf("lexical line %d: relations %v", r.Line, r.Relations)
		}
	}
}

// plannedSchema rewrites an output file the way fr score writes it once it
// records what it scored: output, atoms, contexts and relations in each
// line, taken from the joined results.
func plannedSchema(t testing.TB, run *report.Run, dir string) string {
	t.Helper()
	lines := rawLines(t, run.Path)
	for _, m := range lines {
		var line int
		json.Unmarshal(m["line"], &line)
		res, ok := run.Result(line)
		if !ok {
			t.Fatalf("no result for line %d", line)
		}
		m["output"] = rawJSON(t, res.Output)
		m["atoms"] = rawJSON(t, res.Atoms)
		m["contexts"] = rawJSON(t, res.Contexts)
		if res.RelationsKnown {
			m["relations"] = rawJSON(t, res.Relations)
		}
	}
	path := filepath.Join(dir, filepath.Base(run.Path))
	writeLines(t, path, lines)
	return path
}

// TestReadRunRecorded: an output that records its atoms, contexts and
// relations reads the same without the input as the old output with it.
func TestReadRunRecorded(t *testing.T) {
	dir := t.TempDir()
	for _, joined := range readExampleRuns(t) {
		path := plannedSchema(t, joined, dir)
		run, err := report.ReadRun(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		run.Path = joined.Path
		if !reflect.DeepEqual(run, joined) {
			t.Errorf("%s: read differently from the recorded fields", joined.Path)
		}
	}
}

func TestReadRunErrors(t *testing.T) {
	dir := t.TempDir()
	inputs, err := report.ReadInputs(exampleInput)
	if err != nil {
		t.Fatal(err)
	}
	recorded := plannedSchema(t, readExampleRuns(t)[2], dir) // FR3, atoms and relations recorded
	for _, tc := range []struct {
		name   string
		legacy bool // an old output, read with the input
		edit   func(lines []map[string]json.RawMessage) []map[string]json.RawMessage
		want   string // in the error, after "FILE:LINE: "
		line   int
	}{
		{"no input file", true, nil, "atoms: missing: this output does not record what was scored; give the input file it was scored from (report.Inputs)", 1},
		{"other input", true, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[1]["input"] = json.RawMessage(`"Question: Tell me a bio of somebody else."`)
			return l
		}, `input: "Question: Tell me a bio of somebody else.", but the record of ../testdata/report/example-input.jsonl:2 asks`, 2},
		{"line not in the input", true, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[2]["line"] = json.RawMessage(`7`)
			return l
		}, "line: 7, but no record of ../testdata/report/example-input.jsonl starts on that line", 3},
		{"relations that do not add up", true, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[2]["num_relations"] = json.RawMessage(`5`)
			return l
		}, "num_relations: 5, but the relations of ../testdata/report/example-input.jsonl:3 make 8", 3},
		{"no line field", false, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			delete(l[0], "line")
			return l
		}, "line: missing", 1},
		{"a line twice", false, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[2]["line"] = l[0]["line"]
			l[2]["input"], l[2]["topic"] = l[0]["input"], l[0]["topic"]
			return l
		}, "line: the record of input line 1 is also on line 1", 3},
		{"two versions", false, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[1]["version"] = json.RawMessage(`"FR2"`)
			return l
		}, `version: "FR2", but "FR3" on the lines before`, 2},
		{"unknown version", false, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[0]["version"] = json.RawMessage(`"FR9"`)
			return l
		}, `version: unknown FactReasoner version "FR9"`, 1},
		{"marginal of no variable", false, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[0]["context_marginals"] = json.RawMessage(`[{"variable":"c_zz","probabilities":[0.1,0.9]}]`)
			return l
		}, `marginals: variable "c_zz" is no atom or context of the record`, 1},
		{"probability out of range", false, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[2]["marginals"] = json.RawMessage(strings.Replace(string(l[2]["marginals"]), `"probabilities":[`, `"probabilities":[0.1,1.5],"x":[`, 1))
			return l
		}, "marginals[0].probabilities[1]: 1.5 is not a probability", 3},
		{"atoms without marginals", false, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[0]["num_atoms"] = json.RawMessage(`14`)
			return l
		}, "marginals: 13 of them but num_atoms is 14", 1},
		{"bad relation probability", false, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[2]["relations"] = json.RawMessage(`[{"source":"c_a0_0","target":"a0","type":"entailment","probability":"high"}]`)
			l[2]["num_relations"] = json.RawMessage(`1`)
			return l
		}, "relations[0].probability", 3},
		{"relation to no variable", false, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[2]["relations"] = json.RawMessage(`[{"source":"c_a0_0","target":"a9","type":"entailment","probability":0.5}]`)
			return l
		}, `relations[0].target: target "a9" is not an atom or context id`, 3},
		{"a number as text", false, func(l []map[string]json.RawMessage) []map[string]json.RawMessage {
			l[1]["factuality_score"] = json.RawMessage(`"0.5"`)
			return l
		}, "factuality_score: expected number, got JSON string", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, in := recorded, (*report.Inputs)(nil)
			if tc.legacy {
				src = exampleRunFiles[2]
				if tc.name != "no input file" {
					in = inputs
				}
			}
			lines := rawLines(t, src)
			if tc.edit != nil {
				lines = tc.edit(lines)
			}
			path := filepath.Join(t.TempDir(), "out.jsonl")
			writeLines(t, path, lines)
			_, err := report.ReadRun(context.Background(), path, in)
			prefix := path + ":" + string(rune('0'+tc.line)) + ": "
			if err == nil || !strings.HasPrefix(err.Error(), prefix+tc.want) {
				t.Errorf("error\n %v\nwant it to start with\n %s", err, prefix+tc.want)
			}
		})
	}
	if _, err := report.ReadRun(context.Background(), filepath.Join(dir, "none.jsonl"), nil); err == nil {
		t.Error("a missing file was read")
	}
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	if _, err := report.ReadRun(context.Background(), empty, nil); err == nil || !strings.Contains(err.Error(), "no results") {
		t.Errorf("empty file: %v", err)
	}
}

// emptyOutputRun writes the example FR2 run as fr score writes it, its
// first line's response empty (as in ConflictBank's records, which give
// their atoms with "output": ""), or without its output field when drop
// is set; it returns the file's path.
func emptyOutputRun(t testing.TB, drop bool) string {
	t.Helper()
	dir := t.TempDir()
	lines := rawLines(t, plannedSchema(t, readExampleRuns(t)[1], dir))
	lines[0]["output"] = rawJSON(t, "")
	if drop {
		delete(lines[0], "output")
	}
	path := filepath.Join(dir, "empty-output.jsonl")
	writeLines(t, path, lines)
	return path
}

// TestReadRunEmptyOutput: a line that records its atoms with an empty
// response, which fr score accepts, is read with its atoms; a line that
// records atoms without the response's field at all is refused, naming
// it.
func TestReadRunEmptyOutput(t *testing.T) {
	run, err := report.ReadRun(context.Background(), emptyOutputRun(t, false), nil)
	if err != nil {
		t.Fatal(err)
	}
	res := run.Results[0]
	want := exampleRecord(t, res.Line)
	if res.Output != "" || !reflect.DeepEqual(res.Atoms, want.Atoms) || len(res.PTrue) == 0 {
		t.Errorf("line %d: output %q, %d atoms, %d marginals; want no text and the record's %d atoms", res.Line, res.Output, len(res.Atoms), len(res.PTrue), len(want.Atoms))
	}
	_, err = report.ReadRun(context.Background(), emptyOutputRun(t, true), nil)
	if err == nil || !strings.Contains(err.Error(), ":1: output: missing") {
		t.Errorf("a line without its output field: %v", err)
	}
}
