package foreign_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/foreign"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/score"
)

func write(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(1, math.Abs(b)) }

// results reads the "results" object of a reference file.
func results(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Results map[string]json.RawMessage }
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.Results
}

func num(t *testing.T, m map[string]json.RawMessage, name string) float64 {
	t.Helper()
	var v float64
	if err := json.Unmarshal(m[name], &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// TestReadReference reads IBM's two reference result files: FactReasoner's
// run (to_json with its results: marginals) and its FActScore baseline's
// (predictions, "entropy": null). The measures computed here from its
// marginals, or decisions, with K half (its rule, K = ⌊n/2⌋) give what its
// results say where the definitions agree (factuality_score, f1_k,
// num_true_atoms), and its own avg_entropy (natural log) and
// num_false_atoms (the undecided atom included) are kept under their names.
func TestReadReference(t *testing.T) {
	half := score.K{Half: true, Name: "half"}
	for _, tc := range []struct {
		file     string
		label    string
		decided  bool
		atoms    int
		contexts int
	}{
		{"reference_factreasoner_output.json", "FactReasoner (reference_factreasoner_output.json)", false, 21, 39},
		{"reference_factscore_output.json", "FactReasoner baseline (reference_factscore_output.json)", true, 19, 94},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := refdata.Path(t, "factreasoner", tc.file)
			if k, err := foreign.Detect(path); err != nil || k != foreign.FactReasoner {
				t.Fatalf("Detect = %v, %v", k, err)
			}
			run, err := foreign.Read(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if run.Label() != tc.label || run.Decided != tc.decided || len(run.Records) != 1 {
				t.Fatalf("run %q, decided %v, %d records", run.Label(), run.Decided, len(run.Records))
			}
			rec := run.Records[0]
			if rec.Line != 1 || len(rec.Atoms) != tc.atoms || len(rec.Contexts) != tc.contexts || !rec.HasOutput || !rec.HasAtomText ||
				rec.Input != "Tell me a biography of Lanny Flaherty" || rec.Topic != "Lanny Flaherty" {
				t.Fatalf("record line %d, %d atoms, %d contexts, input %q", rec.Line, len(rec.Atoms), len(rec.Contexts), rec.Input)
			}
			res := results(t, path)
			s := rec.Scores(half)
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"factuality_score", s.Precision, num(t, res, "factuality_score")},
				{"f1_k", s.F1K, num(t, res, "f1_k")},
				{"recall_k", s.RecallK, num(t, res, "recall_k")},
				{"num_true_atoms", float64(s.NumTrueAtoms), num(t, res, "num_true_atoms")},
			} {
				if !near(f.got, f.want) {
					t.Errorf("%s = %v, the file's %v", f.name, f.got, f.want)
				}
			}
			nf, _ := rec.Recorded.Get("num_false_atoms")
			if nf != num(t, res, "num_false_atoms") {
				t.Errorf("recorded num_false_atoms %v", rec.Recorded)
			}
			e, ok := rec.Recorded.Get("avg_entropy")
			if tc.decided {
				// The baseline: no marginals, null entropy, kept as null.
				if ok || rec.PTrue != nil || len(rec.Supported) != tc.atoms || len(rec.Recorded) != 2 {
					t.Errorf("baseline: avg_entropy %v (%v), PTrue %v, %d decisions", e, ok, rec.PTrue, len(rec.Supported))
				}
				return
			}
			if !ok || e != num(t, res, "avg_entropy") || !near(s.FRAvgEntropy, e) {
				t.Errorf("avg_entropy: recorded %v, FactReasoner's definition from its marginals %v, file %v", e, s.FRAvgEntropy, num(t, res, "avg_entropy"))
			}
			// Ours: log10, and the undecided atom (a8, at 0.5) apart.
			if !near(s.AvgEntropy, e/math.Ln10) || s.NumUniformAtoms != 1 || s.NumFalseAtoms != 1 || rec.PTrue["a8"] != 0.5 {
				t.Errorf("E %v (want %v), #U %d, #C %d", s.AvgEntropy, e/math.Ln10, s.NumUniformAtoms, s.NumFalseAtoms)
			}
		})
	}
}

// TestResultsAlone: FactReasoner's evaluation scripts write the results
// objects alone, one per line: here the reference run's (predictions an
// object, query and response) and IBM's recorded FR2 run on the labeled
// Flaherty record (an older version's: predictions and references as
// strings, input). The gold labels come from references, and the
// agreement computed here from the marginals gives what that run records
// (true_positive ... avg_brier, over its 26 labeled atoms).
func TestResultsAlone(t *testing.T) {
	ref := results(t, refdata.Path(t, "factreasoner", "reference_factreasoner_output.json"))
	ref["model_name"] = json.RawMessage(`"llama3"`)
	golden := results(t, refdata.Path(t, "factreasoner", "flaherty_fr2_golden.json"))
	var lines []string
	for _, r := range []map[string]json.RawMessage{ref, golden} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	path := write(t, "eval_factreasoner-v2_google_flaherty_llama3.jsonl", strings.Join(lines, "\n")+"\n")
	if k, _ := foreign.Detect(path); k != foreign.FactReasoner {
		t.Fatalf("Detect = %v", k)
	}
	run, err := foreign.Read(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Records) != 2 || run.Decided {
		t.Fatalf("%d records, decided %v", len(run.Records), run.Decided)
	}
	first, second := run.Records[0], run.Records[1]
	if first.Line != 1 || second.Line != 2 || first.HasAtomText || !first.HasOutput || second.HasOutput ||
		first.Input != "Tell me a biography of Lanny Flaherty" || second.Input != "Question: Tell me a bio of Lanny Flaherty." {
		t.Errorf("records: %+v\n%+v", first, second)
	}
	if len(first.Atoms) != 21 || first.Scores(score.K{Half: true}).Gold != nil {
		t.Errorf("first record: %d atoms, gold %v", len(first.Atoms), first.Scores(score.K{Half: true}).Gold)
	}
	s := second.Scores(score.K{Half: true})
	g := s.Gold
	if len(second.Atoms) != 26 || g == nil {
		t.Fatalf("second record: %d atoms, gold %v", len(second.Atoms), g)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"true_positive", float64(g.TruePositive), num(t, golden, "true_positive")},
		{"true_negative", float64(g.TrueNegative), num(t, golden, "true_negative")},
		{"false_positive", float64(g.FalsePositive), num(t, golden, "false_positive")},
		{"false_negative", float64(g.FalseNegative), num(t, golden, "false_negative")},
		{"gold_factuality_score", g.FactualityScore, num(t, golden, "gold_factuality_score")},
		{"avg_brier", g.AvgBrier, num(t, golden, "avg_brier")},
		{"factuality_score", s.Precision, num(t, golden, "factuality_score")},
	} {
		if !near(f.got, f.want) {
			t.Errorf("%s = %v, the run's %v", f.name, f.got, f.want)
		}
	}
	var predictions string
	json.Unmarshal(golden["predictions"], &predictions)
	if s.Predictions != predictions {
		t.Errorf("predictions %q, the run's %q", s.Predictions, predictions)
	}
}

// frFile is a small FactReasoner result file as its example writes it
// (to_json with results, pretty-printed), for the malformed cases.
const frFile = `{
    "input": "Who was Ada Lovelace?",
    "output": "Ada Lovelace was a mathematician. She built a computer.",
    "topic": "Ada Lovelace",
    "atoms": [
        {"id": "a0", "text": "Ada Lovelace was a mathematician.", "label": "S", "contexts": ["c_a0_0"]},
        {"id": "a1", "text": "Ada Lovelace built a computer.", "label": "NS", "contexts": []}
    ],
    "contexts": [
        {"id": "c_a0_0", "title": "Ada Lovelace", "text": "Ada Lovelace was an English mathematician.", "snippet": "", "link": "", "synthetic_summary": "", "probability": 0.9}
    ],
    "results": {
        "factuality_score": 0.5,
        "num_atoms": 2,
        "num_false_atoms": 1,
        "entropy": 0.4,
        "avg_entropy": 0.2,
        "marginals": [
            {"variable": "a0", "probabilities": [0.1, 0.9]},
            {"variable": "a1", "probabilities": [0.8, 0.2]}
        ],
        "predictions": {"a0": "S", "a1": "NS"}
    }
}
`

// TestMalformed: a malformed FactReasoner result file or fr factscore
// output is an error naming the file, the line the offending value is on,
// and its field.
func TestMalformed(t *testing.T) {
	// The file as it is reads.
	run, err := foreign.Read(write(t, "ok.json", frFile), nil)
	if err != nil || len(run.Records) != 1 || run.Records[0].Scores(score.K{Half: true}).Gold.TrueNegative != 1 {
		t.Fatalf("the well-formed file: %v", err)
	}
	decided := strings.Replace(frFile, `"marginals": [
            {"variable": "a0", "probabilities": [0.1, 0.9]},
            {"variable": "a1", "probabilities": [0.8, 0.2]}
        ],
`, "", 1)
	// Older files keep P(true) in factuality_score_per_atom alone.
	perAtom := strings.Replace(frFile, `"marginals": [
            {"variable": "a0", "probabilities": [0.1, 0.9]},
            {"variable": "a1", "probabilities": [0.8, 0.2]}
        ],`, `"factuality_score_per_atom": [
            {"a0": {"score": 0.9, "support": "S"}},
            {"a1": {"score": 0.2, "support": "NS"}}
        ],`, 1)
	if run, err := foreign.Read(write(t, "per-atom.json", perAtom), nil); err != nil || run.Decided || run.Records[0].PTrue["a1"] != 0.2 {
		t.Fatalf("factuality_score_per_atom alone: %v", err)
	}
	for _, tc := range []struct {
		name     string
		file     string
		old, new string
		field    string // the field the error names
		at       string // the text on the line it names (after the change)
		msg      string
	}{
		{"probability", frFile, `[0.8, 0.2]`, `[0.8, 1.5]`, "results.marginals[1].probabilities[1]", `[0.8, 1.5]`, "1.5 is not a probability"},
		{"two probabilities", frFile, `[0.1, 0.9]`, `[0.9]`, "results.marginals[0].probabilities", `[0.9]`, "want 2"},
		{"atom without marginal", frFile, `"variable": "a1"`, `"variable": "a2"`, "atoms[1].id", `"id": "a1"`, `atom "a1" has no marginal`},
		{"num_atoms", frFile, `"num_atoms": 2`, `"num_atoms": 3`, "results.num_atoms", `"num_atoms": 3`, "the results are of 2 atoms"},
		{"gold label", frFile, `"label": "NS"`, `"label": "X"`, "atoms[1].label", `"label": "X"`, `label "X"`},
		{"recorded value", frFile, `"avg_entropy": 0.2`, `"avg_entropy": "0.2"`, "results.avg_entropy", `"avg_entropy": "0.2"`, "expected a number or null"},
		{"marginal type", frFile, `"variable": "a1"`, `"variable": 1`, "results.marginals[1].variable", `"variable": 1`, "expected string"},
		{"prediction", decided, `"a1": "NS"}`, `"a1": "maybe"}`, "results.predictions.a1", `"a1": "maybe"`, `label "maybe"`},
		{"neither", decided, `"predictions": {"a0": "S", "a1": "NS"}`, `"predicted": {}`, "results.marginals", `"results": {`, "or predictions either"},
		{"broken JSON", frFile, `"contexts": []}`, `"contexts": [}`, "", `"contexts": [}`, "invalid JSON"},
		{"per-atom score", perAtom, `"score": 0.2`, `"score": 1.2`, "results.factuality_score_per_atom[1].a1.score", `"score": 1.2`, "1.2 is not a probability"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := strings.Replace(tc.file, tc.old, tc.new, 1)
			if data == tc.file {
				t.Fatalf("%q is not in the file", tc.old)
			}
			path := write(t, "fr.json", data)
			_, err := foreign.Read(path, nil)
			var e *instance.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want an *instance.Error", err, err)
			}
			line := 1 + strings.Count(data[:strings.Index(data, tc.at)], "\n")
			if e.File != path || e.Line != line || e.Field != tc.field || !strings.Contains(e.Err.Error(), tc.msg) {
				t.Errorf("error %q: file %s line %d field %q; want line %d field %q with %q", err, e.File, e.Line, e.Field, line, tc.field, tc.msg)
			}
		})
	}

	// One record of a jsonl file with marginals, the next without: one
	// system's run is one kind.
	var obj map[string]json.RawMessage
	json.Unmarshal([]byte(frFile), &obj)
	a, _ := json.Marshal(obj)
	json.Unmarshal([]byte(decided), &obj)
	b, _ := json.Marshal(obj)
	_, err = foreign.Read(write(t, "mixed.jsonl", string(a)+"\n"+string(b)+"\n"), nil)
	var e *instance.Error
	if !errors.As(err, &e) || e.Line != 2 || e.Field != "results.marginals" {
		t.Errorf("mixed file: %v", err)
	}
	// With skip, the bad record is reported and the others read.
	var skipped []*instance.Error
	run, err = foreign.Read(write(t, "mixed.jsonl", string(a)+"\n"+string(b)+"\n"+string(a)+"\n"), func(e *instance.Error) { skipped = append(skipped, e) })
	if err != nil || len(run.Records) != 2 || len(skipped) != 1 || skipped[0].Line != 2 {
		t.Errorf("skipping: %v, %d skipped", err, len(skipped))
	}
}

// fsOutput writes an fr factscore output: records, then the summary line
// fr factscore writes.
func fsOutput(t *testing.T, verifier string, recs ...factscore.Record) string {
	t.Helper()
	var b strings.Builder
	agg := factscore.NewAggregate(10)
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
		agg.Add(r.Result)
	}
	sum, _ := json.Marshal(agg.Summary())
	b.WriteString(strings.TrimSuffix(string(sum), "}") + `,"verifier":"` + verifier + `"}` + "\n")
	return write(t, "factscore.jsonl", b.String())
}

// TestFActScoreOutput reads fr factscore's output: a decision per fact,
// gold labels where known (IR facts unlabeled), the responses without facts
// left out and counted, FActScore itself kept under its name.
func TestFActScoreOutput(t *testing.T) {
	recs := []factscore.Record{
		{Line: 1, Input: "Q1", Topic: "T1", Result: factscore.NewResult(2, 3, 10), Decisions: []factscore.Decision{
			{ID: "a0", Atom: "one", Supported: true, Label: "S"},
			{ID: "a1", Atom: "two", Supported: true, Label: "NS"},
			{ID: "a2", Atom: "three", Supported: false, Label: "IR"},
		}},
		{Line: 2, Input: "Q2", Abstained: true, Decisions: []factscore.Decision{}},
		{Line: 4, Input: "Q4", Result: factscore.NewResult(0, 1, 10), Decisions: []factscore.Decision{{ID: "a0", Atom: "four", Label: "NS"}}},
	}
	path := fsOutput(t, "nli:roberta", recs...)
	if k, _ := foreign.Detect(path); k != foreign.FActScore {
		t.Fatalf("Detect = %v", k)
	}
	run, err := foreign.Read(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Label() != "fr factscore (verifier nli:roberta)" || !run.Decided || run.Skipped != 1 || len(run.Records) != 2 {
		t.Fatalf("run %q, decided %v, %d skipped, %d records", run.Label(), run.Decided, run.Skipped, len(run.Records))
	}
	r := run.Records[0]
	s := r.Scores(score.K{Half: true})
	if r.Line != 1 || r.At != 1 || r.HasOutput || s.Precision != 2.0/3 || s.Gold == nil || s.Gold.TruePositive != 1 || s.Gold.FalsePositive != 1 ||
		s.Gold.Labeled() != 2 || r.Atoms[2].Label != "" || r.Atoms[1].Text != "two" {
		t.Errorf("record %+v, scores %+v", r, s)
	}
	if f, ok := r.Recorded.Get("factscore"); !ok || f != recs[0].Score {
		t.Errorf("recorded %v, want factscore %v", r.Recorded, recs[0].Score)
	}
	if r := run.Records[1]; r.Line != 4 || r.At != 3 {
		t.Errorf("second record on line %d at %d", r.Line, r.At)
	}
	means := run.RecordedMeans()
	if m, _ := means.Get("factscore"); !near(m, (recs[0].Score+recs[2].Score)/2) {
		t.Errorf("mean factscore %v", means)
	}
	if gold := fsOutput(t, "gold", recs[0]); true {
		run, err := foreign.Read(gold, nil)
		if err != nil || run.Label() != "fr factscore (gold)" {
			t.Errorf("gold: %v %v", run, err)
		}
	}

	// Malformed.
	bad := recs[0]
	bad.Decisions = bad.Decisions[:2]
	for _, tc := range []struct {
		name  string
		path  string
		line  int
		field string
	}{
		{"decisions", fsOutput(t, "x", recs[2], bad), 2, "decisions"},
		{"line", fsOutput(t, "x", factscore.Record{Result: factscore.NewResult(0, 0, 10), Decisions: []factscore.Decision{}}), 1, "line"},
		{"twice", fsOutput(t, "x", recs[0], recs[0]), 2, "line"},
		{"supported", fsOutput(t, "x", factscore.Record{Line: 1, Result: factscore.NewResult(0, 1, 10), Decisions: []factscore.Decision{{ID: "a0", Supported: true}}}), 1, "num_supported"},
		{"after the summary", write(t, "after.jsonl", "{\"factscore\":null,\"verifier\":\"x\"}\n{\"line\":1,\"decisions\":[]}\n"), 2, ""},
		{"type", write(t, "type.jsonl", "{\"line\":\"1\",\"decisions\":[]}\n"), 1, "line"},
	} {
		_, err := foreign.Read(tc.path, nil)
		var e *instance.Error
		if !errors.As(err, &e) || e.File != tc.path || e.Line != tc.line || e.Field != tc.field {
			t.Errorf("%s: error %v, want line %d field %q", tc.name, err, tc.line, tc.field)
		}
	}
}

// TestDetect: the kind comes from the content: fr score's output lines
// (they carry "version") and input records are no other system's runs,
// whatever the file is called.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       foreign.Kind
	}{
		{"fr score line", `{"factuality_score": 1, "marginals": [], "version": "FR2", "line": 1}`, 0},
		{"input record", `{"input": "Q", "output": "A", "atoms": [{"id": "a0", "text": "A"}]}`, 0},
		{"results alone", "\ufeff" + `{"factuality_score": 1, "predictions": {"a0": "S"}}`, foreign.FactReasoner},
		{"to_json", "{\n \"input\": \"Q\",\n \"results\": {\"marginals\": []}\n}", foreign.FactReasoner},
		{"factscore record", `{"line": 1, "decisions": []}`, foreign.FActScore},
		{"factscore summary", `{"factscore": null, "verifier": "llm:x"}`, foreign.FActScore},
		{"not JSON", "line one\n", 0},
		{"array", `[{"results": {}}]`, 0},
	} {
		k, err := foreign.Detect(write(t, "reference_factreasoner_output.json", tc.data))
		if err != nil || k != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, k, err, tc.want)
		}
	}
	if k, err := foreign.Detect(refdata.Path(t, "factreasoner", "flaherty_wikipedia.json")); err != nil || k != 0 {
		t.Errorf("flaherty_wikipedia.json (an input): %v, %v", k, err)
	}
}

// TestValues: recorded values encode in order, null for a missing one, and
// a run's mean of a name some record lacks is null, not a mean of the
// others.
func TestValues(t *testing.T) {
	one, two := 1.0, 2.0
	vs := foreign.Values{{Name: "b", Value: &two}, {Name: "a"}}
	if b, err := json.Marshal(vs); err != nil || string(b) != `{"b":2,"a":null}` {
		t.Errorf("%s %v", b, err)
	}
	run := &foreign.Run{Records: []*foreign.Record{
		{Recorded: foreign.Values{{Name: "x", Value: &one}, {Name: "y", Value: &one}}},
		{Recorded: foreign.Values{{Name: "x", Value: &two}}},
	}}
	m := run.RecordedMeans()
	if x, ok := m.Get("x"); !ok || x != 1.5 {
		t.Errorf("x: %v", m)
	}
	if _, ok := m.Get("y"); ok || len(m) != 2 {
		t.Errorf("y: %v", m)
	}
}
