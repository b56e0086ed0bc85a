package llm

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// readYes accepts an answer that is "yes" or "no".
func readYes(r *Response) error {
	if r.Content != "yes" && r.Content != "no" {
		return errors.New("neither yes nor no")
	}
	return nil
}

func askYes(text string) Request {
	r := ask(text)
	r.Read, r.Reminder, r.Stage, r.Item = readYes, "Answer yes or no.", "test", "question "+text
	return r
}

// TestReadReask: an answer Read refuses is asked again as the same
// conversation going on, with the refused answer and the reminder; the
// answer read is returned with the number of re-asks, and it is cached under
// the first request, so that a rerun sends nothing. The refused answer is
// not cached.
func TestReadReask(t *testing.T) {
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		if r.Last() == "Answer yes or no." {
			return llmtest.Reply{Content: "yes"}
		}
		return llmtest.Reply{Content: "Well, it depends."}
	})
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	c, _ := newTestClient(t, srv, Config{CachePath: path, Reasks: 2})
	r, err := c.Complete(context.Background(), askYes("q"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != "yes" || r.Reasks != 1 || r.Cached {
		t.Errorf("response %+v", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if m := reqs[1].Messages; len(m) != 3 || m[0].Content != "q" || m[1].Role != "assistant" || m[1].Content != "Well, it depends." ||
		m[2].Role != "user" || m[2].Content != "Answer yes or no." || reqs[1].MaxTokens != 5 || !reqs[1].Logprobs {
		t.Errorf("re-ask %+v", reqs[1])
	}
	if u := c.Usage(); u.Calls != 1 || u.Requests != 2 || u.Reasks != 1 || !strings.Contains(u.String(), "2 requests (0 retries, 1 re-asks)") {
		t.Errorf("usage %+v", u)
	}
	c.Close()

	c2, _ := newTestClient(t, srv, Config{CachePath: path, Reasks: 2})
	r, err = c2.Complete(context.Background(), askYes("q"))
	if err != nil || r.Content != "yes" || !r.Cached || r.Reasks != 0 {
		t.Errorf("rerun: %+v, %v", r, err)
	}
	if srv.Count() != 2 {
		t.Errorf("the rerun sent %d requests", srv.Count()-2)
	}
	// Without Read, the same request is the same key: the cache holds the
	// answer read, never the one refused.
	if r, err := c2.Complete(context.Background(), ask("q")); err != nil || r.Content != "yes" || !r.Cached {
		t.Errorf("plain request after a re-ask: %+v, %v", r, err)
	}
}

// TestReadUnreadable: an answer still refused after the re-asks is an
// *UnreadableAnswerError with the stage, the item, the first 200
// characters of the last answer and Read's reason; nothing is cached, so a
// rerun against a server that has been fixed asks again.
func TestReadUnreadable(t *testing.T) {
	long := strings.Repeat("é", 250)
	var fixed atomic.Bool
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		if fixed.Load() {
			return llmtest.Reply{Content: "no"}
		}
		return llmtest.Reply{Content: long}
	})
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	for _, reasks := range []int{0, 2} {
		c, _ := newTestClient(t, srv, Config{CachePath: path, Reasks: reasks})
		before := srv.Count()
		_, err := c.Complete(context.Background(), askYes("q"))
		var ue *UnreadableAnswerError
		if !errors.As(err, &ue) {
			t.Fatalf("reasks %d: error %v, want an UnreadableAnswerError", reasks, err)
		}
		if ue.Stage != "test" || ue.Item != "question q" || ue.Answer != strings.Repeat("é", 200)+"…" || ue.Attempts != reasks+1 ||
			ue.Err.Error() != "neither yes nor no" || ue.FinishReason != "stop" {
			t.Errorf("reasks %d: %+v", reasks, ue)
		}
		for _, s := range []string{"test: question q: ", "could not be read", "neither yes nor no", strings.Repeat("é", 200) + "…\""} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q lacks %q", err, s)
			}
		}
		if got := srv.Count() - before; got != reasks+1 {
			t.Errorf("reasks %d: %d requests", reasks, got)
		}
		if u := c.Usage(); u.Calls != 0 || u.Reasks != int64(reasks) {
			t.Errorf("usage %+v", u)
		}
		c.Close()
	}
	fixed.Store(true)
	c, _ := newTestClient(t, srv, Config{CachePath: path})
	if r, err := c.Complete(context.Background(), askYes("q")); err != nil || r.Cached || r.Content != "no" {
		t.Errorf("after the fix: %+v, %v", r, err)
	}
}

// TestReadCachedRefused: a cached answer that Read refuses (cached by a
// request without Read) is asked for again and replaced.
func TestReadCachedRefused(t *testing.T) {
	srv := llmtest.New(t, func(n int, _ llmtest.Request) llmtest.Reply {
		if n == 0 {
			return llmtest.Reply{Content: "maybe"}
		}
		return llmtest.Reply{Content: "yes"}
	})
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	c, _ := newTestClient(t, srv, Config{CachePath: path})
	if r, err := c.Complete(context.Background(), ask("q")); err != nil || r.Content != "maybe" {
		t.Fatalf("%+v %v", r, err)
	}
	if r, err := c.Complete(context.Background(), askYes("q")); err != nil || r.Cached || r.Content != "yes" {
		t.Errorf("%+v %v", r, err)
	}
	if r, err := c.Complete(context.Background(), ask("q")); err != nil || !r.Cached || r.Content != "yes" {
		t.Errorf("replaced entry: %+v %v", r, err)
	}
	if srv.Count() != 2 {
		t.Errorf("%d requests", srv.Count())
	}
}

// TestReadCutOff: the error says when the last answer was cut off at the
// token limit.
func TestReadCutOff(t *testing.T) {
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Body: `{"choices":[{"message":{"content":"ye"},"finish_reason":"length"}]}`}
	})
	c, _ := newTestClient(t, srv, Config{})
	_, err := c.Complete(context.Background(), askYes("q"))
	if err == nil || !strings.Contains(err.Error(), "cut off at the token limit") {
		t.Errorf("error %v", err)
	}
}

func TestReasksNegative(t *testing.T) {
	if _, err := New(Config{Model: "m", Reasks: -1}); err == nil {
		t.Error("negative re-ask count accepted")
	}
}

// TestAnswerQuotesSecret: an answer that quotes a secret the client knows
// (its API key, or one of Config.Secrets; whole, or 8 bytes of it in a
// row) is asked again with a reminder not to, and never returned or
// cached: the answer read after the reminder is; with no re-ask left the
// request is an *UnreadableAnswerError that shows no part of the secret.
// A cached answer that quotes one (cached by an earlier version) is asked
// for afresh.
func TestAnswerQuotesSecret(t *testing.T) {
	const (
		key    = "sk-proj-QuotedKey0123456789abc"
		serper = "5e7a9c1b3d5f7a9c1b3d5f7a9c1b3d5f"
	)
	tests := []struct {
		name, answer string
		read         bool // with askYes's Read (else a request without one)
	}{
		{"the API key", "yes " + key, true},
		{"another secret", "yes, with key " + serper, true},
		{"8 bytes of one", "yes QuotedKey01", true},
		{"without Read", "your key is " + key, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
				if r.Last() == secretReminder {
					return llmtest.Reply{Content: "yes"}
				}
				return llmtest.Reply{Content: tt.answer}
			})
			req := ask("q")
			if tt.read {
				req = askYes("q")
			}
			path := filepath.Join(t.TempDir(), "cache.sqlite")
			cfg := Config{APIKey: key, Secrets: []string{serper}, CachePath: path}
			c, _ := newTestClient(t, srv, cfg)
			_, err := c.Complete(context.Background(), req)
			var ue *UnreadableAnswerError
			if !errors.As(err, &ue) || !errors.Is(err, ErrQuotesSecret) {
				t.Fatalf("no re-ask: error %v, want an UnreadableAnswerError for a quoted secret", err)
			}
			for _, s := range []string{key[8:16], serper[:8], "QuotedKe"} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("the error shows %q: %v", s, err)
				}
			}
			c.Close()
			cfg.Reasks = 1
			c, _ = newTestClient(t, srv, cfg)
			r, err := c.Complete(context.Background(), req)
			if err != nil || r.Content != "yes" || r.Reasks != 1 {
				t.Fatalf("after a reminder: %+v, %v", r, err)
			}
			c.Close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{key, serper, "QuotedKey01"} {
				if bytes.Contains(data, []byte(s)) {
					t.Errorf("the cache holds %q", s)
				}
			}
		})
	}
	t.Run("cached before", func(t *testing.T) {
		srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
			if n == 0 {
				return llmtest.Reply{Content: "yes " + key}
			}
			return llmtest.Reply{Content: "no"}
		})
		path := filepath.Join(t.TempDir(), "cache.sqlite")
		c, _ := newTestClient(t, srv, Config{CachePath: path}) // knows no secret
		if r, err := c.Complete(context.Background(), ask("q")); err != nil || r.Content != "yes "+key {
			t.Fatalf("%+v %v", r, err)
		}
		c.Close()
		c, _ = newTestClient(t, srv, Config{APIKey: key, CachePath: path})
		if r, err := c.Complete(context.Background(), ask("q")); err != nil || r.Cached || r.Content != "no" {
			t.Errorf("a cached answer quoting the key: %+v, %v", r, err)
		}
	})
}
