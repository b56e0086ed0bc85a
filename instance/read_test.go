package instance

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

const good = `{"input": "Q", "output": "R NaN Infinity", "atoms": [{"id": "a0", "text": "A", "contexts": ["c0"]}], "contexts": [{"id": "c0", "text": "C"}]}`

func readAll(t *testing.T, s string) ([]*Instance, []error) {
	t.Helper()
	r := NewReader(strings.NewReader(s), "f.jsonl")
	var ins []*Instance
	var errs []error
	for {
		in, err := r.Next()
		if err == io.EOF {
			return ins, errs
		}
		if err != nil {
			errs = append(errs, err)
			var ie *Error
			if !errors.As(err, &ie) || !Skippable(err) || len(errs) > 10 {
				return ins, errs
			}
			continue
		}
		ins = append(ins, in)
	}
}

func TestReaderFormats(t *testing.T) {
	pretty := "\n{\n  \"input\": \"Q\",\n  \"output\": \"R\",\n  \"atoms\": []\n}\n\n{\"input\": \"Q2\", \"output\": \"R2\"}\n"
	tests := []struct {
		name   string
		in     string
		inputs []string
		lines  []int
		errs   []string
	}{
		{"jsonl", good + "\n\n" + good + "\n", []string{"Q", "Q"}, []int{1, 3}, nil},
		{"jsonl without final newline", good, []string{"Q"}, []int{1}, nil},
		{"jsonl, bad middle line", good + "\n{oops\n" + good + "\n", []string{"Q", "Q"}, []int{1, 3}, []string{"f.jsonl:2: invalid JSON"}},
		{"pretty-printed objects", pretty, []string{"Q", "Q2"}, []int{2, 8}, nil},
		{"array", "[\n" + good + ",\n" + good + "\n]\n", []string{"Q", "Q"}, []int{2, 3}, nil},
		{"pretty, broken", "{\n  \"input\": \"Q\",\n  \"output\": \n", nil, nil, []string{"f.jsonl:1: invalid JSON: unexpected EOF"}},
		{"pretty, invalid record", "{\n \"input\": \"Q\",\n \"output\": \"\"\n}\n", nil, nil, []string{"f.jsonl:3: output: empty response"}},
		{"empty", "", nil, nil, []string{"f.jsonl: no records in file"}},
		// A broken first line is one bad record of a jsonl file, not a
		// broken document: the records after it are read.
		{"jsonl, broken first line", `{"input": "Q", "output": ` + "\n" + good + "\n" + good + "\n", []string{"Q", "Q"}, []int{2, 3}, []string{"f.jsonl:1: invalid JSON"}},
		{"jsonl, garbage first line", "\nnot json at all\n\n" + good + "\n", []string{"Q"}, []int{4}, []string{"f.jsonl:2: invalid JSON"}},
		{"jsonl with a byte order mark", "\xEF\xBB\xBF" + good + "\n" + good + "\n", []string{"Q", "Q"}, []int{1, 2}, nil},
		{"pretty with a byte order mark", "\xEF\xBB\xBF" + pretty, []string{"Q", "Q2"}, []int{2, 8}, nil},
		{"one-line array", "[" + good + ", " + good + "]\n", []string{"Q", "Q"}, []int{1, 1}, nil},
		{"array, one record per line", "[\n" + good + ",\n" + good + "\n]", []string{"Q", "Q"}, []int{2, 3}, nil},
		{"array of a non-object", "[1]\n", nil, nil, []string{"f.jsonl:1: element 0: not a JSON object"}},
	}
	for _, tc := range tests {
		ins, errs := readAll(t, tc.in)
		var inputs []string
		var lines []int
		for _, in := range ins {
			inputs = append(inputs, in.Input)
			lines = append(lines, in.Line)
		}
		if strings.Join(inputs, ",") != strings.Join(tc.inputs, ",") || len(lines) != len(tc.lines) {
			t.Errorf("%s: inputs %v lines %v, want %v %v", tc.name, inputs, lines, tc.inputs, tc.lines)
		}
		for i := range lines {
			if i < len(tc.lines) && lines[i] != tc.lines[i] {
				t.Errorf("%s: lines %v, want %v", tc.name, lines, tc.lines)
			}
		}
		if len(errs) != len(tc.errs) {
			t.Errorf("%s: errors %v, want %v", tc.name, errs, tc.errs)
			continue
		}
		for i, e := range errs {
			if !strings.HasPrefix(e.Error(), tc.errs[i]) {
				t.Errorf("%s: error %q, want prefix %q", tc.name, e, tc.errs[i])
			}
		}
	}
}

// TestErrorPositions: an error names the JSON path of the bad value with
// every index, and the line it is on, also in pretty-printed files; a line
// that is not an object says so.
// TestLineLimit: a jsonl line longer than MaxLineBytes is an invalid
// record, reported with its line and skipped whole, without being held in
// memory; a line at the limit is read. A pretty-printed file longer than
// MaxDocumentBytes is an error.
func TestLineLimit(t *testing.T) {
	long := strings.Replace(good, `"Q"`, `"`+strings.Repeat("q", 200)+`"`, 1)
	in := good + "\n" + long + "\n" + good + "\n"
	for _, limit := range []int{len(long) + 1, len(long)} { // the newline counts
		r := NewReader(strings.NewReader(in), "f.jsonl")
		r.MaxLineBytes = limit
		var lines []int
		var errs []string
		for {
			in, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			lines = append(lines, in.Line)
		}
		if limit == len(long)+1 && (len(lines) != 3 || errs != nil) {
			t.Errorf("limit at the line's length: lines %v, errors %v", lines, errs)
		}
		if limit == len(long) && (fmt.Sprint(lines) != "[1 3]" || len(errs) != 1 || !strings.HasPrefix(errs[0], "f.jsonl:2: the line is longer than")) {
			t.Errorf("limit one byte short: lines %v, errors %v", lines, errs)
		}
	}
	pretty := "{\n \"input\": \"Q\",\n \"output\": \"R\"\n}\n"
	for _, limit := range []int{len(pretty), len(pretty) - 1} {
		r := NewReader(strings.NewReader(pretty), "f.json")
		r.MaxDocumentBytes = limit
		_, err := r.Next()
		if ok := err == nil; ok != (limit == len(pretty)) || (err != nil && !strings.Contains(err.Error(), "longer than")) {
			t.Errorf("document limit %d for %d bytes: %v", limit, len(pretty), err)
		}
	}
}

func TestErrorPositions(t *testing.T) {
	pretty := func(atom string) string {
		return "{\n \"input\": \"Q\",\n \"output\": \"R\",\n \"atoms\": [\n  {\"id\": \"a0\", \"text\": \"A\"},\n  " + atom +
			"\n ],\n \"contexts\": [{\"id\": \"c0\", \"text\": \"C\"}]\n}\n"
	}
	tests := []struct{ name, in, want string }{
		{"type error, first atom", strings.Replace(good, `"id": "a0", `, `"id": "a0", "label": 1, `, 1), "f.jsonl:1: atoms[0].label: expected string, got JSON number"},
		{"type error, second atom", strings.Replace(good, `}], "contexts"`, `}, {"id": "a1", "text": {"t": 1}}], "contexts"`, 1), "f.jsonl:1: atoms[1].text: expected string, got JSON object"},
		{"type error in a list", strings.Replace(good, `["c0"]`, `["c0", 5]`, 1), "f.jsonl:1: atoms[0].contexts[1]: expected string, got JSON number"},
		{"object for a list", strings.Replace(good, `["c0"]`, `{"c0": 1}`, 1), "f.jsonl:1: atoms[0].contexts: expected array, got JSON object"},
		{"type error, relation", strings.Replace(good, `"contexts": [{`, `"relations": [{"source": "c0", "target": "a0", "type": 5, "probability": 1}], "contexts": [{`, 1), "f.jsonl:1: relations[0].type: expected string, got JSON number"},
		{"array line", good + "\n[1, 2]\n", "f.jsonl:2: the line is not a JSON object but an array"},
		{"string line", good + "\n\"x\"\n", "f.jsonl:2: the line is not a JSON object but a string"},
		{"null line", good + "\nnull\n", "f.jsonl:2: the line is not a JSON object but null"},
		{"pretty, type error", pretty(`{"id": "a1", "text": "B", "label": true}`), "f.jsonl:6: atoms[1].label: expected string, got JSON boolean"},
		{"pretty, validation error", pretty(`{"id": "a1", "text": "B", "contexts": ["c9"]}`), `f.jsonl:6: atoms[1].contexts[0]: unknown context id "c9"`},
		{"pretty, missing field: the line of its object", pretty(`{"id": "a1",` + "\n" + `   "label": "S"}`), `f.jsonl:6: atoms[1].text: atom "a1" has no text`},
		{"pretty, syntax error", pretty(`{"id": "a1",` + "\n\n" + `   "text" "B"}`), "f.jsonl:8: invalid JSON: invalid character"},
		{"pretty, second object", pretty(`{"id": "a1", "text": "B"}`) + "\n" + pretty(`{"id": "a1", "text": 2}`), "f.jsonl:16: atoms[1].text: expected string, got JSON number"},
		{"array, not an object", "[\n" + good + ",\n 5\n]\n", "f.jsonl:3: element 1: not a JSON object but a number"},
		{"array, type error", "[\n" + good + ",\n" + strings.Replace(good, `"text": "A"`, "\n\"text\": 1", 1) + "\n]\n", "f.jsonl:4: element 1: atoms[0].text: expected string, got JSON number"},
	}
	for _, tc := range tests {
		_, errs := readAll(t, tc.in)
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.want) {
			t.Errorf("%s: errors %v\nwant one starting %q", tc.name, errs, tc.want)
		}
	}
}

// TestErrorPositionsFlaherty: errors in the pretty-printed Flaherty file
// name the line of the bad value, found here by searching the edited text.
func TestErrorPositionsFlaherty(t *testing.T) {
	data, err := os.ReadFile(refdata.Path(t, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, old, new string
		n              int    // which occurrence of old to replace (0 = first)
		mark           string // the error is on the line holding mark
		want           string
	}{
		{"type error", `"label": "NS",`, `"label": 12,`, 0, `"label": 12,`, "atoms[2].label: expected string, got JSON number"},
		{"unknown context", `"c_a1_2"`, `"c_zz"`, 0, `"c_zz"`, `atoms[1].contexts[2]: unknown context id "c_zz"`},
		{"syntax error", `"id": "a3",`, `"id": "a3"`, 0, `"text": "Lanny Flaherty was born in Pensacola.",`, "invalid JSON: invalid character"},
		{"context prior", `"text": "`, `"probability": 1.5, "x": "`, 30, `"probability": 1.5,`, "contexts[4].probability: probability 1.5 is not in [0, 1]"},
	}
	for _, tc := range tests {
		s := string(data)
		i := -1
		for range tc.n + 1 {
			j := strings.Index(s[i+1:], tc.old)
			if j < 0 {
				t.Fatalf("%s: edit does not apply", tc.name)
			}
			i += 1 + j
		}
		s = s[:i] + tc.new + s[i+len(tc.old):]
		line := 1 + strings.Count(s[:strings.Index(s, tc.mark)], "\n")
		_, errs := readAll(t, s)
		want := fmt.Sprintf("f.jsonl:%d: %s", line, tc.want)
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), want) {
			t.Errorf("%s: errors %v\nwant one starting %q", tc.name, errs, want)
		}
	}
}

func TestNonFiniteProbability(t *testing.T) {
	for _, tc := range []struct{ p, want string }{
		{"NaN", "relations[0].probability: probability NaN is not in [0, 1]"},
		{"-Infinity", "relations[0].probability: probability -Inf is not in [0, 1]"},
		{`"0.5"`, `relations[0].probability: probability is the string "0.5", not a number`},
		{"null", "relations[0].probability: missing probability"},
	} {
		line := strings.Replace(good, `"contexts": [{`, `"relations": [{"source": "c0", "target": "a0", "type": "entailment", "probability": `+tc.p+`}], "contexts": [{`, 1)
		_, errs := readAll(t, line)
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("probability %s: %v, want %q", tc.p, errs, tc.want)
		}
	}
	// The bare words inside strings are text, not numbers.
	ins, errs := readAll(t, good)
	if len(errs) != 0 || ins[0].Output != "R NaN Infinity" {
		t.Errorf("strings were rewritten: %v %v", ins, errs)
	}
}

func TestQuoteNonFinite(t *testing.T) {
	in := `{"a": NaN, "b": "x \"NaN\" y", "c": [-Infinity, Infinity]}`
	want := `{"a": "NaN", "b": "x \"NaN\" y", "c": ["-Infinity", "Infinity"]}`
	if got := string(quoteNonFinite([]byte(in))); got != want {
		t.Errorf("got %s", got)
	}
}

func TestNLIText(t *testing.T) {
	for _, tc := range []struct {
		c    Context
		want string
	}{
		{Context{Text: "T", Snippet: "S"}, "Snippet/Summary of Text:\n\nS\n\nText:\n\nT"},
		{Context{Text: "T"}, "T"},
		{Context{Snippet: "S"}, "S"},
	} {
		if got := tc.c.NLIText(); got != tc.want {
			t.Errorf("%+v: %q", tc.c, got)
		}
	}
}

// TestPublishedFiles reads the published FactReasoner files, which are
// pretty-printed objects carrying extra fields.
func TestPublishedFiles(t *testing.T) {
	for _, tc := range []struct {
		file             string
		atoms, contexts  int
		labeled, snippet bool
	}{
		{"flaherty_wikipedia.json", 26, 53, true, false},
		{"flaherty_google.json", 26, 130, true, true},
		{"reference_factreasoner_output.json", 21, 39, false, true},
	} {
		ins, err := ReadFile(refdata.Path(t, "factreasoner", tc.file))
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		in := ins[0]
		if len(ins) != 1 || len(in.Atoms) != tc.atoms || len(in.Contexts) != tc.contexts || in.Labeled() != tc.labeled || in.Line != 1 {
			t.Errorf("%s: %d records, %d atoms, %d contexts, labeled %v", tc.file, len(ins), len(in.Atoms), len(in.Contexts), in.Labeled())
		}
		if (in.Contexts[0].Snippet != "") != tc.snippet {
			t.Errorf("%s: snippet %q", tc.file, in.Contexts[0].Snippet)
		}
	}
}

// TestRecordLimits: a record with more atoms, contexts or relations than
// the limits is refused, naming the field; one at the limits is read.
func TestRecordLimits(t *testing.T) {
	build := func(atoms, contexts int) string {
		var b strings.Builder
		b.WriteString(`{"input": "Q", "output": "R", "atoms": [`)
		for i := range atoms {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id": "a%d", "text": "A%d"}`, i, i)
		}
		b.WriteString(`], "contexts": [`)
		for i := range contexts {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id": "c%d", "text": "C%d"}`, i, i)
		}
		b.WriteString("]}\n")
		return b.String()
	}
	for _, tc := range []struct {
		atoms, contexts int
		err             string
	}{
		{MaxAtoms, MaxContexts, ""},
		{MaxAtoms + 1, 1, "f.jsonl:1: atoms: 10001 entries, more than the 10000"},
		{1, MaxContexts + 1, "f.jsonl:1: contexts: 10001 entries, more than the 10000"},
	} {
		ins, errs := readAll(t, build(tc.atoms, tc.contexts))
		switch {
		case tc.err == "" && (len(ins) != 1 || errs != nil):
			t.Errorf("%d atoms, %d contexts: %v", tc.atoms, tc.contexts, errs)
		case tc.err != "" && (len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.err)):
			t.Errorf("%d atoms, %d contexts: %v, want %q", tc.atoms, tc.contexts, errs, tc.err)
		}
	}
}

// TestRelationLimit: a record with MaxRelations relations validates, one
// with one more does not.
func TestRelationLimit(t *testing.T) {
	in := &Instance{Output: "R", Atoms: []Atom{{ID: "a0", Text: "A"}}, Contexts: []Context{{ID: "c0", Text: "C"}}}
	in.Relations = make([]Relation, MaxRelations, MaxRelations+1)
	for i := range in.Relations {
		in.Relations[i] = Relation{Source: "c0", Target: "a0", Type: TypeEntailment, Probability: 0.5}
	}
	if err := in.Validate(); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	in.Relations = append(in.Relations, in.Relations[0])
	if err := in.Validate(); err == nil || !strings.HasPrefix(err.Error(), "relations: 1000001 entries") {
		t.Errorf("over the limit: %v", err)
	}
}

// TestContextProbability: a context's probability (its prior) is read as
// it is written, a missing one is nil, and one that is not a probability
// is refused naming the context's field and the line, also for Python's
// bare NaN.
func TestContextProbability(t *testing.T) {
	with := func(p string) string {
		return strings.Replace(good, `{"id": "c0", "text": "C"}`, `{"id": "c0", "text": "C"}, {"id": "c1", "text": "D", "probability": `+p+`}`, 1)
	}
	for _, tc := range []struct {
		p    string
		want float64
		err  string
	}{
		{"0.72", 0.72, ""},
		{"0", 0, ""},
		{"1", 1, ""},
		{"null", -1, ""},
		{"NaN", 0, "f.jsonl:1: contexts[1].probability: probability NaN is not in [0, 1]"},
		{"-0.1", 0, "f.jsonl:1: contexts[1].probability: probability -0.1 is not in [0, 1]"},
		{"1.5", 0, "f.jsonl:1: contexts[1].probability: probability 1.5 is not in [0, 1]"},
		{"Infinity", 0, "f.jsonl:1: contexts[1].probability: probability +Inf is not in [0, 1]"},
		{`"0.5"`, 0, `f.jsonl:1: contexts[1].probability: probability is the string "0.5", not a number`},
		{"[0.5]", 0, "f.jsonl:1: contexts[1].probability: "},
	} {
		ins, errs := readAll(t, with(tc.p)+"\n")
		switch {
		case tc.err != "":
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.err) {
				t.Errorf("probability %s: %v, want %q", tc.p, errs, tc.err)
			}
		case len(errs) != 0 || len(ins) != 1:
			t.Errorf("probability %s: %v", tc.p, errs)
		case tc.want < 0 && ins[0].Contexts[1].Probability != nil:
			t.Errorf("probability %s: read as %v", tc.p, *ins[0].Contexts[1].Probability)
		case tc.want >= 0 && (ins[0].Contexts[1].Probability == nil || *ins[0].Contexts[1].Probability != tc.want):
			t.Errorf("probability %s: read as %v", tc.p, ins[0].Contexts[1].Probability)
		case ins[0].Contexts[0].Probability != nil:
			t.Errorf("a context without probability has one")
		}
	}
	// Validate refuses what a library caller builds, too.
	in := &Instance{Output: "R", Atoms: []Atom{{ID: "a0", Text: "A"}}, Contexts: []Context{{ID: "c0", Text: "C", Probability: new(math.NaN())}}}
	if err := in.Validate(); err == nil || err.Error() != "contexts[0].probability: probability NaN is not in [0, 1]" {
		t.Errorf("Validate: %v", err)
	}
}

// TestEmptyOutputAndContexts: FactReasoner's own files read as FactReasoner
// reads them: an empty output is valid when the atoms are given (and an
// error when they are not), a context with neither text nor snippet is
// valid, and WithoutEmptyContexts drops it from the contexts, the atoms'
// lists and the relations, leaving the record it was given alone.
func TestEmptyOutputAndContexts(t *testing.T) {
	ins, errs := readAll(t, `{"input": "Q", "output": "", "cat": ["bio"], "atoms": [{"id": "a0", "text": "A", "label": null}]}`+"\n")
	if len(errs) != 0 || ins[0].Labeled() || len(ins[0].Extra) != 1 || string(ins[0].Extra[0].Value) != `["bio"]` {
		t.Errorf("empty output with atoms, a null label, cat: %v %+v", errs, ins)
	}
	if _, errs := readAll(t, `{"input": "Q", "output": " "}`+"\n"); len(errs) != 1 || !strings.Contains(errs[0].Error(), "f.jsonl:1: output: empty response, and no atoms given") {
		t.Errorf("empty output without atoms: %v", errs)
	}
	line := `{"input": "Q", "output": "R", "atoms": [{"id": "a0", "text": "A", "contexts": ["c0", "c1", "c2"]}, {"id": "a1", "text": "B", "contexts": ["c1"]}], ` +
		`"contexts": [{"id": "c0", "text": "C"}, {"id": "c1", "title": "no text", "text": " ", "snippet": ""}, {"id": "c2", "snippet": "S"}], ` +
		`"relations": [{"source": "c1", "target": "a0", "type": "entailment", "probability": 0.9}, {"source": "c0", "target": "a0", "type": "entailment", "probability": 0.8}]}`
	ins, errs = readAll(t, line+"\n")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	in := ins[0]
	out, dropped := in.WithoutEmptyContexts()
	if !reflect.DeepEqual(dropped, []string{"c1"}) {
		t.Errorf("dropped %v", dropped)
	}
	var ids []string
	for _, c := range out.Contexts {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, " ") != "c0 c2" || strings.Join(out.Atoms[0].Contexts, " ") != "c0 c2" || len(out.Atoms[1].Contexts) != 0 ||
		len(out.Relations) != 1 || out.Relations[0].Source != "c0" {
		t.Errorf("after dropping: contexts %v, atoms %+v, relations %+v", ids, out.Atoms, out.Relations)
	}
	if err := out.Validate(); err != nil {
		t.Errorf("the record without its empty contexts: %v", err)
	}
	if len(in.Contexts) != 3 || len(in.Atoms[0].Contexts) != 3 || len(in.Atoms[1].Contexts) != 1 || len(in.Relations) != 2 {
		t.Errorf("the record given was modified: %+v", in)
	}
	if same, none := out.WithoutEmptyContexts(); same != out || none != nil {
		t.Errorf("a record without empty contexts: %v, %v", same, none)
	}
}

// TestFactReasonerFiles reads FactReasoner's newer labeled files whole, as
// FactReasoner reads them: ConflictBank's records with an empty output and
// given atoms, the NASA records whose web contexts include hits with
// neither text nor snippet, and those without contexts. "cat" and the
// other fields pass through.
func TestFactReasonerFiles(t *testing.T) {
	for _, tc := range []struct {
		file                     string
		records, atoms, contexts int
		empty                    int // contexts with neither text nor snippet
	}{
		{"conflictbank-n100.jsonl", 100, 100, 200, 0},
		{"nasa_science-labeled_google.jsonl", 3, 20, 100, 6},
		{"nasa_science-labeled.jsonl", 3, 20, 0, 0},
		{"nasa_technical-labeled.jsonl", 5, 40, 0, 0},
	} {
		ins, err := ReadFile(refdata.Path(t, "factreasoner", tc.file))
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		atoms, contexts, empty := 0, 0, 0
		for _, in := range ins {
			atoms += len(in.Atoms)
			contexts += len(in.Contexts)
			_, dropped := in.WithoutEmptyContexts()
			empty += len(dropped)
			if !in.Labeled() {
				t.Errorf("%s:%d: not labeled", tc.file, in.Line)
			}
		}
		if len(ins) != tc.records || atoms != tc.atoms || contexts != tc.contexts || empty != tc.empty {
			t.Errorf("%s: %d records, %d atoms, %d contexts, %d empty; want %d, %d, %d, %d", tc.file, len(ins), atoms, contexts, empty, tc.records, tc.atoms, tc.contexts, tc.empty)
		}
		if tc.file == "conflictbank-n100.jsonl" {
			if ins[0].Output != "" || len(ins[0].Extra) != 1 || ins[0].Extra[0].Name != "cat" {
				t.Errorf("%s: output %q, extra fields %v", tc.file, ins[0].Output, ins[0].Extra)
			}
		}
	}
}
