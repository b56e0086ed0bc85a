package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// TestScoreReferenceFields: each output line carries the reference's extra
// fields, recomputed here from the line's own marginals; query and response
// are the record's input and output; elapsed_time appears only with
// --timings, and without it two runs are byte-identical.
func TestScoreReferenceFields(t *testing.T) {
	const input = "../../testdata/example.jsonl"
	data, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	var records []struct{ Input, Output string }
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct{ Input, Output string }
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		records = append(records, r)
	}
	ctx := context.Background()
	out, _, err := run(t, ctx, "score", "--nli", "lexical", input)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := run(t, ctx, "score", "--nli", "lexical", input)
	if out != again {
		t.Error("two runs differ")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(records) {
		t.Fatalf("%d lines for %d records", len(lines), len(records))
	}
	for i, l := range lines {
		var rec struct {
			NumAtoms       int     `json:"num_atoms"`
			NormEntropy    float64 `json:"norm_entropy"`
			AvgNormEntropy float64 `json:"avg_norm_entropy"`
			AvgProb        float64 `json:"avg_prob"`
			AvgLogProb     float64 `json:"avg_logprob"`
			AvgExpLogProb  float64 `json:"avg_explogprob"`
			PerAtom        []map[string]struct {
				Score   float64 `json:"score"`
				Support string  `json:"support"`
			} `json:"factuality_score_per_atom"`
			Query       string   `json:"query"`
			Response    string   `json:"response"`
			ElapsedTime *float64 `json:"elapsed_time"`
			Predictions string   `json:"predictions"`
			Marginals   []struct {
				Variable      string     `json:"variable"`
				Probabilities [2]float64 `json:"probabilities"`
			} `json:"marginals"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Query != records[i].Input || rec.Response != records[i].Output || rec.ElapsedTime != nil {
			t.Errorf("line %d: query %q, response %q, elapsed_time %v", i+1, rec.Query, rec.Response, rec.ElapsedTime)
		}
		var ne, sp, sl float64
		var pred strings.Builder
		for j, m := range rec.Marginals {
			p := min(max(m.Probabilities[1], 1e-6), 1-1e-6)
			ne += -(p*math.Log(p) + (1-p)*math.Log(1-p)) / math.Ln2
			sp += p
			sl += math.Log(p)
			e, ok := rec.PerAtom[j][m.Variable]
			if len(rec.PerAtom[j]) != 1 || !ok || e.Score != m.Probabilities[1] {
				t.Errorf("line %d: per-atom entry %d %v for marginal %v", i+1, j, rec.PerAtom[j], m)
			}
			pred.WriteString(" " + m.Variable + ": " + e.Support)
		}
		n := float64(rec.NumAtoms)
		for _, f := range []struct {
			name      string
			got, want float64
		}{
			{"norm_entropy", rec.NormEntropy, ne}, {"avg_norm_entropy", rec.AvgNormEntropy, ne / n},
			{"avg_prob", rec.AvgProb, sp / n}, {"avg_logprob", rec.AvgLogProb, sl / n}, {"avg_explogprob", rec.AvgExpLogProb, math.Exp(sl / n)},
		} {
			if math.Abs(f.got-f.want) > 1e-12 {
				t.Errorf("line %d: %s = %v, want %v", i+1, f.name, f.got, f.want)
			}
		}
		if pred.String() != rec.Predictions {
			t.Errorf("line %d: per-atom support %q, predictions %q", i+1, pred.String(), rec.Predictions)
		}
	}

	out, _, err = run(t, ctx, "score", "--nli", "lexical", "--timings", input)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec struct {
			ElapsedTime *float64 `json:"elapsed_time"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.ElapsedTime == nil || !(*rec.ElapsedTime >= 0) {
			t.Errorf("--timings line %d: elapsed_time %v (%v)", i+1, rec.ElapsedTime, err)
		}
	}
}
