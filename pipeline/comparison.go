package pipeline

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ComparisonFormats are the formats WriteComparison writes.
var ComparisonFormats = []string{"markdown", "json", "csv"}

// WriteComparison writes rows as a table in format: markdown (4 decimals,
// n/a where a value does not exist), csv (every digit, an empty cell) or
// json (the rows themselves, null). Where rows hold values recorded by
// another system under its own names (Comparison.Recorded), markdown and
// csv have a column more for each name, "its NAME", after the others.
func WriteComparison(w io.Writer, format string, rows []Comparison) error {
	header := []string{"version", "responses", "Pr", "atom F1", "F1@K", "MAE", "E", "Brier", "accuracy", "#S", "#C", "#U", "Pearson", "Spearman", "inference"}
	recorded := recordedNames(rows)
	for _, name := range recorded {
		header = append(header, "its "+name)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case "csv":
		// For programs: every digit, and an empty cell where there is no
		// value.
		cw := csv.NewWriter(w)
		cw.Write(header)
		for _, r := range rows {
			cw.Write(comparisonCells(r, recorded, func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }, ""))
		}
		cw.Flush()
		return cw.Error()
	case "markdown":
	default:
		return fmt.Errorf("unknown comparison format %q", format)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(header)))
	for _, r := range rows {
		cells := comparisonCells(r, recorded, func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }, "n/a")
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
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
func recordedNames(rows []Comparison) []string {
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
// one, so it is printed as missing rather than as "+Inf". Then the values
// the row records under the names recorded, missing where it has none.
func comparisonCells(r Comparison, recorded []string, num func(float64) string, missing string) []string {
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
	cells := []string{r.Version, strconv.Itoa(s.Responses), f(s.MeanPr), labeled(s.AtomF1), f(s.MeanF1K), labeled(s.MAE),
		f(s.MeanEntropy), labeled(s.Brier), labeled(s.Accuracy), f(s.MeanTrue), f(s.MeanFalse), f(s.MeanUniform),
		labeled(s.Pearson), labeled(s.Spearman), textCell(r.Inference, missing)}
	for _, name := range recorded {
		x, ok := r.Recorded.Get(name)
		if !ok {
			x = math.NaN()
		}
		cells = append(cells, f(x))
	}
	return cells
}
