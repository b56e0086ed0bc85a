package assess

import (
	"context"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/testgen/flaherty"
	"github.com/factreasoner/factreasoner-go/nli/lexical"
	"github.com/factreasoner/factreasoner-go/score"
)

// BenchmarkFlaherty times one whole assessment of the Flaherty instance (26
// atoms, 53 contexts, 21 after dedup): pairs, NLI, relations, network,
// inference, scores. given: the golden file's 15 relations; lexical: the
// word-overlap backend on every pair (546 for FR2, 966 for FR3).
func BenchmarkFlaherty(b *testing.B) {
	in, _ := flaherty.Load(b)
	for _, backend := range []string{"given", "lexical"} {
		for _, v := range []graph.Version{graph.FR1, graph.FR2, graph.FR3} {
			cfg := &Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Solver: inference.Auto{}}
			if backend == "given" {
				cfg.Given = GivenAlways
			} else {
				cfg.Classifier = lexical.New()
			}
			b.Run(backend+"/"+v.String(), func(b *testing.B) {
				b.ReportAllocs()
				var a *Assessment
				for b.Loop() {
					var err error
					if a, err = cfg.Assess(context.Background(), in, v); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(a.Pairs)), "pairs")
				b.ReportMetric(float64(len(a.Relations)), "relations")
			})
		}
	}
}
