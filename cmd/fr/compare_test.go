package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCompareUndefinedCorrelation: 300 copies of one labeled record give
// every version the same precision and gold precision on every line, so
// the correlations do not exist: null in json (which must encode), n/a in
// markdown, an empty cell in csv; never ±Inf.
func TestCompareUndefinedCorrelation(t *testing.T) {
	data, err := os.ReadFile("../../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(data), "\n", 2)[0] + "\n"
	path := filepath.Join(t.TempDir(), "copies.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(first, 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"compare", "--nli", "lexical", "--versions", "1,2,3,factscore"}
	ctx := context.Background()

	out, _, err := run(t, ctx, append(args, "--format", "json", path)...)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	var rows []map[string]any
	if err := unmarshalRows(out, &rows); err != nil || len(rows) != 4 {
		t.Fatalf("json output (%v):\n%s", err, out)
	}
	for _, r := range rows {
		if r["responses"] != 300.0 || r["labeled_responses"] != 300.0 {
			t.Errorf("row %v", r)
		}
		for _, k := range []string{"pearson", "spearman"} {
			if v, ok := r[k]; !ok || v != nil {
				t.Errorf("%s %s = %v, want null", r["version"], k, v)
			}
		}
	}

	out, _, err = run(t, ctx, append(args, "--format", "markdown", path)...)
	if err != nil {
		t.Fatal(err)
	}
	table, _, _ := strings.Cut(out, "\n\n") // the rows, before the tests
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 6 || strings.Contains(out, "Inf") || strings.Contains(out, "NaN") {
		t.Fatalf("markdown:\n%s", out)
	}
	for _, l := range lines[2:] {
		// | version | … | Pearson | Spearman | inference |
		if cells := strings.Split(l, " | "); len(cells) < 16 || cells[13] != "n/a" || cells[14] != "n/a" {
			t.Errorf("markdown row %q: correlations are not n/a", l)
		}
	}

	out, _, err = run(t, ctx, append(args, "--format", "csv", path)...)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 5 {
		t.Fatalf("csv (%v):\n%s", err, out)
	}
	for _, r := range recs[1:] {
		if recs[0][14] != "Pearson" || recs[0][15] != "Spearman" || r[14] != "" || r[15] != "" {
			t.Errorf("csv row %q: correlations are not empty", r)
		}
	}
}

// TestCompareNotApplicable: the FActScore row has no entropy measure, no
// undecided atoms and no Brier score (it decides each atom without a
// P(true)): n/a in markdown, an empty cell in csv, null in json, where the
// versions' rows have numbers.
func TestCompareNotApplicable(t *testing.T) {
	in := "../../testdata/example.jsonl"
	ctx := context.Background()
	md, _, err := run(t, ctx, "compare", "--nli", "lexical", "--versions", "2,factscore", in)
	if err != nil {
		t.Fatal(err)
	}
	var fsRow, fr2Row []string
	table, _, _ := strings.Cut(md, "\n\n") // the rows, before the tests
	for _, l := range strings.Split(table, "\n") {
		cells := strings.Split(l, " | ")
		switch {
		case strings.HasPrefix(l, "| FActScore-NLI"):
			fsRow = cells
		case strings.HasPrefix(l, "| FR2"):
			fr2Row = cells
		}
	}
	// Columns: version, responses, Pr, atom F1, F1@K, MAE, RMSE, E, Brier, accuracy, #S, #C, #U, …
	if len(fsRow) < 13 || fsRow[7] != "n/a" || fsRow[8] != "n/a" || fsRow[12] != "n/a" || fr2Row[7] == "n/a" || fr2Row[8] == "n/a" || fr2Row[12] == "n/a" {
		t.Errorf("markdown rows:\n%q\n%q", fsRow, fr2Row)
	}
	js, _, err := run(t, ctx, "compare", "--nli", "lexical", "--versions", "2,factscore", "--format", "json", in)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := unmarshalRows(js, &rows); err != nil || len(rows) != 2 {
		t.Fatalf("json: %v\n%s", err, js)
	}
	if rows[1]["mean_avg_entropy"] != nil || rows[1]["mean_uniform_atoms"] != nil || rows[1]["brier"] != nil || rows[0]["mean_avg_entropy"] == nil || rows[0]["brier"] == nil {
		t.Errorf("json rows: %v", rows)
	}
	// FActScore has no inference: null, not a missing key.
	if inf, ok := rows[1]["inference"]; !ok || inf != nil || rows[0]["inference"] == nil {
		t.Errorf("json rows' inference: %v", rows)
	}
}

// unmarshalRows reads the rows of fr compare's json output, {"rows": [...],
// "tests": [...]}.
func unmarshalRows(out string, rows *[]map[string]any) error {
	var table struct {
		Rows []map[string]any `json:"rows"`
	}
	err := json.Unmarshal([]byte(out), &table)
	*rows = table.Rows
	return err
}

// TestCompareConfidence (issue 32): fr compare --format json on two runs of
// the same 30 responses gives each per-response mean an interval that
// holds it, and a paired t-test per measure whose p-value agrees with an
// independent computation: the measures computed here from the marginals
// written into the runs, and the p-value of their differences from the t
// distribution's density integrated numerically (no gonum), to 1e-3.
func TestCompareConfidence(t *testing.T) {
	scored, _, err := run(t, context.Background(), "score", "--nli", "given", "../../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(scored, "\n", 2)[0]), &line); err != nil {
		t.Fatal(err)
	}
	atoms := line["marginals"].([]any)
	gold := map[string]string{}
	for _, a := range line["atoms"].([]any) {
		a := a.(map[string]any)
		gold[a["id"].(string)], _ = a["label"].(string)
	}
	const n = 30
	// P(true) of atom j of response i in run r: a fixed scramble, so that
	// the runs differ by response, some atoms undecided (0.5).
	ptrue := func(r, i, j int) float64 {
		v := (i*7 + j*13) % 11
		if r == 1 && ((i*j)%11 == 3 && v < 5 || (i+j)%5 == 0) {
			v = 10 - v // run 1 reads some atoms the other way, false ones more often
		}
		return float64(v) / 10 // 0, 0.1, …, 1 (0.5 is undecided)
	}
	type measures struct{ pr, e, s, mae float64 }
	want := make([][n]measures, 2)
	var paths []string
	for r := range 2 {
		var b strings.Builder
		for i := range n {
			var ms []any
			var m measures
			labeled, goldS, predS := 0, 0, 0
			for j, a := range atoms {
				id := a.(map[string]any)["variable"].(string)
				p := ptrue(r, i, j)
				ms = append(ms, map[string]any{"variable": id, "probabilities": []float64{1 - p, p}})
				q := math.Min(math.Max(p, 1e-6), 1-1e-6)
				m.e += -q * math.Log10(q)
				if p > 0.5 {
					m.s++
				}
				if gold[id] != "" {
					labeled++
					if gold[id] == "S" {
						goldS++
					}
					if p > 0.5 {
						predS++
					}
				}
			}
			m.pr, m.e = m.s/float64(len(atoms)), m.e/float64(len(atoms))
			m.mae = math.Abs(float64(predS-goldS)) / float64(labeled)
			want[r][i] = m
			l := maps.Clone(line)
			l["line"], l["marginals"] = i+1, ms
			enc, _ := json.Marshal(l)
			b.Write(append(enc, '\n'))
		}
		paths = append(paths, writeFile(t, fmt.Sprintf("run%d.jsonl", r), b.String()))
	}
	out, _, err := run(t, context.Background(), append([]string{"compare", "--format", "json"}, paths...)...)
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Rows  []map[string]any `json:"rows"`
		Tests []struct {
			A, B, Measure, Test string
			MeanDifference      float64 `json:"mean_difference"`
			PValue              float64 `json:"p_value"`
			Responses           int
		} `json:"tests"`
	}
	if err := json.Unmarshal([]byte(out), &table); err != nil || len(table.Rows) != 2 {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, row := range table.Rows {
		for name, v := range row {
			ci, ok := v.([]any)
			if !strings.HasSuffix(name, "_ci") || !ok {
				continue
			}
			mean := row[strings.TrimSuffix(name, "_ci")].(float64)
			if lo, hi := ci[0].(float64), ci[1].(float64); !(lo <= mean && mean <= hi) {
				t.Errorf("%s %s [%v, %v] does not hold the mean %v", row["version"], name, lo, hi, mean)
			}
		}
		if _, ok := row["mean_precision_ci"].([]any); !ok {
			t.Errorf("%s: no mean_precision_ci: %v", row["version"], row)
		}
	}
	value := map[string]func(measures) float64{
		"mean_precision":   func(m measures) float64 { return m.pr },
		"mean_avg_entropy": func(m measures) float64 { return m.e },
		"mean_true_atoms":  func(m measures) float64 { return m.s },
		"mae":              func(m measures) float64 { return m.mae },
	}
	checked := map[string]bool{}
	for _, tc := range table.Tests {
		f, ok := value[tc.Measure]
		if tc.Test != "paired-t" || !ok {
			continue
		}
		d := make([]float64, n)
		for i := range n {
			d[i] = f(want[0][i]) - f(want[1][i])
		}
		mean, p := independentTTest(d)
		if tc.Responses != n || math.Abs(tc.MeanDifference-mean) > 1e-9 || math.Abs(tc.PValue-p) > 1e-3 {
			t.Errorf("%s: difference %v, p %v over %d; independently %v, p %v", tc.Measure, tc.MeanDifference, tc.PValue, tc.Responses, mean, p)
		}
		if p > 0.999 || p < 1e-6 {
			t.Errorf("%s: p %v: the case tests nothing", tc.Measure, p)
		}
		checked[tc.Measure] = true
	}
	if len(checked) != len(value) {
		t.Errorf("tested %v, want all of %v", checked, slices.Collect(maps.Keys(value)))
	}
}

// independentTTest is the paired t-test written out: the mean difference,
// and the two-sided p-value 1 − 2∫₀^|t| f, f the density of Student's t
// with n − 1 degrees of freedom, by Simpson's rule.
func independentTTest(d []float64) (mean, p float64) {
	n := float64(len(d))
	for _, x := range d {
		mean += x
	}
	mean /= n
	ss := 0.0
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	tstat := math.Abs(mean / math.Sqrt(ss/(n-1)/n))
	nu := n - 1
	lg1, _ := math.Lgamma((nu + 1) / 2)
	lg2, _ := math.Lgamma(nu / 2)
	c := math.Exp(lg1-lg2) / math.Sqrt(nu*math.Pi)
	f := func(x float64) float64 { return c * math.Pow(1+x*x/nu, -(nu+1)/2) }
	const steps = 20000
	h := tstat / steps
	sum := f(0) + f(tstat)
	for k := 1; k < steps; k++ {
		w := 2.0
		if k%2 == 1 {
			w = 4
		}
		sum += w * f(float64(k)*h)
	}
	return mean, 1 - 2*sum*h/3
}
