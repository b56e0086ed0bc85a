package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/nettest"
)

var errFlaky = errors.New("flaky")

// fastPolicy waits milliseconds, not seconds, and records what Notify hears.
func fastPolicy(retries int) (*Policy, *[]string, *[]time.Duration) {
	var (
		events []string
		waits  []time.Duration
	)
	p := &Policy{Retries: retries, MinWait: 2 * time.Millisecond, MaxWait: 16 * time.Millisecond, MaxServerWait: 40 * time.Millisecond,
		Notify: func(err error, attempt int, wait time.Duration) {
			events = append(events, fmt.Sprintf("%d: %v", attempt, err))
			waits = append(waits, wait)
		}}
	return p, &events, &waits
}

// TestDo: which errors are repeated, how often, and what the caller gets
// back.
func TestDo(t *testing.T) {
	boom := errors.New("400 Bad Request")
	tests := []struct {
		name      string
		retries   int
		errs      []error // by attempt; nil succeeds; the last repeats
		wantCalls int
		wantErr   string // "" for success
		permanent bool
	}{
		{"first try", 3, []error{nil}, 1, "", false},
		{"flaky then fine", 3, []error{errFlaky, errFlaky, nil}, 3, "", false},
		{"retries spent", 3, []error{errFlaky}, 4, "flaky (after 4 attempts)", false},
		{"no retries", 0, []error{errFlaky}, 1, "flaky", false},
		{"negative retries are none", -2, []error{errFlaky}, 1, "flaky", false},
		{"permanent at once", 3, []error{Permanent(boom)}, 1, "400 Bad Request", true},
		{"permanent after transient", 3, []error{errFlaky, Permanent(boom)}, 2, "400 Bad Request (after 2 attempts)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, events, _ := fastPolicy(tt.retries)
			calls := 0
			v, err := Do(context.Background(), p, func(attempt int) (int, error) {
				calls++
				if attempt != calls {
					t.Errorf("attempt %d on call %d", attempt, calls)
				}
				if e := tt.errs[min(calls, len(tt.errs))-1]; e != nil {
					return 0, e
				}
				return 42, nil
			})
			if calls != tt.wantCalls {
				t.Errorf("%d calls, want %d", calls, tt.wantCalls)
			}
			if len(*events) != calls-1 {
				t.Errorf("notified %d times for %d calls: %q", len(*events), calls, *events)
			}
			if tt.wantErr == "" {
				if err != nil || v != 42 {
					t.Errorf("got %v, %v", v, err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if IsPermanent(err) != tt.permanent {
				t.Errorf("IsPermanent = %v", IsPermanent(err))
			}
			if tt.permanent && !errors.Is(err, boom) || !tt.permanent && !errors.Is(err, errFlaky) {
				t.Errorf("the attempt's error is not wrapped: %v", err)
			}
		})
	}
}

// TestWaits: without a server's word the waits double from MinWait up to
// MaxWait, each within ±50%.
func TestWaits(t *testing.T) {
	p, events, waits := fastPolicy(6)
	Do(context.Background(), p, func(int) (struct{}, error) { return struct{}{}, errFlaky })
	want := []time.Duration{2, 4, 8, 16, 16, 16}
	if len(*waits) != len(want) {
		t.Fatalf("waits %v", *waits)
	}
	for i, w := range *waits {
		d := want[i] * time.Millisecond
		if w < d/2 || w > d*3/2+time.Nanosecond {
			t.Errorf("wait %d = %v, want within [%v, %v]", i+1, w, d/2, d*3/2)
		}
	}
	if (*events)[0] != "1: flaky" || (*events)[5] != "6: flaky" {
		t.Errorf("events %q", *events)
	}
}

// TestServerWait: a wait the server asks for replaces the back-off, up to
// MaxServerWait.
func TestServerWait(t *testing.T) {
	p, _, waits := fastPolicy(3)
	asked := []time.Duration{25 * time.Millisecond, time.Hour, 0}
	start := time.Now()
	_, err := Do(context.Background(), p, func(attempt int) (int, error) {
		if attempt <= len(asked) {
			return 0, After(errFlaky, asked[attempt-1])
		}
		return 1, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(*waits) != 3 || (*waits)[0] != 25*time.Millisecond || (*waits)[1] != 40*time.Millisecond {
		t.Errorf("waits %v, want 25ms (as asked), 40ms (an hour, capped), then the back-off", *waits)
	}
	if w := (*waits)[2]; w < time.Millisecond || w > 3*time.Millisecond {
		t.Errorf("wait after a 0 wait: %v, want the first back-off", w)
	}
	if took := time.Since(start); took < 65*time.Millisecond {
		t.Errorf("took %v: the waits were not spent", took)
	}
}

func TestServerWaitHeader(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		header map[string]string
		want   time.Duration
	}{
		{map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After": "86400"}, 24 * time.Hour}, // Do caps it, not ServerWait
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "-3"}, 0},
		{map[string]string{"Retry-After": "1e300"}, 0},
		{map[string]string{"Retry-After-Ms": "NaN"}, 0},
		{nil, 0},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := ServerWait(h, now); got != tt.want {
			t.Errorf("%v: %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestRetryableStatus(t *testing.T) {
	for code := 100; code < 600; code++ {
		want := code == 408 || code == 425 || code == 429 || (code >= 500 && code != 501)
		if got := RetryableStatus(code); got != want {
			t.Errorf("RetryableStatus(%d) = %v", code, got)
		}
	}
}

// TestHTTP: a real server on loopback: 503 with Retry-After-Ms, then 429,
// then 200; a 404 is not repeated; a server that is gone is repeated like
// a 5xx; a certificate no one trusts is not.
func TestHTTP(t *testing.T) {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		switch {
		case r.URL.Path == "/missing":
			http.Error(w, "no such thing", http.StatusNotFound)
		case k == 1:
			w.Header().Set("Retry-After-Ms", "30")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case k == 2:
			http.Error(w, "slow down", http.StatusTooManyRequests)
		default:
			io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	get := func(url string) func(int) (string, error) {
		return func(int) (string, error) {
			resp, err := http.Get(url)
			if err != nil {
				return "", err
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				return "", ForStatus(fmt.Errorf("GET %s: %s: %s", url, resp.Status, strings.TrimSpace(string(body))), resp)
			}
			return string(body), nil
		}
	}
	p, events, waits := fastPolicy(3)
	body, err := Do(context.Background(), p, get(srv.URL+"/thing"))
	if err != nil || body != "ok" {
		t.Fatalf("%q, %v", body, err)
	}
	if len(*waits) != 2 || (*waits)[0] != 30*time.Millisecond || !strings.Contains((*events)[1], "429 Too Many Requests: slow down") {
		t.Errorf("waits %v, events %q", *waits, *events)
	}

	p, events, _ = fastPolicy(3)
	_, err = Do(context.Background(), p, get(srv.URL+"/missing"))
	if err == nil || !IsPermanent(err) || !strings.Contains(err.Error(), "404 Not Found: no such thing") || len(*events) != 0 {
		t.Errorf("404: %v, %d retries", err, len(*events))
	}

	// A server that is not there fails at once: no attempt would find it.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	p, events, _ = fastPolicy(2)
	if _, err = Do(context.Background(), p, get(gone.URL)); err == nil || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "attempts") || len(*events) != 0 {
		t.Errorf("server gone: %v, %d retries", err, len(*events))
	}

	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	p, events, _ = fastPolicy(3)
	if _, err = Do(context.Background(), p, get(tlsSrv.URL)); err == nil || len(*events) != 0 {
		t.Errorf("untrusted certificate: %v, %d retries", err, len(*events))
	}
}

// TestCancel: a canceled context ends the wait at once, with its error.
func TestCancel(t *testing.T) {
	p := &Policy{Retries: 3, MinWait: time.Hour, MaxElapsed: 3 * time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err := Do(ctx, p, func(int) (int, error) { return 0, errFlaky })
	if !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Errorf("%v after %v", err, time.Since(start))
	}
}

// TestCallerDeadline: the caller's deadline, when it comes before the
// policy's (a page's 20 s), bounds the waits too: a wait that would end
// past it, the server's or the back-off's, is never announced, and the
// retries end at once saying so.
func TestCallerDeadline(t *testing.T) {
	for _, op := range []func(int) (int, error){
		func(int) (int, error) { return 0, After(errFlaky, 5*time.Minute) },
		func(int) (int, error) { return 0, errFlaky },
	} {
		var notices []time.Duration
		p := &Policy{Retries: 5, MinWait: time.Minute, Notify: func(_ error, _ int, wait time.Duration) { notices = append(notices, wait) }}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		n := 0
		_, err := Do(ctx, p, func(a int) (int, error) { n++; return op(a) })
		cancel()
		if n != 1 || len(notices) != 0 || !errors.Is(err, errFlaky) || !strings.Contains(err.Error(), "the request was given") {
			t.Errorf("%d attempts, notices %v, error %v", n, notices, err)
		}
	}
}

// TestNotifySerialised: many goroutines retrying under one policy never
// call Notify at once (run with -race: the callback's unguarded append
// and counter would be reported).
func TestNotifySerialised(t *testing.T) {
	var (
		seen   []int
		active int
	)
	p := &Policy{Retries: 2, MinWait: time.Microsecond, MaxWait: time.Microsecond,
		Notify: func(err error, attempt int, wait time.Duration) {
			active++
			if active != 1 {
				t.Errorf("%d Notify calls at once", active)
			}
			seen = append(seen, attempt)
			time.Sleep(50 * time.Microsecond)
			active--
		}}
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			Do(context.Background(), p, func(int) (int, error) { return 0, errFlaky })
		})
	}
	wg.Wait()
	if len(seen) != 64 {
		t.Errorf("%d notifications, want 64 (32 calls × 2 retries)", len(seen))
	}
}

func TestDefault(t *testing.T) {
	p := Default()
	if p.Retries != DefaultRetries || p.minWait() != DefaultMinWait || p.maxWait() != DefaultMaxWait || p.maxServerWait() != DefaultMaxServerWait {
		t.Errorf("default policy %+v", p)
	}
	if (&Policy{MinWait: 2 * time.Minute}).maxWait() != 2*time.Minute {
		t.Error("MaxWait below MinWait is not raised to it")
	}
}

// TestDeadline: a request's waits end at its deadline: a server's wait
// that would pass it ends the retries at once, saying so, as does a
// back-off wait that would; the error is still the last attempt's (its
// type seen through the note).
func TestDeadline(t *testing.T) {
	serverWait := func(d time.Duration) func(int) (int, error) {
		return func(int) (int, error) { return 0, After(errFlaky, d) }
	}
	tests := []struct {
		name     string
		p        *Policy
		op       func(int) (int, error)
		attempts int
		note     string
	}{
		{"Retry-After past the deadline", &Policy{Retries: 5, MaxElapsed: time.Minute}, serverWait(time.Hour), 1, "the server asked to wait 1h0m0s, past the 1m0s"},
		{"Retry-After capped, still past", &Policy{Retries: 5, MaxElapsed: time.Minute, MaxServerWait: 2 * time.Minute}, serverWait(time.Hour), 1, "past the 1m0s"},
		// However slow the machine, 50 retries of 100 ms do not fit in 350 ms.
		{"server waits until the deadline", &Policy{Retries: 50, MaxElapsed: 350 * time.Millisecond}, serverWait(100 * time.Millisecond), -1, "past the 350ms"},
		{"back-off past the deadline", &Policy{Retries: 5, MinWait: time.Hour, MaxElapsed: time.Minute}, func(int) (int, error) { return 0, errFlaky }, 1, "no time was left"},
		{"retries spent first", &Policy{Retries: 2, MinWait: time.Millisecond, MaxWait: time.Millisecond}, func(int) (int, error) { return 0, errFlaky }, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			_, err := Do(context.Background(), tt.p, func(a int) (int, error) { n++; return tt.op(a) })
			if (tt.attempts > 0 && n != tt.attempts) || (tt.attempts < 0 && (n < 2 || n > 4)) || !errors.Is(err, errFlaky) {
				t.Errorf("%d attempts, error %v; want %d attempts ending in errFlaky", n, err, tt.attempts)
			}
			if msg := fmt.Sprint(err); tt.note != "" && !strings.Contains(msg, tt.note) || tt.note == "" && strings.Contains(msg, "past the") {
				t.Errorf("error %q, want the note %q", msg, tt.note)
			}
		})
	}
}

// TestUnreachable: an endpoint that is not there (refused, unreachable, a
// name that does not exist or that no resolver answers for, a malformed
// address) is not tried again; a time-out, a reset connection or a DNS
// time-out are.
func TestUnreachable(t *testing.T) {
	dial := func(err error) error {
		return &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: err}}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"refused", dial(os.NewSyscallError("connect", syscall.ECONNREFUSED)), true},
		{"host unreachable", dial(os.NewSyscallError("connect", syscall.EHOSTUNREACH)), true},
		{"network unreachable", dial(os.NewSyscallError("connect", syscall.ENETUNREACH)), true},
		{"no such host", dial(&net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}), true},
		{"no resolver", dial(&net.DNSError{Err: "server misbehaving", Name: "en.wikipedia.org", IsTemporary: true}), true},
		{"malformed address", dial(&net.AddrError{Err: "missing port in address", Addr: "x"}), true},
		{"DNS time-out", dial(&net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}), false},
		{"reset", dial(os.NewSyscallError("read", syscall.ECONNRESET)), false},
		{"time-out", context.DeadlineExceeded, false},
		{"other", errFlaky, false},
	}
	for _, tt := range tests {
		if got := Unreachable(tt.err); got != tt.want {
			t.Errorf("%s: Unreachable = %v", tt.name, got)
		}
		n := 0
		p := &Policy{Retries: 3, MinWait: time.Millisecond, MaxWait: time.Millisecond}
		Do(context.Background(), p, func(int) (int, error) { n++; return 0, tt.err })
		if want := map[bool]int{true: 1, false: 4}[tt.want]; n != want {
			t.Errorf("%s: %d attempts, want %d", tt.name, n, want)
		}
	}
}

// TestSend: an attempt whose server sends no answer within FirstByte
// fails with ErrNoAnswer, saying how long it waited, and is not repeated;
// an answer that starts in time is read whole, however long its body
// takes after; no limit (a negative FirstByte) waits for the request's
// own deadline.
func TestSend(t *testing.T) {
	p := &Policy{Retries: 3, MinWait: time.Millisecond, FirstByte: 100 * time.Millisecond}
	attempts := 0
	_, err := Do(context.Background(), p, func(int) (*http.Response, error) {
		attempts++
		req, _ := http.NewRequest(http.MethodGet, "http://"+nettest.Silent(t), nil)
		return p.Send(http.DefaultClient, req)
	})
	if !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), "sent no answer within 100ms") || attempts != 1 {
		t.Errorf("%d attempts, error %v", attempts, err)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond) // the body, after the first byte
		io.WriteString(w, "whole")
	}))
	defer slow.Close()
	req, _ := http.NewRequest(http.MethodGet, slow.URL, nil)
	resp, err := p.Send(http.DefaultClient, req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != "whole" {
		t.Errorf("body %q, %v", body, err)
	}
	none := &Policy{FirstByte: -1}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, "http://"+nettest.Silent(t), nil)
	if _, err := none.Send(http.DefaultClient, req); errors.Is(err, ErrNoAnswer) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("no limit: %v", err)
	}
	if (*Policy)(nil).FirstByteWait() != DefaultFirstByte || none.FirstByteWait() != 0 {
		t.Error("FirstByteWait's default")
	}
}
