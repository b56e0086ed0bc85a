package report_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/report"
)

// browserEnv turns the browser tests off when set to "off". They fail,
// rather than skip, when no browser is found otherwise: scripts/test
// installs chromium and sets it to "on".
const browserEnv = "FACTREASONER_BROWSER_TESTS"

// findBrowser returns the path of a Chromium-family browser.
func findBrowser(t *testing.T) string {
	t.Helper()
	if os.Getenv(browserEnv) == "off" {
		t.Skip(browserEnv + "=off: browser tests are off")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("no chromium on the PATH: install Debian's chromium package (scripts/test does), or set %s=off to skip the browser tests", browserEnv)
	return ""
}

// browserPage is a headless browser on one page that records what the
// page asks of the network and the errors it logs.
type browserPage struct {
	ctx      context.Context
	mu       sync.Mutex
	requests []string
	errors   []string
}

func openBrowser(t *testing.T) *browserPage {
	exe := findBrowser(t)
	// Not t.TempDir: the browser's helper processes may still write there
	// for a moment after it is closed, which fails TempDir's cleanup.
	profile, err := os.MkdirTemp("", "fr-report-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // chromium refuses to run as root without it
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1400, 1000),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		chromedp.Cancel(bctx) // closes the browser and waits for it
		cancelBrowser()
		cancelAlloc()
		cancel()
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove the browser profile %s", profile)
	})
	b := &browserPage{ctx: bctx}
	chromedp.ListenTarget(bctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, ev.Request.URL)
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg = d.Exception.Description
			}
			b.errors = append(b.errors, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, msg))
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeWarning || ev.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.errors = append(b.errors, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.LevelError || ev.Entry.Level == log.LevelWarning {
				b.errors = append(b.errors, fmt.Sprintf("log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		}
	})
	if err := chromedp.Run(bctx, network.Enable(), log.Enable(), runtime.Enable()); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return b
}

// run runs actions, failing the test with what the page logged when they
// do not complete within 20 seconds.
func (b *browserPage) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.mu.Lock()
		logged := strings.Join(b.errors, "\n")
		b.mu.Unlock()
		t.Fatalf("%s: %v; the page logged:\n%s", what, err, logged)
	}
}

// checkQuiet asserts that the page logged no error and asked the network
// for nothing but the report file itself.
func (b *browserPage) checkQuiet(t *testing.T, page string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errors {
		t.Errorf("the page logged: %s", e)
	}
	if len(b.requests) == 0 {
		t.Error("no request recorded at all: the network recorder is not working")
	}
	for _, u := range b.requests {
		if strings.HasPrefix(u, "data:") {
			continue
		}
		if before, _, _ := strings.Cut(u, "#"); before != page {
			t.Errorf("the page requested %s; a report loads nothing", u)
		}
	}
}

// evidenceRelation is one relation shown in the evidence panel.
type evidenceRelation struct {
	Source, Target, Type, Probability string
}

// TestBrowserEvidence opens the example report in headless Chromium,
// clicks an atom and then a context of the FR3 run, and checks that the
// evidence panel shows exactly their relations as the input states them,
// that the page logs no error and loads nothing from the network; it saves
// a screenshot of each step (in FACTREASONER_SCREENSHOTS when set).
func TestBrowserEvidence(t *testing.T) {
	for _, layout := range []struct {
		name string
		l    func(t *testing.T) report.Layouter
	}{
		{"builtin", func(*testing.T) report.Layouter { return report.Builtin{} }},
		{"graphviz", func(t *testing.T) report.Layouter { return &report.Graphviz{Path: findDot(t)} }},
	} {
		t.Run(layout.name, func(t *testing.T) {
			b := openBrowser(t)
			path := writeExampleHTML(t, t.TempDir(), layout.l(t))
			page := (&url.URL{Scheme: "file", Path: path}).String()
			shots := os.Getenv("FACTREASONER_SCREENSHOTS")
			if shots == "" {
				shots = t.TempDir()
			}
			var rows int
			b.run(t, "opening the report",
				chromedp.Navigate(page),
				chromedp.WaitVisible(`table.list tbody tr`, chromedp.ByQuery),
				chromedp.Evaluate(`document.querySelectorAll('table.list tbody tr').length`, &rows))
			if rows != 3 {
				t.Errorf("the list shows %d responses, want 3", rows)
			}

			// The Ada Lovelace record: its relations are in the input.
			rec := exampleRecord(t, 3)
			const run = 2 // FR3 · given
			b.run(t, "opening the response", chromedp.Click(`tr[data-line="3"]`, chromedp.ByQuery),
				chromedp.WaitVisible(`#detail .chip[data-run="2"][data-id="a0"]`, chromedp.ByQuery))
			b.run(t, "clicking atom a0", chromedp.Click(`#detail .chip[data-run="2"][data-id="a0"]`, chromedp.ByQuery),
				chromedp.WaitVisible(`#evidence li`, chromedp.ByQuery))
			got := evidence(t, b)
			want := expectedEvidence(rec, func(source, target string) bool { return target == "a0" })
			if !slices.Equal(got, want) {
				t.Errorf("evidence of a0:\ngot  %v\nwant %v", got, want)
			}
			var heading, gold string
			b.run(t, "reading the panel", chromedp.Text(`#evidence h3`, &heading, chromedp.ByQuery), chromedp.Text(`#evidence .gold`, &gold, chromedp.ByQuery))
			if !strings.Contains(heading, "Atom a0") || gold != rec.Atoms[0].Label {
				t.Errorf("panel heading %q, gold %q; want atom a0 with gold %q", heading, gold, rec.Atoms[0].Label)
			}
			// The relation leads with the sentence of c_a0_0 it rests on,
			// marked in the context's text.
			var why, mark string
			b.run(t, "reading what the relation rests on", chromedp.Text(`#evidence li[data-source="c_a0_0"] .why`, &why, chromedp.ByQuery),
				chromedp.Text(`#evidence li[data-source="c_a0_0"] mark`, &mark, chromedp.ByQuery))
			const sentence = "Augusta Ada King, Countess of Lovelace (1815-1852), was an English mathematician and writer, chiefly known for her work on the Analytical Engine, the mechanical general-purpose computer proposed by Charles Babbage."
			if why != sentence || mark != sentence {
				t.Errorf("c_a0_0 → a0 leads with %q and marks %q, want %q", why, mark, sentence)
			}
			screenshot(t, b, filepath.Join(shots, "report-"+layout.name+"-atom.png"))

			// A context of FR3: the context–context relation into it and
			// the relations from it.
			b.run(t, "clicking context c_a0_0", chromedp.Click(fmt.Sprintf(`.net[data-run="%d"] .node[data-id="c_a0_0"]`, run), chromedp.ByQuery),
				chromedp.WaitVisible(`#evidence li[data-target="a0"]`, chromedp.ByQuery))
			got = evidence(t, b)
			want = expectedEvidence(rec, func(source, target string) bool { return source == "c_a0_0" || target == "c_a0_0" })
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("evidence of c_a0_0:\ngot  %v\nwant %v", got, want)
			}
			screenshot(t, b, filepath.Join(shots, "report-"+layout.name+"-context.png"))

			// Back to the list through the browser's history.
			b.run(t, "going back", chromedp.NavigateBack(), chromedp.WaitVisible(`table.list tbody tr`, chromedp.ByQuery))
			b.checkQuiet(t, page)
		})
	}
}

// TestBrowserMissingContext: a context one run lacks shows as such in the
// other run's column of the table and in the panel, without a script error.
func TestBrowserMissingContext(t *testing.T) {
	b := openBrowser(t)
	page := reportPage(t, moreContextsReport(t))
	var note, rel string
	b.run(t, "showing c_extra in both runs", chromedp.Navigate(page+"#line-3"),
		chromedp.WaitVisible(`#detail details summary`, chromedp.ByQuery),
		chromedp.Click(`#detail details summary`, chromedp.ByQuery),
		chromedp.Click(`#detail .cell[data-run="0"][data-node="12"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#evidence .note`, chromedp.ByQuery),
		chromedp.Text(`#evidence`, &note, chromedp.ByQuery),
		chromedp.Click(`#detail .cell[data-run="1"][data-node="12"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#evidence li[data-source="c_extra"]`, chromedp.ByQuery),
		chromedp.Text(`#evidence li[data-source="c_extra"]`, &rel, chromedp.ByQuery))
	if !strings.Contains(note, "Context c_extra") || !strings.Contains(note, "Not a variable of this run") {
		t.Errorf("run 0's panel for c_extra: %q", note)
	}
	if !strings.Contains(rel, "contradiction 0.750000 to a5") {
		t.Errorf("run 1's relation from c_extra: %q", rel)
	}
	b.checkQuiet(t, page)
}

// reportPage writes rep's page with the built-in layout into a temporary
// directory and returns its file URL.
func reportPage(t *testing.T, rep *report.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteHTML(context.Background(), &buf, report.Builtin{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: path}).String()
}

// evidence reads the relations the panel shows.
func evidence(t *testing.T, b *browserPage) []string {
	t.Helper()
	var rels []evidenceRelation
	b.run(t, "reading the evidence", chromedp.Evaluate(`Array.from(document.querySelectorAll('#evidence li')).map(li => ({
		Source: li.dataset.source, Target: li.dataset.target,
		Type: li.querySelector('.type').textContent, Probability: li.querySelector('.prob').textContent}))`, &rels))
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = fmt.Sprintf("%s->%s %s %s", r.Source, r.Target, r.Type, r.Probability)
	}
	return out
}

// expectedEvidence lists the record's relations that keep accepts, as
// the panel writes them, strongest first. In this record no atom or context
// is a duplicate and every relation becomes a factor, so the relations of
// the input are those of the network.
func expectedEvidence(rec *instance.Instance, keep func(source, target string) bool) []string {
	var rels []instance.Relation
	for _, r := range rec.Relations {
		if keep(r.Source, r.Target) {
			rels = append(rels, r)
		}
	}
	sort.SliceStable(rels, func(i, j int) bool { return rels[i].Probability > rels[j].Probability })
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = fmt.Sprintf("%s->%s %s %.6f", r.Source, r.Target, r.Type, r.Probability)
	}
	return out
}

func screenshot(t *testing.T, b *browserPage, path string) {
	t.Helper()
	var png []byte
	b.run(t, "taking a screenshot", chromedp.FullScreenshot(&png, 100))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestBrowserWhyHostile: a relation's sentence, after multi-byte text and
// beyond the start of its context, is shown first and marked in the
// context's text; the markup it holds is shown as text and never runs.
func TestBrowserWhyHostile(t *testing.T) {
	b := openBrowser(t)
	page := reportPage(t, hostileReport(t))
	var why, mark, excerpt string
	var marks, injected int
	var pwned bool
	b.run(t, "showing a5's evidence", chromedp.Navigate(page+"#line-3"),
		chromedp.WaitVisible(`#detail .chip[data-run="0"][data-id="a5"]`, chromedp.ByQuery),
		chromedp.Click(`#detail .chip[data-run="0"][data-id="a5"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#evidence li[data-source="c_a5_0"] mark`, chromedp.ByQuery),
		chromedp.Text(`#evidence li[data-source="c_a5_0"] .why`, &why, chromedp.ByQuery),
		chromedp.Text(`#evidence li[data-source="c_a5_0"] mark`, &mark, chromedp.ByQuery),
		chromedp.Text(`#evidence li[data-source="c_a5_0"] .excerpt`, &excerpt, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#evidence mark').length`, &marks),
		chromedp.Evaluate(`document.querySelectorAll('#evidence img, #evidence script, body > img').length`, &injected),
		chromedp.Evaluate(`window.pwned !== undefined`, &pwned))
	if why != hostileSentence || mark != hostileSentence || marks != 1 {
		t.Errorf("the relation leads with %q and marks %q (%d marks), want %q once", why, mark, marks, hostileSentence)
	}
	if !strings.HasPrefix(excerpt, "… ") || !strings.Contains(excerpt, "🎉 Fülltext über Zürich. "+hostileSentence) {
		t.Errorf("the context's excerpt around the sentence: %q", excerpt)
	}
	if injected != 0 || pwned {
		t.Errorf("the context's markup became elements (%d) or ran (%v)", injected, pwned)
	}
	b.checkQuiet(t, page)
}

// TestBrowserAbstained: a response that abstained shows as such in the
// list and on its page, its evidence panel saying there is nothing to
// show (not that no atom came out false), without a script error.
func TestBrowserAbstained(t *testing.T) {
	b := openBrowser(t)
	page := reportPage(t, abstainedReport(t))
	var cell, note, panel string
	b.run(t, "reading the list", chromedp.Navigate(page),
		chromedp.WaitVisible(`tr[data-line="4"]`, chromedp.ByQuery),
		chromedp.Text(`tr[data-line="4"] td.na`, &cell, chromedp.ByQuery))
	b.run(t, "opening the response", chromedp.Click(`tr[data-line="4"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#detail .result p.na`, chromedp.ByQuery),
		chromedp.Text(`#detail .result p.na`, &note, chromedp.ByQuery),
		chromedp.Text(`#evidence`, &panel, chromedp.ByQuery))
	if cell != "abstained" || !strings.Contains(note, "declines to answer") {
		t.Errorf("list cell %q, page %q", cell, note)
	}
	if !strings.Contains(panel, "declines to answer") || strings.Contains(panel, "No atom came out false") {
		t.Errorf("the evidence panel of an abstained response says %q", panel)
	}
	b.checkQuiet(t, page)
}

// TestBrowserFits: at 1,400 px, beside the evidence panel, no table of
// the example report (the summary of its four runs with gold labels, the
// list of responses, each response's comparison of runs) scrolls
// sideways, nor does the page.
func TestBrowserFits(t *testing.T) {
	b := openBrowser(t)
	path := writeExampleHTML(t, t.TempDir(), report.Builtin{})
	page := (&url.URL{Scheme: "file", Path: path}).String()
	type width struct {
		Doc, Win int
		Tables   [][]any // class, scroll width, room
	}
	measure := `({Doc: document.documentElement.scrollWidth, Win: window.innerWidth,
		Tables: Array.from(document.querySelectorAll('table')).filter(t => t.offsetParent !== null).map(t => [t.className, t.scrollWidth, t.parentElement.clientWidth])})`
	check := func(where string, w width) {
		t.Helper()
		if w.Win != 1400 || w.Doc > w.Win {
			t.Errorf("%s: the page is %d px wide in a window of %d", where, w.Doc, w.Win)
		}
		if len(w.Tables) == 0 {
			t.Errorf("%s: no table measured", where)
		}
		for _, tb := range w.Tables {
			if tb[1].(float64) > tb[2].(float64) {
				t.Errorf("%s: table %v is %v px wide in %v px: it scrolls sideways", where, tb[0], tb[1], tb[2])
			}
		}
	}
	var w width
	b.run(t, "the list", chromedp.Navigate(page), chromedp.WaitVisible(`table.list tbody tr`, chromedp.ByQuery), chromedp.Evaluate(measure, &w))
	check("the summary and the list", w)
	for _, line := range []string{"1", "2", "3"} {
		b.run(t, "a response", chromedp.Navigate(page+"#line-"+line), chromedp.WaitVisible(`#detail .chip`, chromedp.ByQuery),
			chromedp.Click(`#detail details summary`, chromedp.ByQuery), chromedp.Evaluate(measure, &w))
		check("line "+line, w)
	}
	b.checkQuiet(t, page)
}

// TestBrowserFirstView: a response opens with the evidence panel on its
// first atom that came out false (in the first run with a network), the
// atom marked as selected; a response whose atoms all came out true
// opens with a hint.
func TestBrowserFirstView(t *testing.T) {
	b := openBrowser(t)
	rep := exampleReport(t)
	path := writeExampleHTML(t, t.TempDir(), report.Builtin{})
	page := (&url.URL{Scheme: "file", Path: path}).String()
	// The expected atom, from the first run's results: the first atom
	// below 0.5.
	run := rep.Runs[0]
	for _, line := range []int{1, 2, 3} {
		res, ok := run.Result(line)
		if !ok {
			t.Fatalf("no result of line %d", line)
		}
		want := ""
		for _, a := range res.Atoms {
			if res.PTrue[a.ID] < 0.5 {
				want = a.ID
				break
			}
		}
		var heading, selected string
		b.run(t, "opening a response", chromedp.Navigate(fmt.Sprintf("%s#line-%d", page, line)), chromedp.WaitVisible(`#detail .chip`, chromedp.ByQuery),
			chromedp.Text(`#evidence`, &heading, chromedp.ByQuery),
			chromedp.Evaluate(`Array.from(document.querySelectorAll('#detail .chip.sel')).map(c => c.dataset.run + ':' + c.dataset.id).join(',')`, &selected))
		switch {
		case want == "" && !strings.Contains(heading, "No atom came out false"):
			t.Errorf("line %d: no false atom, and the panel says %q", line, heading)
		case want != "" && (!strings.HasPrefix(heading, "Atom "+want) || selected != "0:"+want):
			t.Errorf("line %d: the panel opens on %.60q (selected %q), want atom %s of run 0", line, heading, selected, want)
		}
	}
	b.checkQuiet(t, page)
}

// TestBrowserEmptyOutput: a response whose record gives its atoms with no
// text (ConflictBank's) shows its atoms, saying there is no text to place
// them in, without a script error.
func TestBrowserEmptyOutput(t *testing.T) {
	b := openBrowser(t)
	rep := readReport(t, nil, emptyOutputRun(t, false))
	page := reportPage(t, rep)
	line := rep.Runs[0].Results[0].Line
	var note string
	var chips int
	b.run(t, "opening the response", chromedp.Navigate(page),
		chromedp.WaitVisible(fmt.Sprintf(`tr[data-line="%d"]`, line), chromedp.ByQuery),
		chromedp.Click(fmt.Sprintf(`tr[data-line="%d"]`, line), chromedp.ByQuery),
		chromedp.WaitVisible(`#detail .unplaced`, chromedp.ByQuery),
		chromedp.Text(`#detail .unplaced`, &note, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#detail .unplaced .chip').length`, &chips))
	if want := len(rep.Runs[0].Results[0].Atoms); !strings.HasPrefix(note, "No response text") || chips != want {
		t.Errorf("the page says %q with %d atoms, want no response text and %d atoms", note, chips, want)
	}
	b.checkQuiet(t, page)
}
