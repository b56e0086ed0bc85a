package assess

import (
	"fmt"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// The fast mode's cost (BENCHMARKS.md, "Fast mode"): near-duplicate
// contexts collapsed and FR3's context pairs asked one way, measured as
// pruning is, on labeled records whose NLI answers are known: labels
// changed against the reference setting (both off), accuracy against the
// gold labels, NLI pairs asked. Run with
//
//	go test ./assess -run '^$' -bench FastAccuracy -benchtime 1x

type fastSetting struct {
	name    string
	near    float64
	oneWay  bool
	pairsPA int
}

func fastSets(b testing.TB) []accuracySet {
	sets := accuracySets(b)
	google, err := instance.ReadFile(refdata.Path(b, "factreasoner", "flaherty_google.json"))
	if err != nil {
		b.Fatal(err)
	}
	// Web results, snippets only, with stances from the gold labels on
	// each atom's own results: the set with mirrored pages.
	sets = append(sets, accuracySet{"flaherty-google", google, ownStances(google, 7, goldStance), []graph.Version{graph.FR2, graph.FR3}})
	for i := range sets {
		sets[i].versions = []graph.Version{graph.FR2, graph.FR3}
	}
	return sets
}

func BenchmarkFastAccuracy(b *testing.B) {
	settings := []fastSetting{
		{"reference", 0, false, AllPairs},
		{"near=0.92", graph.DefaultNearDuplicates, false, AllPairs},
		{"near=0.8", 0.8, false, AllPairs},
		{"one-way", 0, true, AllPairs},
		{"near=0.92+one-way", graph.DefaultNearDuplicates, true, AllPairs},
		{"own+3", 0, false, DefaultPairsPerAtom},
		{"own+3,one-way", 0, true, DefaultPairsPerAtom},
	}
	for _, set := range fastSets(b) {
		for _, v := range set.versions {
			reference := map[string]bool{}
			refP := map[string]float64{}
			for r, in := range set.records {
				a := assessFast(b, set, fastSetting{pairsPA: AllPairs}, in, v)
				for _, at := range a.Scores.PerAtom {
					reference[fmt.Sprint(r, at.ID)] = at.Support == instance.Supported
					refP[fmt.Sprint(r, at.ID)], _ = a.PTrue(at.ID)
				}
			}
			for _, st := range settings {
				if v == graph.FR2 && st.oneWay {
					continue
				}
				b.Run(fmt.Sprintf("%s/%s/%s", set.name, v, st.name), func(b *testing.B) {
					var t labelTally
					var pairs, contexts int
					for b.Loop() {
						t, pairs, contexts = labelTally{}, 0, 0
						for r, in := range set.records {
							a := assessFast(b, set, st, in, v)
							pairs += a.Asked
							contexts += len(a.Nodes.Contexts)
							t.add(in, a, r, reference, refP)
						}
					}
					labeled, correct, changed, maxDP := t.labeled, t.correct, t.changed, t.maxDP
					b.ReportMetric(float64(correct)/float64(labeled), "accuracy")
					b.ReportMetric(float64(pairs), "pairs")
					b.ReportMetric(float64(changed), "labels≠ref")
					b.ReportMetric(float64(contexts), "variables")
					b.ReportMetric(maxDP, "max|ΔP|")
				})
			}
		}
	}
}

func assessFast(b testing.TB, set accuracySet, st fastSetting, in *instance.Instance, v graph.Version) *Assessment {
	p := goldenConfig(true)
	p.Given, p.Classifier, p.PairsPerAtom = GivenNever, set.nli, st.pairsPA
	p.NearDuplicates, p.OneWayPairs = st.near, st.oneWay
	a, err := p.Assess(b.Context(), in, v)
	if err != nil {
		b.Fatal(err)
	}
	return a
}
