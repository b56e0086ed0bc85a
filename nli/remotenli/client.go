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

	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/retry"
)

// maxBody caps what is read of an answer: a batch's logits are a few
// hundred bytes, a model's metadata a few kilobytes.
const maxBody = 16 << 20

// client sends the requests of one endpoint: a timeout on each attempt,
// retries as the run's retry policy says, and error messages that say what
// the server said.
type client struct {
	http     *http.Client
	timeout  time.Duration
	retry    *retry.Policy
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

// do sends one request per attempt, retrying failed attempts as the policy
// says (network errors, timeouts, 408, 425, 429 and 5xx but 501, after the
// server's Retry-After when it gives one), and returns what read makes of
// the first 2xx answer's body. An answer that read cannot make sense of is
// a failed attempt too: it is asked again, then reported.
func do[T any](ctx context.Context, c *client, method, u string, body []byte, read func([]byte) (T, error)) (T, error) {
	return retry.Do(ctx, c.retry, func(attempt int) (T, error) {
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
			return zero, fmt.Errorf("%s %s: unreadable answer: %w; body starts %s", method, redact.URL(u), err, redact.String(snippet(raw), redact.Secrets(u)...))
		}
		return v, nil
	})
}

// attempt sends one request and returns the body of a 2xx answer. Errors
// that another attempt would not cure are marked permanent.
func (c *client) attempt(ctx context.Context, method, u string, body []byte) ([]byte, error) {
	// Messages show the URL without its credentials, and the server's
	// words without them either (a server may echo them).
	shown, secrets := redact.URL(u), redact.Secrets(u)
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, u, rd)
	if err != nil {
		return nil, retry.Permanent(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", version.UserAgent())
	c.requests.Add(1)
	var resp *http.Response
	if method == http.MethodGet {
		// The checks of the server as it is opened (is it there, is
		// the model ready) answer at once: a server that accepted the
		// connection and says nothing is told after the retry policy's
		// FirstByte, not after every retry. Inference takes its time.
		if resp, err = c.retry.Send(c.http, req); errors.Is(err, retry.ErrNoAnswer) {
			return nil, fmt.Errorf("%s %s: %w", method, shown, err)
		}
	} else {
		resp, err = c.http.Do(req)
	}
	if err == nil {
		defer resp.Body.Close()
		var raw []byte
		raw, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
		if err == nil {
			if resp.StatusCode/100 == 2 {
				return raw, nil
			}
			se := &StatusError{Method: method, URL: shown, StatusCode: resp.StatusCode, Status: resp.Status, Message: redact.String(errorMessage(raw), secrets...)}
			return nil, retry.ForStatus(se, resp)
		}
	}
	if ctx.Err() != nil {
		return nil, retry.Permanent(fmt.Errorf("%s %s: %w", method, shown, ctx.Err()))
	}
	if actx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("%s %s: no answer within %v (the timeout of one request)", method, shown, c.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // it repeats the method and URL we print anyway
	}
	return nil, redact.Wrap(method+" "+shown, err, secrets...)
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
