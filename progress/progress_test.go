package progress

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestProgressPlain: when stderr is not a terminal, progress is a plain
// line: records and NLI pairs done of their totals (the pairs' estimated
// until every record is planned), the rate and the time left.
func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, "fr score")
	p.Every = 0
	p.Report(Status{Records: 1, Line: 3, Pairs: 40})
	p.Report(Status{Records: 1, Line: 3, Pairs: 40, PairsTotal: 80, Planned: 2, RecordsTotal: 10, Counted: true})
	p.Report(Status{Records: 2, Line: 5, Pairs: 100, RecordsTotal: 10, PairsTotal: 500, Planned: 10, Counted: true})
	p.Report(Status{Records: 2, Line: 5, RecordsTotal: 10, Counted: true})
	p.Finish("done")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		`^fr score: 1 records, 40 NLI pairs \(at line 3\), [0-9.e+]+ pairs/s, [0-9.]+s$`,
		`^fr score: 1/10 records, 40 of about 400 NLI pairs \(at line 3\), [0-9.e+]+ pairs/s, about \w+ left, [0-9.]+s$`,
		`^fr score: 2/10 records, 100/500 NLI pairs \(at line 5\), [0-9.e+]+ pairs/s, about \w+ left, [0-9.]+s$`,
		`^fr score: 2/10 records \(at line 5\), [0-9.e+]+ records/s, about \w+ left, [0-9.]+s$`,
		`^fr score: done in [0-9.]+s$`,
	}
	if len(lines) != len(want) {
		t.Fatalf("progress:\n%s", buf.String())
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d: %q does not match %s", i+1, lines[i], re)
		}
	}
	if p.bar != nil {
		t.Error("a progress bar on a buffer")
	}
}

// TestDescribePages: the web pages a run fetches show beside its records.
func TestDescribePages(t *testing.T) {
	var b strings.Builder
	d := New(&b, "fr retrieve")
	d.Every = 0
	d.Report(Status{Records: 2, Pages: 3, PagesInFlight: 1})
	if !strings.Contains(b.String(), "2 records, 3 web pages fetched (1 in flight)") {
		t.Errorf("progress line %q", b.String())
	}
}

// TestPairsExpected: the pairs a run asks in all, from those of the
// records planned so far, by hand.
func TestPairsExpected(t *testing.T) {
	for _, c := range []struct {
		s         Status
		pairs     int
		exact, ok bool
	}{
		{Status{PairsTotal: 30, Planned: 1}, 0, false, false},                                  // not counted
		{Status{RecordsTotal: 4, Counted: true}, 0, false, false},                              // none planned
		{Status{RecordsTotal: 4, Counted: true, PairsTotal: 30, Planned: 1}, 120, false, true}, // 30 + 3×30
		{Status{RecordsTotal: 4, Counted: true, PairsTotal: 30, Planned: 3}, 40, false, true},  // 30 + 1×10
		{Status{RecordsTotal: 3, Counted: true, PairsTotal: 10, Planned: 3}, 10, true, true},
		{Status{RecordsTotal: 0, Counted: true}, 0, true, true},                            // nothing to do
		{Status{RecordsTotal: 2, Counted: true, PairsTotal: 7, Planned: 3}, 7, true, true}, // a count short of a record
	} {
		pairs, exact, ok := c.s.PairsExpected()
		if pairs != c.pairs || exact != c.exact || ok != c.ok {
			t.Errorf("%+v: %d, %v, %v; want %d, %v, %v", c.s, pairs, exact, ok, c.pairs, c.exact, c.ok)
		}
	}
}
