package pipeline

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
)

// recordedClassifier answers as IBM's recorded run did: the golden file's
// relations, keyed by their premise and hypothesis texts, and neutral for
// every other pair. It notes what it is asked.
type recordedClassifier struct {
	answers map[[2]string]nli.Result
	mu      sync.Mutex
	asked   map[[2]string]bool
}

func newRecordedClassifier(t testing.TB, in *instance.Instance, rels []instance.Relation) *recordedClassifier {
	t.Helper()
	ctx, atom := map[string]string{}, map[string]string{}
	for _, c := range in.Contexts {
		ctx[c.ID] = c.NLIText()
	}
	for _, a := range in.Atoms {
		atom[a.ID] = a.Text
	}
	c := &recordedClassifier{answers: map[[2]string]nli.Result{}, asked: map[[2]string]bool{}}
	for _, r := range rels {
		label, err := nli.ParseLabel(r.Type)
		if err != nil || ctx[r.Source] == "" || atom[r.Target] == "" {
			t.Fatalf("golden relation %+v: %v", r, err)
		}
		c.answers[[2]string{ctx[r.Source], atom[r.Target]}] = nli.Result{Label: label, Probability: r.Probability}
	}
	return c
}

func (c *recordedClassifier) Identity() nli.Identity { return nli.Identity{Backend: "recorded"} }

func (c *recordedClassifier) Classify(_ context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		k := [2]string{p.Premise, p.Hypothesis}
		c.asked[k] = true
		r, ok := c.answers[k]
		if !ok {
			r = nli.Result{Label: nli.Neutral, Probability: 0.9}
		}
		out[i] = r
	}
	return out, nil
}

// TestPruneGolden: with the default pruning, IBM's recorded FR2 run on the
// Flaherty instance is reproduced: every recorded non-neutral pair is
// asked, the same 15 relations become factors, every marginal is within
// 1e-6 of merlin's, and at least 4× fewer pairs are asked than the 546 of
// all pairs (AllPairs, which gives the same marginals).
func TestPruneGolden(t *testing.T) {
	in, g := loadGolden(t)
	rels := in.Relations
	in.Relations = nil
	tests := []struct {
		k         int
		asked     int
		maxAsked  int
		wantPrune int
	}{
		{DefaultPairsPerAtom, 26 * DefaultPairsPerAtom, 546 / 4, 546 - 26*DefaultPairsPerAtom},
		{4, 104, 546 / 4, 442},
		{AllPairs, 546, 546, 0},
	}
	for _, tc := range tests {
		t.Run(PairsPerAtomName(tc.k), func(t *testing.T) {
			cl := newRecordedClassifier(t, in, rels)
			p := goldenConfig(true)
			p.Given, p.Classifier, p.PairsPerAtom = GivenNever, cl, tc.k
			a, err := p.Assess(context.Background(), in, graph.FR2)
			if err != nil {
				t.Fatal(err)
			}
			if len(cl.asked) != tc.asked || len(cl.asked) > tc.maxAsked || len(a.Pairs) != tc.asked || a.Pruned != tc.wantPrune {
				t.Errorf("asked %d pairs (%d in the assessment, %d pruned), want %d (at most %d), %d pruned", len(cl.asked), len(a.Pairs), a.Pruned, tc.asked, tc.maxAsked, tc.wantPrune)
			}
			for k := range cl.answers {
				if !cl.asked[k] {
					t.Errorf("recorded pair not asked: %.50q → %q", k[0], k[1])
				}
			}
			if len(a.Relations) != len(rels) {
				t.Errorf("%d relations, golden %d", len(a.Relations), len(rels))
			}
			if len(a.Network.Variables) != len(g.Marginals) {
				t.Fatalf("%d variables, golden %d", len(a.Network.Variables), len(g.Marginals))
			}
			for i, m := range g.Marginals {
				v := a.Network.Variables[i]
				if v.Name != m.Variable {
					t.Fatalf("variable %d: %s, golden %s", i, v.Name, m.Variable)
				}
				for x := range 2 {
					if d := math.Abs(a.Solution.Marginals[i][x] - m.Probabilities[x]); d > 1e-6 {
						t.Errorf("%s: P(%d) = %.9f, merlin %.6f", v.Name, x, a.Solution.Marginals[i][x], m.Probabilities[x])
					}
				}
			}
			rec := a.Record()
			if rec.NLIPairs != tc.asked || rec.NLIPairsPruned != tc.wantPrune || rec.PairsPerAtom != PairsPerAtomName(tc.k) {
				t.Errorf("record: nli_pairs %d, nli_pairs_pruned %d, pairs_per_atom %q", rec.NLIPairs, rec.NLIPairsPruned, rec.PairsPerAtom)
			}
		})
	}
}

// TestPruneGivenNotPruned: a record's own relations are used whole, and
// the record reports no pairs asked.
func TestPruneGivenNotPruned(t *testing.T) {
	in, _ := loadGolden(t)
	p := goldenConfig(true)
	p.PairsPerAtom = 1
	a, err := p.Assess(context.Background(), in, graph.FR2)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Relations) != 15 || a.Pruned != 0 {
		t.Errorf("%d relations, %d pruned; want the 15 given, none pruned", len(a.Relations), a.Pruned)
	}
	if r := a.Record(); r.NLIPairs != 0 || r.NLIPairsPruned != 0 || r.PairsPerAtom != "" {
		t.Errorf("record: nli_pairs %d, nli_pairs_pruned %d, pairs_per_atom %q; want none", r.NLIPairs, r.NLIPairsPruned, r.PairsPerAtom)
	}
}

// BenchmarkPruneGolden measures pruning on IBM's recorded Flaherty FR2
// run, for each number of contexts per atom: the pairs asked, how many of
// the 15 recorded relations are kept, and the largest difference of a
// marginal from the run with every pair. Run with -benchtime 1x.
func BenchmarkPruneGolden(b *testing.B) {
	in, _ := loadGolden(b)
	rels := in.Relations
	in.Relations = nil
	ref := map[string]float64{}
	for _, k := range []int{AllPairs, 1, 2, 3, 4, 5, 6, 8} {
		b.Run(fmt.Sprintf("pairs-per-atom=%s", PairsPerAtomName(k)), func(b *testing.B) {
			var a *Assessment
			for b.Loop() {
				p := goldenConfig(true)
				p.Given, p.Classifier, p.PairsPerAtom = GivenNever, newRecordedClassifier(b, in, rels), k
				var err error
				if a, err = p.Assess(context.Background(), in, graph.FR2); err != nil {
					b.Fatal(err)
				}
			}
			worst := 0.0
			for i, v := range a.Network.Variables {
				pt := a.Solution.Marginals[i][1]
				if k == AllPairs {
					ref[v.Name] = pt
				}
				worst = max(worst, math.Abs(pt-ref[v.Name]))
			}
			b.ReportMetric(float64(len(a.Pairs)), "pairs")
			b.ReportMetric(float64(len(a.Relations)), "relations")
			b.ReportMetric(worst, "max|ΔP|")
		})
	}
}
