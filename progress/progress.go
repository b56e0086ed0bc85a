// Package progress shows how far long work has come, on stderr: a
// progress bar on a terminal, plain lines every few seconds in a log, and a
// closing summary with the time taken. Results never go through it: they
// go to stdout or an output file.
package progress

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Status is how far a run has come (it has the fields of
// Status, which converts to it).
type Status struct {
	// Records done, and the input line of the last one.
	Records int
	Line    int
	// Pairs is the number of NLI pairs the classifier has answered.
	Pairs int
	// Pages is the number of web pages fetched so far, PagesInFlight
	// those being fetched now.
	Pages, PagesInFlight int
	// The records the run has to do, once counted (Counted).
	RecordsTotal int
	Counted      bool
	// The NLI pairs of the records planned so far (Planned): a record's
	// pairs are known once it is read, atomized and retrieved for (see
	// PairsExpected).
	PairsTotal int
	Planned    int
}

// PairsExpected is how many NLI pairs the run puts to the classifier in
// all: those of the records planned so far and, for each record yet to
// plan, their mean. It is exact (exact) once every record is planned; ok is
// false when there is nothing to say it from (the records are not
// counted, or none is planned).
func (s Status) PairsExpected() (pairs int, exact, ok bool) {
	left := s.RecordsTotal - s.Planned
	switch {
	case !s.Counted || s.Planned == 0 && left > 0:
		return 0, false, false
	case left <= 0:
		return s.PairsTotal, true, true
	}
	return s.PairsTotal + int(math.Round(float64(left)*float64(s.PairsTotal)/float64(s.Planned))), false, true
}

// Display shows how far long work has come on stderr: a plain line every
// few seconds (for logs and CI) or, WithBar and when stderr is a terminal,
// a progress bar. A program with a bar writes everything else for stderr
// through it (it is an io.Writer), so that messages and the bar do not
// mix. It is safe for concurrent use.
type Display struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	start  time.Time
	last   time.Time // of the last plain line
	// Every is how often a plain line is written (PlainEvery unless
	// changed before the first report).
	Every time.Duration
	bar   *progressbar.ProgressBar // nil when stderr is not a terminal
	unit  string                   // what the bar counts: "pairs" or "records"
	cur   Status
}

// PlainEvery is how often progress lines are written when stderr is not a
// terminal.
const PlainEvery = 5 * time.Second

// New returns a display that writes to w, each line starting with prefix
// (the command's name).
func New(w io.Writer, prefix string) *Display {
	now := time.Now()
	return &Display{w: w, prefix: prefix, start: now, last: now, Every: PlainEvery}
}

// WithBar shows a progress bar instead of plain lines when w is a
// terminal.
func (p *Display) WithBar() *Display {
	// A writer that filters stderr (a redactor) passes its file's Fd on.
	if f, ok := p.w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.prefix),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("records"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// Write writes a message to stderr, above the bar.
func (p *Display) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Clear()
	}
	return p.w.Write(b)
}

// Update reports the records done and the input line of the last.
func (p *Display) Update(n, line int) { p.Report(Status{Records: n, Line: line}) }

// Report shows a run's progress (cmd/fr gives it batch.FileOptions.Progress, converted).
func (p *Display) Report(pr Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = pr
	if p.bar != nil {
		p.showBar(pr)
		return
	}
	if time.Since(p.last) < p.Every {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "%s: %s, %.1fs\n", p.prefix, p.describe(pr, true), time.Since(p.start).Seconds())
}

// showBar updates the bar: it counts NLI pairs when the run asks any (they
// are where the time goes), else records, and spins until the total is
// known (of pairs, estimated: PairsExpected).
func (p *Display) showBar(pr Status) {
	unit, n, total := "records", pr.Records, pr.RecordsTotal
	if !pr.Counted {
		total = -1
	}
	if pr.PairsTotal > 0 || pr.Pairs > 0 {
		unit, n, total = "pairs", pr.Pairs, -1
		if expected, _, ok := pr.PairsExpected(); ok {
			total = expected
		}
	}
	if unit != p.unit {
		p.unit = unit
		p.bar.Reset()
		progressbar.OptionSetItsString(unit)(p.bar)
	}
	if p.bar.GetMax() != total {
		p.bar.ChangeMax(total)
	}
	desc := p.prefix + ": " + p.describe(pr, false)
	p.bar.Describe(desc)
	p.bar.Set(n)
}

// describe says what is done of what there is to do; with rates, the
// rate and time left too (the bar shows its own).
func (p *Display) describe(pr Status, rates bool) string {
	var b strings.Builder
	if pr.Counted {
		fmt.Fprintf(&b, "%d/%d records", pr.Records, pr.RecordsTotal)
	} else {
		fmt.Fprintf(&b, "%d records", pr.Records)
	}
	// The rate and time left are of NLI pairs when the run asks any (they
	// are where the time goes), else of records.
	unit, done, total, known := "records", pr.Records, pr.RecordsTotal, pr.Counted
	if pr.Pairs > 0 || pr.PairsTotal > 0 {
		expected, exact, ok := pr.PairsExpected()
		switch {
		case exact:
			fmt.Fprintf(&b, ", %d/%d NLI pairs", pr.Pairs, expected)
		case ok:
			fmt.Fprintf(&b, ", %d of about %d NLI pairs", pr.Pairs, expected)
		default:
			fmt.Fprintf(&b, ", %d NLI pairs", pr.Pairs)
		}
		unit, done, total, known = "pairs", pr.Pairs, expected, ok
	}
	if pr.Line > 0 {
		fmt.Fprintf(&b, " (at line %d)", pr.Line)
	}
	if pr.Pages > 0 || pr.PagesInFlight > 0 {
		fmt.Fprintf(&b, ", %d web pages fetched", pr.Pages)
		if pr.PagesInFlight > 0 {
			fmt.Fprintf(&b, " (%d in flight)", pr.PagesInFlight)
		}
	}
	if !rates {
		return b.String()
	}
	elapsed := time.Since(p.start).Seconds()
	if done > 0 && elapsed > 0 {
		rate := float64(done) / elapsed
		fmt.Fprintf(&b, ", %.3g %s/s", rate, unit)
		if known && total >= done {
			left := time.Duration(float64(total-done) / rate * float64(time.Second))
			fmt.Fprintf(&b, ", about %s left", left.Round(time.Second))
		}
	}
	return b.String()
}

// Abandon clears the bar and writes nothing: the run ended before it did
// anything, and its error says why.
func (p *Display) Abandon() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Clear()
	}
}

// Finish clears the bar and writes the summary of the work, with the time
// it took.
func (p *Display) Finish(summary string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Clear()
	}
	fmt.Fprintf(p.w, "%s: %s in %.1fs\n", p.prefix, summary, time.Since(p.start).Seconds())
}
