package retrieve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/temoto/robotstxt"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/net/http/httpproxy"

	"github.com/factreasoner/factreasoner-go/internal/netguard"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/retry"
)

// Page fetching defaults.
const (
	// DefaultPageMaxBytes bounds a page's body, as FactReasoner bounds it
	// (5 MB): a larger page is not read.
	DefaultPageMaxBytes = 5 << 20
	// DefaultPageTimeout bounds one page: robots.txt, redirects, retries
	// and reading included.
	DefaultPageTimeout = 20 * time.Second
	// DefaultFetchBudget bounds the pages of one search together.
	DefaultFetchBudget = 60 * time.Second
	// DefaultMaxRedirects is the most redirects followed for a page.
	DefaultMaxRedirects = 5
	// DefaultPageWorkers is how many pages of one search are fetched at
	// once (FactReasoner: 4).
	DefaultPageWorkers = 4

	maxRobotsBytes  = 500 << 10 // what Google reads of a robots.txt
	robotsMemory    = 1024      // hosts whose robots.txt is remembered
	webPageMemory   = 64        // pages whose text is remembered
	pageMemoryBytes = 16 << 20  // the most bytes of text remembered
	maxPageElements = 200000    // HTML elements readability will look at
	// pageParsers is how many pages are parsed at once, by all the
	// searches of a run: readability takes about 25 times a page's bytes
	// while it parses (BENCHMARKS.md), so that a run holds at most that
	// for one page, and its fetched bodies, however many pages and
	// records are in flight. Parsing is CPU work: more at once would not
	// finish sooner on a few cores.
	pageParsers = 1
)

// PageFailure says why a page's text could not be used.
type PageFailure string

// The reasons a page falls back to its snippet.
const (
	FailRobots    PageFailure = "disallowed by robots.txt"
	FailType      PageFailure = "not text/html or text/plain"
	FailSize      PageFailure = "too large"
	FailRedirects PageFailure = "too many redirects"
	FailTimeout   PageFailure = "timed out"
	FailStatus    PageFailure = "HTTP error"
	FailNetwork   PageFailure = "network error"
	FailNoText    PageFailure = "no main text"
	FailAddress   PageFailure = "private or local address"
	FailURL       PageFailure = "not an http(s) URL"
)

// PageError is why a page's text could not be used.
type PageError struct {
	URL    string // redacted
	Reason PageFailure
	Err    error
	// Temporary says the failure may pass (a time-out, a network error, a
	// 5xx or 429 answer): a fallback for it is not cached.
	Temporary bool
}

func (e *PageError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("%s: %s", e.URL, e.Reason)
	}
	return fmt.Sprintf("%s: %s: %v", e.URL, e.Reason, e.Err)
}
func (e *PageError) Unwrap() error { return e.Err }

// PageFetcher fetches web pages and extracts their main text, politely and
// within bounds:
//   - robots.txt is honoured for the User-Agent's product token
//     (factreasoner-go), at the page and at every redirect;
//   - only http and https, at most MaxRedirects redirects, and (unless
//     AllowPrivate) only public addresses (internal/netguard: no loopback,
//     private, link-local, carrier-grade NAT or cloud metadata address, in
//     IPv4 or in an IPv6 form that embeds one), so that a search result
//     cannot make the tool read the local network. Every connection is
//     checked at connect time, after name resolution, for the page, each
//     redirect and robots.txt; with a proxy (HTTP_PROXY, HTTPS_PROXY, read
//     when the fetcher is made) the target is resolved and checked before
//     the request goes to the proxy;
//   - at most MaxBytes of body, Timeout per page, media types text/html
//     and text/plain only, and a body whose bytes are not text (a PDF or
//     an image served as text/html) is refused;
//   - failures are repeated as the retry policy says, within Timeout.
//
// HTML goes through readability (codeberg.org/readeck/go-readability, a
// port of Mozilla's Readability.js), which keeps the article and drops
// navigation, sidebars and footers. Text that fits MaxChars characters is
// kept whole (whitespace collapsed); longer text is cut to MaxChars around
// the passage that best matches the atom (Excerpt).
//
// Every page's text (or failure) is remembered for the run, so that each
// page is fetched once, however many atoms find it; an atom that finds a
// page being fetched waits for that fetch. The texts of the last 64 pages
// (16 MiB at most) stay in memory, older ones in a temporary file that
// Close removes. A context that carries WithPageEvents is told of each
// fetch as it starts and ends (a run's progress).
//
// A PageFetcher is safe for concurrent use. Create one with NewPageFetcher.
type PageFetcher struct {
	MaxBytes     int64
	Timeout      time.Duration
	MaxRedirects int
	MaxChars     int
	// UserAgent names the client; DefaultUserAgent() when empty.
	UserAgent string
	// AllowPrivate lets pages be fetched from loopback, private and
	// link-local addresses (tests, intranets).
	AllowPrivate bool
	Retry        *retry.Policy
	// Resolver resolves the target hosts of requests through a proxy, to
	// check their addresses; nil is net.DefaultResolver.
	Resolver *net.Resolver

	proxyFor func(*url.URL) (*url.URL, error) // the environment's proxy settings
	client   *http.Client                     // pages: redirects checked against robots.txt
	plain    *http.Client                     // robots.txt files

	mu          sync.Mutex
	parsing     chan struct{}           // one token per page being parsed
	proxies     map[string]bool         // host:port of the proxies used
	robots      map[string]*robotsEntry // by scheme://host
	robotsOrder []string
	store       pageStore // the run's pages: each fetched once, for every atom that finds it
	stats       PageStats
}

// PageStats count what a PageFetcher did.
type PageStats struct {
	Fetched   int                 // pages whose text was used (by an atom: a page found by several counts for each)
	Fallbacks map[PageFailure]int // pages that fell back to the snippet, by reason
	// Downloads is how many pages were fetched from the network: each
	// page of a run at most once, whatever the atoms that found it.
	Downloads int
}

// Failed is the number of pages that fell back.
func (s PageStats) Failed() int {
	n := 0
	for _, c := range s.Fallbacks {
		n += c
	}
	return n
}

// String is "N pages fetched, M fell back to the snippet (2 timed out, …);
// K requested, each page once for all the atoms that found it".
func (s PageStats) String() string {
	msg := fmt.Sprintf("%d pages fetched, %d fell back to the snippet", s.Fetched, s.Failed())
	if len(s.Fallbacks) > 0 {
		var parts []string
		for r, n := range s.Fallbacks {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
		sort.Strings(parts)
		msg += " (" + strings.Join(parts, ", ") + ")"
	}
	return msg + fmt.Sprintf("; %d requested, each page once for all the atoms that found it", s.Downloads)
}

type robotsEntry struct {
	ready chan struct{} // closed when data or err is set
	data  *robotstxt.RobotsData
	err   *PageError
}

// NewPageFetcher returns a fetcher with the default bounds.
func NewPageFetcher() *PageFetcher {
	f := &PageFetcher{
		MaxBytes:     DefaultPageMaxBytes,
		Timeout:      DefaultPageTimeout,
		MaxRedirects: DefaultMaxRedirects,
		MaxChars:     MaxContextChars,
		robots:       make(map[string]*robotsEntry),
		parsing:      make(chan struct{}, pageParsers),
	}
	f.proxyFor = httpproxy.FromEnvironment().ProxyFunc()
	transport := &http.Transport{
		Proxy:               f.proxy,
		DialContext:         f.dial,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     30 * time.Second,
	}
	f.client = &http.Client{Transport: transport, CheckRedirect: f.checkRedirect}
	f.plain = &http.Client{Transport: transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > f.MaxRedirects {
			return errTooManyRedirects
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return errNotHTTP
		}
		return nil
	}}
	return f
}

// Settings names the settings that change which pages are read, for
// caches.
func (f *PageFetcher) Settings() string {
	agent := version.Name // what robots.txt rules name; the version does not matter
	if f.UserAgent != "" {
		agent = f.UserAgent
	}
	return fmt.Sprintf("pages(chars=%d,bytes=%d,redirects=%d,private=%t,agent=%s)", f.MaxChars, f.MaxBytes, f.MaxRedirects, f.AllowPrivate, agent)
}

// Stats returns what the fetcher did so far.
func (f *PageFetcher) Stats() PageStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := PageStats{Fetched: f.stats.Fetched, Downloads: f.stats.Downloads, Fallbacks: make(map[PageFailure]int, len(f.stats.Fallbacks))}
	for r, n := range f.stats.Fallbacks {
		s.Fallbacks[r] = n
	}
	return s
}

func (f *PageFetcher) count(err *PageError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		f.stats.Fetched++
		return
	}
	if f.stats.Fallbacks == nil {
		f.stats.Fallbacks = make(map[PageFailure]int)
	}
	f.stats.Fallbacks[err.Reason]++
}

func (f *PageFetcher) userAgent() string {
	if f.UserAgent == "" {
		return DefaultUserAgent()
	}
	return f.UserAgent
}

var (
	errTooManyRedirects = errors.New("stopped after too many redirects")
	errNotHTTP          = errors.New("only http and https are fetched")
)

// robotsDisallowed is the error of a redirect to a disallowed page.
type robotsDisallowed struct{ err *PageError }

func (e *robotsDisallowed) Error() string { return e.err.Error() }

// dialTimeout bounds the connection to a host or proxy.
const dialTimeout = 10 * time.Second

// The guard: every connection the fetcher makes, for a page, a redirect or
// a robots.txt file, goes through the transport's Proxy (proxy) and then
// its DialContext (dial). A direct connection is checked by the dialer at
// connect time, on the address it connects to after name resolution, so
// that a name that resolves to a private address is caught whatever it
// resolved to before. A connection to a proxy is to the proxy's own
// address, which is allowed: there the request's target host is resolved
// and checked by proxy, before the request is sent.

// proxy is the transport's Proxy function: the environment's proxy for
// the request (read when the fetcher was made), after checking the
// request's target when the dialer will not see it.
func (f *PageFetcher) proxy(req *http.Request) (*url.URL, error) {
	p, err := f.proxyFor(req.URL)
	if err != nil {
		return nil, err
	}
	if p != nil {
		f.mu.Lock()
		if f.proxies == nil {
			f.proxies = make(map[string]bool)
		}
		f.proxies[hostPort(p)] = true
		f.mu.Unlock()
	}
	// A direct request to the proxy's own address is dialled unchecked
	// (dial cannot tell it from the proxy), so it is checked here too.
	if p != nil || f.isProxy(hostPort(req.URL)) {
		if err := f.checkHost(req.Context(), req.URL.Hostname()); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// isProxy reports whether addr (host:port) is the address of a proxy the
// fetcher has used.
func (f *PageFetcher) isProxy(addr string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.proxies[addr]
}

// hostPort is u's host and port as the transport dials it, the scheme's
// port when u names none.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// dial connects to addr: a proxy as it is, anything else only when the
// address it resolves to passes the guard (checked at connect time, the
// dialer's Control).
func (f *PageFetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: dialTimeout}
	if !f.isProxy(addr) {
		d.Control = f.checkAddress
	}
	return d.DialContext(ctx, network, addr)
}

// checkAddress refuses a connection to an address that is not public
// (netguard) unless AllowPrivate.
func (f *PageFetcher) checkAddress(network, address string, _ syscall.RawConn) error {
	if f.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	return netguard.Check(ap.Addr())
}

// checkHost resolves host and refuses it, unless AllowPrivate, when one of
// its addresses is not public: the target of a request through a proxy,
// which the proxy, not the dialer, connects to. A name that does not
// resolve here is refused too: it cannot be checked.
func (f *PageFetcher) checkHost(ctx context.Context, host string) error {
	if f.AllowPrivate {
		return nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return netguard.Check(a)
	}
	addrs, err := f.resolver().LookupNetIP(ctx, "ip", host)
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if err := netguard.Check(a); err != nil {
			return err
		}
	}
	return nil
}

func (f *PageFetcher) resolver() *net.Resolver {
	if f.Resolver != nil {
		return f.Resolver
	}
	return net.DefaultResolver
}

// checkRedirect bounds the redirects of a page and checks each target
// against its robots.txt.
func (f *PageFetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.MaxRedirects {
		return errTooManyRedirects
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return errNotHTTP
	}
	if perr := f.robotsAllow(req.Context(), req.URL); perr != nil {
		return &robotsDisallowed{perr}
	}
	return nil
}

// Text fetches the page at link and returns its main text, cut to MaxChars
// characters around the passage that best matches query. The error is a
// *PageError, or ctx's error when ctx ended.
func (f *PageFetcher) Text(ctx context.Context, link, query string) (string, error) {
	text, perr := f.text(ctx, link, query)
	if perr != nil && perr.Reason == FailTimeout && ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "", ctx.Err() // stopped by the caller, not a slow page
	}
	f.count(perr)
	if perr != nil {
		return "", perr
	}
	return text, nil
}

func (f *PageFetcher) text(ctx context.Context, link, query string) (string, *PageError) {
	text, shared, perr := f.store.get(ctx, link, func() (string, *PageError) {
		events := pageEventsFrom(ctx)
		if events != nil {
			events(PageEvent{Link: redact.URL(link)})
		}
		text, perr := f.fetch(ctx, link)
		if events != nil {
			events(PageEvent{Link: redact.URL(link), Done: true, Failed: perr != nil})
		}
		return text, perr
	})
	if !shared && !(perr != nil && ctx.Err() != nil) {
		f.mu.Lock()
		f.stats.Downloads++
		f.mu.Unlock()
	}
	if perr != nil {
		return "", perr
	}
	return Excerpt(text, query, f.MaxChars), nil
}

// Close removes what the fetcher kept of the run's pages on disk.
func (f *PageFetcher) Close() error { return f.store.close() }

// fetch fetches a page and returns its whole main text.
func (f *PageFetcher) fetch(ctx context.Context, link string) (string, *PageError) {
	shown := redact.URL(link)
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", &PageError{URL: shown, Reason: FailURL}
	}
	ctx, cancel := context.WithTimeout(ctx, f.Timeout)
	defer cancel()
	if perr := f.robotsAllow(ctx, u); perr != nil {
		return "", perr
	}
	pg, err := retry.Do(ctx, f.Retry, func(int) (*page, error) { return f.attempt(ctx, u, shown) })
	if err != nil {
		var perr *PageError
		switch {
		case ctx.Err() != nil:
			return "", &PageError{URL: shown, Reason: FailTimeout, Err: fmt.Errorf("after %v", f.Timeout), Temporary: true}
		case errors.As(err, &perr):
			return "", perr
		}
		return "", &PageError{URL: shown, Reason: FailNetwork, Err: err, Temporary: true}
	}
	select {
	case f.parsing <- struct{}{}:
	case <-ctx.Done():
		return "", &PageError{URL: shown, Reason: FailTimeout, Err: errors.New("waiting to parse the page"), Temporary: true}
	}
	defer func() { <-f.parsing }()
	return f.extract(pg, shown)
}

// page is a fetched body with its media type.
type page struct {
	body      []byte
	mediaType string // text/html or text/plain
	params    map[string]string
	url       *url.URL // after redirects
}

// attempt makes one request for the page; its error is marked for the
// retry policy and wraps a *PageError.
func (f *PageFetcher) attempt(ctx context.Context, u *url.URL, shown string) (*page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, retry.Permanent(&PageError{URL: shown, Reason: FailURL, Err: err})
	}
	req.Header.Set("User-Agent", f.userAgent())
	req.Header.Set("Accept", "text/html, text/plain;q=0.9")
	resp, err := f.client.Do(req)
	if err != nil {
		var (
			rd *robotsDisallowed
			ge *netguard.Error
		)
		switch {
		case errors.As(err, &rd):
			why := fmt.Errorf("redirected to %s", rd.err.URL)
			if errors.As(rd.err, &ge) {
				why = fmt.Errorf("redirected to %s: %w", rd.err.URL, ge)
			}
			return nil, retry.Permanent(&PageError{URL: shown, Reason: rd.err.Reason, Err: why, Temporary: rd.err.Temporary})
		case errors.Is(err, errTooManyRedirects):
			return nil, retry.Permanent(&PageError{URL: shown, Reason: FailRedirects, Err: fmt.Errorf("more than %d", f.MaxRedirects)})
		case errors.As(err, &ge):
			return nil, retry.Permanent(&PageError{URL: shown, Reason: FailAddress, Err: ge})
		case errors.Is(err, errNotHTTP):
			return nil, retry.Permanent(&PageError{URL: shown, Reason: FailURL, Err: errors.New("redirected away from http(s)")})
		}
		return nil, &PageError{URL: shown, Reason: FailNetwork, Err: netError("", err), Temporary: true}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		perr := &PageError{URL: shown, Reason: FailStatus, Err: errors.New(resp.Status), Temporary: retry.RetryableStatus(resp.StatusCode)}
		return nil, retry.ForStatus(perr, resp)
	}
	declared, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if declared != "" && declared != "text/html" && declared != "text/plain" {
		return nil, retry.Permanent(&PageError{URL: shown, Reason: FailType, Err: fmt.Errorf("content type %s", declared)})
	}
	if resp.ContentLength > f.MaxBytes {
		return nil, retry.Permanent(&PageError{URL: shown, Reason: FailSize, Err: fmt.Errorf("%d bytes, more than %d", resp.ContentLength, f.MaxBytes)})
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &PageError{URL: shown, Reason: FailNetwork, Err: netError("reading the body", err), Temporary: true}
	}
	if int64(len(body)) > f.MaxBytes {
		return nil, retry.Permanent(&PageError{URL: shown, Reason: FailSize, Err: fmt.Errorf("more than %d bytes", f.MaxBytes)})
	}
	// What the bytes are, whatever the header says: a PDF or an image
	// served as text/html is not text.
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	if !strings.HasPrefix(sniffed, "text/") {
		what := "content type " + sniffed
		if declared != "" {
			what = "declared " + declared + " but the content is " + sniffed
		}
		return nil, retry.Permanent(&PageError{URL: shown, Reason: FailType, Err: errors.New(what)})
	}
	if declared == "" {
		declared = sniffed
		if declared != "text/html" && declared != "text/plain" {
			return nil, retry.Permanent(&PageError{URL: shown, Reason: FailType, Err: fmt.Errorf("content type %s", declared)})
		}
	}
	return &page{body: body, mediaType: declared, params: params, url: resp.Request.URL}, nil
}

// extract returns a page's main text.
func (f *PageFetcher) extract(pg *page, shown string) (text string, perr *PageError) {
	defer func() {
		// Hostile markup must not end the run.
		if r := recover(); r != nil {
			text, perr = "", &PageError{URL: shown, Reason: FailNoText, Err: fmt.Errorf("the HTML could not be parsed: %v", r)}
		}
	}()
	switch pg.mediaType {
	case "text/html":
		// The parser builds the whole document before it counts its
		// elements: count them first, on the bytes.
		if n := htmlElements(pg.body, maxPageElements); n > maxPageElements {
			return "", &PageError{URL: shown, Reason: FailSize, Err: fmt.Errorf("more than %d HTML elements", maxPageElements)}
		}
		p := readability.NewParser()
		p.MaxElemsToParse = maxPageElements
		article, err := p.Parse(bytes.NewReader(pg.body), pg.url)
		if err != nil {
			return "", &PageError{URL: shown, Reason: FailNoText, Err: err}
		}
		if article.Node == nil {
			return "", &PageError{URL: shown, Reason: FailNoText}
		}
		var b strings.Builder
		if err := article.RenderText(&b); err != nil {
			return "", &PageError{URL: shown, Reason: FailNoText, Err: err}
		}
		text = b.String()
	default:
		r, err := charset.NewReader(bytes.NewReader(pg.body), mime.FormatMediaType(pg.mediaType, pg.params))
		if err != nil {
			return "", &PageError{URL: shown, Reason: FailType, Err: err}
		}
		data, err := io.ReadAll(r)
		if err != nil {
			return "", &PageError{URL: shown, Reason: FailType, Err: err}
		}
		text = string(data)
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	if strings.TrimSpace(text) == "" {
		return "", &PageError{URL: shown, Reason: FailNoText}
	}
	// Text decoded with the wrong charset, or bytes that are not text
	// after all, shows as replacement characters (FactReasoner's limit:
	// more than 10%).
	if bad := strings.Count(text, "\uFFFD"); bad*10 > utf8.RuneCountInString(text) {
		return "", &PageError{URL: shown, Reason: FailType, Err: errors.New("the text is garbled (undecodable bytes)")}
	}
	return text, nil
}

// htmlElements counts the elements of an HTML document, up to limit+1,
// with a tokenizer that holds one token at a time.
func htmlElements(body []byte, limit int) int {
	z := html.NewTokenizer(bytes.NewReader(body))
	n := 0
	for n <= limit {
		switch z.Next() {
		case html.ErrorToken:
			return n
		case html.StartTagToken, html.SelfClosingTagToken:
			n++
		}
	}
	return n
}

// robotsAllow reports, as a *PageError, whether the host's robots.txt
// keeps the fetcher from u; nil means allowed. The file is fetched once
// per host and remembered (a failure that may pass is not remembered).
func (f *PageFetcher) robotsAllow(ctx context.Context, u *url.URL) *PageError {
	key := u.Scheme + "://" + u.Host
	f.mu.Lock()
	e, ok := f.robots[key]
	if !ok {
		e = &robotsEntry{ready: make(chan struct{})}
		f.robots[key] = e
		f.robotsOrder = append(f.robotsOrder, key)
		if len(f.robotsOrder) > robotsMemory {
			delete(f.robots, f.robotsOrder[0])
			f.robotsOrder = f.robotsOrder[1:]
		}
	}
	f.mu.Unlock()
	if !ok {
		e.data, e.err = f.fetchRobots(ctx, key)
		close(e.ready)
		if e.err != nil && e.err.Temporary {
			f.mu.Lock()
			if f.robots[key] == e {
				delete(f.robots, key)
			}
			f.mu.Unlock()
		}
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return &PageError{URL: redact.URL(u.String()), Reason: FailTimeout, Err: errors.New("waiting for robots.txt"), Temporary: true}
	}
	if e.err != nil {
		return &PageError{URL: redact.URL(u.String()), Reason: e.err.Reason, Err: e.err, Temporary: e.err.Temporary}
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	if !e.data.TestAgent(robotsPath(path), version.Name) {
		return &PageError{URL: redact.URL(u.String()), Reason: FailRobots}
	}
	return nil
}

// fetchRobots reads a host's robots.txt as Google does: a 4xx answer
// means no rules, a 5xx answer (after the retries) means nothing may be
// fetched for now.
func (f *PageFetcher) fetchRobots(ctx context.Context, origin string) (*robotstxt.RobotsData, *PageError) {
	link := origin + "/robots.txt"
	shown := redact.URL(link)
	type answer struct {
		status int
		body   []byte
	}
	var ge *netguard.Error
	ans, err := retry.Do(ctx, f.Retry, func(int) (answer, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
		if err != nil {
			return answer{}, retry.Permanent(err)
		}
		req.Header.Set("User-Agent", f.userAgent())
		resp, err := f.plain.Do(req)
		if errors.Is(err, errTooManyRedirects) || errors.Is(err, errNotHTTP) || errors.As(err, new(*netguard.Error)) {
			return answer{}, retry.Permanent(err)
		}
		if err != nil {
			return answer{}, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBytes))
		if err != nil {
			return answer{}, err
		}
		if retry.RetryableStatus(resp.StatusCode) {
			return answer{status: resp.StatusCode}, retry.ForStatus(fmt.Errorf("%s: %s", shown, resp.Status), resp)
		}
		return answer{status: resp.StatusCode, body: body}, nil
	})
	switch {
	case err == nil:
	case ans.status != 0 && !errors.Is(err, errTooManyRedirects): // 429 or 5xx to the end: nothing for now
		return nil, &PageError{URL: shown, Reason: FailRobots, Err: err, Temporary: true}
	case ctx.Err() != nil:
		return nil, &PageError{URL: shown, Reason: FailTimeout, Err: errors.New("reading robots.txt"), Temporary: true}
	case errors.As(err, &ge):
		return nil, &PageError{URL: shown, Reason: FailAddress, Err: ge}
	case errors.Is(err, errTooManyRedirects):
		ans.body = nil // as Google: no robots.txt after five redirects means no rules
	case errors.Is(err, errNotHTTP):
		// A redirect away from http(s) (file://): the rules cannot be
		// read, nor will they be by asking again; nothing of the host
		// is fetched.
		return nil, &PageError{URL: shown, Reason: FailRobots, Err: errors.New("robots.txt redirected away from http(s)")}
	default:
		return nil, &PageError{URL: shown, Reason: FailNetwork, Err: netError("robots.txt", err), Temporary: true}
	}
	if ans.status < 200 || ans.status > 299 {
		ans.body = nil // 4xx: no rules
	}
	data, perr := robotstxt.FromBytes(robotsRules(ans.body))
	if perr != nil {
		// A file that cannot be read grants nothing.
		return nil, &PageError{URL: shown, Reason: FailRobots, Err: fmt.Errorf("unreadable: %v", perr)}
	}
	return data, nil
}
