package retrieve

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"

	"github.com/factreasoner/factreasoner-go/internal/redact"
)

// pageStore remembers, for the run, every page a PageFetcher fetched: its
// whole main text or why there is none, so that each page is fetched once
// however many atoms find it. Atoms that ask for a page being fetched wait
// for that fetch (singleflight). The texts stay in memory up to
// pageMemoryBytes and webPageMemory pages; older ones go to a temporary
// file (removed when the store is closed, or at once where the system
// lets an open file be removed), so that memory stays bounded and nothing
// is fetched twice.
type pageStore struct {
	mu      sync.Mutex
	pages   map[string]*pageEntry
	inMem   []*pageEntry // entries whose text is in memory, oldest first
	memText int          // bytes of those texts
	spill   *os.File     // texts moved out of memory
	spilled int64        // bytes written to spill
	spillAt string       // spill's name, when it could not be removed at once
}

// pageEntry is one page: ready is closed once the rest is set.
type pageEntry struct {
	ready chan struct{}
	// abandoned: the fetch stopped with its caller (canceled, or the
	// search's time budget spent), which says nothing about the page:
	// the next atom fetches it again.
	abandoned bool
	err       *PageError
	text      string // when in memory
	off       int64  // when spilled: where its text is in the spill file
	size      int    // the text's length in bytes
	inMemory  bool
}

// pageKey is the page a link names, whatever fragment of it the result
// points to.
func pageKey(link string) string {
	if u, err := url.Parse(link); err == nil {
		u.Fragment, u.RawFragment = "", ""
		return u.String()
	}
	return link
}

// get returns the page at link: remembered, being fetched (waited for),
// or fetched now with fetch. shared says the text was not fetched for
// this call.
func (s *pageStore) get(ctx context.Context, link string, fetch func() (string, *PageError)) (text string, shared bool, perr *PageError) {
	key := pageKey(link)
	for {
		s.mu.Lock()
		if s.pages == nil {
			s.pages = make(map[string]*pageEntry)
		}
		e, ok := s.pages[key]
		if !ok {
			e = &pageEntry{ready: make(chan struct{})}
			s.pages[key] = e
			s.mu.Unlock()
			text, perr := fetch()
			s.settle(key, e, text, perr, ctx.Err() != nil)
			return text, false, perr
		}
		s.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return "", false, &PageError{URL: redactedLink(link), Reason: FailTimeout, Err: errors.New("waiting for another atom's fetch of the page"), Temporary: true}
		}
		if e.abandoned {
			continue // its fetcher stopped: fetch it here
		}
		text, err := s.read(e)
		if err != nil {
			return "", true, &PageError{URL: redactedLink(link), Reason: FailNetwork, Err: fmt.Errorf("reading the page's text back: %w", err), Temporary: true}
		}
		return text, true, e.err
	}
}

// settle records a fetch's outcome for the run; stopped says the
// caller's context ended, and with a failure the outcome is forgotten.
func (s *pageStore) settle(key string, e *pageEntry, text string, perr *PageError, stopped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer close(e.ready)
	if perr != nil && stopped {
		e.abandoned = true
		delete(s.pages, key)
		return
	}
	e.err, e.text, e.size, e.inMemory = perr, text, len(text), true
	s.inMem = append(s.inMem, e)
	s.memText += len(text)
	for len(s.inMem) > 1 && (len(s.inMem) > webPageMemory || s.memText > pageMemoryBytes) {
		old := s.inMem[0]
		if err := s.toDisk(old); err != nil {
			break // memory it is, then: the run goes on
		}
		s.inMem = s.inMem[1:]
		s.memText -= old.size
	}
}

// toDisk moves an entry's text to the spill file.
func (s *pageStore) toDisk(e *pageEntry) error {
	if e.size == 0 {
		e.inMemory = false
		return nil
	}
	if s.spill == nil {
		f, err := os.CreateTemp("", "fr-pages-*")
		if err != nil {
			return err
		}
		if os.Remove(f.Name()) != nil {
			s.spillAt = f.Name() // removed at Close instead
		}
		s.spill = f
	}
	if _, err := s.spill.WriteAt([]byte(e.text), s.spilled); err != nil {
		return err
	}
	e.off, e.text, e.inMemory = s.spilled, "", false
	s.spilled += int64(e.size)
	return nil
}

// read returns an entry's text, from memory or from the spill file.
func (s *pageStore) read(e *pageEntry) (string, error) {
	s.mu.Lock()
	if e.inMemory || e.size == 0 {
		defer s.mu.Unlock()
		return e.text, nil
	}
	f := s.spill
	s.mu.Unlock()
	buf := make([]byte, e.size)
	if _, err := f.ReadAt(buf, e.off); err != nil {
		return "", err
	}
	return string(buf), nil
}

// close removes the spill file.
func (s *pageStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spill == nil {
		return nil
	}
	err := s.spill.Close()
	if s.spillAt != "" {
		err = errors.Join(err, os.Remove(s.spillAt))
	}
	s.spill, s.pages, s.inMem, s.memText = nil, nil, nil, 0
	return err
}

// PageEvent is a page fetch starting (Done false) or ending.
type PageEvent struct {
	Link   string // redacted
	Done   bool
	Failed bool // when done: the page fell back to its snippet
}

type pageEventsKey struct{}

// WithPageEvents returns a context under which the PageFetchers tell fn of
// every page fetch they start and end (not of the pages they already
// have). fn may be called from several goroutines at once.
func WithPageEvents(ctx context.Context, fn func(PageEvent)) context.Context {
	return context.WithValue(ctx, pageEventsKey{}, fn)
}

func pageEventsFrom(ctx context.Context) func(PageEvent) {
	fn, _ := ctx.Value(pageEventsKey{}).(func(PageEvent))
	return fn
}

func redactedLink(link string) string { return redact.URL(link) }
