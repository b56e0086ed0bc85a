package assess

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
)

// priorsRecord is a small record whose contexts carry their own priors: c0
// (0.3) entails a0 and c2; c1 (the context prior) contradicts a0; c2 (0.97)
// entails a1; c3 repeats c0's text with another prior (0.8), so FR2 and
// FR3 keep c0 with its prior, and FR1 keeps both, each with its own.
func priorsRecord() *instance.Instance {
	p := func(x float64) *float64 { return &x }
	return &instance.Instance{
		Input: "Q?", Output: "R.",
		Atoms: []instance.Atom{
			{ID: "a0", Text: "Atom zero.", Contexts: []string{"c0", "c1", "c3"}},
			{ID: "a1", Text: "Atom one.", Contexts: []string{"c2"}},
		},
		Contexts: []instance.Context{
			{ID: "c0", Text: "Context zero.", Probability: p(0.3)},
			{ID: "c1", Text: "Context one."},
			{ID: "c2", Text: "Context two.", Probability: p(0.97)},
			{ID: "c3", Text: "Context zero.", Probability: p(0.8)},
		},
		Relations: []instance.Relation{
			{Source: "c0", Target: "a0", Type: instance.TypeEntailment, Probability: 0.8},
			{Source: "c1", Target: "a0", Type: instance.TypeContradiction, Probability: 0.7},
			{Source: "c2", Target: "a1", Type: instance.TypeEntailment, Probability: 0.9},
			{Source: "c0", Target: "c2", Type: instance.TypeEntailment, Probability: 0.85},
		},
	}
}

// bruteMarginals enumerates the joint distribution of binary variables
// with unary priors and pairwise factors written out from docs/formats.md; docs/inference.md
// (π_T the target's own prior), independently of package graph, and
// returns every variable's P(true).
func bruteMarginals(prior map[string]float64, rels [][4]any, usePriors bool) map[string]float64 {
	var names []string
	for n := range prior {
		names = append(names, n)
	}
	index := make(map[string]int)
	for i, n := range names {
		index[n] = i
	}
	pTrue := make([]float64, len(names))
	z := 0.0
	for x := 0; x < 1<<len(names); x++ {
		val := func(n string) int { return x >> index[n] & 1 }
		w := 1.0
		for _, n := range names {
			if val(n) == 1 {
				w *= prior[n]
			} else {
				w *= 1 - prior[n]
			}
		}
		for _, r := range rels {
			s, t, typ, p := r[0].(string), r[1].(string), r[2].(string), r[3].(float64)
			pt := prior[t]
			var tab [4]float64 // f(¬s,¬t), f(¬s,t), f(s,¬t), f(s,t)
			switch {
			case typ == "entailment" && usePriors:
				tab = [4]float64{1 - pt, pt, 1 - p, p}
			case typ == "entailment":
				tab = [4]float64{p, p, 1 - p, p}
			case typ == "contradiction" && usePriors:
				tab = [4]float64{1 - pt, pt, p, 1 - p}
			case typ == "contradiction":
				tab = [4]float64{p, p, p, 1 - p}
			}
			w *= tab[2*val(s)+val(t)]
		}
		z += w
		for i, n := range names {
			if val(n) == 1 {
				pTrue[i] += w
			}
		}
	}
	out := make(map[string]float64)
	for i, n := range names {
		out[n] = pTrue[i] / z
	}
	return out
}

// TestContextPriorsBruteForce: a context's probability is its prior in
// every version and both factor-table modes, in its unary factor and as
// π_T of the factors that target it; dedup keeps the first context with
// its prior. Every marginal matches a brute-force enumeration of the
// network written out by hand.
func TestContextPriorsBruteForce(t *testing.T) {
	atomPrior := 0.5
	want := map[graph.Version]struct {
		prior map[string]float64
		rels  [][4]any
	}{
		graph.FR1: {
			map[string]float64{"a0": atomPrior, "a1": atomPrior, "c0": 0.3, "c1": 0.9, "c2": 0.97, "c3": 0.8},
			// c3 repeats c0's text: the relation stated for c0 holds for it.
			[][4]any{{"c0", "a0", "entailment", 0.8}, {"c1", "a0", "contradiction", 0.7}, {"c3", "a0", "entailment", 0.8}, {"c2", "a1", "entailment", 0.9}},
		},
		graph.FR2: {
			map[string]float64{"a0": atomPrior, "a1": atomPrior, "c0": 0.3, "c1": 0.9, "c2": 0.97},
			[][4]any{{"c0", "a0", "entailment", 0.8}, {"c1", "a0", "contradiction", 0.7}, {"c2", "a1", "entailment", 0.9}},
		},
		graph.FR3: {
			map[string]float64{"a0": atomPrior, "a1": atomPrior, "c0": 0.3, "c1": 0.9, "c2": 0.97},
			[][4]any{{"c0", "a0", "entailment", 0.8}, {"c1", "a0", "contradiction", 0.7}, {"c2", "a1", "entailment", 0.9}, {"c0", "c2", "entailment", 0.85}},
		},
	}
	for _, usePriors := range []bool{true, false} {
		for _, v := range []graph.Version{graph.FR1, graph.FR2, graph.FR3} {
			t.Run(fmt.Sprintf("%s/use_priors=%v", v, usePriors), func(t *testing.T) {
				a, err := goldenConfig(usePriors).Assess(context.Background(), priorsRecord(), v)
				if err != nil {
					t.Fatal(err)
				}
				w := want[v]
				if len(a.Relations) != len(w.rels) {
					t.Fatalf("relations %+v, want %v", a.Relations, w.rels)
				}
				exact := bruteMarginals(w.prior, w.rels, usePriors)
				if len(a.Network.Variables) != len(exact) {
					t.Fatalf("%d variables, want %d", len(a.Network.Variables), len(exact))
				}
				for i, x := range a.Network.Variables {
					if got := a.Solution.Marginals[i][1]; math.Abs(got-exact[x.Name]) > 1e-9 {
						t.Errorf("%s: P(true) %.12f, enumeration %.12f", x.Name, got, exact[x.Name])
					}
				}
				rec := a.Record()
				wantCP := map[string]float64{"c0": 0.3, "c2": 0.97}
				if v == graph.FR1 {
					wantCP["c3"] = 0.8
				}
				if rec.Priors == nil || fmt.Sprint(rec.Priors.ContextPriors) != fmt.Sprint(wantCP) {
					t.Errorf("the record's priors: %+v, want context_priors %v", rec.Priors, wantCP)
				}
			})
		}
	}
}

// TestContextPriorIsAPrior: a context's probability moves its marginal, and
// its atoms', exactly as the context prior does: giving every context
// probability p scores as --context-prior p does; a probability equal to
// the context prior changes nothing; a higher prior of an entailing
// context raises its atom.
func TestContextPriorIsAPrior(t *testing.T) {
	marginals := func(in *instance.Instance, contextPrior float64) map[string]float64 {
		p := goldenConfig(true)
		p.Graph.ContextPrior = contextPrior
		a, err := p.Assess(context.Background(), in, graph.FR3)
		if err != nil {
			t.Fatal(err)
		}
		out := make(map[string]float64)
		for i, v := range a.Network.Variables {
			out[v.Name] = a.Solution.Marginals[i][1]
		}
		return out
	}
	with := func(p *float64) *instance.Instance {
		in := priorsRecord()
		for i := range in.Contexts {
			in.Contexts[i].Probability = p
		}
		return in
	}
	p6, p9 := 0.6, 0.9
	own, global := marginals(with(&p6), 0.9), marginals(with(nil), 0.6)
	same, plain := marginals(with(&p9), 0.9), marginals(with(nil), 0.9)
	for name := range global {
		if math.Abs(own[name]-global[name]) > 1e-12 || math.Abs(same[name]-plain[name]) > 1e-12 {
			t.Errorf("%s: probability 0.6 %.12f, --context-prior 0.6 %.12f; probability 0.9 %.12f, none %.12f", name, own[name], global[name], same[name], plain[name])
		}
	}
	low := priorsRecord()
	high := priorsRecord()
	*high.Contexts[2].Probability = 0.99 // c2 entails a1
	*low.Contexts[2].Probability = 0.6
	if l, h := marginals(low, 0.9), marginals(high, 0.9); !(h["a1"] > l["a1"] && h["c2"] > l["c2"]) {
		t.Errorf("c2's prior 0.6 → 0.99: P(a1) %.4f → %.4f, P(c2) %.4f → %.4f; want both to rise", l["a1"], h["a1"], l["c2"], h["c2"])
	}
}
