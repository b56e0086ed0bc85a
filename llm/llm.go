// Package llm is a client for OpenAI-compatible chat-completion endpoints
// (OpenAI, vLLM, Ollama, llama.cpp's server and others) as FactReasoner's
// LLM stages use them: deterministic requests (temperature 0, a fixed seed),
// token log probabilities on request, a limit on requests in flight, retries
// with backoff on rate limits, server errors and timeouts, a persistent
// SQLite cache of answers so that a rerun costs nothing, and counters of the
// tokens used.
package llm

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/endpoint"
	"github.com/factreasoner/factreasoner-go/internal/parallel"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/retry"
)

// DefaultBaseURL is OpenAI's API, the base URL OpenAI's own clients use
// when OPENAI_BASE_URL is not set.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config describes an endpoint and how to talk to it. Zero values of the
// optional fields take the defaults named in their comments.
type Config struct {
	// BaseURL is the API root including its version path, as OpenAI's
	// clients take it in OPENAI_BASE_URL: https://api.openai.com/v1,
	// http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama).
	// Requests go to BaseURL's path + "/chat/completions", its query kept
	// (Azure OpenAI's ?api-version=). Default DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token when non-empty.
	APIKey string
	// Model is the model name at the endpoint. Required.
	Model string
	// Seed is sent with every request; with temperature 0 it makes the
	// answers as reproducible as the server allows.
	Seed int
	// Concurrency is the most requests in flight at once. Default 4.
	Concurrency int
	// Timeout bounds each attempt of a request. Default 2 minutes.
	Timeout time.Duration
	// Retry is how failed attempts are repeated: a rate limit (429), a
	// server error (5xx), a timeout or a network error is, after the
	// policy's back-off or the server's Retry-After / retry-after-ms;
	// other errors are not. Nil is retry.Default(). Share one policy
	// between the clients of a run: its Notify is then called by one of
	// them at a time.
	Retry *retry.Policy
	// CachePath is a SQLite file holding answers from earlier runs (a
	// sqlcache file of kind llm: any other file is refused untouched);
	// empty means no cache. sqlcache.Resolve turns a FILE|auto|off
	// setting into it.
	CachePath string
	// HTTPClient sends the requests; default http.DefaultClient.
	HTTPClient *http.Client
	// Reasks is how many times an answer that its request's Read refuses
	// is asked again, with the request's Reminder. Zero means never.
	Reasks int
	// MaxAnswerBytes bounds the body of one answer; a longer one is an
	// error, not read past the bound. Default DefaultMaxAnswerBytes.
	MaxAnswerBytes int64
	// Secrets are the other secrets the program holds (a search API key,
	// a hub token), besides APIKey. An answer that quotes one of them, or
	// APIKey, whole or PartLen bytes of it in a row (a model may repeat
	// what a prompt or a server slipped it), is never returned or cached:
	// it is unreadable, asked again as Read's refusals are, and then an
	// *UnreadableAnswerError, whose message shows none of them.
	Secrets []string
}

// DefaultMaxAnswerBytes bounds an answer's body: a completion of
// thousands of tokens with their log probabilities takes a few hundred
// kilobytes. An answer in flight takes at most about six times its body
// at the peak: the body, its text and tokens decoded (about twice the
// body for an answer made of log probabilities), and the garbage
// collector's headroom (BENCHMARKS.md, "Caps on the stream").
const DefaultMaxAnswerBytes = 8 << 20

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

// Request is one chat completion to ask for.
type Request struct {
	Messages []Message
	// MaxTokens bounds the answer's length; 0 leaves it to the server.
	MaxTokens int
	// Logprobs asks for the log probability of each answer token.
	Logprobs bool
	// Temperature is the sampling temperature: 0, the default, decodes
	// greedily (FactReasoner's setting); above 0 the answers are samples
	// of the model's distribution (Sample).
	Temperature float64
	// N asks for N answers to the one request (the response's Choices),
	// where the server honours it; 0 or 1 asks for one.
	N int
	// Seed, when not nil, is sent instead of the client's seed: requests
	// with distinct seeds draw distinct samples.
	Seed *int

	// Read, when set, tells a readable answer from one that is not: it
	// returns an error saying why the answer cannot be read. An answer
	// Read refuses is never cached and never returned. It is asked again,
	// up to the client's Reasks times, as the same conversation going on
	// with the refused answer and Reminder as the next user message; when
	// the last answer is still refused, Complete returns an
	// *UnreadableAnswerError. An answer read after a reminder is cached
	// under this request, the one first asked, so that a rerun gets it at
	// once. A cached answer Read refuses (one cached before Read existed,
	// say) is asked for afresh. Read may be called from several goroutines
	// at once.
	Read func(*Response) error
	// Reminder is the user message that asks again: a short reminder of
	// the format the answer must have.
	Reminder string
	// Stage and Item name the request in an UnreadableAnswerError: the
	// stage that asks ("nli", "atomizer") and what about ("pair c0 → a1").
	// They are not sent.
	Stage, Item string
}

// Response is a model's answer.
type Response struct {
	// Content, Tokens and FinishReason are the first answer's; Choices
	// holds every answer of a request that asked for several (Request.N),
	// the first included, each as a Response of its own.
	Content string
	// Tokens are the answer's tokens with their log probabilities; nil
	// when they were not asked for or the server did not return them.
	Tokens       []Token
	FinishReason string // "stop", "length", ...
	Usage        TokenUsage
	// Cached reports that the answer came from the cache, not the server.
	Cached bool
	// Reasks is how many times the answer was asked again, with the
	// request's Reminder, before Read accepted it.
	Reasks  int
	Choices []*Response
}

// Token is one generated token.
type Token struct {
	// Text is the token as the server printed it; Bytes are its raw bytes
	// (a token may hold part of a multi-byte character, which Text cannot
	// show). Bytes is Text's bytes when the server gave none.
	Text  string
	Bytes []byte
	// Logprob is the natural log of the token's probability, NaN when the
	// server gave none for this token.
	Logprob float64
}

// TokenUsage is what the server reported for one answer.
type TokenUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Usage counts a client's work since it was made.
type Usage struct {
	Calls            int64 // answers returned
	CacheHits        int64 // answers served from the cache
	Requests         int64 // HTTP requests sent, retries included
	Retries          int64 // requests that repeated a failed one
	Reasks           int64 // requests that asked again for an unreadable answer
	PromptTokens     int64 // as reported by the server, cache hits excluded
	CompletionTokens int64
}

func (u Usage) String() string {
	return fmt.Sprintf("%d answers (%d from cache), %d requests (%d retries, %d re-asks), %d prompt + %d completion tokens",
		u.Calls, u.CacheHits, u.Requests, u.Retries, u.Reasks, u.PromptTokens, u.CompletionTokens)
}

// Client talks to one endpoint and model. It is safe for concurrent use.
type Client struct {
	endpoint string
	shown    string // endpoint as messages show it: userinfo and keys redacted
	embedURL string // the embeddings endpoint (Embed)
	basePath string
	apiKey   string
	model    string
	seed     int
	timeout  time.Duration
	retry    *retry.Policy
	http     *http.Client
	slots    chan struct{} // one token per request allowed in flight
	cache    *cache
	reasks   int
	maxBody  int64
	red      *redact.Redactor // knows apiKey and the Config's Secrets
	models   string           // BaseURL/models, which the probe asks
	// singleAnswer records that the server answers one answer a request
	// whatever Request.N asks (Sample).
	singleAnswer atomic.Bool

	probeMu sync.Mutex
	probed  bool  // the probe has an answer
	probe   error // its answer: nil, or the server that never answers

	calls, cacheHits, requests, retried, reasked, promptTokens, completionTokens atomic.Int64
}

// New returns a client for the endpoint cfg describes, opening its cache.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("llm: no model given (the model name at the endpoint, e.g. gpt-4o-mini)")
	}
	raw := strings.TrimSpace(cfg.BaseURL)
	if raw == "" {
		raw = DefaultBaseURL
	}
	base, err := endpoint.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("llm: base URL %w", err)
	}
	chat := endpoint.Join(base, "chat/completions").String()
	embeddings := endpoint.Join(base, "embeddings").String()
	models := endpoint.Join(base, "models").String()
	if cfg.Retry != nil && cfg.Retry.Retries < 0 {
		return nil, fmt.Errorf("llm: negative retry count %d", cfg.Retry.Retries)
	}
	if cfg.Reasks < 0 {
		return nil, fmt.Errorf("llm: negative re-ask count %d", cfg.Reasks)
	}
	c := &Client{
		endpoint: chat,
		shown:    redact.URL(chat),
		embedURL: embeddings,
		basePath: strings.TrimRight(base.Path, "/"),
		apiKey:   cfg.APIKey,
		model:    cfg.Model,
		seed:     cfg.Seed,
		timeout:  cfg.Timeout,
		retry:    cfg.Retry,
		http:     cfg.HTTPClient,
		reasks:   cfg.Reasks,
		maxBody:  cfg.MaxAnswerBytes,
		red:      redact.New(append([]string{cfg.APIKey}, cfg.Secrets...)...),
		models:   models,
	}
	if c.maxBody <= 0 {
		c.maxBody = DefaultMaxAnswerBytes
	}
	if c.timeout <= 0 {
		c.timeout = 2 * time.Minute
	}
	if c.retry == nil {
		c.retry = retry.Default()
	}
	if c.http == nil {
		c.http = http.DefaultClient
	}
	n := cfg.Concurrency
	if n <= 0 {
		n = 4
	}
	c.slots = make(chan struct{}, n)
	if cfg.CachePath != "" {
		ca, err := openCache(cfg.CachePath)
		if err != nil {
			return nil, &CacheError{Err: err}
		}
		c.cache = ca
	}
	return c, nil
}

// CacheError is New's error when Config.CachePath cannot be the cache: a
// file that is not an LLM cache (refused, and left as it was), or one
// that cannot be opened.
type CacheError struct{ Err error }

func (e *CacheError) Error() string { return e.Err.Error() }
func (e *CacheError) Unwrap() error { return e.Err }

// Close closes the cache.
func (c *Client) Close() error {
	if c.cache == nil {
		return nil
	}
	return c.cache.close()
}

// Model is the model name at the endpoint.
func (c *Client) Model() string { return c.model }

// Endpoint is the URL requests go to, as messages show it: without
// userinfo, key-carrying query values masked.
func (c *Client) Endpoint() string { return c.shown }

// Usage returns the counters so far.
func (c *Client) Usage() Usage {
	return Usage{
		Calls:            c.calls.Load(),
		CacheHits:        c.cacheHits.Load(),
		Requests:         c.requests.Load(),
		Retries:          c.retried.Load(),
		Reasks:           c.reasked.Load(),
		PromptTokens:     c.promptTokens.Load(),
		CompletionTokens: c.completionTokens.Load(),
	}
}

// wireRequest is the JSON body of a chat completion request. Field order is
// fixed, so equal requests encode to equal bytes, which the cache keys on.
type wireRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	Seed        int       `json:"seed"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Logprobs    bool      `json:"logprobs,omitempty"`
	N           int       `json:"n,omitempty"`
	Stream      bool      `json:"stream"`
}

// wireResponse is the part of a chat completion response we read.
type wireResponse struct {
	Choices []wireChoice `json:"choices"`
	Usage   *TokenUsage  `json:"usage"`
	Error   *apiError    `json:"error"`
}

// wireChoice is one answer of a chat completion response.
type wireChoice struct {
	Index   int `json:"index"`
	Message struct {
		Content *string `json:"content"`
	} `json:"message"`
	FinishReason string `json:"finish_reason"`
	Logprobs     *struct {
		Content []struct {
			Token   string   `json:"token"`
			Logprob *float64 `json:"logprob"`
			Bytes   byteList `json:"bytes"`
		} `json:"content"`
	} `json:"logprobs"`
}

type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
}

// Complete asks for one answer: from the cache when an equal request was
// answered before, else from the server. With req.Read set, only an answer
// Read accepts is returned and cached; see Request.Read.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	body, key, resp, err := c.cached(ctx, req)
	if err != nil || resp != nil {
		if resp != nil {
			c.calls.Add(1)
			c.cacheHits.Add(1)
		}
		return resp, err
	}
	resp, raw, err := c.fetch(ctx, body)
	if err != nil {
		return nil, err
	}
	msgs := req.Messages
	for attempt := 1; ; attempt++ {
		rerr := c.read(req, resp)
		if rerr == nil {
			resp.Reasks = attempt - 1
			break
		}
		if attempt > c.reasks {
			return nil, newUnreadable(req, resp, attempt, rerr, c.red)
		}
		reminder := req.Reminder
		if errors.Is(rerr, ErrQuotesSecret) || reminder == "" {
			reminder = secretReminder
		}
		msgs = append(msgs[:len(msgs):len(msgs)],
			Message{Role: "assistant", Content: resp.Content},
			Message{Role: "user", Content: reminder})
		again, err := c.encode(msgs, req)
		if err != nil {
			return nil, err
		}
		c.reasked.Add(1)
		if resp, raw, err = c.fetch(ctx, again); err != nil {
			return nil, err
		}
	}
	c.calls.Add(1)
	if c.cache != nil {
		if err := c.cache.put(ctx, key, c.model, body, raw); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// cached is the request's body and cache key, and its answer when the
// cache holds one that req.Read accepts (else nil). An entry that cannot
// be parsed (written by another version, say) or read is not an answer:
// it is asked again and overwritten.
func (c *Client) cached(ctx context.Context, req Request) (body []byte, key string, _ *Response, _ error) {
	body, err := c.encode(req.Messages, req)
	if err != nil {
		return nil, "", nil, err
	}
	sum := sha256.Sum256(body)
	key = hex.EncodeToString(sum[:])
	if c.cache == nil {
		return body, key, nil, nil
	}
	raw, ok, err := c.cache.get(ctx, key)
	if err != nil || !ok {
		return body, key, nil, err
	}
	if resp, err := parseResponse(raw); err == nil && c.read(req, resp) == nil {
		resp.Cached = true
		return body, key, resp, nil
	}
	return body, key, nil, nil
}

// ErrQuotesSecret is why an answer that quotes a secret the client knows
// (Config.Secrets, APIKey) is unreadable.
var ErrQuotesSecret = errors.New("it quotes a secret this program holds (an API key or token); such an answer is never kept")

// secretReminder asks again for an answer that quoted a secret.
const secretReminder = "Answer again, in the format asked for, without repeating any key, token or password."

// read is why resp is not an answer to req: it quotes a secret (in any of
// its answers, when it holds several), or req's Read refuses it; nil when
// it is.
func (c *Client) read(req Request, resp *Response) error {
	if c.quotesSecret(resp) {
		return ErrQuotesSecret
	}
	if req.Read != nil {
		return req.Read(resp)
	}
	return nil
}

// quotesSecret reports whether an answer of resp quotes a secret the
// client knows.
func (c *Client) quotesSecret(resp *Response) bool {
	if c.red.Contains(resp.Content) {
		return true
	}
	for _, ch := range resp.Choices {
		if c.red.Contains(ch.Content) {
			return true
		}
	}
	return false
}

// encode is the JSON body of a request with the given messages.
func (c *Client) encode(msgs []Message, req Request) ([]byte, error) {
	seed := c.seed
	if req.Seed != nil {
		seed = *req.Seed
	}
	n := req.N
	if n == 1 {
		n = 0 // one answer, as a request that does not ask
	}
	body, err := json.Marshal(wireRequest{
		Model:       c.model,
		Messages:    msgs,
		Temperature: req.Temperature,
		Seed:        seed,
		MaxTokens:   req.MaxTokens,
		Logprobs:    req.Logprobs,
		N:           n,
	})
	if err != nil {
		return nil, fmt.Errorf("llm: encoding request: %w", err)
	}
	return body, nil
}

// fetch sends a request body to the server and parses its answer.
func (c *Client) fetch(ctx context.Context, body []byte) (*Response, []byte, error) {
	raw, err := c.post(ctx, c.endpoint, c.shown, body)
	if err != nil {
		return nil, nil, err
	}
	resp, err := parseResponse(raw)
	if err != nil {
		// The body may echo the key: a 200 with text, or an error object.
		return nil, nil, fmt.Errorf("llm: POST %s: %s", c.shown, c.red.String(err.Error()))
	}
	c.promptTokens.Add(int64(resp.Usage.PromptTokens))
	c.completionTokens.Add(int64(resp.Usage.CompletionTokens))
	return resp, raw, nil
}

// QuoteLen is how much of an unreadable answer an UnreadableAnswerError
// keeps: its first QuoteLen characters.
const QuoteLen = 200

// UnreadableAnswerError is an answer that its request's Read refused, the
// last one after all the reminders.
type UnreadableAnswerError struct {
	Stage, Item string // from the request
	// Answer is the first QuoteLen characters of the last answer, with
	// "…" added when there were more.
	Answer string
	// Attempts is how many answers were asked for: the first and the
	// re-asks.
	Attempts int
	// FinishReason is the last answer's: "length" means it was cut off at
	// the request's token limit.
	FinishReason string
	// Err is Read's reason for refusing the last answer.
	Err error

	red *redact.Redactor // the client's: a model may quote a secret
}

func newUnreadable(req Request, resp *Response, attempts int, err error, red *redact.Redactor) *UnreadableAnswerError {
	a := resp.Content
	if r := []rune(a); len(r) > QuoteLen {
		a = string(r[:QuoteLen]) + "…"
	}
	return &UnreadableAnswerError{Stage: req.Stage, Item: req.Item, Answer: red.String(a), Attempts: attempts, FinishReason: resp.FinishReason, Err: err, red: red}
}

func (e *UnreadableAnswerError) Error() string {
	var b strings.Builder
	for _, s := range []string{e.Stage, e.Item} {
		if s != "" {
			b.WriteString(s + ": ")
		}
	}
	b.WriteString("the model's answer could not be read")
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (asked %d times)", e.Attempts)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if e.FinishReason == "length" {
		b.WriteString("; it was cut off at the token limit")
	}
	fmt.Fprintf(&b, "; the answer was %q", e.Answer)
	if e.red == nil {
		return redact.String(b.String())
	}
	return e.red.String(b.String())
}

func (e *UnreadableAnswerError) Unwrap() error { return e.Err }

// GenerateMaxTokens bounds the answers of Generate: FActScore's verifier
// needs a word or a sentence.
const GenerateMaxTokens = 128

// Generate asks for the plain answer to a single user message, at most
// GenerateMaxTokens long. It makes a Client a text generator, such as
// FActScore's verifier uses.
func (c *Client) Generate(ctx context.Context, prompt string) (string, error) {
	r, err := c.Complete(ctx, Request{Messages: []Message{{Role: "user", Content: prompt}}, MaxTokens: GenerateMaxTokens})
	if err != nil {
		return "", err
	}
	return r.Content, nil
}

// CompleteAll asks for the answers to several requests, at most the
// client's concurrency limit at a time, and returns them in the order of
// reqs. The first error stops the requests not yet sent and is returned.
func (c *Client) CompleteAll(ctx context.Context, reqs []Request) ([]*Response, error) {
	out := make([]*Response, len(reqs))
	err := c.Each(ctx, len(reqs), func(i int) Request { return reqs[i] }, func(i int, r *Response) error {
		out[i] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Each asks for n answers, the i-th to request req(i), and passes each
// answer to handle as it arrives, so that large batches need not hold every
// request and answer in memory at once. Requests are built and sent by a
// bounded number of workers, at most the concurrency limit in flight;
// req and handle are called from several goroutines at once. The first
// error, from a request or from handle, stops the work not yet started and
// is returned.
func (c *Client) Each(ctx context.Context, n int, req func(i int) Request, handle func(i int, r *Response) error) error {
	// Twice the limit: a worker waiting to retry holds no slot, and
	// another worker can use it meanwhile.
	return parallel.Do(ctx, n, 2*cap(c.slots), func(ctx context.Context, i int) error {
		r, err := c.Complete(ctx, req(i))
		if err != nil {
			return err
		}
		return handle(i, r)
	})
}

// StatusError is an HTTP error answer from the endpoint. Its fields are
// fit to print: secrets are redacted from them.
type StatusError struct {
	Endpoint   string
	StatusCode int
	Status     string // "500 Internal Server Error"
	Message    string // the server's error message, or the start of its body
	Hint       string // what the user may do about it, if anything is known
}

func (e *StatusError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm: POST %s: %s", e.Endpoint, e.Status)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

// post sends body, repeating failed attempts as the retry policy says,
// and returns the response body of the first successful attempt. The error
// after the last attempt names the endpoint, the status and the server's
// message, and how many attempts were made. One slot of the concurrency
// limit is held while an attempt is in flight, not while waiting to retry.
func (c *Client) post(ctx context.Context, url, shown string, body []byte) ([]byte, error) {
	if err := c.probeOnce(ctx); err != nil {
		return nil, err
	}
	raw, err := retry.Do(ctx, c.retry, func(attempt int) ([]byte, error) {
		if attempt > 1 {
			c.retried.Add(1)
		}
		return c.attempt(ctx, url, shown, body)
	})
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("llm: POST %s: %w", shown, ctx.Err())
	}
	return raw, err
}

// attempt sends one request. Its error is marked for the retry policy:
// permanent for what another attempt would not cure, with the server's
// requested wait for a retryable status.
func (c *Client) attempt(ctx context.Context, target, shown string, body []byte) ([]byte, error) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.slots }()

	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, retry.Permanent(fmt.Errorf("llm: %s", c.red.String(err.Error())))
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", version.UserAgent())
	if c.apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	c.requests.Add(1)
	hresp, err := c.http.Do(hreq)
	if err == nil {
		defer hresp.Body.Close()
		var raw []byte
		raw, err = readBounded(hresp, c.maxBody)
		if errors.Is(err, errTooLarge) {
			return nil, retry.Permanent(fmt.Errorf("llm: POST %s: %s: the answer is longer than %d bytes, the most an answer may take", shown, hresp.Status, c.maxBody))
		}
		if err == nil {
			if hresp.StatusCode/100 == 2 {
				return raw, nil
			}
			return nil, retry.ForStatus(c.statusError(shown, hresp, raw), hresp)
		}
	}
	if actx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		return nil, fmt.Errorf("llm: POST %s: no answer within %v (the per-request timeout)", shown, c.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // it repeats the method and URL we print anyway
	}
	return nil, redact.Wrap("llm: POST "+shown, err, c.red.Known()...)
}

// probeOnce asks the server, before the client's first request, whether
// it answers at all: a chat completion's answer starts only when the
// whole answer is made, so that a server that accepted the connection
// and never answers (a wrong port, a hung process) could not be told from
// a model that is slow before the per-request timeout, and then after
// every retry. The probe is a GET of BaseURL/models (OpenAI's, vLLM's,
// Ollama's, llama.cpp's list of models) under the retry policy's
// FirstByte: any answer, an error status included, passes; none in time
// is the error of every request. Other failures are left to the request
// itself (a refused connection says so at once). A probe stopped by ctx
// is asked again by the next request.
func (c *Client) probeOnce(ctx context.Context) error {
	wait := c.retry.FirstByteWait()
	if wait <= 0 {
		return nil
	}
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	if c.probed {
		return c.probe
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.models, nil)
	if err != nil {
		return nil // the request says what is wrong
	}
	req.Header.Set("User-Agent", version.UserAgent())
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.retry.Send(c.http, req)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c.probed = true
	switch {
	case err == nil:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
	case errors.Is(err, retry.ErrNoAnswer):
		c.probe = fmt.Errorf("llm: GET %s: %w", redact.URL(c.models), err)
	}
	return c.probe
}

var errTooLarge = errors.New("body too large")

// readBounded reads a body of at most limit bytes, or fails with
// errTooLarge without reading past limit. A body of declared length is
// read into a buffer of that size; another grows as io.ReadAll grows it
// (by a quarter at a time), not by doubling.
func readBounded(resp *http.Response, limit int64) ([]byte, error) {
	if resp.ContentLength > limit {
		return nil, errTooLarge
	}
	if resp.ContentLength >= 0 {
		buf := make([]byte, resp.ContentLength)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(buf)) > limit {
		return nil, errTooLarge
	}
	return buf, nil
}

func (c *Client) statusError(shown string, resp *http.Response, body []byte) *StatusError {
	e := &StatusError{Endpoint: shown, StatusCode: resp.StatusCode, Status: resp.Status}
	var wr struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &wr) == nil && len(wr.Error) > 0 {
		var ae apiError
		var s string
		switch {
		case json.Unmarshal(wr.Error, &ae) == nil && ae.Message != "":
			e.Message = ae.Message
		case json.Unmarshal(wr.Error, &s) == nil: // Ollama and others: "error": "text"
			e.Message = s
		}
	}
	if e.Message == "" {
		e.Message = snippet(body)
	}
	// A server may echo the request's Authorization header, or the key.
	e.Message = c.red.String(e.Message)
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		e.Hint = "check the API key: OPENAI_API_KEY (llm.Config.APIKey)"
	case resp.StatusCode == http.StatusNotFound && !strings.HasSuffix(c.basePath, "/v1"):
		e.Hint = "the base URL usually ends in /v1, e.g. http://localhost:11434/v1"
	case resp.StatusCode == http.StatusNotFound:
		e.Hint = fmt.Sprintf("is model %q served there?", c.model)
	}
	return e
}

// snippet is the start of a body, for error messages, with anything that
// looks like a credential redacted.
func snippet(b []byte) string {
	s := redact.String(strings.TrimSpace(string(b)))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return "empty body"
	}
	return fmt.Sprintf("%q", s)
}

// byteList is a token's bytes as the server lists them, [104, 105],
// decoded straight into bytes: as []int each would take eight.
type byteList []byte

func (b *byteList) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*b = nil
		return nil
	}
	if len(data) < 2 || data[0] != '[' || data[len(data)-1] != ']' {
		return errors.New("token bytes: not a list")
	}
	// One pass, no allocation but the result: a list of up to four bytes
	// per token, thousands of tokens an answer.
	out := make([]byte, 0, 4)
	v, digits, ended := 0, 0, false // ended: a space after the digits
	for _, c := range data[1:] {
		switch {
		case '0' <= c && c <= '9':
			v = v*10 + int(c-'0')
			if digits++; v > 255 || ended {
				return errors.New("token bytes: not a list of bytes")
			}
		case c == ',' || c == ']':
			if digits == 0 && !(c == ']' && len(out) == 0) {
				return errors.New("token bytes: an empty item")
			}
			if digits > 0 {
				out = append(out, byte(v))
			}
			v, digits, ended = 0, 0, false
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			ended = digits > 0
		default:
			return fmt.Errorf("token bytes: %q in a list of bytes", c)
		}
	}
	*b = out
	return nil
}

// parseResponse reads a chat completion response body.
func parseResponse(raw []byte) (*Response, error) {
	var wr wireResponse
	if err := json.Unmarshal(raw, &wr); err != nil {
		return nil, fmt.Errorf("the answer is not a chat completion in JSON (%v); body starts %s", err, snippet(raw))
	}
	if wr.Error != nil && wr.Error.Message != "" {
		return nil, fmt.Errorf("the server answered with an error: %s", wr.Error.Message)
	}
	if len(wr.Choices) == 0 {
		return nil, fmt.Errorf("the answer has no choices; body starts %s", snippet(raw))
	}
	// The answers in the order of their index (servers send them so).
	slices.SortStableFunc(wr.Choices, func(a, b wireChoice) int { return cmp.Compare(a.Index, b.Index) })
	choices := make([]*Response, len(wr.Choices))
	for k, ch := range wr.Choices {
		r := &Response{FinishReason: ch.FinishReason}
		if ch.Message.Content != nil {
			r.Content = *ch.Message.Content
		}
		if ch.Logprobs != nil && len(ch.Logprobs.Content) > 0 {
			r.Tokens = make([]Token, len(ch.Logprobs.Content))
			for i, t := range ch.Logprobs.Content {
				tok := Token{Text: t.Token, Logprob: math.NaN()}
				if t.Logprob != nil {
					tok.Logprob = *t.Logprob
				}
				if t.Bytes != nil {
					tok.Bytes = t.Bytes
				} else {
					tok.Bytes = []byte(t.Token)
				}
				r.Tokens[i] = tok
			}
		}
		choices[k] = r
	}
	resp := choices[0]
	if wr.Usage != nil {
		resp.Usage = *wr.Usage
	}
	if len(choices) > 1 {
		resp.Choices = choices
	}
	return resp, nil
}
