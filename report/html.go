package report

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/score"
)

//go:embed assets/report.css
var reportCSS string

//go:embed assets/report.js
var reportJS string

// WriteHTML writes the report as one self-contained HTML file: the page's
// style, script, plots and data are all inline and nothing is loaded from
// anywhere else. The networks are laid out with l. The same report and
// layout give byte-identical files.
func (rep *Report) WriteHTML(ctx context.Context, w io.Writer, l Layouter) error {
	names := rep.Names()
	data, graphs, slots := rep.page(names)
	placements, err := l.Layout(ctx, graphs)
	if err != nil {
		return fmt.Errorf("laying out the networks: %w", err)
	}
	if len(placements) != len(graphs) {
		return fmt.Errorf("laying out the networks: %d layouts for %d graphs", len(placements), len(graphs))
	}
	for i, p := range placements {
		slots[i].place(graphs[i], p)
	}
	data.Layout = l.Name()
	js, err := json.Marshal(data) // escapes <, > and &, so no "</script>" can occur
	if err != nil {
		return err
	}
	summary, err := rep.summaryHTML(names, l.Name())
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	script := "\n" + reportJS
	fmt.Fprintf(bw, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"+
		"<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n",
		contentSecurityPolicy(script), template.HTMLEscapeString(rep.Options.Title), reportCSS)
	bw.Write(summary)
	bw.WriteString("<script type=\"application/json\" id=\"fr-data\">")
	bw.Write(js)
	bw.WriteString("</script>\n<script>")
	bw.WriteString(script)
	bw.WriteString("</script>\n</body>\n</html>\n")
	return bw.Flush()
}

// contentSecurityPolicy is the report's policy: nothing is loaded from
// anywhere, and the one script that runs is the report's own, named by its
// hash, so that no text from the data (a page's title, a link such as
// javascript:…) can run as script, whatever slips through. Styles may be
// inline (the page sets colours in style attributes); they cannot run
// anything.
func contentSecurityPolicy(script string) string {
	sum := sha256.Sum256([]byte(script))
	return "default-src 'none'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
}

var summaryTemplate = template.Must(template.New("summary").Funcs(template.FuncMap{
	"f3": func(v float64) string {
		if math.IsNaN(v) {
			return "n/a"
		}
		return fmt.Sprintf("%.3f", v)
	},
	"f4": func(v float64) string {
		if math.IsNaN(v) { // a measure the run cannot have
			return "n/a"
		}
		return fmt.Sprintf("%.4f", v)
	},
	// ci is the 95% interval of a mean whose value is v, compactly, as fr
	// compare's markdown shows it; nothing for a mean the run cannot have
	// or an interval that is a point.
	"ci": func(s score.Summary, name string, v float64) template.HTML {
		iv, ok := s.Intervals[name]
		if !ok || math.IsNaN(v) || iv.Low == iv.High {
			return ""
		}
		g := func(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }
		return template.HTML(` <span class="ci" title="95% confidence interval: a bootstrap over the responses">(` + g(iv.Low) + "–" + g(iv.High) + ")</span>")
	},
}).Parse(`<header>
<h1>{{.Title}}</h1>
<p class="meta">{{.Responses}} response{{if ne .Responses 1}}s{{end}} · {{len .Runs}} run{{if gt (len .Runs) 1}}s{{end}} · network layout: {{.Layout}}</p>
</header>
<main>
<section id="summary">
<h2>Summary</h2>
<div class="scroll"><table class="runs">
<thead><tr><th>run</th><th>file</th><th>solver</th><th title="responses scored, and of them those that did not abstain (the means are over these)">resp.</th><th title="mean factual precision, with its 95% confidence interval">mean Pr</th><th>mean F1@K</th><th title="mean of avg_entropy, the E measure (log10)">mean E</th>
{{- if .Gold}}<th title="responses with gold labels">labeled</th><th>mean gold Pr</th><th title="mean |Pr − gold Pr|">MAE</th><th title="√ mean (Pr − gold Pr)²">RMSE</th><th title="Pearson's r of Pr with gold Pr">r</th><th title="Spearman's ρ of Pr with gold Pr">ρ</th><th title="F1 of predicted S against gold S over all labeled atoms">atom F1</th><th title="accuracy: the share of labeled atoms whose predicted label is the gold one">acc.</th><th>Brier</th><th title="expected calibration error over the bins of the reliability diagram">ECE</th>{{end}}</tr></thead>
<tbody>
{{- range .Runs}}
<tr><td><span class="swatch" style="background:{{.Color}}"></span>{{.Name}}{{if .Decided}} <span class="warn" title="this run decides each atom, supported or not, without a P(true)">(decisions only)</span>{{else if not .Relations}} <span class="warn" title="this output does not record the relations that became factors">(relations not recorded)</span>{{end}}</td><td class="file">{{.File}}</td><td class="solver">{{.Solver}}{{if .Uncertain}} <span class="warn" title="atoms whose P(true) is within its error bar of 0.5: networks not solved exactly, whose labels could go either way">({{.Uncertain}} uncertain label{{if ne .Uncertain 1}}s{{end}})</span>{{end}}</td><td>{{.S.Responses}}{{if ne .S.Responding .S.Responses}} <span class="note">({{.S.Responding}} responding)</span>{{end}}</td><td>{{f4 .S.MeanPr}}{{ci .S "mean_precision" .S.MeanPr}}</td><td>{{f4 .S.MeanF1K}}{{ci .S "mean_f1_k" .S.MeanF1K}}</td><td>{{f4 .S.MeanEntropy}}{{ci .S "mean_avg_entropy" .S.MeanEntropy}}</td>
{{- if $.Gold}}{{if .S.Labeled}}<td>{{.S.Labeled}}</td><td>{{f4 .S.MeanGold}}</td><td>{{f4 .S.MAE}}{{ci .S "mae" .S.MAE}}</td><td>{{f4 .S.RMSE}}{{ci .S "rmse" .S.RMSE}}</td><td>{{f3 .S.Pearson}}</td><td>{{f3 .S.Spearman}}</td><td>{{f4 .S.AtomF1}}</td><td>{{f4 .S.Accuracy}}</td><td>{{f4 .S.Brier}}</td><td>{{f4 .ECE}}</td>{{else}}<td>0</td><td colspan="9" class="na">no gold labels</td>{{end}}{{end}}</tr>
{{- end}}
</tbody></table></div>
{{- if .Gold}}
<h3>Confusion matrices <span class="note">(labeled atoms; undecided = P(true) 0.5, counted as NS by the scores)</span></h3>
<div class="confusions">
{{- range .Runs}}{{if .S.Labeled}}
<table class="confusion"><caption><span class="swatch" style="background:{{.Color}}"></span>{{.Name}}</caption>
<thead><tr><th>gold \ predicted</th><th>S</th><th>NS</th><th>undecided</th></tr></thead>
<tbody><tr><th>S</th><td class="good">{{index .C 0 0}}</td><td class="bad">{{index .C 0 1}}</td><td class="und">{{index .C 0 2}}</td></tr>
<tr><th>NS</th><td class="bad">{{index .C 1 0}}</td><td class="good">{{index .C 1 1}}</td><td class="und">{{index .C 1 2}}</td></tr></tbody></table>
{{- end}}{{end}}
</div>
{{- else}}
<p class="note">No atom has a gold label: no reliability diagram, ECE, confusion matrix or comparison with gold Pr.</p>
{{- end}}
<div class="plots">
{{- range .Plots}}
<figure>{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{- end}}
</div>
</section>
<section id="responses"><h2>Responses</h2><noscript><p class="warn">The list of responses, the evidence and the networks need JavaScript.</p></noscript><div id="list"></div></section>
<section id="detail" hidden></section>
</main>
<aside id="evidence" aria-live="polite"><p class="hint">Click an atom or a context to see its evidence.</p></aside>
`))

type summaryRun struct {
	Name, File, Solver, Color string
	Relations, Decided        bool
	Uncertain                 int
	S                         score.Summary
	ECE                       float64
	C                         Confusion
}

type summaryPlot struct {
	SVG     template.HTML
	Caption string
}

var plotCaptions = map[string]string{
	"p-true":      "How many atoms get each P(true), per run (20 bins).",
	"reliability": "Reliability diagram: labeled atoms binned by P(true) (equal-width bins); each point is a bin's mean P(true) against the fraction of its atoms that are gold S. A calibrated run lies on the diagonal.",
	"pr-vs-gold":  "Each labeled response's factual precision Pr against its gold Pr, with the mean absolute error and Pearson's and Spearman's correlations.",
}

func (rep *Report) summaryHTML(names []string, layout string) ([]byte, error) {
	d := struct {
		Title     string
		Responses int
		Layout    string
		Gold      bool
		Runs      []summaryRun
		Plots     []summaryPlot
	}{Title: rep.Options.Title, Responses: len(rep.Lines), Layout: layout}
	for i, run := range rep.Runs {
		st := rep.Stats[i]
		d.Gold = d.Gold || st.Summary.Labeled > 0
		d.Runs = append(d.Runs, summaryRun{Name: names[i], File: filepath.Base(run.Path), Solver: run.Solver, Color: runColors[i%len(runColors)],
			Relations: run.Relations, Decided: run.Decided, Uncertain: st.Uncertain, S: st.Summary, ECE: st.Calibration.ECE, C: st.Confusion})
	}
	for _, p := range rep.Plots() {
		svg, err := p.SVG()
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", p.Name, err)
		}
		d.Plots = append(d.Plots, summaryPlot{SVG: template.HTML(inlineSVG(svg, p.Title)), Caption: plotCaptions[p.Name]})
	}
	var b bytes.Buffer
	if err := summaryTemplate.Execute(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// inlineSVG makes a standalone SVG file fit for inlining in HTML: without
// its XML prelude, and labelled.
func inlineSVG(svg []byte, title string) string {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return strings.Replace(s, "<svg", `<svg class="plot" role="img" aria-label="`+template.HTMLEscapeString(title)+`"`, 1)
}
