// Package searchtest runs loopback fakes of the web services that package
// retrieve talks to, for tests: the Serper API (Serper), a SearXNG
// instance's JSON API (SearXNG), and a web site whose pages include
// hostile ones (Site). The fakes follow the services' documented request
// and answer shapes, including their error answers, and record the
// requests they get.
package searchtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Result is one search result.
type Result struct {
	Title   string
	Link    string
	Snippet string
}

// Serper is a fake of the Serper API's search endpoint
// (POST https://google.serper.dev/search): it takes the JSON body
// {"q": query, "num": n} with the key in the X-API-KEY header and answers
// {"searchParameters": {...}, "organic": [{"title", "link", "snippet",
// "position"}], "credits": 1}, with Google's other boxes beside the organic
// results when there are any ("knowledgeGraph", "answerBox",
// "peopleAlsoAsk", "relatedSearches", and "sitelinks" in the first result). Its errors are Serper's:
// {"message": "Unauthorized.", "statusCode": 403} for a missing or wrong
// key, {"message": "Not enough credits", "statusCode": 400} when Quota
// searches are spent, and 429 for the requests Throttle says.
type Serper struct {
	URL string // the endpoint

	mu       sync.Mutex
	key      string
	results  map[string][]Result
	requests []SerperRequest
	// Quota, when above 0, is how many searches the account has.
	quota int
	// throttle is how many of the next requests get 429.
	throttle   int
	retryAfter string
	echoKey    bool
}

// SerperRequest is a request as the fake got it.
type SerperRequest struct {
	Method      string
	Key         string // X-API-KEY
	ContentType string
	UserAgent   string
	Q           string
	Num         int
}

// NewSerper starts a fake that accepts the API key key; it stops when the
// test ends.
func NewSerper(t testing.TB, key string) *Serper {
	s := &Serper{key: key, results: map[string][]Result{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/search"
	return s
}

// Add sets the organic results for a query.
func (s *Serper) Add(query string, results ...Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results[query] = results
}

// SetQuota makes the account run out of credits after n more searches.
func (s *Serper) SetQuota(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quota = n
	if n == 0 {
		s.quota = -1 // none left
	}
}

// Throttle answers the next n requests with 429 Too Many Requests and the
// given Retry-After header ("" for none).
func (s *Serper) Throttle(n int, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.throttle, s.retryAfter = n, retryAfter
}

// EchoKey makes error answers repeat the key they got, as a careless
// server might: clients must keep it out of their messages.
func (s *Serper) EchoKey() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.echoKey = true
}

// Requests returns the requests so far.
func (s *Serper) Requests() []SerperRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SerperRequest(nil), s.requests...)
}

func (s *Serper) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req := SerperRequest{Method: r.Method, Key: r.Header.Get("X-API-KEY"), ContentType: r.Header.Get("Content-Type"), UserAgent: r.UserAgent()}
	var body struct {
		Q   *string `json:"q"`
		Num *int    `json:"num"`
	}
	data, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	bodyErr := json.Unmarshal(data, &body)
	if body.Q != nil {
		req.Q = *body.Q
	}
	if body.Num != nil {
		req.Num = *body.Num
	}
	s.requests = append(s.requests, req)
	fail := func(status int, msg string) {
		if s.echoKey {
			msg += " (X-API-KEY " + req.Key + ", key=" + req.Key + ")"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"message": msg, "statusCode": status})
	}
	switch {
	case r.Method != http.MethodPost:
		fail(http.StatusMethodNotAllowed, "Method not allowed.")
		return
	case req.Key == "" || req.Key != s.key:
		fail(http.StatusForbidden, "Unauthorized.")
		return
	case s.throttle > 0:
		s.throttle--
		if s.retryAfter != "" {
			w.Header().Set("Retry-After", s.retryAfter)
		}
		fail(http.StatusTooManyRequests, "Too many requests.")
		return
	case s.quota < 0:
		fail(http.StatusBadRequest, "Not enough credits")
		return
	case bodyErr != nil || body.Q == nil || strings.TrimSpace(*body.Q) == "":
		fail(http.StatusBadRequest, "Query is required.")
		return
	}
	if s.quota > 0 {
		s.quota--
		if s.quota == 0 {
			s.quota = -1
		}
	}
	num := 10
	if body.Num != nil && *body.Num > 0 {
		num = min(*body.Num, 100)
	}
	organic := []map[string]any{}
	for i, res := range s.results[req.Q] {
		if i == num {
			break
		}
		hit := map[string]any{"title": res.Title, "link": res.Link, "snippet": res.Snippet, "position": i + 1}
		if i == 0 {
			hit["sitelinks"] = []map[string]any{{"title": "More", "link": res.Link + "#more"}}
		}
		organic = append(organic, hit)
	}
	answer := map[string]any{
		"searchParameters": map[string]any{"q": req.Q, "type": "search", "num": num, "engine": "google"},
		"organic":          organic,
		"credits":          1,
	}
	if len(organic) > 0 {
		// Google's other boxes, which a client must not take for results.
		answer["knowledgeGraph"] = map[string]any{"title": req.Q, "type": "Topic", "description": "A knowledge panel.",
			"descriptionSource": "Wikipedia", "descriptionLink": "https://knowledge-graph.example/panel", "attributes": map[string]string{"Born": "1942"}}
		answer["answerBox"] = map[string]any{"title": req.Q, "answer": "1942", "snippet": "An answer box.", "link": "https://answer-box.example/answer"}
		answer["peopleAlsoAsk"] = []map[string]any{{"question": "Who?", "snippet": "Someone.", "title": "People also ask", "link": "https://people-also-ask.example/q"}}
		answer["relatedSearches"] = []map[string]any{{"query": req.Q + " age"}}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(answer)
}

// SearXNG is a fake SearXNG instance: GET or POST / or /search with q and
// format. With format=json, when json is one of its formats (the
// search.formats of settings.yml), it answers {"query",
// "number_of_results", "results": [{"url", "title", "content", "engine",
// "engines", "positions", "score", "category", "template", "parsed_url"}],
// "answers", "corrections", "infoboxes", "suggestions",
// "unresponsive_engines"}; a format not enabled gets 403 Forbidden, as
// SearXNG answers it.
type SearXNG struct {
	URL string // the instance's root URL

	mu           sync.Mutex
	formats      []string
	results      map[string][]Result
	unresponsive [][]string
	queries      []string
}

// NewSearXNG starts a fake instance with the formats html and json.
func NewSearXNG(t testing.TB) *SearXNG {
	s := &SearXNG{formats: []string{"html", "json"}, results: map[string][]Result{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// SetFormats sets search.formats (SearXNG's default is html alone).
func (s *SearXNG) SetFormats(formats ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.formats = formats
}

// Add sets the results for a query.
func (s *SearXNG) Add(query string, results ...Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results[query] = results
}

// SetUnresponsive lists engines that failed, as [name, reason] pairs.
func (s *SearXNG) SetUnresponsive(engines ...[]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unresponsive = engines
}

// Queries returns the queries asked so far.
func (s *SearXNG) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}

func (s *SearXNG) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path != "/" && r.URL.Path != "/search" {
		http.NotFound(w, r)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	q, format := r.Form.Get("q"), r.Form.Get("format")
	if format == "" {
		format = "html"
	}
	enabled := false
	for _, f := range s.formats {
		enabled = enabled || f == format
	}
	if !enabled {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1><p>You don't have the permission to access the requested resource.</p>")
		return
	}
	s.queries = append(s.queries, q)
	if format != "json" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>%s - SearXNG</title>", q)
		return
	}
	results := []map[string]any{}
	for i, res := range s.results[q] {
		results = append(results, map[string]any{
			"url": res.Link, "title": res.Title, "content": res.Snippet,
			"engine": "duckduckgo", "engines": []string{"duckduckgo", "brave"}, "positions": []int{i + 1},
			"score": 2.0 / float64(i+1), "category": "general", "template": "default.html",
			"parsed_url": []string{"https", "example.org", "/", "", "", ""},
		})
	}
	unresponsive := s.unresponsive
	if unresponsive == nil {
		unresponsive = [][]string{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"query": q, "number_of_results": 0, "results": results,
		"answers": []any{}, "corrections": []any{}, "infoboxes": []any{}, "suggestions": []any{},
		"unresponsive_engines": unresponsive,
	})
}

// Site is a fake web site. Its robots.txt is what SetRobots sets (else
// what Handle registers for /robots.txt, else 404), and its pages are what
// Handle and Page register; it counts the requests for each path.
type Site struct {
	URL string

	mu     sync.Mutex
	robots *string
	mux    *http.ServeMux
	hits   map[string]int
	agents []string
}

// NewSite starts a site with no pages and no robots.txt.
func NewSite(t testing.TB) *Site {
	s := &Site{mux: http.NewServeMux(), hits: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// SetRobots sets the site's robots.txt.
func (s *Site) SetRobots(body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.robots = &body
}

// Handle serves path with h.
func (s *Site) Handle(path string, h http.Handler) { s.mux.Handle(path, h) }

// Page serves path with a fixed content type and body.
func (s *Site) Page(path, contentType, body string) {
	s.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}))
}

// Hits is the number of requests for path.
func (s *Site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// UserAgents lists the User-Agent of every request.
func (s *Site) UserAgents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.agents...)
}

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.agents = append(s.agents, r.UserAgent())
	robots := s.robots
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" && robots != nil {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, *robots)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Huge serves n bytes of HTML paragraphs; with declare, the
// Content-Length says so up front, else the body is streamed (chunked).
func Huge(n int64, declare bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if declare {
			w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		}
		chunk := []byte(strings.Repeat("<p>All work and no play makes Jack a dull boy.</p>\n", 1000))
		for sent := int64(0); sent < n; {
			m := min(int64(len(chunk)), n-sent)
			if _, err := w.Write(chunk[:m]); err != nil {
				return // the client stopped reading
			}
			sent += m
		}
	})
}

// BinaryAsHTML serves a PNG image declared as text/html.
func BinaryAsHTML() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		body := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00")
		for i := 0; i < 4096; i++ {
			body = append(body, byte(i*7), byte(i*13), 0)
		}
		w.Write(body)
	})
}

// PDF serves a small PDF document declared as application/pdf.
func PDF() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		io.WriteString(w, "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"+
			"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	})
}

// Redirect answers 302 Found to target.
func Redirect(target string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	})
}

// Slow sends its headers at once and its HTML body after d, unless the
// client gives up first.
func Slow(d time.Duration, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusOK)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(d):
		}
		io.WriteString(w, body)
	})
}

// Status answers every request with the status and a short text body.
func Status(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, http.StatusText(code), code)
	})
}

// Boilerplate strings that BoilerplatePage puts around its article:
// an extractor of main text must drop every one of them.
var Boilerplate = []string{
	"Subscribe to our newsletter",
	"Home | World | Politics | Business | Sport | Culture",
	"Most read this week",
	"Copyright 2024 Example News Ltd. All rights reserved.",
	"Cookie settings",
}

// BoilerplatePage is a news-site page: a header with navigation, a
// sidebar of links, a comments teaser and a footer (the Boilerplate
// strings) around an article of the given paragraphs.
func BoilerplatePage(title string, paragraphs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s | Example News</title>
<script>window.dataLayer = [{"page": "article"}];</script>
<style>body { font-family: serif; }</style></head>
<body>
<header class="site-header"><div class="logo"><a href="/">Example News</a></div>
<nav class="main-nav"><ul>
<li><a href="/">Home</a> | <a href="/world">World</a> | <a href="/politics">Politics</a> | <a href="/business">Business</a> | <a href="/sport">Sport</a> | <a href="/culture">Culture</a></li>
</ul></nav>
<div class="newsletter-signup"><a href="/newsletter">Subscribe to our newsletter</a></div>
</header>
<div class="page">
<main id="content"><article class="story">
<h1>%s</h1>
<p class="byline">By A. Reporter</p>
`, title, title)
	for _, p := range paragraphs {
		fmt.Fprintf(&b, "<p>%s</p>\n", p)
	}
	b.WriteString(`</article></main>
<aside class="sidebar"><h3>Most read this week</h3><ul>
<li><a href="/a">Ten things you did not know about tea</a></li>
<li><a href="/b">The best walks in the hills</a></li>
<li><a href="/c">Why cats sleep so much</a></li>
<li><a href="/d">A guide to winter gardening</a></li>
</ul></aside>
</div>
<footer class="site-footer"><p>Copyright 2024 Example News Ltd. All rights reserved.</p>
<ul><li><a href="/privacy">Privacy</a></li><li><a href="/cookies">Cookie settings</a></li><li><a href="/contact">Contact</a></li></ul>
</footer>
</body></html>
`)
	return b.String()
}
