package inference

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestDoubleLoop: on dense, strongly coupled models where loopy BP does
// not converge with any damping, the double loop does, plain and
// overrelaxed, to a fixed point of BP (a sweep of undamped BP from it
// changes no message by more than 1e-6), and the solver reports the
// fallback.
func TestDoubleLoop(t *testing.T) {
	var m *Model
	for _, seed := range []uint64{13, 21, 34} {
		for _, overrelax := range []bool{false, true} {
			m = frModel(rand.New(rand.NewPCG(seed, seed+1)), 40, 0.5)
			b, err := newLoopyBPModel(m)
			if err != nil {
				t.Fatal(err)
			}
			st, err := b.run(context.Background(), 0, true, DefaultTolerance, DefaultMaxIterations, 0)
			if err != nil {
				t.Fatal(err)
			}
			if st.converged {
				t.Fatalf("seed %d: BP converged: the model does not test the fallback", seed)
			}
			dl, marg, err := b.doubleLoop(context.Background(), DefaultTolerance, 10*DefaultMaxIterations, overrelax)
			if err != nil {
				t.Fatal(err)
			}
			if !dl.converged {
				t.Fatalf("seed %d, overrelaxed %v: double loop: %+v", seed, overrelax, dl)
			}
			t.Logf("seed %d, overrelaxed %v: %d sweeps", seed, overrelax, dl.iterations)
			bpMarg, err := b.marginals()
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(marg, bpMarg); d > 1e-6 {
				t.Errorf("seed %d, overrelaxed %v: the double loop's beliefs are %g from BP's beliefs at its messages", seed, overrelax, d)
			}
			one, err := b.run(context.Background(), 0, false, 0, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if one.residual > 1e-6 {
				t.Errorf("seed %d, overrelaxed %v: a BP sweep from the double loop's result moves a message by %g", seed, overrelax, one.residual)
			}
		}
	}

	r, err := LoopyBP{}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Report.Parts
	if len(p) != 1 || p[0].Method != MethodDoubleLoop || !p[0].Converged || len(p[0].Fallbacks) == 0 || !r.Report.Converged {
		t.Errorf("report %+v, want the double loop, converged, after BP", r.Report)
	}
	t.Log(r.Report.Summary())
}

// TestFallbackSchedule: undamped BP that oscillates is retried with
// damping, which converges here, before the double loop is needed.
func TestFallbackSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	seen := 0
	for i := range 200 {
		m := frModel(rng, 6+rng.IntN(10), 0.6)
		r, err := LoopyBP{Damping: NoDamping(), ErrorBudget: NoErrorEstimate}.Solve(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Report.Parts {
			if len(p.Fallbacks) == 0 {
				continue
			}
			seen++
			if !p.Converged {
				t.Errorf("model %d: %+v: not converged after the fallbacks", i, p)
			}
		}
		if !r.Report.Converged {
			t.Errorf("model %d: not converged: %s", i, r.Report.Summary())
		}
	}
	if seen == 0 {
		t.Error("no model needed a fallback")
	}
}
