// Package report shows the results of `fr score` for people to look at: one
// self-contained HTML file (inline CSS, JavaScript and SVG, nothing fetched
// from the network) with, per response, the text with its atoms coloured by
// P(true), the evidence behind each atom and context (each relation led by
// the sentences of its premise that best match its hypothesis, package
// evidence), and the network; and a
// summary with precision, F1@K and entropy, and against gold labels a
// reliability diagram, ECE, the confusion matrix and Pr against gold Pr.
// Several runs of the same input (FR1/FR2/FR3, or two NLI backends) are
// shown side by side. The summary plots can also be written as SVG and PNG
// files for papers (WritePlots).
//
// Data flows one way: output files → Run (ReadRun) → Report (New) →
// WriteHTML / WritePlots.
package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/score"
)

// Options set what a report shows.
type Options struct {
	// Title heads the page; empty gives "FactReasoner report".
	Title string
	// ExcerptRunes caps the context text kept per context (the excerpt shown
	// as evidence), and the text kept around a relation's sentences where
	// they lie beyond it, which bounds the size of the file; 0 gives 600.
	ExcerptRunes int
	// Bins is the number of equal-width P(true) bins of the reliability
	// diagram and ECE; 0 gives 10.
	Bins int
	// PageSize is the number of responses per page of the list; 0 gives 50.
	PageSize int
}

func (o Options) withDefaults() Options {
	if o.Title == "" {
		o.Title = "FactReasoner report"
	}
	if o.ExcerptRunes <= 0 {
		o.ExcerptRunes = 600
	}
	if o.Bins <= 0 {
		o.Bins = 10
	}
	if o.PageSize <= 0 {
		o.PageSize = 50
	}
	return o
}

// Report is several runs of the same input, their results aligned by the
// input line of each record.
type Report struct {
	Runs    []*Run
	Lines   []int // the input lines of the records, ascending: every line some run has
	Options Options
	Stats   []RunStats // per run
}

// RunStats are the measures of one run over all its responses.
type RunStats struct {
	Summary     score.Summary // means, and against gold labels MAE, correlations, atom F1
	Calibration Calibration   // over the labeled atoms
	Confusion   Confusion     // over the labeled atoms
	// Uncertain counts the atoms, labeled or not, whose label could
	// change within their marginal's error bar (networks not solved
	// exactly).
	Uncertain int
}

// Confusion counts labeled atoms by gold label (rows S, NS) and prediction
// (columns S, NS, undecided). Undecided atoms are those at P(true) 0.5
// (docs/scores.md); the scores count them as predicted NS.
type Confusion [2][3]int

// Confusion rows and columns.
const (
	GoldS, GoldNS                      = 0, 1
	PredictedS, PredictedNS, Undecided = 0, 1, 2
)

// New aligns runs of the same input. Runs must agree on each record they
// share: the same question, response and atoms.
func New(runs []*Run, o Options) (*Report, error) {
	if len(runs) == 0 {
		return nil, errors.New("report: no runs")
	}
	rep := &Report{Runs: runs, Options: o.withDefaults()}
	first := make(map[int]*Result)
	firstRun := make(map[int]*Run)
	for _, run := range runs {
		for _, res := range run.Results {
			prev, ok := first[res.Line]
			if !ok {
				first[res.Line], firstRun[res.Line] = res, run
				rep.Lines = append(rep.Lines, res.Line)
				continue
			}
			if err := sameRecord(prev, res); err != nil {
				return nil, fmt.Errorf("%s:%d and %s:%d hold results of different records for input line %d (%w): a report compares runs of the same input",
					firstRun[res.Line].Path, prev.OutLine, run.Path, res.OutLine, res.Line, err)
			}
		}
	}
	slices.Sort(rep.Lines)
	for _, run := range runs {
		rep.Stats = append(rep.Stats, rep.stats(run))
	}
	return rep, nil
}

// sameRecord reports how two results differ in what they were scored on.
func sameRecord(a, b *Result) error {
	switch {
	case a.Input != b.Input:
		return fmt.Errorf("input %s and %s", quoteShort(a.Input), quoteShort(b.Input))
	case a.Output != b.Output && !a.NoOutput && !b.NoOutput:
		return fmt.Errorf("output %s and %s", quoteShort(a.Output), quoteShort(b.Output))
	case len(a.Atoms) != len(b.Atoms):
		return fmt.Errorf("%d and %d atoms", len(a.Atoms), len(b.Atoms))
	}
	for i := range a.Atoms {
		if a.Atoms[i].ID != b.Atoms[i].ID || a.Atoms[i].Text != b.Atoms[i].Text || a.Atoms[i].Label != b.Atoms[i].Label {
			return fmt.Errorf("atoms[%d] %s %s and %s %s", i, a.Atoms[i].ID, quoteShort(a.Atoms[i].Text), b.Atoms[i].ID, quoteShort(b.Atoms[i].Text))
		}
	}
	ctx := make(map[string]instance.Context, len(a.Contexts))
	for _, c := range a.Contexts {
		ctx[c.ID] = c
	}
	for _, c := range b.Contexts {
		if prev, ok := ctx[c.ID]; ok && !sameContext(prev, c) {
			return fmt.Errorf("context %s differs", c.ID)
		}
	}
	return nil
}

// sameContext reports whether two contexts are the same, their priors
// compared by value.
func sameContext(a, b instance.Context) bool {
	pa, pb := a.Probability, b.Probability
	a.Probability, b.Probability = nil, nil
	return a == b && (pa == nil) == (pb == nil) && (pa == nil || *pa == *pb)
}

func (rep *Report) stats(run *Run) RunStats {
	var st RunStats
	all := make([]score.Scores, len(run.Results))
	var p []float64
	var y []bool
	for i, res := range run.Results {
		all[i] = res.Scores
		for _, a := range res.Atoms {
			if pt, ok := res.PTrue[a.ID]; ok && uncertain(pt, res.Errors[a.ID]) {
				st.Uncertain++
			}
			if a.Label == "" {
				continue
			}
			row := GoldNS
			if a.Label == instance.Supported {
				row = GoldS
			}
			if run.Decided {
				col := PredictedNS
				if res.Supported[a.ID] {
					col = PredictedS
				}
				st.Confusion[row][col]++
				continue
			}
			pt, ok := res.PTrue[a.ID]
			if !ok {
				continue // a merged duplicate
			}
			st.Confusion[row][predicted(pt)]++
			p = append(p, pt)
			y = append(y, a.Label == instance.Supported)
		}
	}
	st.Summary = score.Summarize(all)
	st.Calibration = Calibrate(p, y, rep.Options.Bins)
	if run.Decided {
		// Decisions without a P(true): no entropy measure, no undecided
		// atoms, no Brier score (nor calibration: no P(true) was binned).
		st.Summary.MeanEntropy, st.Summary.MeanUniform, st.Summary.Brier = math.NaN(), math.NaN(), math.NaN()
	}
	return st
}

// uncertain reports whether the label of a marginal P(true) = p with
// error bar e could change within it (inference.Result.Uncertain).
func uncertain(p, e float64) bool { return e > 0 && math.Abs(p-0.5) <= e }

// predicted is the column of the confusion matrix of an atom at P(true) p.
func predicted(p float64) int {
	a := score.Atom{PTrue: p}
	switch {
	case a.Uniform():
		return Undecided
	case a.Supported():
		return PredictedS
	}
	return PredictedNS
}

// Name is a short name of the run for tables and legends: its version and
// NLI (backend and model); for another system's run, where it came from
// (foreign.Run.Label).
func (r *Run) Name() string {
	if r.Other != nil {
		return r.Other.Label()
	}
	return r.Version + " · " + r.NLI
}

// Names are the runs' names, made distinct with their position where two
// runs would share one.
func (rep *Report) Names() []string {
	names := make([]string, len(rep.Runs))
	count := make(map[string]int)
	for i, r := range rep.Runs {
		names[i] = r.Name()
		count[names[i]]++
	}
	for i := range names {
		if count[names[i]] > 1 {
			names[i] = "#" + strconv.Itoa(i+1) + " " + names[i]
		}
	}
	return names
}

// Notes say, a line for each run that lacks some of what the report
// shows, what it lacks and why: "note: NAME decides each atom without a
// P(true): …", or a "warning:" for a run of fr score that does not record
// every response's relations.
func (rep *Report) Notes() []string {
	var out []string
	for i, run := range rep.Runs {
		name := rep.Names()[i]
		switch {
		case run.Decided:
			out = append(out, "note: "+name+" decides each atom without a P(true): no entropy, Brier score, calibration or network")
		case run.Other != nil:
			out = append(out, "note: "+name+" records the atoms' marginals, not the relations: no evidence or network")
		case !run.Relations:
			out = append(out, fmt.Sprintf("warning: %s does not record the relations of every response (nli_backend %s): their evidence is not shown", name, run.Backend))
		}
	}
	return out
}

// quoteShort quotes s for an error message, cut to 60 characters.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return strconv.Quote(s)
}

// round6 rounds to 6 decimals, the precision of the display and of the
// uniform rule (docs/scores.md).
func round6(p float64) float64 { return math.Round(p*1e6) / 1e6 }
