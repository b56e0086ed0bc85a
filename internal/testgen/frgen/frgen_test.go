package frgen

import (
	"math"
	"reflect"
	"testing"
)

// TestGenerate: the structure each kind promises, the same model for the
// same seed, and errors for nonsense.
func TestGenerate(t *testing.T) {
	const atoms, contexts = 40, 120
	for _, kind := range Kinds {
		m, err := Generate(kind, atoms, contexts, 7)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		again, _ := Generate(kind, atoms, contexts, 7)
		if !reflect.DeepEqual(m, again) {
			t.Errorf("%s: two models from one seed differ", kind)
		}
		var atomContext, contextPairs, contradictions int
		for _, f := range m.Factors {
			if len(f.Scope) == 1 {
				continue
			}
			if f.Scope[1] < atoms {
				atomContext++
			} else {
				contextPairs++
			}
			if f.Table[2] > f.Table[3] {
				contradictions++
			}
		}
		pairs := contexts * (contexts - 1) / 2
		share := float64(contradictions) / float64(atomContext+contextPairs)
		switch kind {
		case Dense, Contradictory:
			if atomContext != atoms*contexts || math.Abs(float64(contextPairs)/float64(pairs)-0.1) > 0.02 {
				t.Errorf("%s: %d atom–context and %d context factors", kind, atomContext, contextPairs)
			}
		case Sparse:
			if math.Abs(float64(atomContext)/atoms-3) > 0.5 || math.Abs(float64(contextPairs)/contexts-0.5) > 0.15 {
				t.Errorf("%s: %d atom–context and %d context factors", kind, atomContext, contextPairs)
			}
		}
		if want := map[Kind]float64{Dense: 0.3, Sparse: 0.3, Contradictory: 0.7}[kind]; math.Abs(share-want) > 0.08 {
			t.Errorf("%s: %.2f of the relations are contradictions, want about %.1f", kind, share, want)
		}
	}
	if _, err := Generate("loose", 1, 1, 1); err == nil {
		t.Error("unknown kind: no error")
	}
	if _, err := Generate(Dense, 0, 0, 1); err == nil {
		t.Error("empty model: no error")
	}
}
