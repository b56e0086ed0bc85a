package retrieve

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// FetchPages is a search source whose results carry their pages' text:
// it asks Search for results and fetches each result's link with Fetcher,
// putting the page's main text (cut around the passage that best matches
// the atom) into the passage's Text beside the search snippet, as
// FactReasoner does with fetch_text. A page that cannot be used (see
// PageFailure) leaves its passage with the snippet alone; the fetcher's
// Stats count these.
//
// The pages of one search are fetched concurrently (Workers at once),
// within Budget in all; each page has the fetcher's own time limit too.
type FetchPages struct {
	Search  Retriever
	Fetcher *PageFetcher
	// Budget bounds the pages of one search (DefaultFetchBudget when 0).
	Budget time.Duration
	// Workers is how many pages are fetched at once (DefaultPageWorkers
	// when 0).
	Workers int
}

// Identify says what the source is: the search's identity, then the
// pages' settings and limits (a page that takes longer than the time
// limits is left out, so they change what is found).
func (fp *FetchPages) Identify() string {
	budget := fp.Budget
	if budget <= 0 {
		budget = DefaultFetchBudget
	}
	timeout := fp.Fetcher.Timeout
	if timeout <= 0 {
		timeout = DefaultPageTimeout
	}
	return fmt.Sprintf("%s+%s,timeout=%v,budget=%v", fp.Search.Identify(), fp.Fetcher.Settings(), timeout, budget)
}

// Source names the search source and the fetcher's settings for caches;
// Search must have a Source method (as Serper and SearXNG do).
func (fp *FetchPages) Source() string {
	name := fmt.Sprintf("%T", fp.Search)
	if s, ok := fp.Search.(interface{ Source() string }); ok {
		name = s.Source()
	}
	return name + ":" + fp.Fetcher.Settings()
}

// Retrieve returns Search's passages with their pages' text.
func (fp *FetchPages) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	ps, err := fp.Search.Retrieve(ctx, topic, atom, k)
	if err != nil || len(ps) == 0 {
		return ps, err
	}
	budget := fp.Budget
	if budget <= 0 {
		budget = DefaultFetchBudget
	}
	workers := fp.Workers
	if workers <= 0 {
		workers = DefaultPageWorkers
	}
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	out := make([]Passage, len(ps))
	copy(out, ps)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i := range out {
		if out[i].Link == "" {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(p *Passage) {
			defer wg.Done()
			defer func() { <-sem }()
			text, err := fp.Fetcher.Text(bctx, p.Link, atom)
			if err != nil {
				p.Text = ""
				if pe, ok := err.(*PageError); ok && pe.Temporary {
					p.transient = true
				}
				return
			}
			p.Text = text
		}(&out[i])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err // stopped: nothing half-done is returned or cached
	}
	return out, nil
}
