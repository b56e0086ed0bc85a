package crossenc

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// pool is the Classifier's queue of sequences waiting for the model, shared
// by every Logits call: the sequences of calls made at once (the records a
// run scores in parallel) go to the model in common batches, so that a
// model server sees full batches instead of each record's partial last
// one, and at most Concurrency batches run at once in all.
//
// Batches are formed as Batches forms them, from all the waiting
// sequences: longest first (ties in order of arrival), cut at BatchSize
// sequences or BatchTokens padded tokens. A full batch (one that no
// sequence as short as its first could join) runs as soon as a slot is
// free. The last, partial batch runs at once too, unless Linger is set
// and calls have lately been made at once: then it waits up to Linger
// from its oldest sequence's arrival for sequences of other calls.
//
// A sequence's logits are the model's for it alone (Runner's contract:
// each row of a batch is computed independently of the others; padding is
// masked), so answers do not depend on which calls' sequences shared a
// batch, and runs stay byte-for-byte reproducible.
type pool struct {
	c      *Classifier
	linger time.Duration

	mu       sync.Mutex
	pending  []*item // longest first, ties in order of arrival
	arrivals uint64
	running  int
	calls    int       // Logits calls waiting for their sequences
	lastMany time.Time // when two or more calls last waited at once
	timer    *time.Timer
}

// item is a sequence waiting in the pool.
type item struct {
	seq     *Sequence
	width   int
	order   uint64 // of arrival
	arrived time.Time
	call    *call
	index   int // in call.out
}

// call is a Logits call waiting for the logits of its sequences.
type call struct {
	ctx      context.Context
	out      [][]float32
	left     int // sequences not yet answered
	err      error
	finished bool
	done     chan struct{}
	runs     []*batchRun // batches that hold its sequences
}

// batchRun is a batch being run.
type batchRun struct {
	items    []*item
	live     int // calls of items not finished: when none is left, the run is canceled
	cancel   context.CancelFunc
	finished bool
}

// manyWindow is how long after two calls last waited at once the pool
// still expects company for a partial batch.
const manyWindow = time.Second

func newPool(c *Classifier, linger time.Duration) *pool { return &pool{c: c, linger: linger} }

// logits puts seqs to the model, with the sequences of other calls, and
// returns each one's logits. A canceled ctx returns at once; a batch whose
// calls are all gone is canceled.
func (p *pool) logits(ctx context.Context, seqs []Sequence) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cl := &call{ctx: ctx, out: make([][]float32, len(seqs)), left: len(seqs), done: make(chan struct{})}
	now := time.Now()
	p.mu.Lock()
	p.calls++
	if p.calls > 1 {
		p.lastMany = now
	}
	for i := range seqs {
		p.arrivals++
		p.pending = append(p.pending, &item{seq: &seqs[i], width: len(seqs[i].IDs), order: p.arrivals, arrived: now, call: cl, index: i})
	}
	slices.SortFunc(p.pending, func(a, b *item) int {
		return cmp.Or(cmp.Compare(b.width, a.width), cmp.Compare(a.order, b.order)) // longest first
	})
	p.dispatch(now)
	p.mu.Unlock()

	select {
	case <-cl.done:
	case <-ctx.Done():
		p.mu.Lock()
		p.finish(cl, ctx.Err())
		p.mu.Unlock()
	}
	p.mu.Lock()
	p.calls--
	p.mu.Unlock()
	if cl.err != nil {
		return nil, cl.err
	}
	return cl.out, nil
}

// dispatch starts the batches that may run now. p.mu is held.
func (p *pool) dispatch(now time.Time) {
	size, tokens := p.c.batchSize, p.c.batchTokens
	for p.running < p.c.concurrency && len(p.pending) > 0 {
		width := p.pending[0].width
		n := batchEnd(width, 0, len(p.pending), size, tokens)
		full := n == size || (n+1)*width > tokens
		if !full && p.linger > 0 && (p.calls > 1 || now.Sub(p.lastMany) < manyWindow) {
			// The partial batch is every waiting sequence: wait for
			// company, from its oldest sequence's arrival.
			oldest := p.pending[0].arrived
			for _, it := range p.pending[1:] {
				if it.arrived.Before(oldest) {
					oldest = it.arrived
				}
			}
			if wait := p.linger - now.Sub(oldest); wait > 0 {
				if p.timer == nil {
					p.timer = time.AfterFunc(wait, p.wake)
				}
				return
			}
		}
		items := p.pending[:n:n]
		p.pending = p.pending[n:]
		p.start(items)
	}
}

// wake dispatches a partial batch that has waited long enough.
func (p *pool) wake() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer = nil
	p.dispatch(time.Now())
}

// start runs a batch. p.mu is held.
func (p *pool) start(items []*item) {
	r := &batchRun{items: items}
	// The run keeps the first call's values, not its cancellation: it is
	// canceled when every call it serves is gone.
	ctx, cancel := context.WithCancel(context.WithoutCancel(items[0].call.ctx))
	r.cancel = cancel
	for _, it := range items {
		if !slices.Contains(it.call.runs, r) {
			it.call.runs = append(it.call.runs, r)
			r.live++
		}
	}
	p.running++
	go p.run(ctx, r)
}

// run runs a batch and hands out its logits, or its error.
func (p *pool) run(ctx context.Context, r *batchRun) {
	seqs := make([]Sequence, len(r.items))
	for j, it := range r.items {
		seqs[j] = *it.seq
	}
	start := time.Now()
	logits, err := p.c.runner.Run(ctx, p.c.Batch(seqs))
	p.c.stats.runNanos.Add(int64(time.Since(start)))
	p.c.stats.batches.Add(1)
	k := p.c.head.Outputs()
	if err == nil && len(logits) != k*len(seqs) {
		err = fmt.Errorf("the model gave %d logits for %d sequences; want %d each", len(logits), len(seqs), k)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	r.finished = true
	r.cancel()
	p.running--
	for j, it := range r.items {
		cl := it.call
		if cl.finished {
			continue
		}
		if err != nil {
			p.finish(cl, err)
			continue
		}
		cl.out[it.index] = logits[k*j : k*j+k : k*j+k]
		if cl.left--; cl.left == 0 {
			p.finish(cl, nil)
		}
	}
	p.dispatch(time.Now())
}

// finish ends a call, with its error or none: its sequences still waiting
// leave the pool, and the batches running for it alone are canceled. p.mu
// is held.
func (p *pool) finish(cl *call, err error) {
	if cl.finished {
		return
	}
	cl.finished, cl.err = true, err
	if err != nil {
		p.pending = slices.DeleteFunc(p.pending, func(it *item) bool { return it.call == cl })
	}
	for _, r := range cl.runs {
		if !r.finished {
			if r.live--; r.live == 0 {
				r.cancel()
			}
		}
	}
	close(cl.done)
}
