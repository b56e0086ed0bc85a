package graph

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/nli"
)

func flaherty(t *testing.T) *instance.Instance {
	t.Helper()
	ins, err := instance.ReadFile(refdata.Path(t, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		t.Fatal(err)
	}
	return ins[0]
}

// TestFlahertyDedup: FR2/FR3 keep the 21 contexts IBM's run kept, in file
// order; FR1 keeps all 53.
func TestFlahertyDedup(t *testing.T) {
	in := flaherty(t)
	data, err := os.ReadFile(refdata.Path(t, "factreasoner", "flaherty_fr2_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Contexts []string `json:"contexts_after_dedup"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	for _, v := range []Version{FR2, FR3} {
		n := SelectNodes(in, v)
		var ids []string
		for _, c := range n.Contexts {
			ids = append(ids, c.ID)
		}
		if !reflect.DeepEqual(ids, g.Contexts) {
			t.Errorf("%v contexts:\n got %v\nwant %v", v, ids, g.Contexts)
		}
		if len(n.Atoms) != 26 {
			t.Errorf("%v: %d atoms, want 26", v, len(n.Atoms))
		}
		// c_a1_0 repeats c_a0_0's text (the Lanny Flaherty article).
		if n.Resolve("c_a1_0") != "c_a0_0" {
			t.Errorf("%v: c_a1_0 resolves to %s, want c_a0_0", v, n.Resolve("c_a1_0"))
		}
	}
	if n := SelectNodes(in, FR1); len(n.Contexts) != 53 || len(n.Alias) != 0 {
		t.Errorf("FR1: %d contexts, %d aliases; want 53 and none", len(n.Contexts), len(n.Alias))
	}
}

// TestFlahertyPairs checks the pair sets of the three versions.
func TestFlahertyPairs(t *testing.T) {
	in := flaherty(t)
	text := make(map[string]string)
	for _, c := range in.Contexts {
		text[c.ID] = c.NLIText()
	}
	for _, a := range in.Atoms {
		text[a.ID] = a.Text
	}
	tests := []struct {
		v       Version
		n       int
		has     [][2]string // premise id, hypothesis id
		hasNot  [][2]string
		firstID [2]string
	}{
		// FR1: each atom with its own contexts: 53 in all, the premise is the
		// context's text (not its id, the reference's bug).
		{FR1, 53, [][2]string{{"c_a0_0", "a0"}, {"c_a1_0", "a1"}, {"c_a25_0", "a25"}}, [][2]string{{"c_a0_0", "a1"}}, [2]string{"c_a0_0", "a0"}},
		// FR2: 26 atoms × 21 contexts.
		{FR2, 546, [][2]string{{"c_a0_0", "a1"}, {"c_a22_0", "a0"}}, [][2]string{{"c_a1_0", "a1"}, {"c_a0_0", "c_a0_1"}}, [2]string{"c_a0_0", "a0"}},
		// FR3: FR2 plus 21·20 ordered context pairs.
		{FR3, 546 + 420, [][2]string{{"c_a0_0", "c_a0_1"}, {"c_a0_1", "c_a0_0"}, {"c_a11_1", "c_a0_0"}}, [][2]string{{"c_a0_0", "c_a0_0"}}, [2]string{"c_a0_0", "a0"}},
	}
	for _, tc := range tests {
		pairs := Pairs(SelectNodes(in, tc.v))
		if len(pairs) != tc.n {
			t.Errorf("%v: %d pairs, want %d", tc.v, len(pairs), tc.n)
		}
		set := make(map[[2]string]bool)
		for _, p := range pairs {
			k := [2]string{p.PremiseID, p.HypothesisID}
			if set[k] {
				t.Errorf("%v: pair %v twice", tc.v, k)
			}
			set[k] = true
			if p.Premise != text[p.PremiseID] || p.Hypothesis != text[p.HypothesisID] {
				t.Fatalf("%v: pair %v does not carry the texts of its ids", tc.v, k)
			}
		}
		for _, k := range tc.has {
			if !set[k] {
				t.Errorf("%v: missing pair %v", tc.v, k)
			}
		}
		for _, k := range tc.hasNot {
			if set[k] {
				t.Errorf("%v: unexpected pair %v", tc.v, k)
			}
		}
		if got := [2]string{pairs[0].PremiseID, pairs[0].HypothesisID}; got != tc.firstID {
			t.Errorf("%v: first pair %v, want %v", tc.v, got, tc.firstID)
		}
	}
	// FR3's context pairs come in byte-sorted id order, both directions.
	pairs := Pairs(SelectNodes(in, FR3))
	ctx := pairs[546:]
	if ctx[0].PremiseID != "c_a0_0" || ctx[0].HypothesisID != "c_a0_1" || ctx[1].PremiseID != "c_a0_1" || ctx[1].HypothesisID != "c_a0_0" {
		t.Errorf("FR3 context pairs start %v %v", ctx[0], ctx[1])
	}
	// c_a11_1 < c_a1_1 as byte strings ('1' < '_').
	if ctx[2].HypothesisID != "c_a0_2" || ctx[4].HypothesisID != "c_a11_1" {
		t.Errorf("FR3 context pairs not in byte-sorted order: %v, %v", ctx[2].HypothesisID, ctx[4].HypothesisID)
	}
}

func TestAtomDedup(t *testing.T) {
	in := &instance.Instance{Output: "x",
		Atoms:    []instance.Atom{{ID: "a0", Text: "A."}, {ID: "a1", Text: "B."}, {ID: "a2", Text: "A."}},
		Contexts: []instance.Context{{ID: "c0", Text: "t"}, {ID: "c1", Text: "t"}}}
	for _, v := range []Version{FR1, FR2, FR3} {
		n := SelectNodes(in, v)
		if len(n.Atoms) != 2 || n.Atoms[1].ID != "a1" || n.Resolve("a2") != "a0" {
			t.Errorf("%v: atoms %v", v, n.Atoms)
		}
		wantCtx := 1
		if v == FR1 {
			wantCtx = 2
		}
		if len(n.Contexts) != wantCtx {
			t.Errorf("%v: %d contexts, want %d", v, len(n.Contexts), wantCtx)
		}
	}
}

// TestContextPairRule checks FR3's rule for combining the two directions of
// a context pair (c1 < c2).
func TestContextPairRule(t *testing.T) {
	e, c, n := nli.Entailment, nli.Contradiction, nli.Neutral
	tests := []struct {
		name     string
		fwd, bwd nli.Result // c1→c2, c2→c1
		want     []Relation
	}{
		{"forward stronger", nli.Result{Label: c, Probability: 0.8}, nli.Result{Label: e, Probability: 0.6},
			[]Relation{{"c1", "c2", Contradiction, 0.8}}},
		{"backward stronger", nli.Result{Label: e, Probability: 0.6}, nli.Result{Label: c, Probability: 0.7},
			[]Relation{{"c2", "c1", Contradiction, 0.7}}},
		{"tie keeps c2→c1", nli.Result{Label: c, Probability: 0.7}, nli.Result{Label: e, Probability: 0.7},
			[]Relation{{"c2", "c1", Entailment, 0.7}}},
		{"both entail: equivalence, larger p", nli.Result{Label: e, Probability: 0.9}, nli.Result{Label: e, Probability: 0.6},
			[]Relation{{"c1", "c2", Equivalence, 0.9}}},
		{"kept direction neutral: dropped", nli.Result{Label: c, Probability: 0.6}, nli.Result{Label: n, Probability: 0.9}, nil},
		{"both neutral", nli.Result{Label: n, Probability: 0.9}, nli.Result{Label: n, Probability: 0.9}, nil},
	}
	in := &instance.Instance{Output: "x", Atoms: []instance.Atom{{ID: "a0", Text: "A"}},
		Contexts: []instance.Context{{ID: "c2", Text: "two"}, {ID: "c1", Text: "one"}}}
	nodes := SelectNodes(in, FR3)
	pairs := Pairs(nodes) // a0×c2, a0×c1, c1→c2, c2→c1
	for _, tc := range tests {
		res := []nli.Result{{Label: e, Probability: 0.5}, {Label: n, Probability: 1}, tc.fwd, tc.bwd}
		rels, err := Relations(nodes, pairs, res)
		if err != nil {
			t.Fatal(err)
		}
		want := append([]Relation{{"c2", "a0", Entailment, 0.5}}, tc.want...)
		if !reflect.DeepEqual(rels, want) {
			t.Errorf("%s: got %v, want %v", tc.name, rels, want)
		}
	}
}

// TestFactorTables checks docs/inference.md's tables, listed [f(¬s,¬t), f(¬s,t),
// f(s,¬t), f(s,t)], and the clamping of p.
func TestFactorTables(t *testing.T) {
	const p, pa, pc = 0.8, 0.5, 0.9
	tests := []struct {
		typ       RelationType
		target    string
		usePriors bool
		p         float64
		want      [4]float64
	}{
		{Entailment, "a", true, p, [4]float64{1 - pa, pa, 1 - p, p}},
		{Entailment, "c", true, p, [4]float64{1 - pc, pc, 1 - p, p}},
		{Contradiction, "a", true, p, [4]float64{1 - pa, pa, p, 1 - p}},
		{Contradiction, "c", true, p, [4]float64{1 - pc, pc, p, 1 - p}},
		{Equivalence, "c", true, p, [4]float64{p, 1 - p, 1 - p, p}},
		{Entailment, "a", false, p, [4]float64{p, p, 1 - p, p}},
		{Contradiction, "a", false, p, [4]float64{p, p, p, 1 - p}},
		{Equivalence, "c", false, p, [4]float64{p, 1 - p, 1 - p, p}},
		{Entailment, "a", false, 1, [4]float64{1 - 1e-6, 1 - 1e-6, 1e-6, 1 - 1e-6}},
		{Contradiction, "a", true, 0, [4]float64{1 - pa, pa, 1e-6, 1 - 1e-6}},
	}
	in := &instance.Instance{Output: "x", Atoms: []instance.Atom{{ID: "a", Text: "A"}},
		Contexts: []instance.Context{{ID: "c", Text: "C"}, {ID: "s", Text: "S"}}}
	for _, tc := range tests {
		o := DefaultOptions()
		o.UsePriors = tc.usePriors
		g, err := Build(SelectNodes(in, FR3), []Relation{{"s", tc.target, tc.typ, tc.p}}, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Factors[0].Table; !near(got, tc.want) {
			t.Errorf("%v → %s, priors %v, p %v: %v, want %v", tc.typ, tc.target, tc.usePriors, tc.p, got, tc.want)
		}
		m := g.Model()
		// Unary priors first, in byte-sorted variable order (a, c, s), then
		// the edge with scope (source, target).
		if len(m.Factors) != 4 || m.Factors[0].Table[1] != pa || m.Factors[1].Table[1] != pc || m.Factors[2].Table[1] != pc {
			t.Fatalf("model factors %v", m.Factors)
		}
		si, _ := g.Index("s")
		ti, _ := g.Index(tc.target)
		if !reflect.DeepEqual(m.Factors[3].Scope, []int{si, ti}) {
			t.Errorf("edge scope %v, want [%d %d]", m.Factors[3].Scope, si, ti)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	in := &instance.Instance{Output: "x", Atoms: []instance.Atom{{ID: "a", Text: "A"}},
		Contexts: []instance.Context{{ID: "c", Text: "C"}}}
	nodes := SelectNodes(in, FR2)
	for _, r := range []Relation{
		{"a", "c", Entailment, 0.5},    // source is an atom
		{"c", "zz", Entailment, 0.5},   // unknown target
		{"c", "a", Entailment, 1.5},    // probability out of range
		{"c", "a", RelationType(9), 1}, // unknown type
	} {
		if _, err := Build(nodes, []Relation{r}, DefaultOptions()); err == nil {
			t.Errorf("Build accepted %v", r)
		}
	}
	o := DefaultOptions()
	o.AtomPrior = 1
	if _, err := Build(nodes, nil, o); err == nil {
		t.Error("Build accepted an atom prior of 1")
	}
}

func near(a, b [4]float64) bool {
	for i := range a {
		if d := a[i] - b[i]; d > 1e-12 || d < -1e-12 {
			return false
		}
	}
	return true
}
