package comparison

import (
	"fmt"
	"io"

	"github.com/factreasoner/factreasoner-go/score"
)

// WriteHeadline writes the result of a scoring run in a few lines, each
// after prefix (fr writes them on stderr, after the run's summary): for
// each row (a version; one for fr score), the responses (and the
// responding share when some abstained), mean factual precision and mean
// F1@K and, with gold labels, accuracy and atom-level F1, as the rows have
// them (score.Summarize). A row without responses says nothing.
func WriteHeadline(w io.Writer, prefix string, rows []Row, k score.K) {
	for _, r := range rows {
		s := r.Summary
		if s.Responses == 0 {
			continue
		}
		name := ""
		if r.Version != "" {
			name = r.Version + ": "
		}
		responses := fmt.Sprintf("%d %s", s.Responses, plural(s.Responses, "response"))
		if s.Responding != s.Responses {
			responses += fmt.Sprintf(" (%d responding, %.1f%%; %d abstained, left out of the means)", s.Responding,
				100*float64(s.Responding)/float64(s.Responses), s.Responses-s.Responding)
		}
		if s.Responding == 0 {
			fmt.Fprintf(w, "%s: %s%s: no mean\n", prefix, name, responses)
			continue
		}
		fmt.Fprintf(w, "%s: %s%s, mean Pr %.4f, mean %s\n", prefix, name, responses, s.MeanPr, f1AtK(s.MeanF1K, k))
		if s.Labeled > 0 {
			fmt.Fprintf(w, "%s: %sagainst the gold labels of %d %s: accuracy %.4f, atom-level F1 %.4f\n", prefix, name, s.Labeled, plural(s.Labeled, "response"), s.Accuracy, s.AtomF1)
		}
	}
}

// f1AtK is a mean F1@K with K said: F1@5, F1@12 (K = median atom count),
// F1@K (K = half the atoms of each response, at least 1).
func f1AtK(f1 float64, k score.K) string {
	switch {
	case k.Half:
		return fmt.Sprintf("F1@K %.4f (K = half the atoms of each response, at least 1)", f1)
	case k.Name == "median":
		return fmt.Sprintf("F1@%g %.4f (K = the median atom count)", k.Value, f1)
	}
	return fmt.Sprintf("F1@%g %.4f", k.Value, f1)
}

// plural is noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
