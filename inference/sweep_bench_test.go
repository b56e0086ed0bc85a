package inference

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"testing"
)

// BenchmarkSweep times sweeps of loopy BP on the binary path (from the
// messages of a converged run, so that every sweep does the same work):
// its time per message (ns/message), on dense FR3-shaped models. Run
// with -cpu 1,2 to see what the parallel sweep gains.
//
//	go test ./inference -run '^$' -bench Sweep -cpu 1,2 -count 3
func BenchmarkSweep(b *testing.B) {
	for _, size := range [][2]int{{100, 300}, {500, 1500}} {
		b.Run(fmt.Sprintf("dense/%dx%d", size[0], size[1]), func(b *testing.B) {
			m := denseFR3(size[0], size[1])
			bp, err := newLoopyBPModel(m)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if _, err := bp.run(ctx, 0, true, DefaultTolerance, DefaultMaxIterations, 0); err != nil {
				b.Fatal(err)
			}
			const sweeps = 20 // per run: what a run costs besides is shared out
			b.ResetTimer()
			for range b.N {
				if _, err := bp.run(ctx, 0, false, 0, sweeps, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/sweeps/float64(len(bp.edgeVar)), "ns/message")
		})
	}
}

// BenchmarkBPSetup times what loopy BP builds before its first sweep on
// the binary path: the merged factors, the factor graph and the sweeps'
// layout. Run with -cpu 1,2 to see what building them on every core gains.
//
//	go test ./inference -run '^$' -bench BPSetup -cpu 1,2 -count 3
func BenchmarkBPSetup(b *testing.B) {
	m := denseFR3(500, 1500)
	b.ResetTimer()
	for range b.N {
		bp, err := newLoopyBPModel(m)
		if err != nil {
			b.Fatal(err)
		}
		bp.binaryLayout()
	}
}

// TestParallelDeterministic: loopy BP's sweeps, its Bethe estimate and
// the Bethe minimization run on every core on a model this large (69,000
// messages), with the same bits on any number of cores; under -race, the
// check that the workers share nothing they write.
func TestParallelDeterministic(t *testing.T) {
	m := denseFR3(100, 300)
	var first *Result
	var firstMin [][]float64
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		res, err := LoopyBP{ErrorBudget: NoErrorEstimate}.Solve(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		b, err := newLoopyBPModel(m)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.edgeVar) < parallelEntries {
			t.Fatalf("%d messages: too few to sweep in parallel", len(b.edgeVar))
		}
		if _, err := b.run(context.Background(), 0, false, 0, 5, 0); err != nil {
			t.Fatal(err)
		}
		_, minMarg, err := b.betheMinimize(context.Background(), DefaultTolerance, 20)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first, firstMin = res, minMarg
			continue
		}
		if !reflect.DeepEqual(res, first) || !reflect.DeepEqual(minMarg, firstMin) {
			t.Errorf("GOMAXPROCS %d: another result than with 1", procs)
		}
	}
}
