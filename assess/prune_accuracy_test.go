package assess

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/internal/testgen/flaherty"
	"github.com/factreasoner/factreasoner-go/internal/testgen/stancegen"
	"github.com/factreasoner/factreasoner-go/nli"
)

// The accuracy cost of pruning (BENCHMARKS.md, "Pair pruning: accuracy
// and pairs asked"): labeled records whose NLI answers are known, scored
// with each --pairs-per-atom setting.

// accuracySet is labeled records and the classifier that knows their
// stances.
type accuracySet struct {
	name     string
	records  []*instance.Instance
	nli      nli.Classifier
	versions []graph.Version
}

// ownStances is an oracle for records whose stances sit on their own
// contexts only: each context an atom lists entails it when the atom's
// gold label is S and contradicts it when NS (stance gives another rule),
// with stancegen's noise; every other pair is neutral.
func ownStances(recs []*instance.Instance, seed uint64, stance func(in *instance.Instance, a instance.Atom, rank int) nli.Label) *stancegen.Oracle {
	rng := rand.New(rand.NewPCG(seed, 1))
	o := stancegen.NewOracle()
	for _, in := range recs {
		text := map[string]string{}
		for _, c := range in.Contexts {
			text[c.ID] = c.NLIText()
		}
		for _, a := range in.Atoms {
			for rank, id := range a.Contexts {
				if text[id] != "" {
					o.Stance(rng, stancegen.DefaultNoise, text[id], a.Text, stance(in, a, rank))
				}
			}
		}
	}
	return o
}

// goldStance is the stance of a context retrieved for a labeled atom.
func goldStance(_ *instance.Instance, a instance.Atom, _ int) nli.Label {
	if a.Label == instance.Supported {
		return nli.Entailment
	}
	return nli.Contradiction
}

func accuracySets(b testing.TB) []accuracySet {
	read := func(file string) []*instance.Instance {
		ins, err := instance.ReadFile(refdata.Path(b, "factreasoner", file))
		if err != nil {
			b.Fatal(err)
		}
		return ins
	}
	fl, _ := flaherty.Load(b)
	rels := fl.Relations
	fl.Relations = nil
	nasa := read("nasa_science-labeled_google.jsonl")
	conflicts := read("conflictbank-n100.jsonl")
	generated, oracle := stancegen.Generate(300, 21)
	return []accuracySet{
		// IBM's LLM answers for every FR2 pair: stances on own and other
		// contexts, as a real run has them.
		{"flaherty-golden", []*instance.Instance{fl}, newRecordedClassifier(b, fl, rels), []graph.Version{graph.FR1, graph.FR2}},
		// Stances on the retrieved (own) contexts only, from the gold
		// labels, with noise.
		{"nasa-google", nasa, ownStances(nasa, 5, goldStance), []graph.Version{graph.FR1, graph.FR2, graph.FR3}},
		// The first context supports the claim, the second (fabricated)
		// contradicts it.
		{"conflictbank", conflicts, ownStances(conflicts, 6, func(_ *instance.Instance, _ instance.Atom, rank int) nli.Label {
			if rank == 0 {
				return nli.Entailment
			}
			return nli.Contradiction
		}), []graph.Version{graph.FR1, graph.FR2}},
		// Biographies with overlapping facts: stances on own and other
		// contexts (package stancegen).
		{"generated", generated, oracle, []graph.Version{graph.FR1, graph.FR2, graph.FR3}},
	}
}

// BenchmarkPruneAccuracy scores each labeled set with every pruning
// setting and reports the accuracy of the labels against the gold ones
// (and the number of labeled atoms), the NLI pairs asked (in all, and how
// many times fewer than every pair on records with 20 or more contexts),
// and how many labels differ from those of asking every pair. FR1, which
// asks its own pairs only, is the baseline. Run with -benchtime 1x.
func BenchmarkPruneAccuracy(b *testing.B) {
	for _, set := range accuracySets(b) {
		for _, v := range set.versions {
			settings := []int{OwnPairsOnly, 1, 2, 3, 5, 10, AllPairs}
			if v == graph.FR1 {
				settings = []int{AllPairs} // its own pairs, whatever the setting
			}
			reference := map[string]bool{} // labels with every pair, by record and atom
			for r, in := range set.records {
				a := assessWith(b, set.nli, AllPairs, in, v)
				for _, at := range a.Scores.PerAtom {
					reference[fmt.Sprint(r, at.ID)] = at.Support == instance.Supported
				}
			}
			for _, k := range settings {
				name := fmt.Sprintf("%s/%s/pairs-per-atom=%s", set.name, v, PairsPerAtomName(k))
				if v == graph.FR1 {
					name = fmt.Sprintf("%s/%s", set.name, v)
				}
				b.Run(name, func(b *testing.B) {
					var labeled, correct, pairs, pairs20, all20, changed int
					for b.Loop() {
						labeled, correct, pairs, pairs20, all20, changed = 0, 0, 0, 0, 0, 0
						for r, in := range set.records {
							a := assessWith(b, set.nli, k, in, v)
							pairs += a.Asked
							if len(a.Nodes.Contexts) >= 20 {
								pairs20 += a.Asked
								all20 += a.Asked + a.Pruned
							}
							var t labelTally
							t.add(in, a, r, reference, nil)
							labeled, correct, changed = labeled+t.labeled, correct+t.correct, changed+t.changed
						}
					}
					b.ReportMetric(float64(correct)/float64(labeled), "accuracy")
					b.ReportMetric(float64(pairs), "pairs")
					if all20 > 0 {
						b.ReportMetric(float64(all20)/float64(pairs20), "fewer@20+")
					}
					b.ReportMetric(float64(changed), "labels≠all")
					b.ReportMetric(float64(labeled), "atoms")
				})
			}
		}
	}
}

func assessWith(b testing.TB, c nli.Classifier, k int, in *instance.Instance, v graph.Version) *Assessment {
	p := goldenConfig(true)
	p.Given, p.Classifier, p.PairsPerAtom = GivenNever, c, k
	a, err := p.Assess(context.Background(), in, v)
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// TestPruneDefaultOwnStances: where only the retrieved (own) contexts carry
// stances, the default pruning gives the labels of asking every pair, with
// at least 2× fewer NLI pairs on records of 20 or more contexts: on the
// NASA web records (30 to 35 contexts each) and on generated biographies
// (21 to 36), in FR2 and FR3.
func TestPruneDefaultOwnStances(t *testing.T) {
	nasa, err := instance.ReadFile(refdata.Path(t, "factreasoner", "nasa_science-labeled_google.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	generated, _ := stancegen.Generate(30, 3)
	for _, set := range []struct {
		name    string
		records []*instance.Instance
	}{{"nasa-google", nasa}, {"generated", generated}} {
		oracle := ownStances(set.records, 9, goldStance)
		for _, v := range []graph.Version{graph.FR2, graph.FR3} {
			var asked, all int
			for r, in := range set.records {
				def, every := assessWith(t, oracle, DefaultPairsPerAtom, in, v), assessWith(t, oracle, AllPairs, in, v)
				if def.Scores.Predictions != every.Scores.Predictions {
					t.Errorf("%s record %d, %s: labels %s, every pair %s", set.name, r, v, def.Scores.Predictions, every.Scores.Predictions)
				}
				if len(def.Nodes.Contexts) < 20 {
					t.Fatalf("%s record %d: %d contexts", set.name, r, len(def.Nodes.Contexts))
				}
				asked, all = asked+def.Asked, all+every.Asked
			}
			if 2*asked > all {
				t.Errorf("%s, %s: the default asks %d pairs, every pair %d: not 2x fewer", set.name, v, asked, all)
			}
		}
	}
}

// labelTally counts an assessment's labels: those of labeled atoms, those
// right against the gold labels, and those that differ from the
// reference's (keyed by record number and atom id); with the reference's
// P(true) too, the largest difference from it.
type labelTally struct {
	labeled, correct, changed int
	maxDP                     float64
}

func (t *labelTally) add(in *instance.Instance, a *Assessment, record int, reference map[string]bool, refP map[string]float64) {
	gold := map[string]string{}
	for _, at := range in.Atoms {
		gold[at.ID] = at.Label
	}
	for _, at := range a.Scores.PerAtom {
		key := fmt.Sprint(record, at.ID)
		s := at.Support == instance.Supported
		if s != reference[key] {
			t.changed++
		}
		if refP != nil {
			pt, _ := a.PTrue(at.ID)
			t.maxDP = max(t.maxDP, math.Abs(pt-refP[key]))
		}
		if g := gold[at.ID]; g != "" {
			t.labeled++
			if s == (g == instance.Supported) {
				t.correct++
			}
		}
	}
}
