// Package comparison sets runs over a file side by side: a row per run (a
// FactReasoner version, a baseline, a run recorded in a file) with its
// measures and their confidence intervals (Summarize), the paired tests
// of each pair of rows (PairedTests), and the tables they are written as
// (Write: markdown, csv, json). Package batch makes the rows of the runs
// it scores and of the files it reads back.
package comparison

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/jsonfields"
	"github.com/factreasoner/factreasoner-go/internal/parallel"
	"github.com/factreasoner/factreasoner-go/paired"
	"github.com/factreasoner/factreasoner-go/score"
)

// Formats are the formats Write writes.
var Formats = []string{"markdown", "json", "csv"}

// Significance is the level below which both tests' p-values must be for
// a difference to count as significant in the tables.
const Significance = 0.05

// Test is a paired test of the difference between two rows of
// a comparison in one measure, over the responses both rows scored
// (matched by input line).
type Test struct {
	A       string `json:"a"`       // the rows, by Version
	B       string `json:"b"`       //
	Measure string `json:"measure"` // the measure's name (score.Measure.Name)
	// MeanDifference is the mean over the responses of A's value − B's.
	MeanDifference float64 `json:"mean_difference"`
	PValue         float64 `json:"p_value"` // two-sided
	// Test is "paired-t" (Student's paired t-test) or "permutation" (the
	// paired sign-flip permutation test), package paired.
	Test string `json:"test"`
	// Responses is the number of responses compared.
	Responses int `json:"responses"`
}

// Test names.
const (
	TestPairedT     = "paired-t"
	TestPermutation = "permutation"
)

// PairedTests tests each pair of rows, in row order, in each per-response
// measure both have (score.Measures that are tested: a probability's
// measure only between runs with P(true), a gold measure only on labeled
// responses), over the responses both scored, matched by input line: a
// paired t-test and a paired permutation test each. A pair of rows with
// fewer than two responses in common, or a row that holds one input line
// twice (two runs of a record cannot be told apart), is not tested. The
// tests run on every core; their order is that of the rows and measures.
func PairedTests(rows []Row) []Test {
	type job struct {
		a, b, measure string
		x, y          []float64
	}
	var jobs []job
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			for _, m := range score.Measures() {
				if x, y, ok := pairValues(rows[i], rows[j], m); ok {
					jobs = append(jobs, job{rows[i].Version, rows[j].Version, m.Name, x, y})
				}
			}
		}
	}
	out := make([][2]Test, len(jobs))
	parallel.Do(context.Background(), len(jobs), runtime.GOMAXPROCS(0), func(_ context.Context, k int) error {
		jb := jobs[k]
		t, errT := paired.TTest(jb.x, jb.y)
		p, errP := paired.PermutationTest(jb.x, jb.y, paired.Options{})
		if errT != nil || errP != nil { // cannot happen: two or more finite pairs
			return nil
		}
		base := Test{A: jb.a, B: jb.b, Measure: jb.measure, MeanDifference: t.MeanDifference, Responses: t.N}
		out[k][0], out[k][1] = base, base
		out[k][0].Test, out[k][0].PValue = TestPairedT, t.PValue
		out[k][1].Test, out[k][1].PValue = TestPermutation, p.PValue
		return nil
	})
	var tests []Test
	for _, o := range out {
		if o[0].Test != "" {
			tests = append(tests, o[0], o[1])
		}
	}
	return tests
}

// pairValues are two rows' values of a measure on the responses both
// scored, matched by line; ok is false when the pair is not tested in it.
func pairValues(a, b Row, m score.Measure) (x, y []float64, ok bool) {
	byLine := func(c Row) (map[int]int, bool) {
		if len(c.lines) != len(c.scores) {
			return nil, false // a row made elsewhere, without its responses
		}
		idx := make(map[int]int, len(c.lines))
		for i, l := range c.lines {
			if _, dup := idx[l]; dup {
				return nil, false
			}
			idx[l] = i
		}
		return idx, true
	}
	if !m.Test || m.Probability && (a.decided || b.decided) {
		return nil, nil, false
	}
	bLines, okB := byLine(b)
	if _, okA := byLine(a); !okA || !okB {
		return nil, nil, false
	}
	for i, l := range a.lines {
		j, ok := bLines[l]
		if !ok {
			continue
		}
		sa, sb := a.scores[i], b.scores[j]
		if sa.Abstained || sb.Abstained || m.Labeled && (sa.Gold == nil || sb.Gold == nil) {
			continue
		}
		x, y = append(x, m.Value(sa)), append(y, m.Value(sb))
	}
	return x, y, len(x) >= 2
}

// MarshalJSON writes the row's fields and, after each per-response mean
// (score.Measures), its 95% confidence interval as "<name>_ci": [low,
// high], null where the mean is.
func (c Row) MarshalJSON() ([]byte, error) {
	type plain Row // without this method
	b, err := json.Marshal(plain(c))
	if err != nil {
		return nil, err
	}
	names, vals, err := jsonfields.Ordered(b)
	if err != nil {
		return nil, err
	}
	intervals := make(map[string][]byte)
	for _, m := range score.Measures() {
		iv, ok := c.Intervals[m.Name]
		v := []byte("null")
		if ok && c.defined(m) {
			v, _ = json.Marshal(iv)
		}
		intervals[m.Name] = v
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		out.Write(k)
		out.WriteByte(':')
		out.Write(vals[i])
		if v, ok := intervals[name]; ok {
			k, _ := json.Marshal(name + "_ci")
			out.WriteByte(',')
			out.Write(k)
			out.WriteByte(':')
			out.Write(v)
		}
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// defined reports whether the row has a value of the measure: not a
// probability's measure of a decided run, not a gold measure without
// labels.
func (c Row) defined(m score.Measure) bool {
	return !(m.Probability && c.decided) && !(m.Labeled && c.Labeled == 0) && c.Responding > 0
}

// Write writes rows as a table in format, with the paired tests
// of its rows (PairedTests):
//
//   - markdown: 4 decimals, each per-response mean with its 95% interval
//     in parentheses (3 significant digits), n/a where a value does not
//     exist; then, when there are tests, a second table with both tests'
//     p-values for each pair of rows and measure, and whether the
//     difference is significant (both p-values below Significance);
//   - csv: the rows only, every digit, an empty cell where there is no
//     value, the responding responses and the intervals' ends in columns
//     of their own;
//   - json: {"rows": [the rows, with "<measure>_ci" intervals], "tests":
//     [Test...]}, null where a value does not exist.
//
// Where rows hold values recorded by another system under its own names
// (Row.Recorded), markdown and csv have a column more for each
// name, "its NAME", after the others.
func Write(w io.Writer, format string, rows []Row) error {
	header := []string{"version", "responses", "Pr", "atom F1", "F1@K", "MAE", "RMSE", "E", "Brier", "accuracy", "#S", "#C", "#U", "Pearson", "Spearman", "inference"}
	recorded := recordedNames(rows)
	switch format {
	case "json":
		tests := PairedTests(rows)
		if tests == nil {
			tests = []Test{}
		}
		if rows == nil {
			rows = []Row{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Rows  []Row  `json:"rows"`
			Tests []Test `json:"tests"`
		}{rows, tests})
	case "csv":
		// For programs: every digit, and an empty cell where there is no
		// value.
		full := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		header = slices.Insert(header, 2, "responding")
		for _, m := range intervalMeasures() {
			header = append(header, m.Label+" CI low", m.Label+" CI high")
		}
		for _, name := range recorded {
			header = append(header, "its "+name)
		}
		cw := csv.NewWriter(w)
		cw.Write(header)
		for _, r := range rows {
			cells := slices.Insert(comparisonCells(r, full, "", nil), 2, strconv.Itoa(r.Responding))
			for _, m := range intervalMeasures() {
				iv, ok := r.Intervals[m.Name]
				if !ok || !r.defined(m) {
					cells = append(cells, "", "")
					continue
				}
				cells = append(cells, full(iv.Low), full(iv.High))
			}
			cells = append(cells, recordedCells(r, recorded, full, "")...)
			cw.Write(cells)
		}
		cw.Flush()
		return cw.Error()
	case "markdown":
	default:
		return fmt.Errorf("unknown comparison format %q", format)
	}
	for _, name := range recorded {
		header = append(header, "its "+name)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(header)))
	four := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	for _, r := range rows {
		interval := func(name, cell string) string {
			iv, ok := r.Intervals[name]
			if !ok || cell == "n/a" || iv.Low == iv.High {
				return cell
			}
			return fmt.Sprintf("%s (%s–%s)", cell, short(iv.Low), short(iv.High))
		}
		cells := append(comparisonCells(r, four, "n/a", interval), recordedCells(r, recorded, four, "n/a")...)
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	return writeTests(w, PairedTests(rows))
}

// intervalMeasures are the measures whose intervals a table shows.
func intervalMeasures() []score.Measure {
	var out []score.Measure
	for _, m := range score.Measures() {
		if m.Test || m.Root {
			out = append(out, m)
		}
	}
	return out
}

// short writes an interval's end with 3 significant digits.
func short(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }

// writeTests writes the tests as a markdown table, the two tests of a
// pair of rows and measure on one line.
func writeTests(w io.Writer, tests []Test) error {
	if len(tests) == 0 {
		return nil
	}
	labels := make(map[string]string)
	for _, m := range score.Measures() {
		labels[m.Name] = m.Label
	}
	fmt.Fprintf(w, "\nPaired tests over the responses both rows scored (a − b: mean difference; p two-sided; significant: both p < %g):\n\n", Significance)
	fmt.Fprintln(w, "| a | b | measure | responses | a − b | p (paired t) | p (permutation) | significant |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	p4 := func(p float64) string {
		if p < 0.0001 {
			return "<0.0001"
		}
		return strconv.FormatFloat(p, 'f', 4, 64)
	}
	for i := 0; i+1 < len(tests); i += 2 {
		t, p := tests[i], tests[i+1] // paired-t, then permutation
		sig := "no"
		if t.PValue < Significance && p.PValue < Significance {
			sig = "yes"
		}
		_, err := fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %s | %s | %s |\n", t.A, t.B, labels[t.Measure], t.Responses,
			strconv.FormatFloat(t.MeanDifference, 'f', 4, 64), p4(t.PValue), p4(p.PValue), sig)
		if err != nil {
			return err
		}
	}
	return nil
}

// textCell is s, or missing when s is empty.
func textCell(s *string, missing string) string {
	if s == nil || *s == "" {
		return missing
	}
	return *s
}

// recordedNames are the names of the values rows record under another
// system's names, in order of first appearance.
func recordedNames(rows []Row) []string {
	var names []string
	for _, r := range rows {
		for _, v := range r.Recorded {
			if !slices.Contains(names, v.Name) {
				names = append(names, v.Name)
			}
		}
	}
	return names
}

// comparisonCells is a row of the table: numbers formatted by num, and
// missing where a value does not exist (NaN, or a gold measure of unlabeled
// input). An infinity is no value either: no measure of the table can be
// one, so it is printed as missing rather than as "+Inf". interval, when
// set, adds the interval of the measure of that name to its cell.
func comparisonCells(r Row, num func(float64) string, missing string, interval func(name, cell string) string) []string {
	f := func(x float64) string {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return missing
		}
		return num(x)
	}
	s := r.Summary
	labeled := func(x float64) string {
		if s.Labeled == 0 {
			return missing
		}
		return f(x)
	}
	mean := func(name string, x float64, cell func(float64) string) string {
		c := cell(x)
		if s.Responding == 0 {
			c = missing
		}
		if interval != nil {
			return interval(name, c)
		}
		return c
	}
	responses := strconv.Itoa(s.Responses)
	if s.Responding != s.Responses && missing != "" { // markdown
		responses = fmt.Sprintf("%d of %d", s.Responding, s.Responses)
	}
	cells := []string{r.Version, responses, mean("mean_precision", s.MeanPr, f), labeled(s.AtomF1), mean("mean_f1_k", s.MeanF1K, f),
		mean("mae", s.MAE, labeled), mean("rmse", s.RMSE, labeled),
		mean("mean_avg_entropy", s.MeanEntropy, f), labeled(s.Brier), labeled(s.Accuracy),
		mean("mean_true_atoms", s.MeanTrue, f), mean("mean_false_atoms", s.MeanFalse, f), mean("mean_uniform_atoms", s.MeanUniform, f),
		labeled(s.Pearson), labeled(s.Spearman), textCell(r.Inference, missing)}
	return cells
}

// recordedCells are the values the row records under the names recorded,
// missing where it has none.
func recordedCells(r Row, recorded []string, num func(float64) string, missing string) []string {
	var cells []string
	for _, name := range recorded {
		x, ok := r.Recorded.Get(name)
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			cells = append(cells, missing)
			continue
		}
		cells = append(cells, num(x))
	}
	return cells
}
