package assess

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/testgen/flaherty"
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
// 1e-6 of merlin's, and at least 2× fewer pairs are asked than the 546 of
// all pairs (AllPairs, which gives the same marginals). The own pairs
// (each atom with the 53 contexts listed for it, 21 after deduplication)
// are asked in every setting.
func TestPruneGolden(t *testing.T) {
	in, g := flaherty.Load(t)
	rels := in.Relations
	in.Relations = nil
	const own = 53
	tests := []struct {
		k          int
		asked      int
		wantPrune  int
		reproduces bool // asks every recorded pair
	}{
		{DefaultPairsPerAtom, own + 26*DefaultPairsPerAtom, 546 - own - 26*DefaultPairsPerAtom, true},
		{4, own + 104, 546 - own - 104, true},
		{OwnPairsOnly, own, 546 - own, false},
		{AllPairs, 546, 0, true},
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
			if len(cl.asked) != tc.asked || len(a.Pairs) != tc.asked || a.Pruned != tc.wantPrune || a.Own != own || a.Other != tc.asked-own {
				t.Errorf("asked %d pairs (%d in the assessment: %d own, %d others; %d pruned), want %d (%d own), %d pruned", len(cl.asked), len(a.Pairs), a.Own, a.Other, a.Pruned, tc.asked, own, tc.wantPrune)
			}
			if tc.k == DefaultPairsPerAtom && 2*tc.asked > 546 {
				t.Errorf("the default asks %d of 546 pairs: not 2x fewer", tc.asked)
			}
			rec := a.Record()
			if rec.NLIPairs != tc.asked || rec.NLIPairsOwn != own || rec.NLIPairsOther != tc.asked-own || rec.NLIPairsPruned != tc.wantPrune || rec.PairsPerAtom != PairsPerAtomName(tc.k) {
				t.Errorf("record: nli_pairs %d (own %d, other %d), nli_pairs_pruned %d, pairs_per_atom %q", rec.NLIPairs, rec.NLIPairsOwn, rec.NLIPairsOther, rec.NLIPairsPruned, rec.PairsPerAtom)
			}
			if !tc.reproduces {
				return
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
		})
	}
}

// TestPruneGivenNotPruned: a record's own relations are used whole, and
// the record reports no pairs asked.
func TestPruneGivenNotPruned(t *testing.T) {
	in, _ := flaherty.Load(t)
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
	in, _ := flaherty.Load(b)
	rels := in.Relations
	in.Relations = nil
	ref := map[string]float64{}
	for _, k := range []int{AllPairs, OwnPairsOnly, 1, 2, 3, 4, 5, 6, 8} {
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

// ownOracle answers NLI as a record whose evidence sits on its own
// contexts: a pair is entailment or contradiction (decided by a hash of
// its texts, with a probability from it) when its premise is an own
// context of an atom with the hypothesis's text, or, for context pairs,
// when both are own contexts of one atom; every other pair is neutral.
// Own contexts are worked out here from the record, independently of
// package graph: those an atom lists, those whose id is c_<atom id>_<n>,
// and the question's, c_q_<n>.
type ownOracle struct{ stance map[[2]string]bool }

func newOwnOracle(in *instance.Instance) *ownOracle {
	text := map[string]string{}
	var query []string
	for _, c := range in.Contexts {
		text[c.ID] = c.NLIText()
		if strings.HasPrefix(c.ID, "c_q_") {
			query = append(query, c.ID)
		}
	}
	o := &ownOracle{stance: map[[2]string]bool{}}
	for _, a := range in.Atoms {
		own := append(append([]string(nil), a.Contexts...), query...)
		for _, c := range in.Contexts {
			if rest, ok := strings.CutPrefix(c.ID, "c_"+a.ID+"_"); ok && strings.Trim(rest, "0123456789") == "" && rest != "" {
				own = append(own, c.ID)
			}
		}
		for _, c := range own {
			o.stance[[2]string{text[c], a.Text}] = true
			for _, d := range own {
				if text[c] != text[d] {
					o.stance[[2]string{text[c], text[d]}] = true
				}
			}
		}
	}
	return o
}

func (o *ownOracle) Identity() nli.Identity { return nli.Identity{Backend: "own-oracle"} }

func (o *ownOracle) Classify(_ context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		if !o.stance[[2]string{p.Premise, p.Hypothesis}] {
			out[i] = nli.Result{Label: nli.Neutral, Probability: 0.8}
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(p.Premise + "\x00" + p.Hypothesis))
		v := h.Sum32()
		out[i] = nli.Result{Label: nli.Entailment, Probability: 0.55 + float64(v%40)/100}
		if v%3 == 0 {
			out[i].Label = nli.Contradiction
		}
	}
	return out, nil
}

// randomOwnRecord is a record of 2 to 6 atoms and 4 to 24 contexts: some
// atoms list their contexts, others have them only by id
// (c_<atom id>_<n>), some contexts are the question's (c_q_<n>) or no
// atom's, and some repeat another's text (FR2 and FR3 merge them) or an
// atom's.
func randomOwnRecord(rng *rand.Rand) *instance.Instance {
	words := strings.Fields("ada lovelace babbage engine london born algorithm analytical poet daughter byron mathematics note 1815 1852 machine")
	sentence := func() string {
		var ws []string
		for range 3 + rng.IntN(5) {
			ws = append(ws, words[rng.IntN(len(words))])
		}
		return strings.Join(ws, " ")
	}
	in := &instance.Instance{Input: "Tell me about Ada Lovelace.", Output: "x"}
	na := 2 + rng.IntN(5)
	for i := range na {
		in.Atoms = append(in.Atoms, instance.Atom{ID: fmt.Sprintf("a%d", i), Text: sentence() + "."})
	}
	if rng.IntN(3) == 0 {
		in.Atoms[na-1].Text = in.Atoms[0].Text // a repeated atom
	}
	for i := range 4 + rng.IntN(21) {
		var id string
		switch r := rng.IntN(6); {
		case r == 0:
			id = fmt.Sprintf("c_q_%d", i)
		case r == 1:
			id = fmt.Sprintf("c%d", i)
		default:
			id = fmt.Sprintf("c_a%d_%d", rng.IntN(na), i)
		}
		c := instance.Context{ID: id, Text: sentence()}
		if i > 0 && rng.IntN(5) == 0 {
			c.Text = in.Contexts[rng.IntN(i)].Text
		}
		in.Contexts = append(in.Contexts, c)
	}
	for i := range in.Atoms {
		if rng.IntN(2) == 0 {
			continue // its contexts by id only
		}
		for _, c := range in.Contexts {
			if strings.HasPrefix(c.ID, "c_a"+fmt.Sprint(i)+"_") || (c.ID[1] != '_' && rng.IntN(4) == 0) {
				in.Atoms[i].Contexts = append(in.Atoms[i].Contexts, c.ID)
			}
		}
	}
	return in
}

// TestPruneOwnEvidence: on records whose stances sit only on own contexts
// (each atom's listed, id-named and question contexts, and for FR3 pairs
// of contexts retrieved for one atom), every pruning setting gives
// exactly the results of asking every pair, in every version: the same
// relations and marginals, bit for bit.
func TestPruneOwnEvidence(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	for r := range 150 {
		in := randomOwnRecord(rng)
		if err := in.Validate(); err != nil {
			t.Fatalf("record %d: %v", r, err)
		}
		for _, v := range []graph.Version{graph.FR1, graph.FR2, graph.FR3} {
			assess := func(k int) *Assessment {
				p := goldenConfig(true)
				p.Given, p.Classifier, p.PairsPerAtom = GivenNever, newOwnOracle(in), k
				a, err := p.Assess(context.Background(), in, v)
				if err != nil {
					t.Fatal(err)
				}
				return a
			}
			all := assess(AllPairs)
			for _, k := range []int{OwnPairsOnly, 1, 2, DefaultPairsPerAtom} {
				a := assess(k)
				if !reflect.DeepEqual(a.Relations, all.Relations) || !reflect.DeepEqual(a.Solution.Marginals, all.Solution.Marginals) {
					t.Fatalf("record %d, %s, --pairs-per-atom %s: relations %v\nall pairs: %v", r, v, PairsPerAtomName(k), a.Relations, all.Relations)
				}
				if v != graph.FR1 && k == OwnPairsOnly && len(all.Relations) > 0 && a.Asked >= all.Asked && a.Pruned == 0 && all.Asked > a.Own {
					t.Errorf("record %d, %s: own only asked %d of %d", r, v, a.Asked, all.Asked)
				}
			}
		}
	}
}
