package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/foreign/foreigntest"
	"github.com/factreasoner/factreasoner-go/nli/nlimodel"
	"github.com/factreasoner/factreasoner-go/result"
)

// run runs the fr command line with args and returns stdout, stderr and the
// error.
func run(t *testing.T, ctx context.Context, args ...string) (string, string, error) {
	t.Helper()
	var out, errw bytes.Buffer
	app := newApp()
	app.Writer, app.ErrWriter = &out, &errw
	err := execute(ctx, app, append([]string{"fr"}, args...))
	return out.String(), errw.String(), err
}

// flahertyWithRelations writes the Flaherty instance as one jsonl line with
// the 15 relations of IBM's recorded FR2 run inlined, and returns its path
// and the golden file's contents.
func flahertyWithRelations(t *testing.T) (string, map[string]json.RawMessage) {
	t.Helper()
	return foreigntest.FlahertyInput(t, t.TempDir())
}

func readJSON(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestScoreGolden: `fr score --version 2 --nli given` on the Flaherty file
// with the golden relations reproduces merlin's marginals of the 26 atoms
// and the 21 deduplicated contexts to 1e-6, and the recorded scores.
func TestScoreGolden(t *testing.T) {
	path, gold := flahertyWithRelations(t)
	out, _, err := run(t, context.Background(), "score", "--version", "2", "--nli", "given", path)
	if err != nil {
		t.Fatal(err)
	}
	var rec result.Line
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("output is not one JSON record: %v\n%s", err, out)
	}
	var merlin []result.Marginal
	if err := json.Unmarshal(gold["merlin_all_marginals"], &merlin); err != nil {
		t.Fatal(err)
	}
	want := make(map[string][2]float64)
	for _, m := range merlin {
		want[m.Variable] = m.Probabilities
	}
	if len(rec.Marginals) != 26 || len(rec.ContextMarginals) != 21 {
		t.Fatalf("%d atom and %d context marginals, want 26 and 21", len(rec.Marginals), len(rec.ContextMarginals))
	}
	for _, m := range append(rec.Marginals, rec.ContextMarginals...) {
		w, ok := want[m.Variable]
		if !ok {
			t.Errorf("%s: not in merlin's output", m.Variable)
			continue
		}
		for x := range 2 {
			if math.Abs(m.Probabilities[x]-w[x]) > 1e-6 {
				t.Errorf("%s: P(%d) = %.9f, merlin %.6f", m.Variable, x, m.Probabilities[x], w[x])
			}
		}
	}
	if rec.FactualityScore != 9.0/26 || rec.NumUniformAtoms != 16 || rec.NumContexts != 21 {
		t.Errorf("Pr %v uniform %d contexts %d; want 9/26, 16, 21", rec.FactualityScore, rec.NumUniformAtoms, rec.NumContexts)
	}
	if *rec.TruePositive != 7 || *rec.TrueNegative != 17 || *rec.FalsePositive != 2 || *rec.FalseNegative != 0 {
		t.Errorf("TP %d TN %d FP %d FN %d, want 7 17 2 0", *rec.TruePositive, *rec.TrueNegative, *rec.FalsePositive, *rec.FalseNegative)
	}
	if rec.Version != "FR2" || rec.NLIBackend != "given" || rec.Line != 1 {
		t.Errorf("version %s backend %s line %d", rec.Version, rec.NLIBackend, rec.Line)
	}
}

func TestCompareAndInspect(t *testing.T) {
	path, _ := flahertyWithRelations(t)
	out, _, err := run(t, context.Background(), "compare", "--nli", "given", path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[2], "| FR1 |") || !strings.HasPrefix(lines[3], "| FR2 | 1 | 0.3462 |") || !strings.HasPrefix(lines[4], "| FR3 |") {
		t.Errorf("compare output:\n%s", out)
	}
	out, _, err = run(t, context.Background(), "compare", "--nli", "given", "--format", "json", "--versions", "2", path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := unmarshalRows(out, &rows); err != nil || len(rows) != 1 || rows[0]["version"] != "FR2" || rows[0]["accuracy"] != 24.0/26 || rows[0]["pearson"] != nil {
		t.Errorf("compare json: %v\n%s", err, out)
	}

	dot := filepath.Join(t.TempDir(), "net.dot")
	out, _, err = run(t, context.Background(), "inspect", "--nli", "given", "--atom", "a2", "--dot", dot, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a2  P(true) = 0.013856  predicted NS  gold NS", "Lanny Flaherty was born on December 18, 1949.",
		`contradiction 0.999695  from c_a0_0 "Lanny Flaherty"`} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\na1 ") {
		t.Errorf("inspect --atom a2 shows other atoms:\n%s", out)
	}
	d, err := os.ReadFile(dot)
	if err != nil || !bytes.Contains(d, []byte(`"c_a0_0" -> "a2" [color="#d95f02", penwidth=2.40, label="1.00", tooltip="c_a0_0 → a2: contradiction 0.999695"]`)) ||
		!bytes.Contains(d, []byte(`label="a2  P=0.014\nLanny Flaherty was born on\nDecember 18, 1949."`)) || !bytes.HasPrefix(d, []byte("digraph")) {
		t.Errorf("dot file: %v\n%s", err, d)
	}
	if _, _, err := run(t, context.Background(), "inspect", "--nli", "given", "--atom", "a99", path); err == nil || !strings.Contains(err.Error(), `no atom "a99"`) {
		t.Errorf("inspect of a missing atom: %v", err)
	}
}

// TestCompareFActScore: the FActScore row supports an atom iff one of its
// own contexts (or a context with the same text) entails it with
// probability above 0.5; computed here from the relations directly.
func TestCompareFActScore(t *testing.T) {
	path, gold := flahertyWithRelations(t)
	inst := readJSON(t, path)
	var atoms []struct {
		ID       string   `json:"id"`
		Label    string   `json:"label"`
		Contexts []string `json:"contexts"`
	}
	var contexts []struct{ ID, Text string }
	var rels []struct {
		Source, Target, Type string
		Probability          float64
	}
	json.Unmarshal(inst["atoms"], &atoms)
	json.Unmarshal(inst["contexts"], &contexts)
	json.Unmarshal(gold["relations"], &rels)
	first := map[string]string{} // text -> first id
	canon := map[string]string{}
	for _, c := range contexts {
		if _, ok := first[c.Text]; !ok {
			first[c.Text] = c.ID
		}
		canon[c.ID] = first[c.Text]
	}
	entails := map[[2]string]bool{}
	for _, r := range rels {
		if r.Type == "entailment" && r.Probability > 0.5 {
			entails[[2]string{r.Source, r.Target}] = true
		}
	}
	supported, correct := 0, 0
	for _, a := range atoms {
		s := false
		for _, c := range a.Contexts {
			s = s || entails[[2]string{canon[c], a.ID}]
		}
		if s {
			supported++
		}
		if s == (a.Label == "S") {
			correct++
		}
	}
	out, _, err := run(t, context.Background(), "compare", "--nli", "given", "--versions", "2,factscore", "--format", "json", path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := unmarshalRows(out, &rows); err != nil || len(rows) != 2 {
		t.Fatalf("%v\n%s", err, out)
	}
	fs := rows[1]
	if fs["version"] != "FActScore-NLI" || fs["mean_precision"] != float64(supported)/26 || fs["accuracy"] != float64(correct)/26 || supported == 0 {
		t.Errorf("FActScore row %v; want precision %d/26, accuracy %d/26", fs, supported, correct)
	}
}

// TestCompareCSV: the csv rows carry the json rows' numbers at full
// precision, and missing values (correlations of a single response, gold
// measures of an unlabeled input) are empty cells; markdown keeps 4
// decimals and n/a.
func TestCompareCSV(t *testing.T) {
	columns := map[string]string{"responses": "responses", "responding": "responding", "Pr": "mean_precision", "atom F1": "atom_f1", "F1@K": "mean_f1_k",
		"MAE": "mae", "RMSE": "rmse", "E": "mean_avg_entropy", "Brier": "brier", "accuracy": "accuracy", "#S": "mean_true_atoms",
		"#C": "mean_false_atoms", "#U": "mean_uniform_atoms", "Pearson": "pearson", "Spearman": "spearman"}
	// The intervals' ends: "Pr CI low" is mean_precision_ci[0].
	for col, field := range maps.Clone(columns) {
		columns[col+" CI low"], columns[col+" CI high"] = field+"_ci", field+"_ci"
	}
	jsonValue := func(row map[string]any, col string) (any, bool) {
		v, ok := row[columns[col]]
		if iv, isList := v.([]any); isList && len(iv) == 2 {
			if strings.HasSuffix(col, " CI high") {
				return iv[1], true
			}
			return iv[0], true
		}
		return v, ok
	}
	path, _ := flahertyWithRelations(t)
	unlabeled := writeFile(t, "unlabeled.jsonl", record(0, replace(`"label": "S", `, ``))+"\n")
	for _, tc := range []struct {
		name, input string
		empty       []string // columns that must be empty
	}{
		{"flaherty", path, []string{"Pearson", "Spearman"}},
		{"unlabeled", unlabeled, []string{"atom F1", "MAE", "RMSE", "Brier", "accuracy", "Pearson", "Spearman"}},
	} {
		compare := func(format string) string {
			out, _, err := run(t, context.Background(), "compare", "--format", format, "--nli", "given", "--versions", "1,2,3,factscore", tc.input)
			if err != nil {
				t.Fatalf("%s, %s: %v", tc.name, format, err)
			}
			return out
		}
		csvOut, jsonOut := compare("csv"), compare("json")
		if md := compare("markdown"); !strings.Contains(md, " | n/a |") {
			t.Errorf("%s: markdown without n/a:\n%s", tc.name, md)
		}
		var rows []map[string]any
		if err := unmarshalRows(jsonOut, &rows); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
		if err != nil || len(recs) != 1+len(rows) || len(rows) != 4 {
			t.Fatalf("%s: csv %v:\n%s", tc.name, err, csvOut)
		}
		header := recs[0]
		for i, rec := range recs[1:] {
			if rec[0] != rows[i]["version"] {
				t.Errorf("%s: row %d is %s, json %v", tc.name, i, rec[0], rows[i]["version"])
			}
			for j, cell := range rec[1:] {
				col := header[j+1]
				if col == "inference" {
					want, _ := rows[i]["inference"].(string)
					if cell != want || (rec[0] != "FActScore-NLI" && !strings.HasPrefix(cell, "exact ")) {
						t.Errorf("%s %s inference: csv %q, json %q", tc.name, rec[0], cell, want)
					}
					continue
				}
				jv, present := jsonValue(rows[i], col)
				want, isNum := jv.(float64)
				// FActScore decides every atom without a P(true): no
				// entropy, no undecided atoms, no Brier score.
				base, _, _ := strings.Cut(col, " CI ")
				notApplicable := rec[0] == "FActScore-NLI" && (base == "E" || base == "#U" || base == "Brier")
				if slices.Contains(tc.empty, base) || notApplicable {
					if cell != "" {
						t.Errorf("%s %s %s: %q, want an empty cell", tc.name, rec[0], col, cell)
					}
					// The json row says the same: null, not a number.
					if !present || jv != nil {
						t.Errorf("%s %s %s: json %v, want null", tc.name, rec[0], columns[col], jv)
					}
					continue
				}
				got, err := strconv.ParseFloat(cell, 64)
				if !isNum || err != nil || got != want {
					t.Errorf("%s %s %s: csv %q, json %v", tc.name, rec[0], col, cell, jv)
				}
			}
		}
	}
}

// TestAutoNLIWithoutModel: with --nli auto (the default) and no NLI model
// available, records with relations are scored from them, and a record
// without relations is an error that lists the ways to get NLI, never a
// silent lexical run; with --skip-invalid... it still fails (it is not the
// record's fault), so the run exits 1.
func TestAutoNLIWithoutModel(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir()) // no ONNX model pulled
	noRelations := func(s string) string { return s[:strings.Index(s, `, "relations"`)] + "}" }
	all := writeFile(t, "all.jsonl", record(0, nil)+"\n"+record(1, nil)+"\n")
	stdout, stderr, err := run(t, context.Background(), "score", all)
	if err != nil {
		t.Fatalf("all with relations: %v\n%s", err, stderr)
	}
	lines := scoreLines(t, stdout)
	for i, l := range lines {
		if l["nli_backend"] != "given" || l["run"].(map[string]any)["nli"] != "given" {
			t.Errorf("record %d: nli_backend %v, run %v", i+1, l["nli_backend"], l["run"])
		}
	}
	if len(lines) != 2 || strings.Contains(stderr, "lexical") {
		t.Errorf("%d lines; stderr:\n%s", len(lines), stderr)
	}

	mixed := writeFile(t, "mixed.jsonl", record(0, nil)+"\n"+record(1, noRelations)+"\n")
	stdout, _, err = run(t, context.Background(), "score", mixed)
	if err == nil || exitStatus(err) != exitFailure {
		t.Fatalf("a record without relations: %v (exit %d), want an error", err, exitStatus(err))
	}
	for _, want := range []string{mixed + ":2", "no NLI model is configured", "fr models pull " + nlimodel.Default, "--nli llm", "--nli remote", "--nli lexical"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "Options.") {
		t.Errorf("error %q names the library's options, not the flags", err)
	}
	if n := len(scoreLines(t, stdout)); n != 1 || strings.Contains(stdout, `"nli_backend":"lexical"`) {
		t.Errorf("stdout: %d lines, want the record with relations only:\n%s", n, stdout)
	}
	// --nli lexical is a choice: then it is used.
	stdout, _, err = run(t, context.Background(), "score", "--nli", "lexical", mixed)
	if err != nil || !strings.Contains(stdout, `"nli_backend":"lexical"`) {
		t.Errorf("--nli lexical: %v\n%s", err, stdout)
	}
}
