// Package parallel runs the items of a batch of work on a bounded number of
// goroutines, stopping at the first error.
package parallel

import (
	"context"
	"sync"
	"sync/atomic"
)

// Do calls fn(ctx, i) for i from 0 to n−1, in order of i, on at most
// workers goroutines at once. The first error cancels the context given to
// the calls still running and stops the items not yet started; Do returns
// it, or ctx's error when the caller canceled the work.
func Do(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
		next     atomic.Int64
	)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(ctx, i); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		// Canceled by the caller (our own cancel has not run yet).
		firstErr = ctx.Err()
	}
	return firstErr
}
