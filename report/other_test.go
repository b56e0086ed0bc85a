package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/foreign/foreigntest"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/report"
)

// otherSystemsReport reports three runs of the labeled Flaherty record:
// fr score's FR2 with IBM's recorded relations, the FactReasoner result
// file of IBM's recorded FR2 run, and fr factscore's output with the NLI
// verifier on those relations (made with the library, as fr score and fr
// factscore make them).
func otherSystemsReport(t *testing.T) *report.Report {
	t.Helper()
	dir := t.TempDir()
	input, _ := foreigntest.FlahertyInput(t, dir)
	ctx := context.Background()
	p, err := assemble.Open(ctx, assemble.Options{NLI: assemble.NLIOptions{Backend: "given"},
		FActScore: assemble.FActScoreOptions{Verifier: "nli", Threshold: factscore.DefaultThreshold}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var fr2 bytes.Buffer
	if _, err := batch.ScoreFile(ctx, p.Pipeline, input, graph.FR2, &fr2, nil, batch.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	var fs bytes.Buffer
	w := jsonl.NewWriter(&fs)
	sum, _, err := batch.FActScoreFile(ctx, p.Pipeline, input, factscore.DefaultGamma, false, batch.FileOptions{}, func(r factscore.Record) error { return w.Write(r) })
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(batch.FActScoreSummary{Summary: sum, Verifier: p.VerifierName()}); err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(dir, "fr2.jsonl"), foreigntest.FlahertyFactReasoner(t, dir), filepath.Join(dir, "factscore.jsonl")}
	os.WriteFile(paths[0], fr2.Bytes(), 0o644)
	os.WriteFile(paths[2], fs.Bytes(), 0o644)
	return readReport(t, nil, paths...)
}

// TestOtherSystemsStats: the runs of other systems read as runs: named by
// where they came from, the FactReasoner run with IBM's confusion matrix
// and the same calibration as fr score's FR2 (the same P(true) to 1e-6),
// fr factscore's decisions without a P(true): no calibration, and the
// measures of a probability NaN.
func TestOtherSystemsStats(t *testing.T) {
	rep := otherSystemsReport(t)
	names := rep.Names()
	if names[1] != "FactReasoner (flaherty_factreasoner_output.json)" || names[2] != "fr factscore (verifier nli:given)" {
		t.Errorf("names %q", names)
	}
	// fr score's FR2 records its relations: no note of it.
	if notes := rep.Notes(); !reflect.DeepEqual(notes, []string{
		"note: FactReasoner (flaherty_factreasoner_output.json) records the atoms' marginals, not the relations: no evidence or network",
		"note: fr factscore (verifier nli:given) decides each atom without a P(true): no entropy, Brier score, calibration or network",
	}) {
		t.Errorf("notes %q", notes)
	}
	fr2, fr, fs := rep.Stats[0], rep.Stats[1], rep.Stats[2]
	if want := (report.Confusion{{7, 0, 0}, {2, 1, 16}}); fr.Confusion != want || fr2.Confusion != want {
		t.Errorf("confusion: FactReasoner %v, FR2 %v; want %v", fr.Confusion, fr2.Confusion, want)
	}
	if fr.Calibration.N != 26 || fr.Calibration.ECE-fr2.Calibration.ECE > 1e-5 || fr2.Calibration.ECE-fr.Calibration.ECE > 1e-5 {
		t.Errorf("ECE: FactReasoner %v, FR2 %v", fr.Calibration.ECE, fr2.Calibration.ECE)
	}
	if fs.Calibration.N != 0 || fs.Confusion[0][2]+fs.Confusion[1][2] != 0 || fs.Confusion[0][0]+fs.Confusion[1][0] != 5 {
		t.Errorf("fr factscore: calibration over %d atoms, confusion %v", fs.Calibration.N, fs.Confusion)
	}
	s := fs.Summary
	if !math.IsNaN(s.MeanEntropy) || !math.IsNaN(s.Brier) || !math.IsNaN(s.MeanUniform) || s.Accuracy != 22.0/26 {
		t.Errorf("fr factscore's summary %+v", s)
	}
	// Its P(true) histogram and reliability diagram leave it out.
	for _, p := range rep.Plots() {
		svg, err := p.SVG()
		if err != nil {
			t.Fatal(err)
		}
		in := bytes.Contains(svg, []byte("fr factscore"))
		if (p.Name == "pr-vs-gold") != in {
			t.Errorf("plot %s names fr factscore: %v", p.Name, in)
		}
	}
}

// TestBrowserOtherSystems opens the report of the three runs in headless
// Chromium: fr factscore's atoms show their decisions (S, NS) and its
// panel says it has no P(true); FactReasoner's show their P(true) and its
// recorded values; a context FactReasoner records no P(true) of says so;
// the page logs no error and loads nothing.
func TestBrowserOtherSystems(t *testing.T) {
	b := openBrowser(t)
	page := reportPage(t, otherSystemsReport(t))
	var e, chipFS, chipFR, own, panelFS, panelFR, ctx, cell string
	b.run(t, "opening the response", chromedp.Navigate(page),
		chromedp.WaitVisible(`table.list tbody tr`, chromedp.ByQuery),
		chromedp.Text(`table.list tbody tr td:nth-child(13)`, &e, chromedp.ByQuery), // fr factscore's E
		chromedp.Click(`tr[data-line="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#detail .chip[data-run="2"][data-id="a0"]`, chromedp.ByQuery),
		chromedp.Text(`#detail .chip[data-run="2"][data-id="a0"]`, &chipFS, chromedp.ByQuery),
		chromedp.Text(`#detail .chip[data-run="1"][data-id="a12"]`, &chipFR, chromedp.ByQuery),
		chromedp.Text(`#detail .result[data-run="1"] .own`, &own, chromedp.ByQuery),
		chromedp.Click(`#detail .chip[data-run="2"][data-id="a0"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#evidence h3`, chromedp.ByQuery),
		chromedp.Text(`#evidence`, &panelFS, chromedp.ByQuery),
		chromedp.Click(`#detail .chip[data-run="1"][data-id="a12"]`, chromedp.ByQuery),
		chromedp.Text(`#evidence`, &panelFR, chromedp.ByQuery),
		chromedp.Click(`#detail details summary`, chromedp.ByQuery),
		chromedp.Text(`#detail .cell[data-run="1"][data-node="26"]`, &cell, chromedp.ByQuery),
		chromedp.Click(`#detail .cell[data-run="1"][data-node="26"]`, chromedp.ByQuery),
		chromedp.Text(`#evidence`, &ctx, chromedp.ByQuery))
	if e != "–" {
		t.Errorf("fr factscore's E in the list: %q, want –", e)
	}
	if chipFS != "a0 S" || chipFR != "a12 0.500" {
		t.Errorf("chips: fr factscore %q, FactReasoner %q", chipFS, chipFR)
	}
	if own != "recorded by its file: avg_entropy 0.2260 · num_false_atoms 17" {
		t.Errorf("FactReasoner's recorded values: %q", own)
	}
	if !strings.Contains(panelFS, "decided S (no P(true))") || !strings.Contains(panelFS, "without a P(true)") {
		t.Errorf("fr factscore's panel for a0: %q", panelFS)
	}
	if !strings.Contains(panelFR, "P(true) 0.500000 · predicted undecided") || !strings.Contains(panelFR, "does not record its relations") {
		t.Errorf("FactReasoner's panel for a12: %q", panelFR)
	}
	if cell != "–" || !strings.Contains(ctx, "records no P(true) for it") {
		t.Errorf("FactReasoner's first context: cell %q, panel %q", cell, ctx)
	}
	shots := os.Getenv("FACTREASONER_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	screenshot(t, b, filepath.Join(shots, "report-other-systems.png"))
	b.checkQuiet(t, page)
}

// TestOtherWithInput: FactReasoner's results alone (one per line, as its
// evaluation scripts write them: IBM's recorded FR2 run on the Flaherty
// record) record no atom texts: the input file gives them, in its order,
// and the run then goes beside fr score's; without it, the error says
// what to give. fr factscore's output gets its response from the input.
func TestOtherWithInput(t *testing.T) {
	dir := t.TempDir()
	input, gold := foreigntest.FlahertyInput(t, dir)
	var res map[string]json.RawMessage
	if err := json.Unmarshal(gold["results"], &res); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(res)
	alone := filepath.Join(dir, "eval_factreasoner-v2_wikipedia_flaherty_llama3.jsonl")
	os.WriteFile(alone, append(line, '\n'), 0o644)
	if _, err := report.ReadRun(context.Background(), alone, nil); err == nil || !strings.Contains(err.Error(), alone+":1: atoms: missing") {
		t.Errorf("without the input: %v", err)
	}
	inputs, err := report.ReadInputs(input)
	if err != nil {
		t.Fatal(err)
	}
	run, err := report.ReadRun(context.Background(), alone, inputs)
	if err != nil {
		t.Fatal(err)
	}
	ins, err := instance.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	in := ins[0]
	r := run.Results[0]
	if len(r.Atoms) != 26 || r.NoOutput || r.Output != in.Output || len(r.Contexts) != len(in.Contexts) {
		t.Fatalf("%d atoms, output %q", len(r.Atoms), r.Output)
	}
	for i, a := range r.Atoms {
		if a.ID != in.Atoms[i].ID || a.Text != in.Atoms[i].Text || a.Label != in.Atoms[i].Label {
			t.Errorf("atom %d: %+v, the input's %+v", i, a, in.Atoms[i])
		}
	}
	rep := otherSystemsReport(t)
	mixed, err := report.New(append(rep.Runs, run), report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mixed.Stats[3].Confusion; got != (report.Confusion{{7, 0, 0}, {2, 1, 16}}) {
		t.Errorf("confusion %v", got)
	}
	fs, err := report.ReadRun(context.Background(), rep.Runs[2].Path, inputs)
	if err != nil || fs.Results[0].NoOutput || fs.Results[0].Output != in.Output {
		t.Errorf("fr factscore with the input: %v", err)
	}
}
