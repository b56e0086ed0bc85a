package retrieve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/retrieve/searchtest"
)

const testKey = "serper-test-key-0123456789"

func newTestSerper(t *testing.T) (*searchtest.Serper, *Serper) {
	t.Helper()
	fake := searchtest.NewSerper(t, testKey)
	s, err := NewSerper(fake.URL, testKey)
	if err != nil {
		t.Fatal(err)
	}
	s.Retry = fastRetry()
	return fake, s
}

var flahertyHits = []searchtest.Result{
	{Title: "Lanny Flaherty - Wikipedia", Link: "https://en.wikipedia.org/wiki/Lanny_Flaherty", Snippet: "Lanny Flaherty (July 27, 1942 – February 18, 2024) was an American actor."},
	{Title: "Lanny Flaherty - IMDb", Link: "https://www.imdb.com/name/nm0280890/", Snippet: "Lanny Flaherty was born on July 27, 1942 in Pontotoc, Mississippi, USA."},
	{Title: "Actor Lanny Flaherty Dies at 81 - Playbill", Link: "https://playbill.com/article/actor-lanny-flaherty-dies-at-81", Snippet: "Born in Pontotoc, Mississippi July 27, 1942, Mr. Flaherty served in the U.S. Army."},
}

// TestSerperRequest: the request is Serper's documented one, and the
// first k organic results become snippet passages (not the knowledge graph,
// answer box or other boxes the fake answers beside them, as Serper does).
func TestSerperRequest(t *testing.T) {
	fake, s := newTestSerper(t)
	atom := "Lanny Flaherty was born on July 27, 1942."
	fake.Add(atom, flahertyHits...)
	ps, err := s.Retrieve(context.Background(), "Lanny Flaherty", " "+atom+" ", 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []Passage{
		{Title: flahertyHits[0].Title, Snippet: flahertyHits[0].Snippet, Link: flahertyHits[0].Link, Source: "serper"},
		{Title: flahertyHits[1].Title, Snippet: flahertyHits[1].Snippet, Link: flahertyHits[1].Link, Source: "serper"},
	}
	if !reflect.DeepEqual(ps, want) {
		t.Errorf("passages\n%+v\nwant\n%+v", ps, want)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Key != testKey || r.ContentType != "application/json" || r.Q != atom || r.Num != 2 || r.UserAgent != version.UserAgent() {
		t.Errorf("request %+v", r)
	}
	if s.Searches() != 1 {
		t.Errorf("%d searches", s.Searches())
	}
	// FActScore's query: the topic first.
	s.Query = QueryTopic
	fake.Add("Lanny Flaherty "+atom, flahertyHits[2])
	ps, err = s.Retrieve(context.Background(), "Lanny Flaherty", atom, 5)
	if err != nil || len(ps) != 1 || ps[0].Link != flahertyHits[2].Link {
		t.Errorf("topic query: %+v %v", ps, err)
	}
	if !strings.Contains(s.Source(), "query=topic") || !strings.Contains(s.Source(), fake.URL) {
		t.Errorf("source %q", s.Source())
	}
}

// TestSerperRelaxesQuotes: a query with quotes that finds nothing is asked
// again without them, as FactReasoner does.
func TestSerperRelaxesQuotes(t *testing.T) {
	fake, s := newTestSerper(t)
	fake.Add("Flaherty starred in Signs", flahertyHits[0])
	ps, err := s.Retrieve(context.Background(), "", `Flaherty starred in "Signs"`, 3)
	if err != nil || len(ps) != 1 {
		t.Fatalf("%+v %v", ps, err)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || reqs[0].Q != `Flaherty starred in "Signs"` || reqs[1].Q != "Flaherty starred in Signs" {
		t.Errorf("requests %+v", reqs)
	}
}

// TestSerperErrors: a missing key names SERPER_API_KEY; a refused key, a
// rate limit and a spent quota name the status and the quota; the key is
// in no message, even when the server echoes it.
func TestSerperErrors(t *testing.T) {
	if _, err := NewSerper("", " "); !errors.Is(err, ErrNoSerperKey) || !strings.Contains(err.Error(), "SERPER_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	ctx := context.Background()
	fake, s := newTestSerper(t)
	fake.EchoKey()

	wrong, err := NewSerper(fake.URL, "wrong-key-4567")
	if err != nil {
		t.Fatal(err)
	}
	wrong.Retry = fastRetry()
	_, err = wrong.Retrieve(ctx, "", "an atom", 3)
	if err == nil || !strings.Contains(err.Error(), "HTTP 403") || !strings.Contains(err.Error(), "SERPER_API_KEY") ||
		!strings.Contains(err.Error(), "quota") || strings.Contains(err.Error(), "wrong-key-4567") {
		t.Errorf("refused key: %v", err)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("a refused key was asked %d times", n)
	}

	fake.Throttle(1, "0")
	if _, err := s.Retrieve(ctx, "", "an atom", 3); err != nil {
		t.Errorf("one 429 is retried: %v", err)
	}
	fake.Throttle(10, "0")
	_, err = s.Retrieve(ctx, "", "an atom", 3)
	if err == nil || !strings.Contains(err.Error(), "HTTP 429") || !strings.Contains(err.Error(), "quota") ||
		!strings.Contains(err.Error(), "after 3 attempts") || strings.Contains(err.Error(), testKey) {
		t.Errorf("rate limit: %v", err)
	}
	fake.Throttle(0, "")

	fake.SetQuota(0)
	_, err = s.Retrieve(ctx, "", "an atom", 3)
	if err == nil || !strings.Contains(err.Error(), "HTTP 400") || !strings.Contains(err.Error(), "Not enough credits") ||
		!strings.Contains(err.Error(), "quota") || strings.Contains(err.Error(), testKey) {
		t.Errorf("spent quota: %v", err)
	}
}

// TestSearXNG: the JSON API's request and answer; a refused format says
// how to enable it; an empty answer with failed engines is an error.
func TestSearXNG(t *testing.T) {
	fake := searchtest.NewSearXNG(t)
	fake.Add("Lanny Flaherty was an actor.", flahertyHits...)
	ctx := context.Background()
	for _, base := range []string{fake.URL, fake.URL + "/", fake.URL + "/search"} {
		s, err := NewSearXNG(base)
		if err != nil {
			t.Fatal(err)
		}
		if s.Endpoint != fake.URL+"/search" {
			t.Errorf("%s: endpoint %s", base, s.Endpoint)
		}
		s.Retry = fastRetry()
		ps, err := s.Retrieve(ctx, "", "Lanny Flaherty was an actor.", 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != 2 || ps[1].Link != flahertyHits[1].Link || ps[1].Snippet != flahertyHits[1].Snippet || ps[1].Title != flahertyHits[1].Title || ps[1].Source != "searxng" || ps[1].Text != "" {
			t.Errorf("passages %+v", ps)
		}
	}
	if _, err := NewSearXNG(""); err == nil || !strings.Contains(err.Error(), "SearXNG URL") {
		t.Errorf("no URL: %v", err)
	}
	if _, err := NewSearXNG("localhost:8888"); err == nil {
		t.Error("a URL without scheme was taken")
	}

	s, _ := NewSearXNG(fake.URL)
	s.Retry = fastRetry()
	fake.SetFormats("html")
	_, err := s.Retrieve(ctx, "", "Lanny Flaherty was an actor.", 2)
	if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "search.formats") || !strings.Contains(err.Error(), "json") || strings.Contains(err.Error(), `\n`) {
		t.Errorf("json refused: %v", err)
	}
	fake.SetFormats("html", "json")
	fake.SetUnresponsive([]string{"google", "CAPTCHA"}, []string{"bing", "timeout"})
	_, err = s.Retrieve(ctx, "", "nothing known", 2)
	if err == nil || !strings.Contains(err.Error(), "google: CAPTCHA") {
		t.Errorf("failed engines: %v", err)
	}
	// Three searches answered, and the failed engines' search asked three
	// times (2 retries); the refused format reaches no search.
	if n := len(fake.Queries()); n != 3+3 {
		t.Errorf("%d queries", n)
	}
}

// TestFetchPages: results get their pages' text beside the snippet; pages
// that fail keep the snippet alone; a passing failure keeps the answer out
// of the cache.
func TestFetchPages(t *testing.T) {
	site := hostileSite(t)
	fake, s := newTestSerper(t)
	atom := "Lanny Flaherty was born in 1942."
	fake.Add(atom,
		searchtest.Result{Title: "Obituary", Link: site.URL + "/article", Snippet: "Flaherty died at 81."},
		searchtest.Result{Title: "Paper", Link: site.URL + "/paper.pdf", Snippet: "A paper about Flaherty."},
		searchtest.Result{Title: "Hidden", Link: site.URL + "/no-bots/article", Snippet: "Hidden snippet."},
		searchtest.Result{Title: "No link", Snippet: "Only a snippet."},
	)
	f := testFetcher()
	fp := &FetchPages{Search: s, Fetcher: f}
	ctx := context.Background()
	ps, err := fp.Retrieve(ctx, "", atom, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 4 {
		t.Fatalf("%d passages", len(ps))
	}
	if !strings.Contains(ps[0].Text, article[0]) || ps[0].Snippet != "Flaherty died at 81." || ps[0].transient {
		t.Errorf("fetched page: %+v", ps[0])
	}
	for _, p := range ps[1:] {
		if p.Text != "" || p.Snippet == "" || p.transient {
			t.Errorf("fallback: %+v", p)
		}
	}
	if st := f.Stats(); st.Fetched != 1 || st.Failed() != 2 {
		t.Errorf("stats %v", st)
	}
	if name := fp.Source(); !strings.HasPrefix(name, s.Source()+":pages(") {
		t.Errorf("source %q", name)
	}

	// The cache keeps a complete answer, and not one with a page that
	// timed out.
	cache, err := OpenCache(filepath.Join(t.TempDir(), "cache.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	cached := cache.Wrap(fp.Source(), fp)
	for i := 0; i < 2; i++ {
		again, err := cached.Retrieve(ctx, "", atom, 4)
		if err != nil || !reflect.DeepEqual(again, ps) {
			t.Fatalf("cached: %v\n%+v\n%+v", err, again, ps)
		}
	}
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("%d searches, want 2 (the second from the cache)", n)
	}
	slowAtom := "slow"
	fake.Add(slowAtom, searchtest.Result{Title: "Slow", Link: site.URL + "/slow", Snippet: "Slow snippet."})
	f.Timeout = 200 * time.Millisecond
	for i := 0; i < 2; i++ {
		ps, err := cached.Retrieve(ctx, "", slowAtom, 1)
		if err != nil || len(ps) != 1 || ps[0].Text != "" || ps[0].Snippet != "Slow snippet." {
			t.Fatalf("slow: %+v %v", ps, err)
		}
	}
	if n := len(fake.Requests()); n != 4 {
		t.Errorf("%d searches, want 4: a timed-out page is not cached", n)
	}

	// The page that timed out is not fetched again in this run: each page
	// is fetched once, for every atom that finds it.
	if n := site.Hits("/slow"); n != 1 {
		t.Errorf("the slow page was requested %d times in the run, want once", n)
	}

	// A budget smaller than the page's limit ends the fetching too (a
	// page the run has not fetched yet).
	site.Handle("/slow-too", searchtest.Slow(time.Minute, "<p>too late</p>"))
	slowToo := "slow too"
	fake.Add(slowToo, searchtest.Result{Title: "Slow", Link: site.URL + "/slow-too", Snippet: "Slow snippet."})
	f.Timeout = time.Minute
	fp.Budget = 200 * time.Millisecond
	start := time.Now()
	ps, err = fp.Retrieve(ctx, "", slowToo, 1)
	if err != nil || ps[0].Text != "" || !ps[0].transient || time.Since(start) > 20*time.Second {
		t.Errorf("budget: %+v %v after %v", ps, err, time.Since(start))
	}
	// A caller that stops gets an error, not fallbacks; a page cut short
	// by the budget or the caller is not remembered, and fetched again.
	cctx, cancel := context.WithCancel(ctx)
	fp.Budget = time.Minute
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := fp.Retrieve(cctx, "", slowToo, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	if n := site.Hits("/slow-too"); n != 2 {
		t.Errorf("the page cut short was requested %d times, want 2", n)
	}
}

// TestNonWebLinksDropped: a search result whose link is not an http(s)
// URL keeps its title and snippet but not the link, and is counted, at
// Serper and at SearXNG; FetchPages then fetches nothing for it.
func TestNonWebLinksDropped(t *testing.T) {
	atom := "Lanny Flaherty was an actor."
	hits := []searchtest.Result{
		{Title: "A", Link: "javascript:alert(document.cookie)", Snippet: "born 1942"},
		{Title: "B", Link: "data:text/html;base64,PHNjcmlwdD4=", Snippet: "an actor"},
		{Title: "C", Link: "file:///etc/passwd", Snippet: "root"},
		{Title: "D", Link: " JAVASCRIPT:x", Snippet: "upper case"},
		{Title: "E", Link: "https://example.org/flaherty", Snippet: "kept"},
	}
	fake, s := newTestSerper(t)
	fake.Add(atom, hits...)
	sx := searchtest.NewSearXNG(t)
	sx.Add(atom, hits...)
	x, err := NewSearXNG(sx.URL)
	if err != nil {
		t.Fatal(err)
	}
	x.Retry = fastRetry()
	for _, src := range []interface {
		Retriever
		DroppedLinks() int
	}{s, x} {
		ps, err := src.Retrieve(context.Background(), "", atom, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != 5 {
			t.Fatalf("%T: %d passages, want the 5 results", src, len(ps))
		}
		for i, p := range ps[:4] {
			if p.Link != "" || p.Snippet != hits[i].Snippet {
				t.Errorf("%T: passage %d: link %q snippet %q", src, i, p.Link, p.Snippet)
			}
		}
		if ps[4].Link != "https://example.org/flaherty" {
			t.Errorf("%T: the https link is %q", src, ps[4].Link)
		}
		if n := src.DroppedLinks(); n != 4 {
			t.Errorf("%T: %d links dropped, want 4", src, n)
		}
	}
	for link, want := range map[string]bool{"https://x.org/a": true, "http://x": true, "HTTP://X.ORG": true, "https://": false, "//x.org/a": false,
		"javascript:alert(1)": false, "java\tscript:alert(1)": false, "ftp://x.org": false, "mailto:a@b": false, "": false} {
		if WebLink(link) != want {
			t.Errorf("WebLink(%q) = %v", link, !want)
		}
	}
}

// TestSearchAnswerCap: a search engine's answer over the cap is refused
// naming the cap, not called unreadable, and not asked again.
func TestSearchAnswerCap(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"organic": [{"title": "`)
		io.WriteString(w, strings.Repeat("x", maxSearchAnswerBytes))
		io.WriteString(w, `"}]}`)
	}))
	defer srv.Close()
	s, err := NewSerper(srv.URL, "key-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	s.Retry = fastRetry()
	_, err = s.Retrieve(context.Background(), "", "an atom", 3)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("longer than %d bytes", maxSearchAnswerBytes)) || hits != 1 {
		t.Errorf("%d requests, error %v", hits, err)
	}
	x, err := NewSearXNG(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	x.Retry = fastRetry()
	hits = 0
	_, err = x.Retrieve(context.Background(), "", "an atom", 3)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("longer than %d bytes", maxSearchAnswerBytes)) || hits != 1 {
		t.Errorf("searxng: %d requests, error %v", hits, err)
	}
}

// TestRobotsRedirectAway: a robots.txt that redirects away from http(s)
// (to file://) is asked once: the host's pages are not fetched, and not
// asked for again and again.
func TestRobotsRedirectAway(t *testing.T) {
	site := searchtest.NewSite(t)
	site.Handle("/robots.txt", http.RedirectHandler("file:///etc/passwd", http.StatusFound))
	site.Page("/page", "text/plain", "page text")
	_, err := testFetcher().Text(context.Background(), site.URL+"/page", "")
	var pe *PageError
	if !errors.As(err, &pe) || pe.Reason != FailRobots || pe.Temporary || site.Hits("/robots.txt") != 1 || site.Hits("/page") != 0 {
		t.Errorf("robots.txt asked %d times, page %d: %v", site.Hits("/robots.txt"), site.Hits("/page"), err)
	}
}

// TestPageRetryWithinItsTime: a page whose server asks to wait longer
// than the page's own time limit is not waited for, nor is such a wait
// announced ("retrying in 5m0s" for a page of 20 s): the page fails at
// once with the server's status.
func TestPageRetryWithinItsTime(t *testing.T) {
	site := searchtest.NewSite(t)
	site.SetRobots("")
	site.Handle("/page", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "300")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	f := testFetcher()
	var notices []time.Duration
	f.Retry.Notify = func(_ error, _ int, wait time.Duration) { notices = append(notices, wait) }
	_, err := f.Text(context.Background(), site.URL+"/page", "")
	var pe *PageError
	if !errors.As(err, &pe) || pe.Reason != FailStatus || len(notices) != 0 || site.Hits("/page") != 1 {
		t.Errorf("%d requests, notices %v, error %v", site.Hits("/page"), notices, err)
	}
}
