package inference

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestCutsetMatchesEnumeration: with a memory bound far too small for the
// junction tree, exact inference conditions on a cutset; it must still
// match brute force on FR-shaped and general models (any domain sizes,
// zero entries), and say how it did it.
func TestCutsetMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	cut := 0
	for i := range 120 {
		var m *Model
		if i%2 == 0 {
			m = frModel(rng, 4+rng.IntN(9), 0.3+0.7*rng.Float64())
		} else {
			m = generalModel(rng, 3+rng.IntN(8), 4+rng.IntN(20))
		}
		if !consistent(m) {
			continue
		}
		s := JunctionTree{MaxBytes: int64(8 * (4 + rng.IntN(60)))}
		r := checkAgainstEnumeration(t, fmt.Sprintf("model %d under %d bytes", i, s.MaxBytes), s, m, 1e-9)
		for _, p := range r.Report.Parts {
			if p.Method == MethodCutset {
				cut++
				if !p.Exact || p.Cutset == 0 || p.Branches != p.TotalBranches {
					t.Errorf("model %d: part %+v", i, p)
				}
			}
		}
	}
	if cut < 50 {
		t.Errorf("only %d components were solved by cutset conditioning", cut)
	}
}

// TestCutsetWorkers: branches combine in a fixed order, so the result is
// the same bits on one worker or several.
func TestCutsetWorkers(t *testing.T) {
	m := frModel(rand.New(rand.NewPCG(43, 44)), 14, 0.9)
	scopes, tables := mergeFactors(m)
	plans := cutsetPlans(m.Cards, scopes, tables, 8*256, math.Inf(1))
	if len(plans) == 0 {
		t.Fatal("no plan")
	}
	c := plans[0]
	one, err := c.solve(context.Background(), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 8} {
		many, err := c.solve(context.Background(), nil, w)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(one, many) {
			t.Errorf("%d workers: a different result than one worker", w)
		}
	}
}

// TestHeaviest: the best-first enumeration gives the heaviest branches in
// order, against sorting every branch.
func TestHeaviest(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	for i := range 50 {
		k := 1 + rng.IntN(6)
		c := &cutset{count: 1}
		q := make([][]float64, k)
		for j := range k {
			card := 1 + rng.IntN(3)
			c.vars = append(c.vars, j)
			c.cards = append(c.cards, card)
			c.count *= int64(card)
			q[j] = make([]float64, card)
			for x := range q[j] {
				q[j][x] = rng.Float64()
				if rng.IntN(5) == 0 {
					q[j][x] = 0
				}
			}
			if rng.IntN(4) == 0 && card > 1 {
				q[j][1] = q[j][0] // a tie
			}
		}
		type br struct {
			index int64
			w     float64
		}
		var all []br
		digits := make([]int, k)
		for b := range c.count {
			c.branchDigits(b, digits)
			w := 1.0
			for j, x := range digits {
				w *= q[j][x]
			}
			all = append(all, br{b, w})
		}
		slices.SortStableFunc(all, func(a, b br) int { return cmp.Compare(b.w, a.w) })
		limit := 1 + rng.Int64N(c.count)
		got, mass := c.heaviest(q, limit)
		if int64(len(got)) > limit || len(got) == 0 {
			t.Fatalf("case %d: %d branches for a limit of %d", i, len(got), limit)
		}
		want := 0.0
		for j, b := range got {
			if all[j].w != 0 && math.Abs(math.Log(all[j].w)-math.Log(brWeight(c, q, b))) > 1e-12 {
				t.Fatalf("case %d: branch %d of the order weighs %g, want %g", i, j, brWeight(c, q, b), all[j].w)
			}
			want += all[j].w
		}
		if math.Abs(mass-want) > 1e-12 {
			t.Errorf("case %d: mass %g, want %g", i, mass, want)
		}
		seen := map[int64]bool{}
		for _, b := range got {
			if seen[b] {
				t.Fatalf("case %d: branch %d twice", i, b)
			}
			seen[b] = true
		}
	}
}

func brWeight(c *cutset, q [][]float64, b int64) float64 {
	digits := make([]int, len(c.vars))
	c.branchDigits(b, digits)
	w := 1.0
	for j, x := range digits {
		w *= q[j][x]
	}
	return w
}
