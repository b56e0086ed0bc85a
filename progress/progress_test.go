package progress

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestProgressPlain: when stderr is not a terminal, progress is a plain
// line: records and NLI pairs done of their totals, the rate and the time
// left.
func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, "fr score")
	p.Every = 0
	p.Report(Status{Records: 1, Line: 3, Pairs: 40})
	p.Report(Status{Records: 2, Line: 5, Pairs: 100, RecordsTotal: 10, PairsTotal: 500, Counted: true})
	p.Finish("done")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		`^fr score: 1 records, 40 NLI pairs \(at line 3\), [0-9.e+]+ pairs/s, [0-9.]+s$`,
		`^fr score: 2/10 records, 100/500 NLI pairs \(at line 5\), [0-9.e+]+ pairs/s, about \w+ left, [0-9.]+s$`,
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
