package retrieve

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/nettest"
	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/retry"
)

// fakeWiki is a minimal MediaWiki Action API: list=search and
// prop=extracts|info|pageprops, JSON format version 2.
type fakeWiki struct {
	mu       sync.Mutex
	requests []*http.Request
	times    []time.Time
	failNext map[string]int // search query -> how many 429s to give first
	broken   bool           // answer every request with HTTP 500
	search   map[string][]string
	pages    map[string]fakePage
}

type fakePage struct {
	extract        string
	disambiguation bool
}

func (f *fakeWiki) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r)
	f.times = append(f.times, time.Now())
	q := r.URL.Query()
	if q.Get("format") != "json" || q.Get("formatversion") != "2" || q.Get("action") != "query" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if f.broken {
		http.Error(w, "upstream trouble", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case q.Get("list") == "search":
		query := q.Get("srsearch")
		if f.failNext[query] > 0 {
			f.failNext[query]--
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		if query == "bad" {
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": "badvalue", "info": "Unrecognized value"}})
			return
		}
		limit, _ := strconv.Atoi(q.Get("srlimit"))
		titles := f.search[query]
		var hits []map[string]any
		for _, t := range titles[:min(limit, len(titles))] {
			hits = append(hits, map[string]any{"ns": 0, "title": t})
		}
		json.NewEncoder(w).Encode(map[string]any{"query": map[string]any{"search": hits}})
	case q.Get("titles") != "":
		title := q.Get("titles")
		if q.Get("explaintext") == "" || !strings.Contains(q.Get("prop"), "extracts") {
			http.Error(w, "want plain-text extracts", http.StatusBadRequest)
			return
		}
		p, ok := f.pages[title]
		page := map[string]any{"title": title}
		switch {
		case !ok:
			page["missing"] = true
		default:
			page["extract"] = p.extract
			page["fullurl"] = "https://en.wikipedia.org/wiki/" + strings.ReplaceAll(title, " ", "_")
			if p.disambiguation {
				page["pageprops"] = map[string]string{"disambiguation": ""}
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"query": map[string]any{"pages": []any{page}}})
	default:
		http.Error(w, "unknown request", http.StatusBadRequest)
	}
}

func (f *fakeWiki) count(pred func(*http.Request) bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if pred(r) {
			n++
		}
	}
	return n
}

func newFakeWiki(t *testing.T) (*fakeWiki, *Wikipedia) {
	longText := "Lanny Flaherty (July 27, 1942 – February 18, 2024) was an American actor.\n\n\n== Life and career ==\n" +
		strings.Repeat("Flaherty had roles in films.  ", 200)
	f := &fakeWiki{
		failNext: map[string]int{},
		search: map[string][]string{
			"Lanny Flaherty was born on July 27, 1942.": {"Lanny Flaherty", "Flaherty", "Gone page", "Pontotoc, Mississippi"},
			"Lanny Flaherty was an actor.":              {"Lanny Flaherty"},
		},
		pages: map[string]fakePage{
			"Lanny Flaherty":        {extract: longText},
			"Flaherty":              {extract: "Flaherty may refer to:\nLanny Flaherty\nRobert Flaherty", disambiguation: true},
			"Pontotoc, Mississippi": {extract: "Pontotoc is a city\nin Mississippi."},
		},
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	w := NewWikipedia(srv.URL + "/w/api.php")
	w.MinInterval = 30 * time.Millisecond
	w.Retry = &retry.Policy{Retries: 3, MinWait: time.Millisecond, MaxWait: 4 * time.Millisecond}
	return f, w
}

func TestWikipedia(t *testing.T) {
	f, w := newFakeWiki(t)
	ctx := context.Background()
	ps, err := w.Retrieve(ctx, "Lanny Flaherty", "Lanny Flaherty was born on July 27, 1942.", 3)
	if err != nil {
		t.Fatal(err)
	}
	// Search gives 3 titles (srlimit = k): the disambiguation page and the
	// missing page are skipped, not replaced.
	if len(ps) != 1 {
		t.Fatalf("got %d passages, want 1: %+v", len(ps), ps)
	}
	p := ps[0]
	if p.Title != "Lanny Flaherty" || p.Link != "https://en.wikipedia.org/wiki/Lanny_Flaherty" || p.Snippet != "" {
		t.Errorf("passage %+v", p)
	}
	if !strings.HasPrefix(p.Text, "Lanny Flaherty (July 27, 1942 – February 18, 2024) was an American actor. == Life and career == Flaherty had roles") {
		t.Errorf("text not whitespace-collapsed: %.120q", p.Text)
	}
	if n := len([]rune(p.Text)); n > MaxContextChars || n < MaxContextChars-400 {
		t.Errorf("text has %d characters, want the first %d characters, whitespace collapsed", n, MaxContextChars)
	}
	ps, err = w.Retrieve(ctx, "Lanny Flaherty", "Lanny Flaherty was born on July 27, 1942.", 4)
	if err != nil || len(ps) != 2 || ps[1].Title != "Pontotoc, Mississippi" || ps[1].Text != "Pontotoc is a city in Mississippi." {
		t.Errorf("k=4: %+v, %v", ps, err)
	}
	// Pages are fetched once: the second search reuses the fetched page.
	if _, err := w.Retrieve(ctx, "Lanny Flaherty", "Lanny Flaherty was an actor.", 3); err != nil {
		t.Fatal(err)
	}
	if n := f.count(func(r *http.Request) bool { return r.URL.Query().Get("titles") == "Lanny Flaherty" }); n != 1 {
		t.Errorf("page fetched %d times, want 1", n)
	}
	// Every request carries the User-Agent and is spaced by MinInterval.
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, r := range f.requests {
		if ua := r.Header.Get("User-Agent"); ua != DefaultUserAgent() || !strings.HasPrefix(ua, "factreasoner-go/") {
			t.Errorf("request %d: User-Agent %q", i, ua)
		}
		if i > 0 {
			if gap := f.times[i].Sub(f.times[i-1]); gap < w.MinInterval-2*time.Millisecond {
				t.Errorf("requests %d and %d only %v apart (min %v)", i-1, i, gap, w.MinInterval)
			}
		}
	}
}

func TestWikipediaNoHits(t *testing.T) {
	_, w := newFakeWiki(t)
	if ps, err := w.Retrieve(context.Background(), "", "nothing matches this", 3); err != nil || len(ps) != 0 {
		t.Errorf("no hits: %v, %v", ps, err)
	}
}

func TestWikipediaQueryCap(t *testing.T) {
	f, w := newFakeWiki(t)
	atom := strings.Repeat("ab ", 200)
	if _, err := w.Retrieve(context.Background(), "", atom, 3); err != nil {
		t.Fatalf("Retrieve: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("no request reached the server")
	}
	got := f.requests[0].URL.Query().Get("srsearch")
	if len([]rune(got)) != maxQueryChars {
		t.Errorf("search query of %d characters, want %d", len([]rune(got)), maxQueryChars)
	}
}

func TestWikipediaErrors(t *testing.T) {
	f, w := newFakeWiki(t)
	ctx := context.Background()
	// 429s are retried (Retry-After honoured).
	f.mu.Lock()
	f.failNext["Lanny Flaherty was an actor."] = 2
	f.mu.Unlock()
	ps, err := w.Retrieve(ctx, "", "Lanny Flaherty was an actor.", 3)
	if err != nil || len(ps) != 1 {
		t.Errorf("after two 429s: %v, %v", ps, err)
	}
	// The API's own errors are reported.
	if _, err := w.Retrieve(ctx, "", "bad", 3); err == nil || !strings.Contains(err.Error(), "badvalue") {
		t.Errorf("API error: %v", err)
	}
	// A server that keeps failing gives up after the policy's retries.
	f.mu.Lock()
	f.broken = true
	before := len(f.requests)
	f.mu.Unlock()
	if _, err := w.Retrieve(ctx, "", "anything", 3); err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "upstream trouble") || !strings.Contains(err.Error(), "after 4 attempts") {
		t.Errorf("HTTP 500: %v", err)
	}
	if n := f.count(func(*http.Request) bool { return true }) - before; n != w.Retry.Retries+1 {
		t.Errorf("%d attempts, want %d", n, w.Retry.Retries+1)
	}
	// Cancellation stops the wait.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := w.Retrieve(cctx, "", "anything", 3); err == nil {
		t.Error("cancelled context: no error")
	}
}

// TestWikipediaUserAgent: a User-Agent of the user's own (with a contact,
// as Wikimedia asks) is followed by the tool's product token.
func TestWikipediaUserAgent(t *testing.T) {
	tests := []struct{ given, want string }{
		{"", DefaultUserAgent()},
		{"my-study/2 (me@example.org)", "my-study/2 (me@example.org) " + version.UserAgent()},
		{"factreasoner-go/9 (me@example.org)", "factreasoner-go/9 (me@example.org)"},
	}
	for _, tt := range tests {
		f, w := newFakeWiki(t)
		w.UserAgent = tt.given
		if _, err := w.Retrieve(context.Background(), "", "Lanny Flaherty was an actor.", 1); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		if ua := f.requests[0].UserAgent(); ua != tt.want {
			t.Errorf("UserAgent %q: sent %q, want %q", tt.given, ua, tt.want)
		}
		f.mu.Unlock()
	}
}

// TestWikipediaMaxlag: the API's maxlag error is repeated after its
// Retry-After; an endpoint's userinfo never shows in an error.
func TestWikipediaMaxlag(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			rw.Header().Set("Retry-After", "0")
			json.NewEncoder(rw).Encode(map[string]any{"error": map[string]string{"code": "maxlag", "info": "Waiting for a database server: 5 seconds lagged."}})
			return
		}
		json.NewEncoder(rw).Encode(map[string]any{"error": map[string]string{"code": "badvalue", "info": "no"}})
	}))
	defer srv.Close()
	const secret = "hunter2hunter2"
	w := NewWikipedia(strings.Replace(srv.URL, "http://", "http://bot:"+secret+"@", 1) + "/w/api.php")
	w.MinInterval = 0
	w.Retry = &retry.Policy{Retries: 3, MinWait: time.Millisecond}
	_, err := w.Retrieve(context.Background(), "", "anything", 1)
	if err == nil || !strings.Contains(err.Error(), "badvalue") || n != 2 {
		t.Fatalf("after %d requests: %v", n, err)
	}
	if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "REDACTED@") {
		t.Errorf("error shows the endpoint's userinfo: %v", err)
	}
}

// TestWikipediaFailsFast: a name that does not resolve (or that no
// resolver answers for, as on a machine offline) fails at the first
// attempt, and so does a server that accepts the connection and never
// answers, after the policy's FirstByte; neither is asked again.
func TestWikipediaFailsFast(t *testing.T) {
	for _, dnsErr := range []*net.DNSError{
		{Err: "no such host", Name: "en.wikipedia.org", IsNotFound: true},
		{Err: "server misbehaving", Name: "en.wikipedia.org", IsTemporary: true},
	} {
		dials := 0
		w := NewWikipedia(DefaultWikipediaEndpoint)
		w.Retry = &retry.Policy{Retries: 5, MinWait: time.Millisecond, MaxWait: time.Millisecond}
		w.Client = &http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
			dials++
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: dnsErr}
		}}}
		_, err := w.Retrieve(context.Background(), "", "Lanny Flaherty was an actor.", 3)
		if err == nil || !strings.Contains(err.Error(), dnsErr.Err) || dials != 1 || strings.Contains(err.Error(), "attempts") {
			t.Errorf("%s: %d attempts, error %v", dnsErr.Err, dials, err)
		}
	}
	addr := nettest.Silent(t)
	w := NewWikipedia("http://" + addr + "/w/api.php")
	w.Retry = &retry.Policy{Retries: 5, MinWait: time.Millisecond, FirstByte: 100 * time.Millisecond}
	_, err := w.Retrieve(context.Background(), "", "Lanny Flaherty was an actor.", 3)
	if !errors.Is(err, retry.ErrNoAnswer) || !strings.Contains(err.Error(), addr) || strings.Contains(err.Error(), "attempts") {
		t.Errorf("a silent server: %v", err)
	}
}

// TestWikipediaAnswerTypes: an answer whose values have other types than
// the API's is refused naming the value's path and the JSON types, not
// Go's.
func TestWikipediaAnswerTypes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"query": {"search": [{"title": 5}]}}`))
	}))
	defer srv.Close()
	w := NewWikipedia(srv.URL + "/w/api.php")
	w.Retry = &retry.Policy{Retries: 0}
	_, err := w.Retrieve(context.Background(), "", "Lanny Flaherty was an actor.", 3)
	if err == nil || !strings.Contains(err.Error(), "query.search[0].title: expected string, got JSON number") || strings.Contains(err.Error(), "Go ") {
		t.Errorf("%v", err)
	}
}
