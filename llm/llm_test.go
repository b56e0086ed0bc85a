package llm

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/nettest"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/retry"
)

// fast is a retry policy of the given retries whose waits are
// milliseconds: back-off from 1ms to 8ms, a server's wait capped at 50ms.
func fast(retries int) *retry.Policy {
	return &retry.Policy{Retries: retries, MinWait: time.Millisecond, MaxWait: 8 * time.Millisecond, MaxServerWait: 50 * time.Millisecond}
}

// newTestClient returns a client of srv whose waits between attempts are
// recorded; without a retry policy in cfg it does not retry.
func newTestClient(t *testing.T, srv *llmtest.Server, cfg Config) (*Client, *[]time.Duration) {
	t.Helper()
	cfg.BaseURL = srv.BaseURL()
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	if cfg.Retry == nil {
		cfg.Retry = fast(0)
	}
	var waits []time.Duration // Notify calls are serialised
	notify := cfg.Retry.Notify
	cfg.Retry.Notify = func(err error, attempt int, wait time.Duration) {
		waits = append(waits, wait)
		if notify != nil {
			notify(err, attempt, wait)
		}
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, &waits
}

func ask(text string) Request {
	return Request{Messages: []Message{{Role: "user", Content: text}}, MaxTokens: 5, Logprobs: true}
}

// TestRequestBody: the request carries the model, the messages,
// temperature 0, the seed, max_tokens, logprobs and the API key.
func TestRequestBody(t *testing.T) {
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "neutral"} })
	c, _ := newTestClient(t, srv, Config{APIKey: "sk-test", Seed: 42, Model: "m1"})
	resp, err := c.Complete(context.Background(), ask("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "neutral" || len(resp.Tokens) != 2 || resp.Tokens[0].Text != "neu" || resp.Tokens[1].Text != "tral" || resp.Tokens[0].Logprob != -0.01 {
		t.Errorf("response = %+v", resp)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/chat/completions" || r.Model != "m1" || r.Temperature == nil || *r.Temperature != 0 ||
		r.Seed == nil || *r.Seed != 42 || r.MaxTokens != 5 || !r.Logprobs || r.Authorization != "Bearer sk-test" ||
		len(r.Messages) != 1 || r.Messages[0].Content != "hello" || r.Raw["stream"] != false {
		t.Errorf("request = %+v", r)
	}
	if u := c.Usage(); u.Calls != 1 || u.Requests != 1 || u.PromptTokens != 1 || u.CompletionTokens != 2 {
		t.Errorf("usage = %+v", u)
	}
}

// TestRetries: rate limits and server errors are retried, honouring
// retry-after-ms and Retry-After up to the policy's cap (50ms here; the
// parsing of Retry-After is tested in package retry); a server that keeps
// failing exhausts the retry budget with an error that names the endpoint
// and the status; client errors are not retried.
func TestRetries(t *testing.T) {
	ok := llmtest.Reply{Content: "entailment"}
	tests := []struct {
		name      string
		retries   int
		replies   []llmtest.Reply // by request number; the last repeats
		wantErr   []string        // substrings of the error; nil = success
		wantReqs  int
		wantWaits []time.Duration // exact waits; nil = any backoff
	}{
		{
			name:    "429 then success, Retry-After in seconds, capped",
			retries: 3,
			replies: []llmtest.Reply{
				{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "7"}},
				ok,
			},
			wantReqs: 2, wantWaits: []time.Duration{50 * time.Millisecond},
		},
		{
			name:    "429 with retry-after-ms",
			retries: 3,
			replies: []llmtest.Reply{
				{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After-Ms": "25", "Retry-After": "9"}},
				ok,
			},
			wantReqs: 2, wantWaits: []time.Duration{25 * time.Millisecond},
		},
		{
			name:     "503 twice then success",
			retries:  3,
			replies:  []llmtest.Reply{{Status: 503}, {Status: 503}, ok},
			wantReqs: 3,
		},
		{
			name:     "500 until the budget is spent",
			retries:  3,
			replies:  []llmtest.Reply{{Status: 500}},
			wantErr:  []string{"/v1/chat/completions", "500 Internal Server Error", "after 4 attempts", "from the fake server"},
			wantReqs: 4,
		},
		{
			name:     "no retries configured",
			retries:  0,
			replies:  []llmtest.Reply{{Status: 502}},
			wantErr:  []string{"502 Bad Gateway"},
			wantReqs: 1,
		},
		{
			name:     "401 is not retried",
			retries:  3,
			replies:  []llmtest.Reply{{Status: 401}},
			wantErr:  []string{"401 Unauthorized", "OPENAI_API_KEY"},
			wantReqs: 1,
		},
		{
			name:     "garbage JSON",
			retries:  3,
			replies:  []llmtest.Reply{{Body: "<html>upstream proxy error</html>"}},
			wantErr:  []string{"/v1/chat/completions", "not a chat completion in JSON", "<html>upstream proxy error"},
			wantReqs: 1,
		},
		{
			name:     "no choices",
			retries:  3,
			replies:  []llmtest.Reply{{Body: `{"id":"x","choices":[]}`}},
			wantErr:  []string{"no choices"},
			wantReqs: 1,
		},
		{
			name:     "error object with status 200",
			retries:  3,
			replies:  []llmtest.Reply{{Body: `{"error":{"message":"model overloaded"}}`}},
			wantErr:  []string{"model overloaded"},
			wantReqs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, func(n int, _ llmtest.Request) llmtest.Reply {
				return tt.replies[min(n, len(tt.replies)-1)]
			})
			c, waits := newTestClient(t, srv, Config{Retry: fast(tt.retries)})
			resp, err := c.Complete(context.Background(), ask("q"))
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if resp.Content != "entailment" {
					t.Errorf("content %q", resp.Content)
				}
			} else {
				if err == nil {
					t.Fatal("no error")
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
			}
			if got := srv.Count(); got != tt.wantReqs {
				t.Errorf("%d requests, want %d", got, tt.wantReqs)
			}
			if u := c.Usage(); u.Requests != int64(tt.wantReqs) || u.Retries != int64(tt.wantReqs-1) {
				t.Errorf("usage %+v", u)
			}
			if tt.wantWaits != nil && fmt.Sprint(*waits) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waits %v, want %v", *waits, tt.wantWaits)
			}
			if len(*waits) != tt.wantReqs-1 {
				t.Errorf("%d waits for %d requests", len(*waits), tt.wantReqs)
			}
		})
	}
}

// TestBackoff: without Retry-After the waits double from the policy's
// MinWait up to its MaxWait, each randomized by ±50% (the retry policy's
// rule; it was [d/2, d] before the client used package retry).
func TestBackoff(t *testing.T) {
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 500} })
	c, waits := newTestClient(t, srv, Config{Retry: fast(6)})
	if _, err := c.Complete(context.Background(), ask("q")); err == nil {
		t.Fatal("no error")
	}
	want := []time.Duration{1, 2, 4, 8, 8, 8}
	if len(*waits) != len(want) {
		t.Fatalf("waits %v", *waits)
	}
	for i, w := range *waits {
		d := want[i] * time.Millisecond
		if w < d/2 || w > d*3/2+time.Nanosecond {
			t.Errorf("wait %d = %v, want in [%v, %v]", i, w, d/2, d*3/2)
		}
	}
}

// TestTimeout: a server that never answers costs one timeout per attempt,
// and the error says so.
func TestTimeout(t *testing.T) {
	srv := llmtest.New(t, func(n int, _ llmtest.Request) llmtest.Reply { return llmtest.Reply{Hang: true} })
	c, _ := newTestClient(t, srv, Config{Retry: fast(1), Timeout: 50 * time.Millisecond})
	_, err := c.Complete(context.Background(), ask("q"))
	if err == nil || !strings.Contains(err.Error(), "no answer within 50ms") || !strings.Contains(err.Error(), srv.BaseURL()) ||
		!strings.Contains(err.Error(), "after 2 attempts") {
		t.Fatalf("error = %v", err)
	}
	if srv.Count() != 2 {
		t.Errorf("%d requests, want 2", srv.Count())
	}

	// A hang followed by an answer: the retry succeeds.
	srv2 := llmtest.New(t, func(n int, _ llmtest.Request) llmtest.Reply {
		if n == 0 {
			return llmtest.Reply{Hang: true}
		}
		return llmtest.Reply{Content: "neutral"}
	})
	// The answer must come within the timeout on a loaded machine too:
	// 50ms was missed under load (the test failed, the client was right).
	c2, _ := newTestClient(t, srv2, Config{Retry: fast(1), Timeout: 500 * time.Millisecond})
	if resp, err := c2.Complete(context.Background(), ask("q")); err != nil || resp.Content != "neutral" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
}

// TestCanceled: a canceled context stops retrying at once.
func TestCanceled(t *testing.T) {
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Hang: true} })
	c, _ := newTestClient(t, srv, Config{Retry: fast(5), Timeout: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Complete(ctx, ask("q"))
	if !errors.Is(err, context.DeadlineExceeded) || srv.Count() != 1 {
		t.Fatalf("err %v after %d requests", err, srv.Count())
	}
}

// TestCache: a rerun with the same requests, by a new client on the same
// cache file, sends no request and gets the same answers; a change of
// model, message or parameter is a different key.
func TestCache(t *testing.T) {
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "answer to " + r.Last() + " by " + r.Model}
	})
	path := filepath.Join(t.TempDir(), "sub", "cache.sqlite")
	reqs := []Request{ask("a"), ask("b"), ask("c")}

	c1, _ := newTestClient(t, srv, Config{CachePath: path})
	first, err := c1.CompleteAll(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	c1.Close()
	if srv.Count() != 3 {
		t.Fatalf("%d requests", srv.Count())
	}

	c2, _ := newTestClient(t, srv, Config{CachePath: path})
	again, err := c2.CompleteAll(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Count() != 3 {
		t.Errorf("the rerun sent %d requests", srv.Count()-3)
	}
	for i := range reqs {
		if again[i].Content != first[i].Content || !again[i].Cached || first[i].Cached ||
			len(again[i].Tokens) != len(first[i].Tokens) || again[i].Tokens[1].Logprob != first[i].Tokens[1].Logprob {
			t.Errorf("answer %d: %+v, first %+v", i, again[i], first[i])
		}
	}
	if u := c2.Usage(); u.Calls != 3 || u.CacheHits != 3 || u.Requests != 0 || u.PromptTokens != 0 {
		t.Errorf("usage %+v", u)
	}

	// Different model, message, max tokens or logprobs: not from the cache.
	c3, _ := newTestClient(t, srv, Config{CachePath: path, Model: "other"})
	if r, err := c3.Complete(context.Background(), ask("a")); err != nil || r.Cached || r.Content != "answer to a by other" {
		t.Errorf("other model: %+v %v", r, err)
	}
	variants := []Request{ask("a "), {Messages: ask("a").Messages, MaxTokens: 6, Logprobs: true}, {Messages: ask("a").Messages, MaxTokens: 5}}
	for _, v := range variants {
		if r, err := c2.Complete(context.Background(), v); err != nil || r.Cached {
			t.Errorf("variant %+v: cached %v, %v", v, r != nil && r.Cached, err)
		}
	}
	if got := srv.Count(); got != 3+1+len(variants) {
		t.Errorf("%d requests", got)
	}
	// A different seed is a different request too.
	c4, _ := newTestClient(t, srv, Config{CachePath: path, Seed: 7})
	if r, err := c4.Complete(context.Background(), ask("a")); err != nil || r.Cached {
		t.Errorf("other seed: cached %v, %v", r != nil && r.Cached, err)
	}
}

// TestCacheSkipsFailures: failed requests are not cached.
func TestCacheSkipsFailures(t *testing.T) {
	srv := llmtest.New(t, func(n int, _ llmtest.Request) llmtest.Reply {
		if n == 0 {
			return llmtest.Reply{Body: "garbage"}
		}
		return llmtest.Reply{Content: "fine"}
	})
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	c, _ := newTestClient(t, srv, Config{CachePath: path})
	if _, err := c.Complete(context.Background(), ask("q")); err == nil {
		t.Fatal("garbage accepted")
	}
	if r, err := c.Complete(context.Background(), ask("q")); err != nil || r.Cached || r.Content != "fine" {
		t.Fatalf("%+v %v", r, err)
	}
}

// TestCacheRefusesOtherFiles: a cache path that names another program's
// SQLite database is refused, and the database is left as it was.
func TestCacheRefusesOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kb.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE documents (title PRIMARY KEY, text)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)
	_, err = New(Config{BaseURL: "http://localhost:1/v1", Model: "m", CachePath: path})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a factreasoner-go cache") {
		t.Fatalf("got %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the database was modified")
	}
}

// TestConcurrencyLimit: never more requests in flight than the limit, and
// the limit is used.
func TestConcurrencyLimit(t *testing.T) {
	for _, limit := range []int{1, 3, 8} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply {
				return llmtest.Reply{Content: "x", Delay: 20 * time.Millisecond}
			})
			c, _ := newTestClient(t, srv, Config{Concurrency: limit})
			reqs := make([]Request, 4*limit)
			for i := range reqs {
				reqs[i] = ask(fmt.Sprint(i))
			}
			if _, err := c.CompleteAll(context.Background(), reqs); err != nil {
				t.Fatal(err)
			}
			if got := srv.MaxInFlight(); got > limit {
				t.Errorf("%d requests in flight, limit %d", got, limit)
			}
			if limit > 1 && srv.MaxInFlight() < 2 {
				t.Errorf("at most %d request in flight: no concurrency", srv.MaxInFlight())
			}
		})
	}
}

// TestCompleteAllOrder: answers come back in request order whatever order
// the server finishes them in; one failure fails the batch.
func TestCompleteAllOrder(t *testing.T) {
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		var i int
		fmt.Sscan(r.Last(), &i)
		return llmtest.Reply{Content: "n" + r.Last(), Delay: time.Duration(10-i) * time.Millisecond}
	})
	c, _ := newTestClient(t, srv, Config{Concurrency: 10})
	reqs := make([]Request, 10)
	for i := range reqs {
		reqs[i] = ask(fmt.Sprint(i))
	}
	out, err := c.CompleteAll(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range out {
		if r.Content != fmt.Sprintf("n%d", i) {
			t.Errorf("answer %d = %q", i, r.Content)
		}
	}

	bad := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		if r.Last() == "3" {
			return llmtest.Reply{Status: 400}
		}
		return llmtest.Reply{Content: "ok"}
	})
	cb, _ := newTestClient(t, bad, Config{})
	if _, err := cb.CompleteAll(context.Background(), reqs); err == nil || !strings.Contains(err.Error(), "400 Bad Request") {
		t.Errorf("err = %v", err)
	}
}

// TestTokens: log probabilities, null log probabilities and raw bytes of
// partial characters are read as sent.
func TestTokens(t *testing.T) {
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "é!", Tokens: []llmtest.Token{
			{Text: "\xc3", Logprob: llmtest.LP(-0.5)}, {Text: "\xa9", Logprob: nil}, {Text: "!", Logprob: llmtest.LP(-1)},
		}}
	})
	c, _ := newTestClient(t, srv, Config{})
	r, err := c.Complete(context.Background(), ask("q"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tokens) != 3 || string(r.Tokens[0].Bytes)+string(r.Tokens[1].Bytes) != "é" ||
		r.Tokens[0].Logprob != -0.5 || !math.IsNaN(r.Tokens[1].Logprob) || r.Tokens[2].Logprob != -1 {
		t.Errorf("tokens %+v", r.Tokens)
	}
	// Without logprobs asked for, none come back.
	r, err = c.Complete(context.Background(), Request{Messages: ask("q").Messages})
	if err != nil || r.Tokens != nil || srv.Requests()[1].Raw["logprobs"] != nil {
		t.Errorf("tokens %+v, request %v, err %v", r.Tokens, srv.Requests()[1].Raw, err)
	}
}

// TestConfigErrors: a missing model or a bad URL is reported up front; a
// 404 from a base URL without /v1 gets a hint.
func TestConfigErrors(t *testing.T) {
	if _, err := New(Config{BaseURL: "http://x/v1"}); err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("err = %v", err)
	}
	if _, err := New(Config{BaseURL: "localhost:8000/v1", Model: "m"}); err == nil || !strings.Contains(err.Error(), "not an http") {
		t.Errorf("err = %v", err)
	}
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "x"} })
	c, err := New(Config{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), ask("q"))
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "/v1") {
		t.Errorf("err = %v", err)
	}
}

// TestNetworkError: a server that is gone is retried like a 5xx and then
// reported with the endpoint.
func TestNetworkError(t *testing.T) {
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "x"} })
	c, waits := newTestClient(t, srv, Config{Retry: fast(2)})
	srv.Close()
	// A server that is not there: the first attempt says so, no retries.
	_, err := c.Complete(context.Background(), ask("q"))
	if err == nil || !strings.Contains(err.Error(), srv.BaseURL()+"/chat/completions") || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "attempts") {
		t.Fatalf("err = %v", err)
	}
	if len(*waits) != 0 || c.Usage().Requests != 1 {
		t.Errorf("waits %v, %d requests", *waits, c.Usage().Requests)
	}
}

// TestRetryingCallback: the caller hears of every repeated attempt.
func TestRetryingCallback(t *testing.T) {
	srv := llmtest.New(t, func(n int, _ llmtest.Request) llmtest.Reply {
		if n < 2 {
			return llmtest.Reply{Status: 503}
		}
		return llmtest.Reply{Content: "ok"}
	})
	var got []string
	p := fast(3)
	p.Notify = func(err error, attempt int, wait time.Duration) {
		got = append(got, fmt.Sprintf("%d: %v", attempt, err))
	}
	c, _ := newTestClient(t, srv, Config{Retry: p})
	if _, err := c.Complete(context.Background(), ask("q")); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "1: llm: POST ") || !strings.Contains(got[1], "503 Service Unavailable") || strings.Contains(got[1], "after") {
		t.Errorf("callbacks %q", got)
	}
}

// TestEachStops: an error from handle stops the batch; requests not yet
// started are not sent.
func TestEachStops(t *testing.T) {
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "x"} })
	c, _ := newTestClient(t, srv, Config{Concurrency: 1})
	stop := errors.New("enough")
	err := c.Each(context.Background(), 100, func(i int) Request { return ask(fmt.Sprint(i)) },
		func(i int, r *Response) error {
			if i == 3 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v", err)
	}
	if n := srv.Count(); n > 10 {
		t.Errorf("%d of 100 requests sent after the batch failed at the 4th", n)
	}
}

// TestSecretsRedacted: a key in the base URL's userinfo and a server that
// echoes the Authorization header in its error body leave no trace of the
// key in errors, retry notices or the endpoint shown.
func TestSecretsRedacted(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		body := `{"error": {"message": "bad request, you sent Authorization: ` + r.Authorization + ` and key ` + key + `"}}`
		if n == 0 {
			return llmtest.Reply{Status: 503, Body: body}
		}
		return llmtest.Reply{Status: 401, Body: body}
	})
	var notes []string
	p := fast(2)
	p.Notify = func(err error, attempt int, wait time.Duration) { notes = append(notes, err.Error()) }
	base := strings.Replace(srv.BaseURL(), "http://", "http://user:"+key+"@", 1)
	c, err := New(Config{BaseURL: base, APIKey: key, Model: "m", Retry: p})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Complete(context.Background(), ask("q"))
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "REDACTED") {
		t.Fatalf("error %v", err)
	}
	if r := srv.Requests()[0]; r.Authorization != "Bearer "+key {
		t.Fatalf("the key was not sent: %q", r.Authorization)
	}
	for _, s := range append(notes, err.Error(), c.Endpoint()) {
		if strings.Contains(s, key) {
			t.Errorf("key printed: %q", s)
		}
	}
	if len(notes) != 1 {
		t.Errorf("retry notices %q", notes)
	}
	if _, err := New(Config{BaseURL: "ftp://user:" + key + "@host/v1", Model: "m"}); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("bad URL error %v", err)
	}
}

// TestUserAgent: requests name the tool and its version.
func TestUserAgent(t *testing.T) {
	var ua string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua = r.UserAgent()
		io.WriteString(w, `{"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}`)
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), ask("q")); err != nil {
		t.Fatal(err)
	}
	if ua != version.UserAgent() || !strings.HasPrefix(ua, "factreasoner-go/") {
		t.Errorf("User-Agent %q", ua)
	}
}

// TestErrorsRedactKey: the client's own errors keep its key out, whole or
// cut, whatever answer echoes it: a 200 with text, an error object in a
// 200, an error status, a model's answer quoted in an unreadable-answer
// error.
func TestErrorsRedactKey(t *testing.T) {
	const key = "sk-proj-LibraryLevelKey0123456789"
	pad := strings.Repeat("x ", 90)
	replies := map[string]llmtest.Reply{
		"200 text":         {Body: "your key is " + key},
		"200 text, cut":    {Body: pad + key + " more"},
		"200 error object": {Body: `{"error": {"message": "Incorrect API key provided: ` + key + `"}}`},
		"401":              {Status: 401, Body: `{"error": {"message": "Incorrect API key provided: ` + pad + key + `"}}`},
		"answer quoting":   {Content: "no: " + pad + key},
	}
	for name, reply := range replies {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply { return reply })
			c, _ := newTestClient(t, srv, Config{APIKey: key})
			req := ask("q")
			req.Read = func(*Response) error { return errors.New("not a label") }
			_, err := c.Complete(context.Background(), req)
			if err == nil {
				t.Fatal("no error")
			}
			for i := 0; i+redact.PartLen <= len(key); i++ {
				if strings.Contains(err.Error(), key[i:i+redact.PartLen]) {
					t.Fatalf("%q of the key shows: %v", key[i:i+redact.PartLen], err)
				}
			}
		})
	}
}

// TestAnswerCap: an answer longer than MaxAnswerBytes, declared or not,
// is an error at once (not retried), read no further than the cap; one at
// the cap is read. Token bytes decode as bytes, and a byte out of range is
// an unreadable answer.
func TestAnswerCap(t *testing.T) {
	answer := `{"choices": [{"message": {"content": "neutral"}, "finish_reason": "stop", "logprobs": {"content": [{"token": "neutral", "logprob": -0.5, "bytes": [110, 101, 117, 116, 114, 97, 108]}]}}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := answer
		if r.URL.Query().Get("pad") != "" {
			body = strings.Replace(answer, `"stop"`, `"stop", "pad": "`+strings.Repeat("x", 4096)+`"`, 1)
		}
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		}
		io.WriteString(w, body)
	}))
	defer srv.Close()
	for _, tt := range []struct {
		query string
		ok    bool
	}{
		{"", true}, {"chunked=1", true}, {"pad=1", false}, {"pad=1&chunked=1", false},
	} {
		c, err := New(Config{BaseURL: srv.URL + "/v1?" + tt.query, Model: "m", Retry: fast(3), MaxAnswerBytes: int64(len(answer))})
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Complete(context.Background(), ask("q"))
		if tt.ok {
			if err != nil || r.Content != "neutral" || string(r.Tokens[0].Bytes) != "neutral" {
				t.Errorf("%s: %+v, %v", tt.query, r, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "longer than") || c.Usage().Requests != 1 {
			t.Errorf("%s: error %v after %d requests, want one refusal", tt.query, err, c.Usage().Requests)
		}
	}
	for _, bad := range []string{`[256]`, `[-1]`, `"aGk="`, `[1,]`, `[,1]`, `[1 2]`, `[1.5]`, `[1000]`, `{}`} {
		if _, err := parseResponse([]byte(strings.Replace(answer, "[110, 101, 117, 116, 114, 97, 108]", bad, 1))); err == nil {
			t.Errorf("bytes %s read", bad)
		}
	}
	for list, want := range map[string]string{"[]": "", "[ ]": "", "[ 104 , 105 ]": "hi", "[0,255]": "\x00\xff", "null": "neutral"} {
		r, err := parseResponse([]byte(strings.Replace(answer, "[110, 101, 117, 116, 114, 97, 108]", list, 1)))
		if err != nil || string(r.Tokens[0].Bytes) != want {
			t.Errorf("bytes %s: %q, %v; want %q", list, r.Tokens[0].Bytes, err, want)
		}
	}
}

// TestBaseURLWithQuery: a base URL with a query (Azure OpenAI's
// ?api-version=) gets /chat/completions on its path and keeps its query
// as a query.
func TestBaseURLWithQuery(t *testing.T) {
	var path, query string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, query = r.URL.Path, r.URL.RawQuery
		io.WriteString(w, `{"choices": [{"message": {"content": "neutral"}, "finish_reason": "stop"}]}`)
	}))
	defer srv.Close()
	for _, base := range []string{"/openai/deployments/gpt4?api-version=2024-02-01", "/openai/deployments/gpt4/?api-version=2024-02-01"} {
		c, err := New(Config{BaseURL: srv.URL + base, Model: "m", Retry: fast(0)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Complete(context.Background(), ask("q")); err != nil {
			t.Fatal(err)
		}
		if path != "/openai/deployments/gpt4/chat/completions" || query != "api-version=2024-02-01" {
			t.Errorf("%s: request to path %q query %q", base, path, query)
		}
		if want := srv.URL + "/openai/deployments/gpt4/chat/completions?api-version=2024-02-01"; c.Endpoint() != want {
			t.Errorf("endpoint %s, want %s", c.Endpoint(), want)
		}
	}
}

// TestProbe: before its first request the client asks the server for its
// models, once, under the policy's FirstByte: a server that accepts the
// connection and never answers fails the request after that wait, with
// no chat request and no retry; any answer to the probe, an error status
// too, lets the requests go; a probe stopped by the caller is asked again.
func TestProbe(t *testing.T) {
	addr := nettest.Silent(t)
	c, err := New(Config{BaseURL: "http://" + addr + "/v1", Model: "m", Retry: &retry.Policy{Retries: 5, MinWait: time.Millisecond, FirstByte: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), ask("q"))
	if !errors.Is(err, retry.ErrNoAnswer) || !strings.Contains(err.Error(), "GET http://"+addr+"/v1/models") || c.Usage().Requests != 0 {
		t.Errorf("a silent server: %v, %d requests", err, c.Usage().Requests)
	}
	if _, err2 := c.Complete(context.Background(), ask("q2")); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("the second request: %v", err2)
	}

	var probes atomic.Int64
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "neutral"} })
	counting := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodGet {
			probes.Add(1)
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	c2, _ := newTestClient(t, srv, Config{HTTPClient: counting})
	for _, q := range []string{"a", "b", "c"} {
		if _, err := c2.Complete(context.Background(), ask(q)); err != nil {
			t.Fatal(err)
		}
	}
	if probes.Load() != 1 || srv.Count() != 3 {
		t.Errorf("%d probes (the server answered 400), %d requests", probes.Load(), srv.Count())
	}
	c3, _ := newTestClient(t, srv, Config{HTTPClient: counting})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c3.Complete(canceled, ask("d")); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	if _, err := c3.Complete(context.Background(), ask("d")); err != nil {
		t.Errorf("after a canceled probe: %v", err)
	}
}

// roundTripper is a function as an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
