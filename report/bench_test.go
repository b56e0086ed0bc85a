package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/report"
	"github.com/factreasoner/factreasoner-go/score"
)

// benchRuns writes three runs, FR1, FR2 and FR3, of n responses each in
// the output schema that records what was scored: the Flaherty record (26
// atoms, 53 contexts) with IBM's recorded relations, scored by the
// pipeline as fr score does, on n input lines, each with its own question.
// It returns the files' paths.
func benchRuns(b testing.TB, n int) []string {
	b.Helper()
	ins, err := instance.ReadFile(refdata.Path(b, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(refdata.Path(b, "factreasoner", "flaherty_fr2_golden.json"))
	if err != nil {
		b.Fatal(err)
	}
	var golden struct {
		Relations []instance.Relation `json:"relations"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		b.Fatal(err)
	}
	in := ins[0]
	in.Relations = golden.Relations
	cfg := &assess.Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Given: assess.GivenAlways, Solver: inference.Auto{}}
	as, err := cfg.AssessVersions(context.Background(), in, []graph.Version{graph.FR1, graph.FR2, graph.FR3})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var paths []string
	for _, a := range as {
		raw, _ := json.Marshal(a.Record())
		var line map[string]json.RawMessage
		json.Unmarshal(raw, &line)
		rels := make([]instance.Relation, len(a.Relations))
		for i, r := range a.Relations {
			rels[i] = instance.Relation{Source: r.Source, Target: r.Target, Type: r.Type.String(), Probability: r.Probability}
		}
		line["output"], _ = json.Marshal(in.Output)
		line["atoms"], _ = json.Marshal(in.Atoms)
		line["contexts"], _ = json.Marshal(in.Contexts)
		line["relations"], _ = json.Marshal(rels)
		var file bytes.Buffer
		for i := 1; i <= n; i++ {
			line["line"] = json.RawMessage(fmt.Sprint(i))
			line["input"], _ = json.Marshal(fmt.Sprintf("%s (%d)", in.Input, i))
			raw, _ := json.Marshal(line)
			file.Write(raw)
			file.WriteByte('\n')
		}
		path := filepath.Join(dir, strings.ToLower(a.Version.String())+".jsonl")
		if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

func readBenchReport(b testing.TB, paths []string) *report.Report {
	b.Helper()
	var runs []*report.Run
	for _, p := range paths {
		run, err := report.ReadRun(context.Background(), p, nil)
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, run)
	}
	rep, err := report.New(runs, report.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return rep
}

// BenchmarkReport1000 reads three runs of 1,000 responses and writes their
// report, with each layout; it reports the size of the page.
func BenchmarkReport1000(b *testing.B) {
	paths := benchRuns(b, 1000)
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			readBenchReport(b, paths)
		}
	})
	rep := readBenchReport(b, paths)
	for _, l := range []report.Layouter{report.Builtin{}, &report.Graphviz{}} {
		b.Run("html-"+strings.Fields(l.Name())[0], func(b *testing.B) {
			if _, ok := l.(*report.Graphviz); ok {
				findDotB(b)
			}
			var size int
			for b.Loop() {
				var buf bytes.Buffer
				if err := rep.WriteHTML(context.Background(), &buf, l); err != nil {
					b.Fatal(err)
				}
				size = buf.Len()
			}
			b.ReportMetric(float64(size)/1e6, "MB")
		})
	}
	b.Run("plots", func(b *testing.B) {
		for b.Loop() {
			if _, err := rep.WritePlots(b.TempDir(), false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func findDotB(b *testing.B) {
	if _, err := exec.LookPath("dot"); err != nil {
		b.Skip("no graphviz")
	}
}

// BenchmarkBrowser1000 opens the report of three runs of 1,000 responses in
// headless Chromium: the time until the first page of the list is drawn,
// and the time to open a response and show an atom's evidence.
func BenchmarkBrowser1000(b *testing.B) {
	exe, err := exec.LookPath("chromium")
	if err != nil {
		b.Skip("no chromium")
	}
	rep := readBenchReport(b, benchRuns(b, 1000))
	var buf bytes.Buffer
	if err := rep.WriteHTML(context.Background(), &buf, report.Builtin{}); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "report.html")
	os.WriteFile(path, buf.Bytes(), 0o644)
	page := (&url.URL{Scheme: "file", Path: path}).String()
	profile, err := os.MkdirTemp("", "fr-report-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(profile)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1400, 1000))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	if err := chromedp.Run(ctx); err != nil {
		b.Fatal(err)
	}
	var open, evidence time.Duration
	for b.Loop() {
		start := time.Now()
		if err := chromedp.Run(ctx, chromedp.Navigate(page), chromedp.WaitVisible(`table.list tbody tr`, chromedp.ByQuery)); err != nil {
			b.Fatal(err)
		}
		open += time.Since(start)
		start = time.Now()
		if err := chromedp.Run(ctx, chromedp.Click(`tr[data-line="1"]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#detail .chip[data-run="1"][data-id="a2"]`, chromedp.ByQuery),
			chromedp.Click(`#detail .chip[data-run="1"][data-id="a2"]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#evidence li`, chromedp.ByQuery)); err != nil {
			b.Fatal(err)
		}
		evidence += time.Since(start)
		chromedp.Run(ctx, chromedp.Navigate("about:blank"))
	}
	b.ReportMetric(float64(open.Milliseconds())/float64(b.N), "ms/open")
	b.ReportMetric(float64(evidence.Milliseconds())/float64(b.N), "ms/evidence")
	b.ReportMetric(float64(buf.Len())/1e6, "MB")
}
