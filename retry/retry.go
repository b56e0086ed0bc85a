// Package retry is the one retry policy of the tool's HTTP clients (the
// LLM endpoint, the model hub, Wikipedia, and every client added later):
// which failures are repeated, how long to wait between attempts, and how
// far a server's own Retry-After is believed. The waiting and counting are
// github.com/cenkalti/backoff's; this package sets its parameters once and
// adds the HTTP rules.
//
// A failed attempt is repeated unless its error is marked Permanent, up to
// Policy.Retries times. The wait before a repeat grows exponentially from
// MinWait to MaxWait, randomized by ±50% so that parallel clients spread
// out; when the error carries a wait the server asked for (After, as
// ForStatus makes from a Retry-After or retry-after-ms header), that wait
// is used instead, capped at MaxServerWait.
//
// A request has a total deadline across its attempts, MaxElapsed: no wait
// (a server's Retry-After included) runs past it, and no attempt starts
// after it; a wait that would end past it ends the retries at once, with
// the last error and a note saying so. An attempt bounds its own time
// (each client's per-attempt timeout), so a request takes at most
// MaxElapsed and one attempt.
//
// The HTTP rules: 408, 425, 429 and 5xx answers (except 501) are repeated,
// other statuses are not; timeouts and network errors on the way are
// repeated; TLS certificate errors are not, and neither is an endpoint
// that is not there: a refused connection, a host or network that cannot
// be reached, a name that does not resolve. Those fail at the first
// attempt, so that a wrong URL says so at once instead of after the
// back-off.
package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// Defaults of a Policy's zero fields, and of Default.
const (
	DefaultRetries       = 5
	DefaultMinWait       = time.Second
	DefaultMaxWait       = time.Minute
	DefaultMaxServerWait = 5 * time.Minute
	DefaultMaxElapsed    = 10 * time.Minute
	DefaultFirstByte     = 30 * time.Second
)

// Policy says how failed requests are repeated. Share one *Policy between
// the clients of a run: its Notify calls are then serialised across all of
// them. A Policy must not be copied after first use.
type Policy struct {
	// Retries is how many times a failed attempt is repeated: 0 never.
	Retries int
	// MinWait is the wait before the first repeat (default
	// DefaultMinWait); each further wait doubles, up to MaxWait (default
	// DefaultMaxWait), and each is randomized by ±50%.
	MinWait, MaxWait time.Duration
	// MaxServerWait caps a wait the server asks for (default
	// DefaultMaxServerWait): a server asking for an hour gets
	// MaxServerWait, then the next attempt.
	MaxServerWait time.Duration
	// MaxElapsed is a request's deadline across its attempts and waits
	// (default DefaultMaxElapsed): see the package comment.
	MaxElapsed time.Duration
	// FirstByte is how long an attempt sent by Send waits for the first
	// byte of the answer (its status line) before it gives up (default
	// DefaultFirstByte; negative: no such limit). Such an attempt is not
	// repeated: a server that accepted the connection and said nothing
	// would say nothing again, and a wrong port or a hung server is told
	// after one wait, not after all the retries. A server that takes
	// long to answer by design (an LLM generating) is not sent to by
	// Send, but asked first whether it answers at all.
	FirstByte time.Duration
	// Notify, when set, is told of every failed attempt that will be
	// repeated: its error, its number (1 for the first attempt) and the
	// wait before the next. Calls are serialised: Notify is never called
	// twice at once, by however many goroutines and clients share the
	// Policy, so it may write to a shared writer without a lock of its own.
	Notify func(err error, attempt int, wait time.Duration)

	mu sync.Mutex // serialises Notify
}

// Printer returns a Notify function that writes each notice to w as one
// line after prefix: "prefix ERROR; attempt N failed, retrying in WAIT".
func Printer(w io.Writer, prefix string) func(err error, attempt int, wait time.Duration) {
	return func(err error, attempt int, wait time.Duration) {
		fmt.Fprintf(w, "%s%v; attempt %d failed, retrying in %v\n", prefix, err, attempt, wait.Round(time.Millisecond))
	}
}

// Default returns a policy with DefaultRetries retries and the default
// waits.
func Default() *Policy {
	return &Policy{Retries: DefaultRetries}
}

func (p *Policy) minWait() time.Duration {
	if p.MinWait > 0 {
		return p.MinWait
	}
	return DefaultMinWait
}

func (p *Policy) maxWait() time.Duration {
	w := p.MaxWait
	if w <= 0 {
		w = DefaultMaxWait
	}
	return max(w, p.minWait())
}

func (p *Policy) maxElapsed() time.Duration {
	if p.MaxElapsed > 0 {
		return p.MaxElapsed
	}
	return DefaultMaxElapsed
}

// FirstByteWait is the policy's FirstByte with its default: 0 for no
// limit. A nil policy has the default.
func (p *Policy) FirstByteWait() time.Duration {
	switch {
	case p == nil || p.FirstByte == 0:
		return DefaultFirstByte
	case p.FirstByte < 0:
		return 0
	}
	return p.FirstByte
}

// ErrNoAnswer is wrapped by the error of an attempt whose server sent no
// answer within the policy's FirstByte.
var ErrNoAnswer = errors.New("the server accepted the connection and sent no answer")

// Send sends req with client as client.Do does, but gives up when the
// answer's first byte (its status line) has not come within the policy's
// FirstByte: the error then wraps ErrNoAnswer, says how long it waited,
// and is Permanent. The rest of the answer is read under the request's
// own deadlines. A nil policy has the default FirstByte.
func (p *Policy) Send(client *http.Client, req *http.Request) (*http.Response, error) {
	wait := p.FirstByteWait()
	if wait <= 0 {
		return client.Do(req)
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	timer := time.AfterFunc(wait, func() { cancel(errNoFirstByte) })
	resp, err := client.Do(req.WithContext(ctx))
	if !timer.Stop() && errors.Is(context.Cause(ctx), errNoFirstByte) {
		// No answer in time (or one just as the time ran out, whose
		// body the deadline has cut off).
		if err == nil {
			resp.Body.Close()
		}
		cancel(nil)
		return nil, Permanent(&noAnswer{wait: wait})
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	// The body is read under ctx: it is canceled when the body is closed.
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: func() { cancel(nil) }}
	return resp, nil
}

// errNoFirstByte is the cause of an attempt canceled by Send's deadline.
var errNoFirstByte = errors.New("no first byte")

// noAnswer is the error of an attempt without an answer in time.
type noAnswer struct{ wait time.Duration }

func (e *noAnswer) Error() string {
	return fmt.Sprintf("%v within %v: a wrong port, or a server that hangs", ErrNoAnswer, e.wait)
}
func (e *noAnswer) Unwrap() error { return ErrNoAnswer }

// cancelOnClose is a response body that ends its request's context when
// closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel func()
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

func (p *Policy) maxServerWait() time.Duration {
	if p.MaxServerWait > 0 {
		return p.MaxServerWait
	}
	return DefaultMaxServerWait
}

// Do calls op until it succeeds, fails with an error marked Permanent, the
// retries are spent, or ctx is done, waiting between attempts as the policy
// says. op gets the attempt's number, 1 for the first. A nil policy is
// Default().
//
// The error returned is op's last error, followed by "(after N attempts)"
// when there were several; it still wraps op's error (errors.Is, errors.As
// and IsPermanent see through it). When ctx ends the wait, ctx's error is
// returned.
func Do[T any](ctx context.Context, p *Policy, op func(attempt int) (T, error)) (T, error) {
	if p == nil {
		p = Default()
	}
	attempt := 0
	// The request's deadline: the policy's, or the caller's when it
	// comes first (a page's own time limit), so that no wait is announced
	// that would outlast it.
	start := time.Now()
	deadline, byCaller := start.Add(p.maxElapsed()), false
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline, byCaller = d, true
	}
	past := func(err error, asked time.Duration) error {
		return &pastDeadline{err: err, asked: asked, deadline: deadline.Sub(start).Round(time.Millisecond), byCaller: byCaller}
	}
	until := &untilDeadline{deadline: deadline}
	wrapped := func() (T, error) {
		attempt++
		v, err := op(attempt)
		switch {
		case err == nil:
			return v, nil
		case IsPermanent(err) || certificateError(err) || Unreachable(err):
			return v, backoff.Permanent(err)
		}
		var se *serverWait
		if errors.As(err, &se) && se.wait > 0 {
			wait := min(se.wait, p.maxServerWait())
			if wait > time.Until(deadline) {
				return v, backoff.Permanent(past(err, se.wait))
			}
			until.serverWait = true // checked here
			// backoff waits as the RetryAfterError says; the error itself
			// is what the caller sees.
			return v, &withRetryAfter{err: err, after: &backoff.RetryAfterError{Duration: wait}}
		}
		return v, err
	}
	exp := &backoff.ExponentialBackOff{
		InitialInterval:     p.minWait(),
		RandomizationFactor: 0.5,
		Multiplier:          2,
		MaxInterval:         p.maxWait(),
	}
	until.b = exp
	opts := []backoff.RetryOption{
		// A wait that would end past the deadline ends the retries.
		backoff.WithBackOff(until),
		backoff.WithMaxTries(uint(max(p.Retries, 0)) + 1),
		backoff.WithMaxElapsedTime(p.maxElapsed()),
		backoff.WithNotify(func(err error, wait time.Duration) {
			if p.Notify == nil {
				return
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			p.Notify(unwrapMarks(err), attempt, wait)
		}),
	}
	v, err := backoff.Retry(ctx, wrapped, opts...)
	if err == nil {
		return v, nil
	}
	if ctx.Err() != nil && errors.Is(err, context.Cause(ctx)) {
		return v, err
	}
	err = unwrapMarks(err)
	if !IsPermanent(err) && !certificateError(err) && !Unreachable(err) && !errors.As(err, new(*pastDeadline)) && attempt <= max(p.Retries, 0) {
		// Retries were left, but no time for the next wait.
		err = past(err, 0)
	}
	if attempt > 1 {
		err = &gaveUp{err: err, attempts: attempt}
	}
	return v, err
}

// untilDeadline is a back-off that stops (backoff.Stop) where the next
// wait would end past the deadline; serverWait marks a wait the server
// asked for, which Do has checked, and which backoff takes instead.
type untilDeadline struct {
	b          backoff.BackOff
	deadline   time.Time
	serverWait bool
}

func (u *untilDeadline) NextBackOff() time.Duration {
	d := u.b.NextBackOff()
	if u.serverWait {
		u.serverWait = false
		return d
	}
	if d != backoff.Stop && time.Now().Add(d).After(u.deadline) {
		return backoff.Stop
	}
	return d
}

func (u *untilDeadline) Reset() { u.b.Reset() }

// pastDeadline is the error of a request whose next wait would have ended
// past its deadline: asked is the server's wait, if it asked for one.
type pastDeadline struct {
	err      error
	asked    time.Duration
	deadline time.Duration
	byCaller bool // the deadline is the caller's (its context's)
}

func (e *pastDeadline) Error() string {
	limit := fmt.Sprintf("the %v a request may take with its retries", e.deadline)
	if e.byCaller {
		limit = fmt.Sprintf("the %v the request was given", e.deadline)
	}
	if e.asked > 0 {
		return fmt.Sprintf("%v; the server asked to wait %v, past %s", e.err, e.asked.Round(time.Millisecond), limit)
	}
	return fmt.Sprintf("%v; no time was left for another attempt within %s", e.err, limit)
}
func (e *pastDeadline) Unwrap() error { return e.err }

// unwrapMarks removes the wrappers Do adds for backoff.
func unwrapMarks(err error) error {
	var w *withRetryAfter
	if errors.As(err, &w) && w == err {
		return w.err
	}
	return err
}

// gaveUp is the error of several failed attempts.
type gaveUp struct {
	err      error
	attempts int
}

func (e *gaveUp) Error() string { return fmt.Sprintf("%v (after %d attempts)", e.err, e.attempts) }
func (e *gaveUp) Unwrap() error { return e.err }

// withRetryAfter carries the wait for backoff beside the caller's error.
type withRetryAfter struct {
	err   error
	after *backoff.RetryAfterError
}

func (e *withRetryAfter) Error() string   { return e.err.Error() }
func (e *withRetryAfter) Unwrap() []error { return []error{e.err, e.after} }

// permanent marks an error that another attempt would not cure.
type permanent struct{ err error }

func (e *permanent) Error() string { return e.err.Error() }
func (e *permanent) Unwrap() error { return e.err }

// Permanent marks err as one that another attempt would not cure (a 4xx
// answer, a malformed request, an answer that cannot be read). Do returns
// it at once. Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanent{err}
}

// IsPermanent reports whether err was marked Permanent.
func IsPermanent(err error) bool {
	var p *permanent
	return errors.As(err, &p)
}

// serverWait carries the wait a server asked for.
type serverWait struct {
	err  error
	wait time.Duration
}

func (e *serverWait) Error() string { return e.err.Error() }
func (e *serverWait) Unwrap() error { return e.err }

// After marks err as worth another attempt after the wait the server asked
// for (capped by the policy's MaxServerWait); a wait of 0 leaves the
// policy's own back-off. After(nil, d) is nil.
func After(err error, wait time.Duration) error {
	if err == nil {
		return nil
	}
	return &serverWait{err: err, wait: wait}
}

// RetryableStatus reports whether an HTTP status is worth another attempt:
// 408 Request Timeout, 425 Too Early, 429 Too Many Requests and the 5xx
// server errors except 501 Not Implemented.
func RetryableStatus(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooEarly, code == http.StatusTooManyRequests:
		return true
	case code == http.StatusNotImplemented:
		return false
	default:
		return code >= 500 && code <= 599
	}
}

// ForStatus marks err, the error made from an HTTP answer, as the answer's
// status says: worth another attempt after the server's wait (After with
// ServerWait) when RetryableStatus, Permanent otherwise.
func ForStatus(err error, resp *http.Response) error {
	if RetryableStatus(resp.StatusCode) {
		return After(err, ServerWait(resp.Header, time.Now()))
	}
	return Permanent(err)
}

// ServerWait reads how long a server asks a client to wait: OpenAI's
// retry-after-ms (milliseconds), else Retry-After in seconds or as an HTTP
// date (RFC 9110 §10.2.3). It returns 0 when the server said nothing
// usable. The result is not capped; Do caps it.
func ServerWait(h http.Header, now time.Time) time.Duration {
	var d time.Duration
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e12 {
			d = time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := h.Get("Retry-After"); d == 0 && v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			if s > 0 && s < 1e9 {
				d = time.Duration(s * float64(time.Second))
			}
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	return max(d, 0)
}

// Unreachable reports an error that says the endpoint is not there: a
// refused connection, an unreachable host or network, a name that does
// not resolve (a failed lookup, but for a DNS time-out).
func Unreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	// A name that does not resolve, or a resolver that cannot say (none
	// reachable, a server failure): a lookup that fails so fails again;
	// only a lookup that timed out may do better.
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return !dns.IsTimeout
	}
	var addr *net.AddrError // a malformed address: no attempt will do better
	return errors.As(err, &addr)
}

// certificateError reports a TLS failure that no repeat will cure.
func certificateError(err error) bool {
	var (
		cv *tls.CertificateVerificationError
		ua x509.UnknownAuthorityError
		he x509.HostnameError
		ci x509.CertificateInvalidError
		rh tls.RecordHeaderError
	)
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) || errors.As(err, &rh)
}
