package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
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
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 4 {
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
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 || strings.Contains(out, "Inf") || strings.Contains(out, "NaN") {
		t.Fatalf("markdown:\n%s", out)
	}
	for _, l := range lines[2:] {
		// | version | … | Pearson | Spearman | inference |
		if cells := strings.Split(l, " | "); len(cells) < 15 || cells[12] != "n/a" || cells[13] != "n/a" {
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
		if recs[0][12] != "Pearson" || recs[0][13] != "Spearman" || r[12] != "" || r[13] != "" {
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
	for _, l := range strings.Split(md, "\n") {
		cells := strings.Split(l, " | ")
		switch {
		case strings.HasPrefix(l, "| FActScore-NLI"):
			fsRow = cells
		case strings.HasPrefix(l, "| FR2"):
			fr2Row = cells
		}
	}
	// Columns: version, responses, Pr, atom F1, F1@K, MAE, E, Brier, accuracy, #S, #C, #U, …
	if len(fsRow) < 12 || fsRow[6] != "n/a" || fsRow[7] != "n/a" || fsRow[11] != "n/a" || fr2Row[6] == "n/a" || fr2Row[7] == "n/a" || fr2Row[11] == "n/a" {
		t.Errorf("markdown rows:\n%q\n%q", fsRow, fr2Row)
	}
	js, _, err := run(t, ctx, "compare", "--nli", "lexical", "--versions", "2,factscore", "--format", "json", in)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(js), &rows); err != nil || len(rows) != 2 {
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
