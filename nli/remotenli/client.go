package remotenli

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

	"github.com/cenkalti/backoff/v5"
)

// maxBody caps what is read of an answer: a batch's logits are a few
// hundred bytes, a model's metadata a few kilobytes.
const maxBody = 16 << 20

// client sends the requests of one endpoint: a timeout on each attempt,
// retries with backoff, and error messages that say what the server said.
type client struct {
	http     *http.Client
	timeout  time.Duration
	retry    retryPolicy
	requests atomic.Int64
	retried  atomic.Int64
}

// StatusError is an HTTP error answer from the server.
type StatusError struct {
	Method, URL string
	StatusCode  int
	Status      string // "500 Internal Server Error"
	// Message is the server's error message (the "error" field of the Open
	// Inference Protocol's and TEI's error bodies), or the start of the
	// body.
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: %s: %s", e.Method, e.URL, e.Status, e.Message)
}

// retryable reports whether an HTTP status is worth another attempt: the
// server is busy or failed (408, 425, 429, 5xx but 501); other answers
// would be the same again.
func retryable(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooEarly, code == http.StatusTooManyRequests:
		return true
	case code == http.StatusNotImplemented:
		return false
	}
	return code >= 500 && code <= 599
}

// do sends one request per attempt, retrying failed attempts as the policy
// says, and returns what read makes of the first 2xx answer's body. An
// answer that read cannot make sense of is a failed attempt too: it is
// asked again, then reported.
func do[T any](ctx context.Context, c *client, method, u string, body []byte, read func([]byte) (T, error)) (T, error) {
	return withRetries(ctx, c.retry, func(attempt int) (T, error) {
		var zero T
		if attempt > 1 {
			c.retried.Add(1)
		}
		raw, err := c.attempt(ctx, method, u, body)
		if err != nil {
			return zero, err
		}
		v, err := read(raw)
		if err != nil {
			return zero, fmt.Errorf("%s %s: unreadable answer: %w; body starts %s", method, u, err, snippet(raw))
		}
		return v, nil
	})
}

// attempt sends one request and returns the body of a 2xx answer. Errors
// that another attempt would not cure are marked permanent.
func (c *client) attempt(ctx context.Context, method, u string, body []byte) ([]byte, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, u, rd)
	if err != nil {
		return nil, permanent(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	c.requests.Add(1)
	resp, err := c.http.Do(req)
	if err == nil {
		defer resp.Body.Close()
		var raw []byte
		raw, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
		if err == nil {
			if resp.StatusCode/100 == 2 {
				return raw, nil
			}
			se := &StatusError{Method: method, URL: u, StatusCode: resp.StatusCode, Status: resp.Status, Message: errorMessage(raw)}
			if retryable(resp.StatusCode) {
				return nil, se
			}
			return nil, permanent(se)
		}
	}
	if ctx.Err() != nil {
		return nil, permanent(fmt.Errorf("%s %s: %w", method, u, ctx.Err()))
	}
	if actx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("%s %s: no answer within %v (the timeout of one request)", method, u, c.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // it repeats the method and URL we print anyway
	}
	return nil, fmt.Errorf("%s %s: %w", method, u, err)
}

// errorMessage reads the message of an error body: {"error": "..."} as the
// Open Inference Protocol and TEI send it (TEI adds "error_type"), else
// the start of the body.
func errorMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return s
		}
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
	}
	return snippet(body)
}

// snippet is the start of a body, for error messages.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return fmt.Sprintf("%q", s)
}

// retryPolicy says how failed attempts are repeated.
type retryPolicy struct {
	Retries          int
	MinWait, MaxWait time.Duration
	// Notify, when set, is told of each failed attempt that will be
	// repeated. It may be called from several goroutines at once.
	Notify func(err error, attempt int, wait time.Duration)
}

// permanentError marks a failure that another attempt would not cure.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

// withRetries calls op until it succeeds, fails with a permanent error, or
// p.Retries retries are spent, waiting between attempts with exponential
// backoff (github.com/cenkalti/backoff) from p.MinWait to p.MaxWait,
// randomized by half. op gets the attempt's number, 1 for the first.
//
// It is the package's one use of a retry policy: the project's shared
// policy (package retry, on the same library) has this shape, and this
// function is where to switch to it.
func withRetries[T any](ctx context.Context, p retryPolicy, op func(attempt int) (T, error)) (T, error) {
	attempt := 0
	v, err := backoff.Retry(ctx, func() (T, error) {
		attempt++
		v, err := op(attempt)
		var pe *permanentError
		if errors.As(err, &pe) {
			return v, backoff.Permanent(pe.err)
		}
		return v, err
	},
		backoff.WithBackOff(&backoff.ExponentialBackOff{
			InitialInterval:     p.MinWait,
			RandomizationFactor: 0.5,
			Multiplier:          2,
			MaxInterval:         max(p.MaxWait, p.MinWait),
		}),
		backoff.WithMaxTries(uint(max(p.Retries, 0))+1),
		backoff.WithMaxElapsedTime(0),
		backoff.WithNotify(func(err error, wait time.Duration) {
			if p.Notify != nil {
				p.Notify(err, attempt, wait)
			}
		}))
	if err != nil && attempt > 1 && ctx.Err() == nil {
		err = fmt.Errorf("%w (after %d attempts)", err, attempt)
	}
	return v, err
}
