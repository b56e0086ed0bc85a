// Package nlibench holds what the NLI backends' benchmarks share: the
// benchmark model, named by an environment variable, and the pairs they
// classify.
package nlibench

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/nli"
)

// ModelEnv names the model directory of the benchmarks: a random model of
// distilroberta's size (6 layers, hidden 768, roberta-base's vocabulary)
// made by `scripts/make-nli-test-models.py --bench DIR`, outside the
// repository (330 MB).
const ModelEnv = "FR_NLI_BENCH_MODEL"

// ModelDir returns the benchmark model's directory, skipping the benchmark
// when ModelEnv is not set.
func ModelDir(b *testing.B) string {
	b.Helper()
	dir := os.Getenv(ModelEnv)
	if dir == "" {
		b.Skipf("set %s to a model made by scripts/make-nli-test-models.py --bench DIR", ModelEnv)
	}
	return dir
}

// Pairs are 48 premise/hypothesis pairs of mixed length from the Flaherty
// instance: each atom with a context cut to its first 1 to 6 sentences,
// and every eighth with a whole context (some longer than 512 tokens, so
// chunked).
func Pairs(tb testing.TB) []nli.Pair {
	tb.Helper()
	data, err := os.ReadFile(refdata.Path(tb, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var in struct {
		Atoms    []struct{ Text string }
		Contexts []struct{ Text string }
	}
	if err := json.Unmarshal(data, &in); err != nil {
		tb.Fatal(err)
	}
	var pairs []nli.Pair
	for k := range 48 {
		premise := in.Contexts[(k*7)%len(in.Contexts)].Text
		if k%8 != 0 {
			sentences := strings.SplitAfter(premise, ". ")
			premise = strings.Join(sentences[:min(len(sentences), 1+k%6)], "")
		}
		pairs = append(pairs, nli.Pair{Premise: premise, Hypothesis: in.Atoms[k%len(in.Atoms)].Text})
	}
	return pairs
}

// FlahertyPairs returns the 546 (context, atom) pairs of IBM's FR2 run on the
// Flaherty file, in golden context order × atom order, with the LLM's labels:
// the 15 listed relations, every other pair neutral.
func FlahertyPairs(t testing.TB) ([]nli.Pair, []nli.Label) {
	t.Helper()
	ins, err := instance.ReadFile(refdata.Path(t, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		t.Fatal(err)
	}
	goldenPath := refdata.Path(t, "factreasoner", "flaherty_fr2_golden.json")
	raw, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("reference data: %v", err)
	}
	var golden struct {
		Atoms     []string            `json:"atoms"`
		Contexts  []string            `json:"contexts_after_dedup"`
		Relations []instance.Relation `json:"relations"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatalf("%s: %v", goldenPath, err)
	}
	in := ins[0]
	atoms := make(map[string]instance.Atom)
	for _, a := range in.Atoms {
		atoms[a.ID] = a
	}
	contexts := make(map[string]instance.Context)
	for _, c := range in.Contexts {
		contexts[c.ID] = c
	}
	gold := make(map[[2]string]nli.Label)
	for _, r := range golden.Relations {
		l, err := nli.ParseLabel(r.Type)
		if err != nil {
			t.Fatal(err)
		}
		gold[[2]string{r.Source, r.Target}] = l
	}
	var pairs []nli.Pair
	var labels []nli.Label
	for _, cid := range golden.Contexts {
		for _, aid := range golden.Atoms {
			pairs = append(pairs, nli.Pair{PremiseID: cid, HypothesisID: aid, Premise: contexts[cid].NLIText(), Hypothesis: atoms[aid].Text})
			labels = append(labels, gold[[2]string{cid, aid}])
		}
	}
	if len(pairs) != 546 || len(gold) != 15 {
		t.Fatalf("golden run: %d pairs and %d relations, want 546 and 15", len(pairs), len(gold))
	}
	return pairs, labels
}
