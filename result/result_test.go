package result_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/result"
)

// line is a small line as fr score writes it, with an unknown field.
func line() result.Line {
	d := graph.DefaultOptions()
	return result.Line{
		FactualityScore: 1, NumAtoms: 1, NumContexts: 1, NumRelations: 1, K: 1,
		Input: "Q?", Output: "A.", Version: "FR2", ModelName: "given", NLIBackend: "given",
		Marginals:        []result.Marginal{{Variable: "a0", Probabilities: [2]float64{0.1, 0.9}}},
		ContextMarginals: []result.Marginal{{Variable: "c0", Probabilities: [2]float64{0.2, 0.8}}},
		Solver:           inference.Report{Solver: "native", Method: "exact", Converged: true},
		Priors:           &result.Priors{Options: d},
		Run:              &result.Run{NLI: "given", Inference: "exact[maxmem=1,budget=2s]", K: "half"},
		Line:             3,
		Atoms:            []instance.Atom{{ID: "a0", Text: "A.", Contexts: []string{"c0"}}},
		Contexts:         []instance.Context{{ID: "c0", Text: "A indeed."}},
		Relations:        []graph.Relation{{Source: "c0", Target: "a0", Type: graph.Entailment, Probability: 0.9}},
		Extra:            []instance.Field{{Name: "id", Value: json.RawMessage(`"q7"`)}},
	}
}

// TestRoundTrip: a line decodes to what was encoded, its unknown fields
// kept in order, and encodes again to the same bytes.
func TestRoundTrip(t *testing.T) {
	raw, err := json.Marshal(line())
	if err != nil {
		t.Fatal(err)
	}
	l, err := result.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(l)
	if err != nil || string(again) != string(raw) {
		t.Errorf("encoded again:\n%s\nwant\n%s (%v)", again, raw, err)
	}
	if len(l.Extra) != 1 || l.Extra[0].Name != "id" || !l.Recorded("run") || l.Recorded("summarizer") {
		t.Errorf("extra %v, run recorded %v", l.Extra, l.Recorded("run"))
	}
}

// TestDecodeErrors: errors name the field that is wrong by its path.
func TestDecodeErrors(t *testing.T) {
	raw, _ := json.Marshal(line())
	var fields map[string]json.RawMessage
	json.Unmarshal(raw, &fields)
	for _, tc := range []struct {
		field, value string // value "" deletes the field
		want         string
	}{
		{"line", "", "line: missing"},
		{"k", "", "k: missing"},
		{"version", `"FR9"`, "version: unknown FactReasoner version"},
		{"factuality_score", `"1"`, "factuality_score: expected number, got JSON string"},
		{"marginals", `[{"variable":"a0","probabilities":[0.1,1.5]}]`, "marginals[0].probabilities[1]: 1.5 is not a probability"},
		{"context_marginals", `[{"variable":"a0","probabilities":[0.5,0.5]}]`, `context_marginals[0].variable: "a0" is listed twice`},
		{"num_atoms", "2", "marginals: 1 of them but num_atoms is 2"},
		{"relations", `[{"source":"c0","target":"a0","type":"neutral","probability":0.5}]`, "relations[0].type: neutral relations make no factor"},
		{"relations", `[{"source":"c0","target":"a0","type":"entailment","probability":"high"}]`, "relations[0].probability"},
		{"priors", `{"use_priors":true,"atom_prior":0.5,"context_prior":0.9,"context_priors":{"c0":1}}`, "priors.context_priors.c0: prior 1 is not in (0, 1)"},
		{"run", `{"nli":3}`, "run.nli: expected string, got JSON number"},
	} {
		edited := make(map[string]json.RawMessage, len(fields))
		for k, v := range fields {
			edited[k] = v
		}
		if tc.value == "" {
			delete(edited, tc.field)
		} else {
			edited[tc.field] = json.RawMessage(tc.value)
		}
		b, _ := json.Marshal(edited)
		_, err := result.Decode(b)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s = %s: error %v, want %q", tc.field, tc.value, err, tc.want)
		}
	}
}

// TestCompare: identities differ in the first setting that differs,
// named by its field; a setting a line does not depend on matches any.
func TestCompare(t *testing.T) {
	a := result.Identity{Version: "FR2", NLI: "given else onnx:m", Inference: "exact[x]", PairsPerAtom: "own+3", Priors: "p", K: "half"}
	for _, tc := range []struct {
		name  string
		edit  func(*result.Identity)
		field string
	}{
		{"same", func(*result.Identity) {}, ""},
		{"algorithm", func(b *result.Identity) { b.Inference = "bp[damping=0.5]" }, "run.inference"},
		{"version", func(b *result.Identity) { b.Version = "FR3"; b.K = "3" }, "version"},
		{"K", func(b *result.Identity) { b.K = "3" }, "run.k"},
		{"pruning", func(b *result.Identity) { b.PairsPerAtom = "all" }, "pairs_per_atom"},
		{"a record from its relations", func(b *result.Identity) { b.PairsPerAtom = "" }, ""},
		{"summaries", func(b *result.Identity) { b.Summarizer = "given" }, "summarizer"},
		{"sources", func(b *result.Identity) { b.Sources = "db[kb=sha256:1]" }, ""},
		{"atomizer", func(b *result.Identity) { b.Atomizer = "sentences" }, ""},
	} {
		b := a
		tc.edit(&b)
		d := result.Compare(a, b)
		switch {
		case tc.field == "" && d != nil:
			t.Errorf("%s: differ in %+v", tc.name, d)
		case tc.field != "" && (d == nil || d.Field != tc.field):
			t.Errorf("%s: %+v, want field %s", tc.name, d, tc.field)
		}
	}
}

// TestAgreement: lines are of one run when each agrees with what the
// lines before say of each setting: a line that does not depend on a
// setting ("") takes any, and the first line that names it sets it for
// the lines after; a difference names the line that set the other value.
func TestAgreement(t *testing.T) {
	base := result.Identity{Version: "FR2", Inference: "exact", Priors: "p", K: "half"}
	with := func(edit func(*result.Identity)) result.Identity { id := base; edit(&id); return id }
	kb1 := func(id *result.Identity) { id.Retrieval, id.Sources = "top_k=3", "db[kb=1]" }
	kb2 := func(id *result.Identity) { id.Retrieval, id.Sources = "top_k=3", "db[kb=2]" }
	for _, tc := range []struct {
		name  string
		lines []result.Identity
		field string // of the difference, "" for none
		at    int    // the line it is with
	}{
		{"one run", []result.Identity{base, with(kb1), base, with(kb1)}, "", 0},
		{"two knowledge bases", []result.Identity{base, with(kb1), base, with(kb2)}, "run.sources", 1},
		{"a line without the setting between", []result.Identity{with(kb1), base, with(kb2)}, "run.sources", 0},
		{"another solver", []result.Identity{base, with(kb1), with(func(id *result.Identity) { id.Inference = "bp" })}, "run.inference", 0},
	} {
		var g result.Agreement
		var d *result.Difference
		at := 0
		for _, id := range tc.lines {
			if d, at = g.Add(id); d != nil {
				break
			}
		}
		switch {
		case tc.field == "" && d != nil:
			t.Errorf("%s: %+v", tc.name, d)
		case tc.field != "" && (d == nil || d.Field != tc.field || at != tc.at):
			t.Errorf("%s: %+v with line %d, want %s with line %d", tc.name, d, at, tc.field, tc.at)
		}
	}
}

// TestOldLine: a line written before the run's settings were recorded
// has the identity its fields give: its record's NLI backend, its solver's
// name, "all" pairs before pruning.
func TestOldLine(t *testing.T) {
	l := line()
	l.Run, l.NLIBackend, l.ModelName, l.Priors = nil, "onnx", "m", nil
	id := l.Identity()
	want := result.Identity{Version: "FR2", NLI: "onnx:m", Inference: "native", PairsPerAtom: "all", Priors: result.PriorsName(nil)}
	if id != want {
		t.Errorf("%+v, want %+v", id, want)
	}
}
