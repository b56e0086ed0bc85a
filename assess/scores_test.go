package assess

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/result"
	"github.com/factreasoner/factreasoner-go/score"
)

// tiedRecord: atom a0 has two supporting and two contradicting contexts at
// equal strengths (0.95 and 0.7 on each side), so the evidence cancels and
// P(a0) is 0.5 up to rounding; a1 is supported by one context at 0.9.
const tiedRecord = `{"input": "q", "output": "A. B.", "atoms": [{"id": "a0", "text": "A.", "contexts": ["c0", "c1", "c2", "c3"]}, {"id": "a1", "text": "B.", "contexts": ["c4"]}],
 "contexts": [{"id": "c0", "text": "one"}, {"id": "c1", "text": "two"}, {"id": "c2", "text": "three"}, {"id": "c3", "text": "four"}, {"id": "c4", "text": "five"}],
 "relations": [{"source": "c0", "target": "a0", "type": "entailment", "probability": 0.95},
               {"source": "c1", "target": "a0", "type": "entailment", "probability": 0.7},
               {"source": "c2", "target": "a0", "type": "contradiction", "probability": 0.95},
               {"source": "c3", "target": "a0", "type": "contradiction", "probability": 0.7},
               {"source": "c4", "target": "a1", "type": "entailment", "probability": 0.9}]}`

// enumerateTied computes P(a0 = 1) and P(a1 = 1) of tiedRecord's network
// by summing over all 2^7 states, with docs/inference.md's tables (use_priors = true:
// entailment [1−π, π, 1−p, p], contradiction [1−π, π, p, 1−p], π = 0.5 for
// an atom target) and priors 0.5 (atoms) and 0.9 (contexts). It shares no
// code with package graph or inference.
func enumerateTied() (p0, p1 float64) {
	type edge struct {
		ctx, atom int
		entails   bool
		p         float64
	}
	edges := []edge{{0, 0, true, 0.95}, {1, 0, true, 0.7}, {2, 0, false, 0.95}, {3, 0, false, 0.7}, {4, 1, true, 0.9}}
	var z, m0, m1 float64
	for s := 0; s < 1<<7; s++ {
		atom := func(i int) int { return s >> i & 1 }      // bits 0, 1: a0, a1
		ctx := func(i int) int { return s >> (2 + i) & 1 } // bits 2..6: c0..c4
		w := 0.5 * 0.5                                     // the atoms' priors
		for i := range 5 {
			if ctx(i) == 1 {
				w *= 0.9
			} else {
				w *= 0.1
			}
		}
		for _, e := range edges {
			x, y := ctx(e.ctx), atom(e.atom)
			var table [4]float64
			if e.entails {
				table = [4]float64{0.5, 0.5, 1 - e.p, e.p}
			} else {
				table = [4]float64{0.5, 0.5, e.p, 1 - e.p}
			}
			w *= table[2*x+y]
		}
		z += w
		if atom(0) == 1 {
			m0 += w
		}
		if atom(1) == 1 {
			m1 += w
		}
	}
	return m0 / z, m1 / z
}

// TestTiedEvidence: the tied atom is undecided, and neither true nor
// false, so the three counts of the 2-atom record add up to 2 (docs/scores.md).
// Before the tie rule, P(a0) = 0.5000000000000002 counted as true and
// uniform at once (3 atoms counted).
func TestTiedEvidence(t *testing.T) {
	in, err := instance.NewReader(strings.NewReader(tiedRecord), "tied").Next()
	if err != nil {
		t.Fatal(err)
	}
	want0, want1 := enumerateTied()
	if math.Abs(want0-0.5) > 1e-12 {
		t.Fatalf("enumeration gives P(a0) = %v; the record is not tied", want0)
	}
	for _, v := range []graph.Version{graph.FR1, graph.FR2} {
		p := &Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Given: GivenAlways, Solver: inference.Auto{}}
		a, err := p.Assess(context.Background(), in, v)
		if err != nil {
			t.Fatal(err)
		}
		p0, _ := a.PTrue("a0")
		t.Logf("%s: P(a0) = %v", v, p0)
		p1, _ := a.PTrue("a1")
		if math.Abs(p0-want0) > 1e-12 || math.Abs(p1-want1) > 1e-12 {
			t.Errorf("%s: P(a0), P(a1) = %v, %v; enumeration %v, %v", v, p0, p1, want0, want1)
		}
		s := a.Scores
		if s.NumTrueAtoms != 1 || s.NumFalseAtoms != 0 || s.NumUniformAtoms != 1 || s.Precision != 0.5 {
			t.Errorf("%s: true/false/uniform %d/%d/%d, precision %v; want 1/0/1, 0.5 (P(a0) = %v)",
				v, s.NumTrueAtoms, s.NumFalseAtoms, s.NumUniformAtoms, s.Precision, p0)
		}
		if s.Predictions != " a0: NS a1: S" {
			t.Errorf("%s: predictions %q", v, s.Predictions)
		}
	}
}

// TestRecordFields: the output line carries the reference's extra fields
// in one block after f1_k, with the values score.Compute gives, the
// record's input and output as query and response, and no elapsed_time
// unless it is set.
func TestRecordFields(t *testing.T) {
	in, err := instance.NewReader(strings.NewReader(tiedRecord), "tied").Next()
	if err != nil {
		t.Fatal(err)
	}
	p := &Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Given: GivenAlways, Solver: inference.Auto{}}
	a, err := p.Assess(context.Background(), in, graph.FR2)
	if err != nil {
		t.Fatal(err)
	}
	rec := a.Record()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	line := string(b)
	order := []string{`"f1_k":`, `"norm_entropy":`, `"avg_norm_entropy":`, `"avg_prob":`, `"avg_logprob":`, `"avg_explogprob":`,
		`"factuality_score_per_atom":[{"a0":{"score":`, `"query":"q"`, `"response":"A. B."`, `"predictions":`}
	last := -1
	for _, key := range order {
		i := strings.Index(line, key)
		if i < 0 || i < last {
			t.Fatalf("%s missing or out of order in\n%s", key, line)
		}
		last = i
	}
	if strings.Contains(line, "elapsed_time") {
		t.Errorf("elapsed_time written without timings: %s", line)
	}
	s := a.Scores
	if rec.NormEntropy != s.NormEntropy || rec.AvgNormEntropy != s.AvgNormEntropy || rec.AvgProb != s.AvgProb ||
		rec.AvgLogProb != s.AvgLogProb || rec.AvgExpLogProb != s.AvgExpLogProb || len(rec.PerAtom) != 2 {
		t.Errorf("record %+v, scores %+v", rec, s)
	}
	// a0 is tied: its entry says NS, as its prediction does.
	if e := rec.PerAtom[0]; e.ID != "a0" || e.Support != "NS" || math.Abs(e.Score-0.5) > 1e-12 {
		t.Errorf("per-atom entry %+v", e)
	}
	secs := 1.5
	rec.ElapsedTime = &secs
	b, _ = json.Marshal(rec)
	if !strings.Contains(string(b), `"response":"A. B.","elapsed_time":1.5,"predictions"`) {
		t.Errorf("elapsed_time not after response: %s", b)
	}
}

// loopRecord's network has a loop (a0–c0–c1, FR3's context–context
// relation closing it), so loopy BP on it is not exact.
const loopRecord = `{"input": "q", "output": "A.", "atoms": [{"id": "a0", "text": "A.", "contexts": ["c0", "c1"]}],
 "contexts": [{"id": "c0", "text": "one"}, {"id": "c1", "text": "two"}],
 "relations": [{"source": "c0", "target": "a0", "type": "entailment", "probability": 0.9},
               {"source": "c1", "target": "a0", "type": "contradiction", "probability": 0.9},
               {"source": "c0", "target": "c1", "type": "contradiction", "probability": 0.8}]}`

// TestRecordErrorBars: an output line of a network solved approximately
// gives each marginal its error bar and marks the labels within it as
// uncertain, as the solver's result says; an exact solve's line has
// neither field.
func TestRecordErrorBars(t *testing.T) {
	in, err := instance.NewReader(strings.NewReader(loopRecord), "loop").Next()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		solver inference.Solver
		exact  bool
	}{{"bp", inference.LoopyBP{}, false}, {"auto", inference.Auto{}, true}} {
		p := &Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Given: GivenAlways, Solver: c.solver}
		a, err := p.Assess(context.Background(), in, graph.FR3)
		if err != nil {
			t.Fatal(err)
		}
		rec := a.Record()
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"error":`); got == c.exact {
			t.Errorf("%s: error bars written %v: %s", c.name, got, b)
		}
		if c.exact {
			continue
		}
		all := append(slices.Clone(rec.Marginals), rec.ContextMarginals...)
		for i, v := range a.Network.Variables {
			m := all[slices.IndexFunc(all, func(m result.Marginal) bool { return m.Variable == v.Name })]
			if m.Error != a.Solution.Errors[i] || !(m.Error > 0) || m.Uncertain != (math.Abs(m.Probabilities[1]-0.5) <= m.Error) {
				t.Errorf("%s: %s: %+v, solver's bar %v", c.name, v.Name, m, a.Solution.Errors[i])
			}
		}
	}
}
