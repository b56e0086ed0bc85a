package report_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/report"
)

func exampleHTML(t *testing.T, l report.Layouter) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := exampleReport(t).WriteHTML(context.Background(), &b, l); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// loads matches whatever makes a browser fetch something: an element that
// loads a resource, a URL in CSS, a script API that goes to the network.
var loads = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(src|srcset|href|xlink:href|action|poster|data|background|manifest)\s*=\s*["']?\s*(https?:|//|ftp:)`),
	regexp.MustCompile(`(?i)url\(\s*["']?\s*(https?:|//)`),
	regexp.MustCompile(`(?i)@import`),
	regexp.MustCompile(`(?i)<(link|iframe|img|object|embed|audio|video|source|base|frame)\b`),
	regexp.MustCompile(`(?i)<script[^>]*\bsrc\s*=`),
	regexp.MustCompile(`\b(fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon|importScripts|Worker)\s*\(|new\s+(XMLHttpRequest|WebSocket|EventSource|Worker|Image)\b|\bimport\s*\(`),
	regexp.MustCompile(`(?i)http-equiv\s*=\s*["']?refresh`),
}

// TestHTMLLoadsNothing: the file holds nothing that makes a browser ask the
// network for anything. (TestBrowserEvidence records every request a real
// browser makes as well.)
func TestHTMLLoadsNothing(t *testing.T) {
	for _, l := range []report.Layouter{report.Builtin{}, &report.Graphviz{Path: findDot(t)}} {
		page := string(exampleHTML(t, l))
		// The data holds the contexts' links as text for the evidence
		// panel, where they become links a reader may follow; they are
		// no load.
		code := regexp.MustCompile(`(?s)<script type="application/json" id="fr-data">.*?</script>`).ReplaceAllString(page, "")
		if len(code) == len(page) {
			t.Fatal("no data block found")
		}
		for _, re := range loads {
			if m := re.FindString(code); m != "" {
				t.Errorf("%s: the page loads something: %q", l.Name(), m)
			}
		}
		if n := strings.Count(page, "</script>"); n != 2 {
			t.Errorf("%d </script> tags, want 2 (the data and the script): something closes a script early", n)
		}
		for _, want := range []string{"<style>", "<svg class=\"plot\"", "function select("} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %q: not self-contained", want)
			}
		}
	}
	// The self-test: the patterns catch what they are meant to.
	for _, bad := range []string{`<img src="https://x/y.png">`, `<link rel=stylesheet href="//cdn/x.css">`, `background: url('http://x')`, `fetch("data.json")`, `<script src="a.js"></script>`} {
		caught := false
		for _, re := range loads {
			caught = caught || re.MatchString(bad)
		}
		if !caught {
			t.Errorf("the check misses %s", bad)
		}
	}
}

func TestHTMLDeterministic(t *testing.T) {
	for _, l := range []report.Layouter{report.Builtin{}, &report.Graphviz{Path: findDot(t)}} {
		a, b := exampleHTML(t, l), exampleHTML(t, l)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two writes of the same report differ", l.Name())
		}
	}
}

// pageData mirrors the parts of the page's data the tests read.
type pageData struct {
	Runs []struct {
		Name      string
		Relations bool
	}
	Layout    string
	Responses []struct {
		Line int
		S    []string
		A    [][4]any
		C    [][4]any
		Tx   []string
		R    []*struct {
			Ab    bool
			Pr    float64
			P     []*float64
			Err   []*float64
			Al    map[string]int
			Rel   [][4]float64
			W     [][]int
			Known bool
			G     struct {
				W, H float64
				I    []int
				N    [][3]float64
				E    []string
			}
		}
	}
}

func readPageData(t *testing.T, page []byte) pageData {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="fr-data">(.*?)</script>`).FindSubmatch(page)
	if m == nil {
		t.Fatal("no data block")
	}
	var d pageData
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestHTMLData checks the page's data against the runs: every response,
// the response text whole, P(true) to 6 decimals, uniform atoms at exactly
// 0.5, the relations by node, one laid-out node per variable.
func TestHTMLData(t *testing.T) {
	rep := exampleReport(t)
	d := readPageData(t, exampleHTML(t, report.Builtin{}))
	if len(d.Runs) != 4 || len(d.Responses) != 3 || d.Layout != "built-in" {
		t.Fatalf("%d runs, %d responses, layout %q", len(d.Runs), len(d.Responses), d.Layout)
	}
	if !d.Runs[2].Relations || d.Runs[3].Relations {
		t.Errorf("runs: %+v", d.Runs)
	}
	for k, r := range d.Responses {
		base := rep.Runs[0].Results[k]
		if strings.Join(r.S, "") != base.Output {
			t.Errorf("line %d: the sentences do not add up to the response", r.Line)
		}
		ids := make([]string, 0, len(r.A)+len(r.C))
		for _, a := range r.A {
			ids = append(ids, a[0].(string))
		}
		for _, c := range r.C {
			ids = append(ids, c[0].(string))
		}
		for i, x := range r.R {
			res := rep.Runs[i].Results[k]
			variables, related := 0, make(map[string]bool)
			for _, rel := range res.Relations {
				related[rel.Source], related[rel.Target] = true, true
			}
			for n, id := range ids {
				want, ok := res.PTrue[id]
				if !ok {
					if x.P[n] != nil {
						t.Errorf("line %d run %d: %s is merged but has P %v", r.Line, i, id, *x.P[n])
					}
					continue
				}
				if related[id] {
					variables++
				}
				if x.P[n] == nil || *x.P[n] != float64(int64(want*1e6+0.5))/1e6 {
					t.Errorf("line %d run %d: P(%s) = %v, want %.6f", r.Line, i, id, x.P[n], want)
				}
			}
			if len(x.G.N) != variables || len(x.G.I) != variables || len(x.G.E) != len(x.Rel) {
				t.Errorf("line %d run %d: %d laid-out nodes for %d related variables, %d paths for %d relations", r.Line, i, len(x.G.N), variables, len(x.G.E), len(x.Rel))
			}
			if x.Known != res.RelationsKnown || len(x.Rel) != len(res.Relations) {
				t.Errorf("line %d run %d: %d relations (known %v), want %d", r.Line, i, len(x.Rel), x.Known, len(res.Relations))
			}
			for j, rel := range x.Rel {
				want := res.Relations[j]
				if ids[int(rel[0])] != want.Source || ids[int(rel[1])] != want.Target || []string{"entailment", "contradiction", "equivalence"}[int(rel[2])] != want.Type || rel[3] != want.Probability {
					t.Errorf("line %d run %d: relation %v, want %+v", r.Line, i, rel, want)
				}
			}
		}
	}
	// Line 1 with the records' own relations (none): every atom undecided,
	// at exactly 0.5, which the page's script tests.
	for n := range d.Responses[0].A {
		if p := d.Responses[0].R[1].P[n]; p == nil || *p != 0.5 {
			t.Errorf("line 1 FR2: atom %d P %v, want 0.5", n, p)
		}
	}
}

// moreContextsReport is FR2 on the example twice, the second time with a
// context more in the Ada Lovelace record (retrieved while scoring, say)
// and a relation from it to a5.
func moreContextsReport(t *testing.T) *report.Report {
	t.Helper()
	dir := t.TempDir()
	fr2 := readExampleRuns(t)[1]
	a := plannedSchema(t, fr2, dir)
	lines := rawLines(t, a)
	l := lines[2] // the Ada Lovelace record
	var ctxs []map[string]any
	json.Unmarshal(l["contexts"], &ctxs)
	ctxs = append(ctxs, map[string]any{"id": "c_extra", "title": "Extra", "text": "Ada Lovelace did not build computers."})
	l["contexts"] = rawJSON(t, ctxs)
	var rels []map[string]any
	json.Unmarshal(l["relations"], &rels)
	rels = append(rels, map[string]any{"source": "c_extra", "target": "a5", "type": "contradiction", "probability": 0.75})
	l["relations"] = rawJSON(t, rels)
	l["num_relations"] = rawJSON(t, len(rels))
	var cm []map[string]any
	json.Unmarshal(l["context_marginals"], &cm)
	cm = append(cm, map[string]any{"variable": "c_extra", "probabilities": []float64{0.2, 0.8}})
	l["context_marginals"] = rawJSON(t, cm)
	b := filepath.Join(dir, "more.jsonl")
	writeLines(t, b, lines)
	return readReport(t, nil, a, b)
}

// TestHTMLMoreContexts: when one run of a record has a context the other
// lacks, the page has it, and the relation from it points at it.
func TestHTMLMoreContexts(t *testing.T) {
	var buf bytes.Buffer
	if err := moreContextsReport(t).WriteHTML(context.Background(), &buf, report.Builtin{}); err != nil {
		t.Fatal(err)
	}
	d := readPageData(t, buf.Bytes())
	r := d.Responses[2]
	if len(r.C) != 7 || r.C[6][0] != "c_extra" {
		t.Fatalf("contexts %v", r.C)
	}
	last := r.R[1].Rel[len(r.R[1].Rel)-1]
	if int(last[0]) != len(r.A)+6 || int(last[1]) != 5 || last[3] != 0.75 {
		t.Errorf("the relation from c_extra is %v", last)
	}
	if r.R[0].P[len(r.A)+6] != nil || *r.R[1].P[len(r.A)+6] != 0.8 {
		t.Error("P(true) of c_extra is wrong in one of the runs")
	}
}

// TestHTMLHostileLinks: a context whose link is not http(s) (javascript:,
// data:, file:) shows without a link, an https one keeps it, and the page
// sets a Content-Security-Policy that lets only its own script run, named
// by the script's hash.
func TestHTMLHostileLinks(t *testing.T) {
	dir := t.TempDir()
	fr2 := readExampleRuns(t)[1]
	a := plannedSchema(t, fr2, dir)
	lines := rawLines(t, a)
	hostile := []string{"javascript:alert(document.domain)", " JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd", "vbscript:x"}
	var ctxs []map[string]any
	json.Unmarshal(lines[2]["contexts"], &ctxs)
	for i := range ctxs {
		if i < len(hostile) {
			ctxs[i]["link"] = hostile[i]
		} else {
			ctxs[i]["link"] = "https://en.wikipedia.org/wiki/Ada_Lovelace"
		}
	}
	lines[2]["contexts"] = rawJSON(t, ctxs)
	b := filepath.Join(dir, "links.jsonl")
	writeLines(t, b, lines)
	run, err := report.ReadRun(context.Background(), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.New([]*report.Run{run}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteHTML(context.Background(), &buf, report.Builtin{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	data := regexp.MustCompile(`(?s)<script type="application/json" id="fr-data">(.*?)</script>`).FindStringSubmatch(page)[1]
	for _, h := range []string{"javascript", "JavaScript", "data:text", "file:", "vbscript"} {
		if strings.Contains(data, h) {
			t.Errorf("the page keeps a %s link", h)
		}
	}
	if !strings.Contains(data, "https://en.wikipedia.org/wiki/Ada_Lovelace") {
		t.Error("the https link is gone")
	}
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if csp == nil {
		t.Fatal("no Content-Security-Policy")
	}
	script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)[1]
	sum := sha256.Sum256([]byte(script))
	directives := map[string]string{}
	for _, d := range strings.Split(csp[1], ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = value
	}
	want := map[string]string{
		"default-src": "'none'",
		"script-src":  "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'", // that script alone
		"base-uri":    "'none'",
		"form-action": "'none'",
	}
	for name, value := range want {
		if directives[name] != value {
			t.Errorf("policy %q: %s is %q, want %q", csp[1], name, directives[name], value)
		}
	}
	if strings.Index(page, "Content-Security-Policy") > strings.Index(page, "<style>") {
		t.Error("the policy comes after the style it governs")
	}
}

// TestHTMLErrorBars: a run whose networks were not solved exactly records
// an error bar per marginal; the report reads them, counts the atoms whose
// label is within its bar in the summary, and gives the page each node's
// bar. Runs solved exactly show none (the other tests: byte for byte as
// before).
func TestHTMLErrorBars(t *testing.T) {
	runs := readExampleRuns(t)
	recorded := plannedSchema(t, runs[2], t.TempDir())
	lines := rawLines(t, recorded)
	var marg []map[string]any
	if err := json.Unmarshal(lines[0]["marginals"], &marg); err != nil {
		t.Fatal(err)
	}
	// An uncertain atom (P(true) within its bar of 0.5) and a certain one.
	p0 := marg[0]["probabilities"].([]any)[1].(float64)
	marg[0]["error"], marg[0]["uncertain"] = math.Abs(p0-0.5)+0.01, true
	marg[1]["error"] = 1e-3
	lines[0]["marginals"] = rawJSON(t, marg)
	path := filepath.Join(t.TempDir(), "approx.jsonl")
	writeLines(t, path, lines)
	run, err := report.ReadRun(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := run.Results[0]
	if len(res.Errors) != 2 || res.Errors[marg[0]["variable"].(string)] != marg[0]["error"] {
		t.Fatalf("errors read: %v", res.Errors)
	}
	rep, err := report.New([]*report.Run{run}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := 1
	if math.Abs(marg[1]["probabilities"].([]any)[1].(float64)-0.5) <= 1e-3 {
		want++
	}
	if rep.Stats[0].Uncertain != want {
		t.Errorf("%d uncertain labels counted, want %d", rep.Stats[0].Uncertain, want)
	}
	var b bytes.Buffer
	if err := rep.WriteHTML(context.Background(), &b, report.Builtin{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), fmt.Sprintf("(%d uncertain label", want)) {
		t.Error("the summary does not count the uncertain labels")
	}
	d := readPageData(t, b.Bytes())
	x := d.Responses[0].R[0]
	if len(x.Err) != len(x.P) || x.Err[0] == nil || math.Abs(*x.Err[0]-marg[0]["error"].(float64)) > 1e-6 || x.Err[len(x.Err)-1] != nil {
		t.Errorf("page error bars %v", x.Err)
	}
	if d.Responses[1].R[0].Err != nil {
		t.Error("a line without error bars has them on the page")
	}

	// A bar that is no probability is refused.
	marg[0]["error"] = 1.5
	lines[0]["marginals"] = rawJSON(t, marg)
	writeLines(t, path, lines)
	if _, err := report.ReadRun(context.Background(), path, nil); err == nil || !strings.Contains(err.Error(), "marginals[0].error: 1.5 is not in (0, 1]") {
		t.Errorf("err = %v", err)
	}
}

// abstainedReport is the FR2 example run with a fourth response that
// abstained, as fr score writes it: no atoms, no marginals.
func abstainedReport(t *testing.T) *report.Report {
	t.Helper()
	dir := t.TempDir()
	lines := rawLines(t, plannedSchema(t, readExampleRuns(t)[1], dir))
	l := maps.Clone(lines[0])
	for _, f := range []string{"atoms", "contexts", "relations", "references", "gold_factuality_score", "gold_true_atoms",
		"true_positive", "true_negative", "false_positive", "false_negative", "avg_brier", "priors"} {
		delete(l, f)
	}
	for f, v := range map[string]any{"abstained": true, "line": 4, "num_atoms": 0, "num_contexts": 0, "num_relations": 0,
		"num_true_atoms": 0, "num_false_atoms": 0, "num_uniform_atoms": 0, "factuality_score": 0, "marginals": []any{},
		"context_marginals": []any{}, "predictions": "", "output": "I'm sorry, I cannot answer that.", "nli_backend": "given", "model_name": "given"} {
		l[f] = rawJSON(t, v)
	}
	path := filepath.Join(dir, "abstained.jsonl")
	writeLines(t, path, append(lines, l))
	return readReport(t, nil, path)
}

// TestHTMLAbstained: a response that abstained counts in the run's
// responses, not in its means; the summary says how many responded and
// gives the means' intervals; the page marks the response abstained.
func TestHTMLAbstained(t *testing.T) {
	rep := abstainedReport(t)
	s := rep.Stats[0].Summary
	want := exampleReport(t).Stats[1].Summary
	if s.Responses != 4 || s.Responding != 3 || s.MeanPr != want.MeanPr || s.Intervals["mean_precision"] != want.Intervals["mean_precision"] {
		t.Errorf("summary %d responses, %d responding, mean Pr %v %v; want 4, 3, %v %v", s.Responses, s.Responding, s.MeanPr,
			s.Intervals["mean_precision"], want.MeanPr, want.Intervals["mean_precision"])
	}
	var buf bytes.Buffer
	if err := rep.WriteHTML(context.Background(), &buf, report.Builtin{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	iv := want.Intervals["mean_precision"]
	ci := fmt.Sprintf("(%s–%s)", strconv.FormatFloat(iv.Low, 'g', 3, 64), strconv.FormatFloat(iv.High, 'g', 3, 64))
	if !strings.Contains(page, "(3 responding)") || !strings.Contains(page, ci) {
		t.Errorf("the summary lacks the responding share or the interval %s", ci)
	}
	d := readPageData(t, buf.Bytes())
	last := d.Responses[len(d.Responses)-1]
	if last.Line != 4 || !last.R[0].Ab || len(last.A) != 0 {
		t.Errorf("line %d: abstained %v, %d atoms", last.Line, last.R[0].Ab, len(last.A))
	}
}

// TestNotes: of the example's four runs of fr score, the report warns
// about the one whose lines do not record their relations (their
// evidence is not shown), and only that one.
func TestNotes(t *testing.T) {
	rep := exampleReport(t)
	want := "warning: " + rep.Names()[3] + " does not record the relations of every response (nli_backend " + rep.Runs[3].Backend + "): their evidence is not shown"
	if notes := rep.Notes(); len(notes) != 1 || notes[0] != want || rep.Runs[3].Relations {
		t.Errorf("notes %q, want [%q]", notes, want)
	}
}
