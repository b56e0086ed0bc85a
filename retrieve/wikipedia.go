package retrieve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/jsonpath"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/retry"
)

// Wikipedia defaults.
const (
	DefaultWikipediaEndpoint = "https://en.wikipedia.org/w/api.php"
	// Contact is how Wikimedia can reach the maintainers, as its
	// User-Agent policy asks.
	Contact = "https://github.com/factreasoner/factreasoner-go; factuality assessment research tool"
	// DefaultMinInterval spaces the requests: at most 5 a second, in
	// series, as Wikimedia's API etiquette asks of unauthenticated clients.
	DefaultMinInterval = 200 * time.Millisecond
	// maxQueryChars is how much of the atom goes into the search, as
	// LangChain's WikipediaRetriever (300 characters).
	maxQueryChars = 300
	// pageMemory is how many page texts a Wikipedia source remembers; the
	// atoms of one response tend to hit the same few pages.
	pageMemory = 256
)

// DefaultUserAgent is the User-Agent sent when Wikipedia.UserAgent is
// empty. It follows the Wikimedia User-Agent policy: a name, a version and
// a way to reach the maintainers, "factreasoner-go/VERSION (Contact)".
func DefaultUserAgent() string {
	return version.UserAgent() + " (" + Contact + ")"
}

// Wikipedia retrieves from Wikipedia through the MediaWiki Action API, the
// way FactReasoner does (LangChain's WikipediaRetriever): it searches for
// the atom's text, takes the top k result pages, and returns for each its
// title, plain text (the page's extract, cut to MaxChars characters, with
// whitespace runs collapsed to single spaces) and URL. Disambiguation and
// missing pages are skipped, so fewer than k passages may come back.
//
// Requests go out one at a time, at least MinInterval apart, with a
// User-Agent; failures are repeated as the retry policy says (HTTP 429 and
// 5xx answers, network errors, and the API's maxlag error, after the
// server's Retry-After or the policy's back-off).
//
// Create one with NewWikipedia and adjust the fields before first use.
type Wikipedia struct {
	// Endpoint is the api.php URL (DefaultWikipediaEndpoint for English
	// Wikipedia; tests point it at a fake server).
	Endpoint string
	// UserAgent names the client to Wikimedia (with a contact, as its
	// User-Agent policy asks). The tool's own product token,
	// factreasoner-go/VERSION, is added after it unless it is there
	// already. Empty means DefaultUserAgent().
	UserAgent string
	// MinInterval is the least time between two requests.
	MinInterval time.Duration
	// MaxChars caps a page's text, in characters (MaxContextChars).
	MaxChars int
	// Query says how the search is formed from the topic and the atom
	// (QueryAtom, FactReasoner's way, by default).
	Query QueryMode
	// Retry is how failed requests are repeated; nil is retry.Default().
	Retry *retry.Policy
	// Client does the requests.
	Client *http.Client

	reqMu sync.Mutex // serialises requests
	last  time.Time  // when the last request went out

	mu    sync.Mutex // guards pages and order
	pages map[string]*wikiPage
	order []string // page titles in pages, oldest first
}

// NewWikipedia returns a source with the defaults for the given endpoint
// ("" for DefaultWikipediaEndpoint).
func NewWikipedia(endpoint string) *Wikipedia {
	if endpoint == "" {
		endpoint = DefaultWikipediaEndpoint
	}
	return &Wikipedia{
		Endpoint:    endpoint,
		MinInterval: DefaultMinInterval,
		MaxChars:    MaxContextChars,
		Client:      &http.Client{Timeout: 60 * time.Second},
	}
}

// Identify says what the source is: Wikipedia's API at its endpoint's
// host, how much of a page a passage keeps, and the query.
func (w *Wikipedia) Identify() string {
	return fmt.Sprintf("wikipedia[host=%s,chars=%d,query=%s]", hostOf(w.Endpoint), w.MaxChars, w.Query)
}

// Source names the source for caches.
func (w *Wikipedia) Source() string {
	name := fmt.Sprintf("wikipedia:%s:%d", w.Endpoint, w.MaxChars)
	if w.Query != QueryAtom {
		name += ":query=" + w.Query.String()
	}
	return name
}

type wikiPage struct {
	skip  bool // missing or disambiguation
	title string
	text  string
	link  string
}

// Retrieve searches Wikipedia for the atom and returns up to k pages. The
// topic is used only with QueryTopic: atoms are meant to stand alone.
func (w *Wikipedia) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	query := w.Query.query(topic, atom, maxQueryChars)
	if query == "" || k <= 0 {
		return nil, nil
	}
	var sr struct {
		Query struct {
			Search []struct {
				Title string `json:"title"`
			} `json:"search"`
		} `json:"query"`
	}
	err := w.get(ctx, url.Values{
		"action": {"query"}, "list": {"search"}, "srsearch": {query},
		"srlimit": {strconv.Itoa(k)}, "srprop": {""}, "srnamespace": {"0"},
	}, &sr)
	if err != nil {
		return nil, fmt.Errorf("wikipedia search %q: %w", query, err)
	}
	var out []Passage
	for _, hit := range sr.Query.Search {
		if len(out) == k {
			break
		}
		p, err := w.page(ctx, hit.Title)
		if err != nil {
			return nil, fmt.Errorf("wikipedia page %q: %w", hit.Title, err)
		}
		if p.skip || strings.TrimSpace(p.text) == "" {
			continue
		}
		out = append(out, Passage{Title: p.title, Text: p.text, Link: p.link, Source: "wikipedia"})
	}
	return out, nil
}

// page fetches one page's plain text (from memory when it can).
func (w *Wikipedia) page(ctx context.Context, title string) (*wikiPage, error) {
	w.mu.Lock()
	p, ok := w.pages[title]
	w.mu.Unlock()
	if ok {
		return p, nil
	}
	// Full-page extracts come one page per request (the API's rule).
	var resp struct {
		Query struct {
			Pages []struct {
				Title     string          `json:"title"`
				Missing   bool            `json:"missing"`
				Invalid   bool            `json:"invalid"`
				Extract   string          `json:"extract"`
				FullURL   string          `json:"fullurl"`
				PageProps json.RawMessage `json:"pageprops"`
			} `json:"pages"`
		} `json:"query"`
	}
	err := w.get(ctx, url.Values{
		"action": {"query"}, "titles": {title}, "redirects": {"1"},
		"prop": {"extracts|info|pageprops"}, "explaintext": {"1"},
		"inprop": {"url"}, "ppprop": {"disambiguation"},
	}, &resp)
	if err != nil {
		return nil, err
	}
	p = &wikiPage{skip: true, title: title}
	if len(resp.Query.Pages) > 0 {
		rp := resp.Query.Pages[0]
		var props map[string]json.RawMessage
		_ = json.Unmarshal(rp.PageProps, &props) // absent or {} when not a disambiguation page
		_, disambiguation := props["disambiguation"]
		if !rp.Missing && !rp.Invalid && !disambiguation {
			p = &wikiPage{
				title: rp.Title,
				text:  strings.Join(strings.Fields(truncateChars(rp.Extract, w.MaxChars)), " "),
				link:  rp.FullURL,
			}
		}
	}
	w.mu.Lock()
	if w.pages == nil {
		w.pages = make(map[string]*wikiPage)
	}
	if _, ok := w.pages[title]; !ok {
		if len(w.order) == pageMemory {
			delete(w.pages, w.order[0])
			w.order = w.order[1:]
		}
		w.pages[title] = p
		w.order = append(w.order, title)
	}
	w.mu.Unlock()
	return p, nil
}

// userAgent is the User-Agent header sent.
func (w *Wikipedia) userAgent() string {
	switch {
	case w.UserAgent == "":
		return DefaultUserAgent()
	case strings.Contains(w.UserAgent, version.Name+"/"):
		return w.UserAgent
	}
	return w.UserAgent + " " + version.UserAgent()
}

// get does one API request, spaced and retried as the type's comment says,
// and decodes the JSON answer into v.
func (w *Wikipedia) get(ctx context.Context, params url.Values, v any) error {
	params.Set("format", "json")
	params.Set("formatversion", "2")
	shown := redact.URL(w.Endpoint)
	u, err := url.Parse(w.Endpoint)
	if err != nil {
		return fmt.Errorf("endpoint %q: %w", shown, err)
	}
	u.RawQuery = params.Encode()
	w.reqMu.Lock()
	defer w.reqMu.Unlock()
	body, err := retry.Do(ctx, w.Retry, func(int) ([]byte, error) {
		return w.attempt(ctx, u.String(), shown)
	})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: unexpected answer: %w", shown, jsonpath.Error(body, err))
	}
	return nil
}

// attempt makes one request, MinInterval after the last, and returns the
// answer's body; its error is marked for the retry policy.
func (w *Wikipedia) attempt(ctx context.Context, u, shown string) ([]byte, error) {
	if err := sleepCtx(ctx, time.Until(w.last.Add(w.MinInterval))); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, retry.Permanent(fmt.Errorf("%s: %w", shown, err))
	}
	req.Header.Set("User-Agent", w.userAgent())
	req.Header.Set("Accept", "application/json")
	resp, err := w.Retry.Send(w.Client, req)
	w.last = time.Now()
	if err != nil {
		// The URL's query is left out, the error's kind kept: a name
		// that does not resolve is not asked again.
		return nil, netError(shown, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %w", shown, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, retry.ForStatus(fmt.Errorf("%s: HTTP %s: %s", shown, resp.Status, redact.String(abbreviate(string(body)))), resp)
	}
	// The API reports its own errors (bad parameters, maxlag) in a 200.
	var apiErr struct {
		Error *struct {
			Code string `json:"code"`
			Info string `json:"info"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &apiErr); err != nil {
		return nil, retry.Permanent(fmt.Errorf("%s: answer is not JSON: %w (%s)", shown, err, redact.String(abbreviate(string(body)))))
	}
	if e := apiErr.Error; e != nil {
		err := fmt.Errorf("%s: API error %s: %s", shown, e.Code, redact.String(e.Info))
		if e.Code == "maxlag" { // the servers are lagging: come back later
			return nil, retry.After(err, retry.ServerWait(resp.Header, time.Now()))
		}
		return nil, retry.Permanent(err)
	}
	return body, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func abbreviate(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}
