package assess

import (
	"context"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/internal/testgen/flaherty"
	"github.com/factreasoner/factreasoner-go/nli"
)

// countingClassifier answers neutral and counts what it is asked.
type countingClassifier struct {
	calls   int
	largest int               // the most pairs in one call
	asked   map[[2]string]int // premise, hypothesis -> times asked
}

func (c *countingClassifier) Identity() nli.Identity { return nli.Identity{Backend: "counting"} }

func (c *countingClassifier) Classify(_ context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	c.calls++
	c.largest = max(c.largest, len(pairs))
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		c.asked[[2]string{p.Premise, p.Hypothesis}]++
		out[i] = nli.Result{Label: nli.Neutral, Probability: 1}
	}
	return out, nil
}

// TestCompareSharesNLI: comparing FR1, FR2, FR3 and the FActScore baseline
// on the Flaherty instance asks the classifier once, in rounds of NLIRound
// pairs (the fewest that hold them), about each distinct (premise,
// hypothesis) text pair: every context text with
// every atom text (FR2; FR1's and FActScore's pairs are among them), and
// every ordered pair of different context texts (FR3). The count is made
// here from the instance's texts.
func TestCompareSharesNLI(t *testing.T) {
	in, _ := flaherty.Load(t)
	in.Relations = nil
	atoms, contexts := map[string]bool{}, map[string]bool{}
	for _, a := range in.Atoms {
		atoms[a.Text] = true
	}
	for _, c := range in.Contexts {
		contexts[c.NLIText()] = true
	}
	want := len(contexts)*len(atoms) + len(contexts)*(len(contexts)-1)
	if len(contexts) != 21 || len(atoms) != 26 {
		t.Fatalf("%d distinct context and %d atom texts, want 21 and 26", len(contexts), len(atoms))
	}

	cl := &countingClassifier{asked: map[[2]string]int{}}
	cfg := goldenConfig(true)
	cfg.Given, cfg.Classifier = GivenNever, cl
	as, fs, err := cfg.Compare(context.Background(), in, []graph.Version{graph.FR1, graph.FR2, graph.FR3}, Baseline{Threshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 3 || len(fs) != 1 {
		t.Fatalf("%d assessments, baseline %v", len(as), fs)
	}
	rounds := (want + NLIRound - 1) / NLIRound
	if cl.calls != rounds || cl.largest > NLIRound || len(cl.asked) != want {
		t.Errorf("%d calls of up to %d pairs asking %d distinct pairs; want %d calls of up to %d, %d pairs", cl.calls, cl.largest, len(cl.asked), rounds, NLIRound, want)
	}
	for p, n := range cl.asked {
		if n != 1 {
			t.Errorf("asked %d times: %.40q → %.40q", n, p[0], p[1])
		}
		if !(contexts[p[0]] && (atoms[p[1]] || contexts[p[1]] && p[1] != p[0])) {
			t.Errorf("unexpected pair %.40q → %.40q", p[0], p[1])
		}
	}
	// Each version still sees all of its own pairs answered.
	for _, a := range as {
		if len(a.Results) != len(a.Pairs) || len(a.Pairs) == 0 {
			t.Errorf("%s: %d results for %d pairs", a.Version, len(a.Results), len(a.Pairs))
		}
	}
}
