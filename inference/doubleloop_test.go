package inference

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestDoubleLoop: on dense, strongly coupled models where loopy BP does
// not converge with any damping, the double loop does, plain and
// overrelaxed, and so does the quasi-Newton minimization of the Bethe free
// energy (bethemin.go), to a fixed point of BP (a sweep of undamped BP
// from it changes no message by more than 1e-6), the same one; the solver
// reports the fallback, which on these binary models is the latter.
func TestDoubleLoop(t *testing.T) {
	var m *Model
	for _, seed := range []uint64{13, 21, 34} {
		var doubleLoop [][]float64
		for _, method := range []string{"plain", "overrelaxed", MethodBetheMin} {
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
			var dl bpStats
			var marg [][]float64
			if method == MethodBetheMin {
				dl, marg, err = b.betheMinimize(context.Background(), DefaultTolerance, 10*DefaultMaxIterations)
			} else {
				dl, marg, err = b.doubleLoop(context.Background(), DefaultTolerance, 10*DefaultMaxIterations, method == "overrelaxed")
			}
			if err != nil {
				t.Fatal(err)
			}
			if !dl.converged {
				t.Fatalf("seed %d, %s: %+v", seed, method, dl)
			}
			t.Logf("seed %d, %s: %d sweeps", seed, method, dl.iterations)
			bpMarg, err := b.marginals()
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(marg, bpMarg); d > 1e-6 {
				t.Errorf("seed %d, %s: the beliefs are %g from BP's beliefs at its messages", seed, method, d)
			}
			one, err := b.run(context.Background(), 0, false, 0, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if one.residual > 1e-6 {
				t.Errorf("seed %d, %s: a BP sweep from the result moves a message by %g", seed, method, one.residual)
			}
			if doubleLoop == nil {
				doubleLoop = marg
			} else if d := diff(marg, doubleLoop); d > 1e-5 {
				t.Errorf("seed %d, %s: %g from the plain double loop's fixed point", seed, method, d)
			}
		}
	}

	r, err := LoopyBP{ErrorBudget: NoErrorEstimate}.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Report.Parts
	if len(p) != 1 || p[0].Method != MethodBetheMin || !p[0].Converged || len(p[0].Fallbacks) == 0 || !r.Report.Converged {
		t.Errorf("report %+v, want the Bethe minimization, converged, after BP", r.Report)
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
