package retrieve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/retry"
)

// SearXNG retrieves web results from a SearXNG metasearch instance (free,
// self-hosted, no API key) through its JSON API: GET /search?q=…&format=json.
// Each of the first k results becomes a passage with its title, URL (the
// link) and content (the snippet), and no text (FetchPages adds the page's
// text). The query is formed as for Serper.
//
// An instance answers JSON only when its settings.yml lists json under
// search.formats; otherwise it answers 403, and the error says how to
// enable it. An empty answer while some of the instance's engines failed
// is an error (asked again as the retry policy says), not "no results".
//
// Create one with NewSearXNG and adjust the fields before first use.
type SearXNG struct {
	// Endpoint is the instance's /search URL.
	Endpoint string
	Query    QueryMode
	Retry    *retry.Policy
	Client   *http.Client

	searches   atomic.Int64
	linkFilter // drops links that are not http(s); DroppedLinks counts them
}

// NewSearXNG returns a client for the instance at base, its root URL (as
// http://localhost:8888) or its /search URL.
func NewSearXNG(base string) (*SearXNG, error) {
	if strings.TrimSpace(base) == "" {
		return nil, fmt.Errorf("no SearXNG URL (give the instance's address, as http://localhost:8888)")
	}
	if err := checkHTTPURL(base); err != nil {
		return nil, fmt.Errorf("SearXNG URL %s: %w", redact.URL(base), err)
	}
	u, _ := url.Parse(base)
	u.RawQuery, u.Fragment = "", ""
	if !strings.HasSuffix(u.Path, "/search") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/search"
	}
	return &SearXNG{Endpoint: u.String(), Client: &http.Client{Timeout: 60 * time.Second}}, nil
}

// Identify says what the source is: a SearXNG instance by its host, and
// the query.
func (s *SearXNG) Identify() string {
	return fmt.Sprintf("searxng[host=%s,query=%s]", hostOf(s.Endpoint), s.Query)
}

// Source names the source and its settings for caches.
func (s *SearXNG) Source() string {
	return fmt.Sprintf("searxng:%s:query=%s", s.Endpoint, s.Query)
}

// Searches is the number of searches answered so far.
func (s *SearXNG) Searches() int { return int(s.searches.Load()) }

type searxngAnswer struct {
	Results []struct {
		URL     string `json:"url"`
		Title   string `json:"title"`
		Content string `json:"content"`
	} `json:"results"`
	// Each is [engine, reason].
	Unresponsive [][]string `json:"unresponsive_engines"`
}

// Retrieve searches for the atom and returns up to k results, in the
// instance's order.
func (s *SearXNG) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	q := s.Query.query(topic, atom, maxWebQueryChars)
	if q == "" || k <= 0 {
		return nil, nil
	}
	u, err := url.Parse(s.Endpoint)
	if err != nil {
		return nil, err
	}
	u.RawQuery = url.Values{"q": {q}, "format": {"json"}}.Encode()
	ans, err := retry.Do(ctx, s.Retry, func(int) (*searxngAnswer, error) {
		return s.attempt(ctx, u.String())
	})
	if err != nil {
		return nil, fmt.Errorf("searxng search %q: %w", abbreviate(q), err)
	}
	s.searches.Add(1)
	var out []Passage
	for _, r := range ans.Results {
		if len(out) == k {
			break
		}
		out = append(out, Passage{Title: r.Title, Snippet: r.Content, Link: s.keep(r.URL), Source: "searxng"})
	}
	return out, nil
}

func (s *SearXNG) attempt(ctx context.Context, u string) (*searxngAnswer, error) {
	shown := redact.URL(s.Endpoint)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, retry.Permanent(fmt.Errorf("%s: %w", shown, err))
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", version.UserAgent())
	resp, err := s.Retry.Send(s.Client, req)
	if err != nil {
		return nil, netError(shown, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchAnswerBytes+1))
	if err != nil {
		return nil, netError(shown+": reading the answer", err)
	}
	if len(data) > maxSearchAnswerBytes {
		return nil, retry.Permanent(fmt.Errorf("%s: %s: the answer is longer than %d bytes, the most a search answer may take", shown, resp.Status, maxSearchAnswerBytes))
	}
	switch {
	case resp.StatusCode == http.StatusForbidden:
		return nil, retry.Permanent(fmt.Errorf("%s: HTTP 403 Forbidden: the instance does not serve JSON; "+
			"add json to search.formats in its settings.yml (under search:, formats: [html, json]) and restart it", shown))
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, retry.ForStatus(fmt.Errorf("%s: HTTP 429 Too Many Requests: the instance's limiter refused the request "+
			"(on your own instance, set server.limiter: false in settings.yml, or list this address under pass_ip in limiter.toml)", shown), resp)
	case resp.StatusCode != http.StatusOK:
		return nil, retry.ForStatus(fmt.Errorf("%s: HTTP %s: %s", shown, resp.Status, redact.String(abbreviate(string(data)))), resp)
	}
	var ans searxngAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, retry.Permanent(fmt.Errorf("%s: the answer is not SearXNG's JSON (is this a SearXNG instance?): %v (%s)", shown, err, redact.String(abbreviate(string(data)))))
	}
	if len(ans.Results) == 0 && len(ans.Unresponsive) > 0 {
		var failed []string
		for _, e := range ans.Unresponsive {
			failed = append(failed, strings.Join(e, ": "))
		}
		return nil, fmt.Errorf("%s: no results, and engines failed (%s)", shown, strings.Join(failed, "; "))
	}
	return &ans, nil
}
