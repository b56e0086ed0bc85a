package stancegen

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
)

// TestGenerate: the records are valid and shaped as the package comment
// says; the same seed gives the same records and answers; the stances
// fall mostly on the atoms' own contexts, some on others.
func TestGenerate(t *testing.T) {
	recs, o := Generate(40, 7)
	again, o2 := Generate(40, 7)
	if !reflect.DeepEqual(recs, again) || !reflect.DeepEqual(o.answers, o2.answers) {
		t.Fatal("two generations from one seed differ")
	}
	var atoms, supported, own, ownStance, other, otherStance int
	for _, in := range recs {
		if err := in.Validate(); err != nil {
			t.Fatal(err)
		}
		if len(in.Atoms) < 7 || len(in.Atoms) > 12 || len(in.Contexts) != 3*len(in.Atoms) || len(in.Contexts) < 20 {
			t.Errorf("%d atoms, %d contexts", len(in.Atoms), len(in.Contexts))
		}
		pairs := make([]nli.Pair, 0)
		isOwn := []bool{}
		for _, a := range in.Atoms {
			atoms++
			if a.Label == instance.Supported {
				supported++
			}
			for _, c := range in.Contexts {
				pairs = append(pairs, nli.Pair{Premise: c.Text, Hypothesis: a.Text})
				isOwn = append(isOwn, strings.HasPrefix(c.ID, "c_"+a.ID+"_"))
			}
		}
		res, err := o.Classify(context.Background(), pairs)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if isOwn[i] {
				own++
				if r.Label != nli.Neutral {
					ownStance++
				}
			} else {
				other++
				if r.Label != nli.Neutral {
					otherStance++
				}
			}
		}
	}
	share := func(a, b int) float64 { return float64(a) / float64(b) }
	// Own: 0.8 state their fact, 0.8 of those answered (miss 0.15 + a
	// little overlap and spurious).
	if s := share(supported, atoms); s < 0.6 || s > 0.8 {
		t.Errorf("%.2f of the atoms true", s)
	}
	if s := share(ownStance, own); s < 0.6 || s > 0.8 {
		t.Errorf("%.2f of own pairs with a stance", s)
	}
	// Others: about 0.6 other facts per context over 6 to 11 other atoms.
	if s := share(otherStance, other); s < 0.03 || s > 0.12 {
		t.Errorf("%.3f of other pairs with a stance", s)
	}
}
