package comparison_test

import (
	"os"

	"github.com/factreasoner/factreasoner-go/comparison"
	"github.com/factreasoner/factreasoner-go/score"
)

// The headline of a run of two labeled responses. By hand, K = half the
// atoms (1, then 2): the first response has 1 of 2 atoms true, precision
// 0.5, recall@1 1, F1@K 2/3; the second 3 of 4, precision 0.75, recall@2
// 1, F1@K 6/7. Means 0.625 and 0.7619. Against the gold labels, 5 of the 6
// atoms are predicted right (a3 is S but P = 0.3): accuracy 0.8333; the
// supported atoms, 4 found of 5 with none wrong: atom-level F1 8/9.
func ExampleWriteHeadline() {
	k := score.K{Name: "half", Half: true}
	all := []score.Scores{
		score.Compute([]score.Atom{{ID: "a0", PTrue: 0.9, Gold: "S"}, {ID: "a1", PTrue: 0.2, Gold: "NS"}}, k),
		score.Compute([]score.Atom{{ID: "a0", PTrue: 0.8, Gold: "S"}, {ID: "a1", PTrue: 0.7, Gold: "S"},
			{ID: "a2", PTrue: 0.6, Gold: "S"}, {ID: "a3", PTrue: 0.3, Gold: "S"}}, k),
	}
	rows := []comparison.Row{comparison.Summarize("FR2", all, []int{1, 2}, false)}
	comparison.WriteHeadline(os.Stdout, "fr score", rows, k)
	// Output:
	// fr score: FR2: 2 responses, mean Pr 0.6250, mean F1@K 0.7619 (K = half the atoms of each response, at least 1)
	// fr score: FR2: against the gold labels of 2 responses: accuracy 0.8333, atom-level F1 0.8889
}
