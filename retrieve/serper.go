package retrieve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// Serper defaults.
const (
	DefaultSerperEndpoint = "https://google.serper.dev/search"
	// SerperKeyEnv is the environment variable that holds the Serper API
	// key, as FactReasoner and Serper's other clients read it.
	SerperKeyEnv = "SERPER_API_KEY"
	// maxWebQueryChars is how much of a query goes to a web search engine,
	// as FactReasoner cuts its Google queries (2,048 characters).
	maxWebQueryChars = 2048
	// maxSearchAnswerBytes bounds a search engine's answer.
	maxSearchAnswerBytes = 16 << 20
)

// ErrNoSerperKey is returned by NewSerper without an API key.
var ErrNoSerperKey = errors.New("no Serper API key: set " + SerperKeyEnv + " (a key comes with an account at https://serper.dev)")

// Serper retrieves Google results through the Serper API, as FactReasoner's
// google retriever does: it POSTs {"q": query, "num": k} to the endpoint
// with the key in the X-API-KEY header, and makes each of the first k
// organic results a passage with its title, link and snippet (and no text:
// FetchPages adds the page's text). The query is the atom, or the topic and
// the atom (Query), cut to 2,048 characters; a query with quotes that finds
// nothing is asked again without them, as FactReasoner relaxes it.
//
// Failures are repeated as the retry policy says (429 and 5xx answers,
// network errors). A refused key (401, 403) or a spent quota stops with an
// error that says so; the key never appears in a message.
//
// Create one with NewSerper and adjust the fields before first use.
type Serper struct {
	Endpoint string
	// Query says how the query is formed (QueryAtom by default).
	Query QueryMode
	// Retry is how failed requests are repeated; nil is retry.Default().
	Retry  *retry.Policy
	Client *http.Client

	key        string
	searches   atomic.Int64
	linkFilter // drops links that are not http(s); DroppedLinks counts them
}

// NewSerper returns a Serper client for the endpoint ("" for
// DefaultSerperEndpoint) with the API key; an empty key gives
// ErrNoSerperKey.
func NewSerper(endpoint, apiKey string) (*Serper, error) {
	if strings.TrimSpace(apiKey) == "" {
		return nil, ErrNoSerperKey
	}
	if endpoint == "" {
		endpoint = DefaultSerperEndpoint
	}
	if err := checkHTTPURL(endpoint); err != nil {
		return nil, fmt.Errorf("serper endpoint %s: %w", redact.URL(endpoint), err)
	}
	return &Serper{
		Endpoint: endpoint,
		Client:   &http.Client{Timeout: 60 * time.Second},
		key:      strings.TrimSpace(apiKey),
	}, nil
}

// Identify says what the source is: the Serper API at its endpoint's
// host, and the query.
func (s *Serper) Identify() string {
	return fmt.Sprintf("serper[host=%s,query=%s]", hostOf(s.Endpoint), s.Query)
}

// Source names the source and its settings for caches.
func (s *Serper) Source() string {
	return fmt.Sprintf("serper:%s:query=%s", s.Endpoint, s.Query)
}

// Searches is the number of searches answered so far (each costs a
// credit).
func (s *Serper) Searches() int { return int(s.searches.Load()) }

// Retrieve searches Google for the atom and returns up to k results,
// best first, as snippet passages.
func (s *Serper) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	q := s.Query.query(topic, atom, maxWebQueryChars)
	if q == "" || k <= 0 {
		return nil, nil
	}
	hits, err := s.search(ctx, q, k)
	if err == nil && len(hits) == 0 && strings.Contains(q, `"`) {
		hits, err = s.search(ctx, strings.ReplaceAll(q, `"`, ""), k)
	}
	if err != nil {
		return nil, err
	}
	var out []Passage
	for _, h := range hits {
		if len(out) == k {
			break
		}
		out = append(out, Passage{Title: h.Title, Snippet: h.Snippet, Link: s.keep(h.Link), Source: "serper"})
	}
	return out, nil
}

type serperHit struct {
	Title   string `json:"title"`
	Link    string `json:"link"`
	Snippet string `json:"snippet"`
}

// serperAnswer is Serper's answer: the organic results, or on failure a
// message and the status (also in a 200 answer, which FactReasoner checks).
type serperAnswer struct {
	Organic    []serperHit `json:"organic"`
	Message    string      `json:"message"`
	StatusCode int         `json:"statusCode"`
}

func (s *Serper) search(ctx context.Context, q string, k int) ([]serperHit, error) {
	body, err := json.Marshal(map[string]any{"q": q, "num": k})
	if err != nil {
		return nil, err
	}
	hits, err := retry.Do(ctx, s.Retry, func(int) ([]serperHit, error) {
		return s.attempt(ctx, body)
	})
	if err != nil {
		return nil, fmt.Errorf("serper search %q: %w", abbreviate(q), err)
	}
	s.searches.Add(1)
	return hits, nil
}

func (s *Serper) attempt(ctx context.Context, body []byte) ([]serperHit, error) {
	shown := redact.URL(s.Endpoint)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.Endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, retry.Permanent(fmt.Errorf("%s: %w", shown, err))
	}
	req.Header.Set("X-API-KEY", s.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", version.UserAgent())
	resp, err := s.Retry.Send(s.Client, req)
	if err != nil {
		return nil, netError(shown, err, s.key)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchAnswerBytes+1))
	if err != nil {
		return nil, netError(shown+": reading the answer", err, s.key)
	}
	if len(data) > maxSearchAnswerBytes {
		return nil, retry.Permanent(fmt.Errorf("%s: %s: the answer is longer than %d bytes, the most a search answer may take", shown, resp.Status, maxSearchAnswerBytes))
	}
	var ans serperAnswer
	jsonErr := json.Unmarshal(data, &ans)
	status := resp.StatusCode
	if status == http.StatusOK && ans.StatusCode != 0 && ans.StatusCode != http.StatusOK {
		status = ans.StatusCode // an error reported in a 200
	}
	if status != http.StatusOK {
		msg := ans.Message
		if jsonErr != nil || msg == "" {
			msg = abbreviate(string(data))
		}
		e := &SerperError{Endpoint: shown, Status: status, Message: s.redact(msg)}
		if retry.RetryableStatus(status) {
			return nil, retry.After(e, retry.ServerWait(resp.Header, time.Now()))
		}
		return nil, retry.Permanent(e)
	}
	if jsonErr != nil {
		return nil, retry.Permanent(fmt.Errorf("%s: the answer is not Serper's JSON: %v (%s)", shown, jsonErr, s.redact(abbreviate(string(data)))))
	}
	return ans.Organic, nil
}

func (s *Serper) redact(msg string) string { return redact.String(msg, s.key) }

// SerperError is an error answer of the Serper API.
type SerperError struct {
	Endpoint string
	Status   int
	Message  string // the API's message, without the key
}

func (e *SerperError) Error() string {
	msg := fmt.Sprintf("%s: HTTP %d %s", e.Endpoint, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += " (" + e.Message + ")"
	}
	quota := strings.Contains(strings.ToLower(e.Message), "credit") || strings.Contains(strings.ToLower(e.Message), "quota")
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		msg += ": the API key was refused; check " + SerperKeyEnv + ", and that the account has credits left (its quota) at https://serper.dev"
	case e.Status == http.StatusTooManyRequests:
		msg += ": too many requests, or the account's quota (credits) is used up; see https://serper.dev"
	case quota:
		msg += ": the account's quota (credits) is used up; see https://serper.dev"
	}
	return msg
}

// netError is the error of a request that got no answer: "shown: err",
// without the *url.Error wrapper (which repeats the URL, query and all) and
// with secrets removed from the message. It still wraps err, so that the
// retry policy tells TLS certificate errors from passing failures.
func netError(shown string, err error, secrets ...string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return redact.Wrap(shown, err, secrets...)
}

// checkHTTPURL checks that raw is an absolute http or https URL.
func checkHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("want an http or https URL")
	}
	if u.Host == "" {
		return fmt.Errorf("no host")
	}
	return nil
}
