package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/foreign/foreigntest"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// otherRuns makes three runs of the labeled Flaherty record: fr score's
// FR2 with IBM's recorded relations (--nli given), FactReasoner's result
// file of IBM's recorded FR2 run (foreigntest.FlahertyFactReasoner), and
// fr factscore's output with the NLI verifier on the same relations. It
// returns their paths in that order, the input, and the golden file.
func otherRuns(t *testing.T) (runs []string, input string, gold map[string]json.RawMessage) {
	t.Helper()
	dir := t.TempDir()
	input, gold = foreigntest.FlahertyInput(t, dir)
	ctx := context.Background()
	fr2 := filepath.Join(dir, "fr2.jsonl")
	if _, _, err := run(t, ctx, "score", "--nli", "given", "--version", "2", "-o", fr2, input); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, ctx, "factscore", "--verifier", "nli", "--nli", "given", input)
	if err != nil {
		t.Fatal(err)
	}
	fs := filepath.Join(dir, "factscore.jsonl")
	if err := os.WriteFile(fs, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{fr2, foreigntest.FlahertyFactReasoner(t, dir), fs}, input, gold
}

func goldNumber(t *testing.T, gold map[string]json.RawMessage, name string) float64 {
	t.Helper()
	var res map[string]json.RawMessage
	var v float64
	if err := json.Unmarshal(gold["results"], &res); err != nil || json.Unmarshal(res[name], &v) != nil {
		t.Fatalf("golden results.%s: %v", name, err)
	}
	return v
}

// TestCompareOtherSystems: fr compare puts a FactReasoner result file and
// an fr factscore output beside an fr score run, one row each, named by
// where they came from. The FactReasoner row's measures, computed here from
// its recorded P(true) with K half, give what IBM's run records: precision
// 9/26, TP 7, TN 17, FP 2, FN 0 (accuracy 24/26, atom F1 14/16), its Brier
// score; its own avg_entropy (natural log) and num_false_atoms (the 16
// undecided atoms counted false) are kept as "its …", beside ours (log10;
// 1 false, 16 undecided). fr score's FR2 row agrees with it (the same
// relations, exact inference). fr factscore's row has what `fr compare
// --versions factscore` computes for the same verifier, and no entropy,
// undecided atoms or Brier score: n/a, null, an empty cell.
func TestCompareOtherSystems(t *testing.T) {
	runs, input, gold := otherRuns(t)
	ctx := context.Background()
	out, _, err := run(t, ctx, append([]string{"compare", "--format", "json"}, runs...)...)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := unmarshalRows(out, &rows); err != nil || len(rows) != 3 {
		t.Fatalf("%v\n%s", err, out)
	}
	fr2, fr, fs := rows[0], rows[1], rows[2]
	if fr2["version"] != "FR2" || fr["version"] != "FactReasoner (flaherty_factreasoner_output.json) · K half" ||
		fs["version"] != "fr factscore (verifier nli:given) · K half" || fr["k"] != "half" || fr2["k"] != nil {
		t.Fatalf("rows %v / %v / %v", fr2["version"], fr["version"], fs["version"])
	}
	near := func(a any, b float64, tol float64) bool { x, ok := a.(float64); return ok && math.Abs(x-b) <= tol }
	entropy := goldNumber(t, gold, "entropy")
	for _, c := range []struct {
		field string
		want  float64
	}{
		{"mean_precision", 9.0 / 26},
		{"accuracy", 24.0 / 26},
		{"atom_f1", 14.0 / 16},
		{"brier", goldNumber(t, gold, "avg_brier")},
		{"mean_true_atoms", 9},
		{"mean_false_atoms", 1},
		{"mean_uniform_atoms", 16},
		{"mean_avg_entropy", entropy / math.Ln10 / 26},
		{"mean_gold", goldNumber(t, gold, "gold_factuality_score")},
	} {
		if !near(fr[c.field], c.want, 1e-12) {
			t.Errorf("FactReasoner %s = %v, want %v", c.field, fr[c.field], c.want)
		}
		// merlin's marginals and ours agree to 1e-6 (TestScoreGolden).
		if !near(fr2[c.field], c.want, 1e-5) {
			t.Errorf("FR2 %s = %v, want %v", c.field, fr2[c.field], c.want)
		}
	}
	recorded, _ := fr["recorded"].(map[string]any)
	if !near(recorded["avg_entropy"], goldNumber(t, gold, "avg_entropy"), 0) || !near(recorded["num_false_atoms"], 17, 0) ||
		fr["inference"] != nil || fr2["recorded"] != nil {
		t.Errorf("FactReasoner recorded %v, inference %v; FR2 recorded %v", fr["recorded"], fr["inference"], fr2["recorded"])
	}

	base, _, err := run(t, ctx, "compare", "--format", "json", "--nli", "given", "--versions", "factscore", input)
	if err != nil {
		t.Fatal(err)
	}
	var nli []map[string]any
	if err := unmarshalRows(base, &nli); err != nil || len(nli) != 1 {
		t.Fatalf("%v\n%s", err, base)
	}
	for _, f := range []string{"mean_precision", "accuracy", "atom_f1", "mean_f1_k", "mae", "mean_true_atoms", "mean_false_atoms"} {
		if fs[f] != nli[0][f] || fs[f] == nil {
			t.Errorf("fr factscore %s = %v, FActScore-NLI %v", f, fs[f], nli[0][f])
		}
	}
	for _, f := range []string{"mean_avg_entropy", "mean_uniform_atoms", "brier", "inference"} {
		if v, ok := fs[f]; !ok || v != nil {
			t.Errorf("fr factscore %s = %v, want null", f, v)
		}
	}
	if rec, _ := fs["recorded"].(map[string]any); !near(rec["factscore"], fs["mean_precision"].(float64), 1e-15) { // 26 facts: no length penalty
		t.Errorf("fr factscore recorded %v", fs["recorded"])
	}

	// Markdown and csv: n/a and empty cells where json has null, and the
	// "its" columns.
	md, _, err := run(t, ctx, append([]string{"compare"}, runs...)...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if len(lines) != 5 || !strings.HasSuffix(lines[0], "| inference | its avg_entropy | its num_false_atoms | its factscore |") {
		t.Fatalf("markdown:\n%s", md)
	}
	// | version | responses | Pr | atom F1 | F1@K | MAE | RMSE | E | Brier | accuracy | #S | #C | #U | … | its avg_entropy | its num_false_atoms | its factscore |
	cells := strings.Split(lines[4], " | ")
	if cells[7] != "n/a" || cells[8] != "n/a" || cells[12] != "n/a" || cells[15] != "n/a" || cells[18] != "0.1923 |" {
		t.Errorf("fr factscore's markdown row %q", cells)
	}
	if cells := strings.Split(lines[3], " | "); cells[16] != "0.2260" || cells[17] != "17.0000" || cells[18] != "n/a |" {
		t.Errorf("FactReasoner's markdown row %q", cells)
	}
	csvOut, _, err := run(t, ctx, append([]string{"compare", "--format", "csv"}, runs...)...)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	// version, responses, responding, Pr, …, inference, 16 interval ends, its …
	if err != nil || len(recs) != 4 || len(recs[0]) != 36 || recs[0][33] != "its avg_entropy" {
		t.Fatalf("csv (%v):\n%s", err, csvOut)
	}
	if r := recs[3]; r[8] != "" || r[9] != "" || r[13] != "" || r[16] != "" || r[35] == "" {
		t.Errorf("fr factscore's csv row %q", r)
	}
}

// TestCompareReferenceFiles: IBM's two reference result files, an
// unlabeled response, side by side: FactReasoner's run (marginals) and its
// FActScore baseline's (decisions, "entropy": null). The gold measures are
// n/a, the baseline's entropy, undecided atoms and Brier score too; K
// follows --k.
func TestCompareReferenceFiles(t *testing.T) {
	fr := refdata.Path(t, "factreasoner", "reference_factreasoner_output.json")
	fs := refdata.Path(t, "factreasoner", "reference_factscore_output.json")
	out, _, err := run(t, context.Background(), "compare", "--format", "json", "--k", "5", fr, fs)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := unmarshalRows(out, &rows); err != nil || len(rows) != 2 {
		t.Fatalf("%v\n%s", err, out)
	}
	if rows[0]["version"] != "FactReasoner (reference_factreasoner_output.json) · K 5" ||
		rows[1]["version"] != "FactReasoner baseline (reference_factscore_output.json) · K 5" || rows[1]["k"] != "5" {
		t.Errorf("rows %v, %v", rows[0]["version"], rows[1]["version"])
	}
	// FactReasoner: 19 of 21 true (a8 undecided, a7 false); K 5: recall 1.
	// Its baseline: 9 of 19 supported.
	for i, want := range []float64{19.0 / 21, 9.0 / 19} {
		pr := rows[i]["mean_precision"].(float64)
		if pr != want || math.Abs(rows[i]["mean_f1_k"].(float64)-2*pr/(pr+1)) > 1e-15 {
			t.Errorf("row %d: Pr %v, F1@K %v; want Pr %v", i, pr, rows[i]["mean_f1_k"], want)
		}
		for _, f := range []string{"accuracy", "atom_f1", "brier", "mae", "mean_gold"} {
			if v, ok := rows[i][f]; !ok || v != nil {
				t.Errorf("row %d: %s %v, want null (no gold labels)", i, f, v)
			}
		}
	}
	if rows[0]["mean_uniform_atoms"] != 1.0 || rows[1]["mean_uniform_atoms"] != nil || rows[1]["mean_avg_entropy"] != nil {
		t.Errorf("undecided %v / %v, baseline's E %v", rows[0]["mean_uniform_atoms"], rows[1]["mean_uniform_atoms"], rows[1]["mean_avg_entropy"])
	}
	if rec, _ := rows[1]["recorded"].(map[string]any); rec["num_false_atoms"] != 10.0 || rec["avg_entropy"] != nil {
		t.Errorf("the baseline's recorded values %v", rows[1]["recorded"])
	}
}

// TestCompareMalformedOther: a malformed FactReasoner result file among
// the runs is an error naming the file, the line of the offending value and
// its field, and no table is written.
func TestCompareMalformedOther(t *testing.T) {
	runs, _, _ := otherRuns(t)
	data, err := os.ReadFile(runs[1])
	if err != nil {
		t.Fatal(err)
	}
	// a12's score is P(true) 0.5 in IBM's run; make it no probability.
	const old = `"a12": {
                    "score": 0.5,`
	bad := strings.Replace(string(data), old, strings.Replace(old, "0.5", "-0.5", 1), 1)
	if bad == string(data) {
		t.Fatalf("%q is not in the FactReasoner file", old)
	}
	path := filepath.Join(t.TempDir(), "bad_factreasoner_output.json")
	os.WriteFile(path, []byte(bad), 0o644)
	line := 1 + strings.Count(bad[:strings.Index(bad, `"score": -0.5`)], "\n")
	stdout, _, err := run(t, context.Background(), "compare", runs[0], path)
	want := path + ":" + strconv.Itoa(line) + ": results.factuality_score_per_atom[4].a12.score: -0.5 is not a probability"
	if err == nil || err.Error() != want || stdout != "" {
		t.Errorf("error %v, stdout %q; want %s", err, stdout, want)
	}
	// fr report says the same.
	_, _, err = run(t, context.Background(), "report", "-o", filepath.Join(t.TempDir(), "r.html"), runs[0], path)
	if err == nil || err.Error() != want {
		t.Errorf("fr report: %v, want %s", err, want)
	}
}

// TestReportOtherSystems: fr report renders the three runs side by side:
// the summary names them by where they came from; the FactReasoner run's
// confusion matrix is IBM's (TP 7; FP 2, TN 1, undecided 16) and its ECE
// that of fr score's FR2 run (the same P(true)); fr factscore's run shows
// its decisions, counted as S or NS, and n/a for E, Brier and ECE; the page
// data carries FactReasoner's recorded values and fr factscore's decisions.
func TestReportOtherSystems(t *testing.T) {
	runs, _, _ := otherRuns(t)
	html := filepath.Join(t.TempDir(), "report.html")
	_, stderr, err := run(t, context.Background(), append([]string{"report", "--layout", "built-in", "-o", html}, runs...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "fr factscore (verifier nli:given) decides each atom without a P(true)") ||
		!strings.Contains(stderr, "FactReasoner (flaherty_factreasoner_output.json) records the atoms' marginals") {
		t.Errorf("stderr %q", stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	summary := func(name string) []string {
		row := regexp.MustCompile(`<tr><td><span class="swatch"[^>]*></span>` + regexp.QuoteMeta(name) + `(?: <span class="warn"[^>]*>[^<]*</span>)?</td>(.*?)</tr>`).FindSubmatch(page)
		if row == nil {
			t.Fatalf("no summary row for %s", name)
		}
		var cells []string
		for _, m := range regexp.MustCompile(`<td[^>]*>([^<]*)</td>`).FindAllSubmatch(row[1], -1) {
			cells = append(cells, string(m[1]))
		}
		return cells
	}
	// file, solver, responses, Pr, F1@K, E, labeled, gold Pr, MAE, RMSE, r, ρ, atom F1, accuracy, Brier, ECE
	fr2, fr, fs := summary("FR2 · given"), summary("FactReasoner (flaherty_factreasoner_output.json)"), summary("fr factscore (verifier nli:given)")
	if len(fr) != 16 || !slices.Equal(fr[3:], fr2[3:]) || fr[3] != "0.3462" || fr[12] != "0.8750" || fr[13] != "0.9231" {
		t.Errorf("FactReasoner row %q, FR2 row %q", fr, fr2)
	}
	if len(fs) != 16 || fs[5] != "n/a" || fs[14] != "n/a" || fs[15] != "n/a" || fs[3] != "0.1923" || fs[13] != "0.8462" {
		t.Errorf("fr factscore row %q", fs)
	}
	tables := regexp.MustCompile(`(?s)<table class="confusion"><caption>.*?</span>(.*?)</caption>.*?</table>`).FindAllSubmatch(page, -1)
	cells := regexp.MustCompile(`<td class="\w+">(\d+)</td>`)
	matrices := make(map[string][]string)
	for _, m := range tables {
		for _, c := range cells.FindAllSubmatch(m[0], -1) {
			matrices[string(m[1])] = append(matrices[string(m[1])], string(c[1]))
		}
	}
	// Rows gold S, NS; columns predicted S, NS, undecided.
	if got := matrices["FactReasoner (flaherty_factreasoner_output.json)"]; !slices.Equal(got, []string{"7", "0", "0", "2", "1", "16"}) {
		t.Errorf("FactReasoner's confusion matrix %v", got)
	}
	// fr factscore: 5 supported, 22 of 26 right (accuracy 0.8462), none undecided.
	if got := matrices["fr factscore (verifier nli:given)"]; len(got) != 6 || got[2] != "0" || got[5] != "0" {
		t.Errorf("fr factscore's confusion matrix %v", got)
	}

	data := regexp.MustCompile(`(?s)<script type="application/json" id="fr-data">(.*?)</script>`).FindSubmatch(page)
	var d struct {
		Runs []struct {
			Name           string
			Other, Decided bool
		}
		Responses []struct {
			S []string
			A [][4]any
			R []struct {
				E   *float64
				P   []*float64
				D   []string
				Own [][2]any
			}
		}
	}
	if data == nil || json.Unmarshal(data[1], &d) != nil || len(d.Responses) != 1 || len(d.Responses[0].R) != 3 {
		t.Fatal("no page data with one response in three runs")
	}
	r := d.Responses[0]
	if len(r.S) == 0 || len(r.A) != 26 || d.Runs[0].Other || !d.Runs[1].Other || d.Runs[1].Decided || !d.Runs[2].Decided {
		t.Errorf("response: %d sentences, %d atoms; runs %+v", len(r.S), len(r.A), d.Runs)
	}
	frRes, fsRes := r.R[1], r.R[2]
	if frRes.E == nil || frRes.P[12] == nil || *frRes.P[12] != 0.5 || frRes.D != nil || len(frRes.Own) != 2 || frRes.Own[1][0] != "num_false_atoms" || frRes.Own[1][1] != 17.0 {
		t.Errorf("FactReasoner's page result: E %v, P(a12) %v, D %v, own %v", frRes.E, frRes.P[12], frRes.D, frRes.Own)
	}
	supported := 0
	for i, dec := range fsRes.D {
		if dec == "S" {
			supported++
		}
		if fsRes.P[i] != nil {
			t.Errorf("fr factscore has P(true) %v for atom %d", *fsRes.P[i], i)
		}
	}
	if fsRes.E != nil || len(fsRes.D) != 26 || supported != 5 || len(fsRes.Own) != 1 {
		t.Errorf("fr factscore's page result: E %v, %d decisions (%d S), own %v", fsRes.E, len(fsRes.D), supported, fsRes.Own)
	}
}
