// Package flaherty loads IBM FactReasoner's Flaherty instance (a biography
// of Lanny Flaherty with its atoms and Wikipedia contexts) and the FR2 run
// IBM recorded on it, from the reference data (testdata/refdata/factreasoner):
// the record the tests of the pipeline's packages score and check against.
package flaherty

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// Golden is IBM's recorded FR2 run on the Flaherty instance
// (flaherty_fr2_golden.json): the relations it found, the marginals merlin
// computed, its scores, and exact marginals without the priors folded in.
type Golden struct {
	Contexts  []string            `json:"contexts_after_dedup"`
	Relations []instance.Relation `json:"relations"`
	Marginals []struct {
		Variable      string     `json:"variable"`
		Probabilities [2]float64 `json:"probabilities"`
	} `json:"merlin_all_marginals"`
	Results struct {
		NumTrueAtoms    int     `json:"num_true_atoms"`
		NumUniformAtoms int     `json:"num_uniform_atoms"`
		Entropy         float64 `json:"entropy"`
		AvgBrier        float64 `json:"avg_brier"`
		Predictions     string  `json:"predictions"`
		References      string  `json:"references"`
		GoldScore       float64 `json:"gold_factuality_score"`
	} `json:"results"`
	NoPriors map[string]float64 `json:"exact_use_priors_false_connected_vars_NOT_FROM_MERLIN"`
}

// Load reads the Flaherty instance with the relations of IBM's recorded
// FR2 run, and the run.
func Load(t testing.TB) (*instance.Instance, *Golden) {
	t.Helper()
	ins, err := instance.ReadFile(refdata.Path(t, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil || len(ins) != 1 {
		t.Fatalf("reading the Flaherty instance: %d records, %v", len(ins), err)
	}
	data, err := os.ReadFile(refdata.Path(t, "factreasoner", "flaherty_fr2_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g Golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	in := ins[0]
	in.Relations = g.Relations
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	return in, &g
}
