package inference_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/testgen/frgen"
)

// TestPartialCutset: on FR3-like models whose junction tree is kept from
// fitting by a small memory bound, and with an exact budget for only some
// of the branches, auto solves the heaviest branches exactly: its
// marginals are off from exact by no more than a few times the share of
// Z it reports as missing (measured: at most 2.5 times). When the budget
// covers every branch the result is exact.
func TestPartialCutset(t *testing.T) {
	partial := 0
	for i := range 24 {
		kind := frgen.Kinds[i%3]
		m, err := frgen.Generate(kind, 5+i%4, 10+i%6, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		want, err := inference.JunctionTree{}.Solve(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []time.Duration{50 * time.Microsecond, time.Second} {
			name := fmt.Sprintf("%s %dx%d, budget %v", kind, 5+i%4, 10+i%6, budget)
			a := inference.Auto{Exact: inference.JunctionTree{MaxBytes: 8 << 8, Budget: budget}}
			got, err := a.Solve(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			d := maxDiff(got.Marginals, want.Marginals)
			for _, p := range got.Report.Parts {
				t.Logf("%s: %s, %d of %d branches, missing %.2g, max |ΔP| %.2g", name, p.Method, p.Branches, p.TotalBranches, p.Missing, d)
				switch p.Method {
				case inference.MethodPartialCutset:
					partial++
					if p.Exact || p.Branches >= p.TotalBranches || !(p.Missing > 0) {
						t.Errorf("%s: part %+v", name, p)
					}
					if d > 4*p.Missing+1e-9 {
						t.Errorf("%s: max |ΔP| = %g with %g reported missing", name, d, p.Missing)
					}
				case inference.MethodCutset, inference.MethodExact:
					if d > 1e-9 || math.Abs(got.LogZ-want.LogZ) > 1e-9*math.Abs(want.LogZ) {
						t.Errorf("%s: exact by %s, but max |ΔP| = %g, ln Z %v against %v", name, p.Method, d, got.LogZ, want.LogZ)
					}
				}
			}
		}
	}
	if partial < 8 {
		t.Errorf("only %d partial cutsets", partial)
	}
}
