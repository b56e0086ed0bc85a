package parallel

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestDo: every item runs once, never more than workers at a time; the
// first error stops the items not yet started and is returned; a caller's
// cancellation is returned as such.
func TestDo(t *testing.T) {
	var mu sync.Mutex
	seen := make(map[int]int)
	var running, most atomic.Int64
	err := Do(context.Background(), 100, 3, func(_ context.Context, i int) error {
		r := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
		}
		mu.Lock()
		seen[i]++
		mu.Unlock()
		return nil
	})
	if err != nil || len(seen) != 100 || most.Load() > 3 {
		t.Errorf("err %v, %d items seen, %d at once", err, len(seen), most.Load())
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("item %d ran %d times", i, n)
		}
	}

	boom := errors.New("boom")
	var ran atomic.Int64
	err = Do(context.Background(), 1000, 2, func(ctx context.Context, i int) error {
		ran.Add(1)
		switch {
		case i == 5:
			return boom
		case i > 5:
			// Held until the error cancels the work, so that the other
			// worker cannot run through every item before cancel lands.
			<-ctx.Done()
		}
		return nil
	})
	if !errors.Is(err, boom) || ran.Load() == 1000 {
		t.Errorf("err %v after %d items, want boom before all 1000", err, ran.Load())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Do(ctx, 10, 2, func(context.Context, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}
