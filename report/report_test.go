package report_test

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/report"
)

func TestCalibrate(t *testing.T) {
	// By hand, 10 bins: [0,.1): 0.05 (false) → |0 − .05| = .05;
	// [.1,.2): 0.15 (true), 0.15 (false) → |.5 − .15| = .35;
	// [.5,.6): 0.5 (false) → .5; [.9,1]: 0.95, 1 (both true) → |1 − .975|.
	p := []float64{0.05, 0.15, 0.15, 0.5, 0.95, 1}
	y := []bool{false, true, false, false, true, true}
	c := report.Calibrate(p, y, 10)
	want := (1*0.05 + 2*0.35 + 1*0.5 + 2*0.025) / 6
	if c.N != 6 || math.Abs(c.ECE-want) > 1e-12 {
		t.Errorf("N %d ECE %v, want 6 and %v", c.N, c.ECE, want)
	}
	for b, n := range []int{1, 2, 0, 0, 0, 1, 0, 0, 0, 2} {
		if c.Bins[b].N != n {
			t.Errorf("bin %d holds %d, want %d", b, c.Bins[b].N, n)
		}
	}
	if c.Bins[9].MeanP != 0.975 || c.Bins[9].FracTrue != 1 || !math.IsNaN(c.Bins[2].MeanP) {
		t.Errorf("bins: %+v", c.Bins)
	}
	if e := report.Calibrate(nil, nil, 10); e.N != 0 || !math.IsNaN(e.ECE) {
		t.Errorf("no atoms: %+v", e)
	}
}

// TestStats: the confusion matrix agrees with the counts fr score recorded
// (undecided atoms count as NS there), and the means with the recorded
// per-response scores.
func TestStats(t *testing.T) {
	rep := exampleReport(t)
	if len(rep.Lines) != 3 || len(rep.Stats) != 4 {
		t.Fatalf("%d lines, %d stats", len(rep.Lines), len(rep.Stats))
	}
	for i, run := range rep.Runs {
		var tp, tn, fp, fn int
		var pr float64
		for _, res := range run.Results {
			g := res.Scores.Gold
			tp, tn, fp, fn = tp+g.TruePositive, tn+g.TrueNegative, fp+g.FalsePositive, fn+g.FalseNegative
			pr += res.Scores.Precision
		}
		c := rep.Stats[i].Confusion
		if c[report.GoldS][report.PredictedS] != tp || c[report.GoldNS][report.PredictedS] != fp ||
			c[report.GoldS][report.PredictedNS]+c[report.GoldS][report.Undecided] != fn ||
			c[report.GoldNS][report.PredictedNS]+c[report.GoldNS][report.Undecided] != tn {
			t.Errorf("%s: confusion %v, recorded TP %d TN %d FP %d FN %d", run.Path, c, tp, tn, fp, fn)
		}
		if n := rep.Stats[i].Calibration.N; n != tp+tn+fp+fn {
			t.Errorf("%s: calibration over %d atoms, %d labeled", run.Path, n, tp+tn+fp+fn)
		}
		if s := rep.Stats[i].Summary; math.Abs(s.MeanPr-pr/3) > 1e-15 || s.Labeled != 3 {
			t.Errorf("%s: mean Pr %v, want %v", run.Path, s.MeanPr, pr/3)
		}
	}
	// With the records' own relations, the first two records have none:
	// all their atoms are undecided.
	fr2 := rep.Stats[1].Confusion
	if fr2[report.GoldS][report.Undecided]+fr2[report.GoldNS][report.Undecided] < 13+9 {
		t.Errorf("FR2 given: %v; the 22 atoms of records 1 and 2 should be undecided", fr2)
	}
	names := rep.Names()
	if names[0] != "FR1 · given" || names[3] != "FR2 · lexical:overlap-v1" {
		t.Errorf("names %q", names)
	}
}

// TestNewSameInput: runs of different inputs are refused, naming both.
func TestNewSameInput(t *testing.T) {
	runs := readExampleRuns(t)
	lines := rawLines(t, runs[1].Path)
	lines[0]["input"] = json.RawMessage(`"Question: something else"`)
	// A recorded output, so that the input file does not veto the edit.
	lines[0]["output"], lines[0]["atoms"], lines[0]["contexts"] = rawJSON(t, runs[1].Results[0].Output), rawJSON(t, runs[1].Results[0].Atoms), rawJSON(t, runs[1].Results[0].Contexts)
	path := filepath.Join(t.TempDir(), "other.jsonl")
	writeLines(t, path, lines[:1])
	other, err := report.ReadRun(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = report.New([]*report.Run{runs[0], other}, report.Options{})
	if err == nil || !strings.Contains(err.Error(), runs[0].Path+":1 and "+path+":1") || !strings.Contains(err.Error(), "same input") {
		t.Errorf("got %v", err)
	}
	if _, err := report.New(nil, report.Options{}); err == nil {
		t.Error("a report of no runs")
	}
}
