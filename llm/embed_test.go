package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/nettest"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/retry"
)

// TestEmbed: vectors come back in the order of the texts, across several
// requests of MaxEmbedBatch texts; a rate limit is retried.
func TestEmbed(t *testing.T) {
	srv := llmtest.NewEmbeddings(t, "hash", 16)
	srv.Fail = func(n int) int {
		if n == 1 {
			return http.StatusTooManyRequests
		}
		return 0
	}
	c, err := New(Config{BaseURL: srv.BaseURL(), Model: "hash", Retry: fast(2), APIKey: "sk-secret"})
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 2*MaxEmbedBatch+5)
	for i := range texts {
		texts[i] = fmt.Sprintf("text number %d", i)
	}
	vs, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if fmt.Sprint(v) != fmt.Sprint(llmtest.HashEmbedding(texts[i], 16)) {
			t.Fatalf("text %d: %v", i, v)
		}
	}
	if srv.Requests() != 4 || srv.Texts() != len(texts) {
		t.Errorf("%d requests for %d texts", srv.Requests(), srv.Texts())
	}
	if _, err := New(Config{BaseURL: srv.BaseURL(), Model: "other"}); err != nil {
		t.Fatal(err)
	}
	other, _ := New(Config{BaseURL: srv.BaseURL(), Model: "other", Retry: fast(0)})
	if _, err := other.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), `model \"other\" not found`) && !strings.Contains(err.Error(), `model "other" not found`) {
		t.Errorf("a model the server does not serve: %v", err)
	}
}

// TestEmbedBadAnswers: an answer that does not give one finite vector per
// text is an error naming what is wrong, never a vector made up.
func TestEmbedBadAnswers(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"not JSON", `<html>`, "not an embeddings response"},
		{"too few", `{"data":[{"index":0,"embedding":[1,2]}]}`, "1 embeddings for 2 texts"},
		{"index twice", `{"data":[{"index":0,"embedding":[1,2]},{"index":0,"embedding":[1,2]}]}`, "index 0"},
		{"null value", `{"data":[{"index":0,"embedding":[1,null]},{"index":1,"embedding":[1,2]}]}`, "not a finite number"},
		{"empty", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1,2]}]}`, "is empty"},
		{"two dimensions", `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1,2]}]}`, "1 and 2 dimensions"},
		{"error object", `{"error":{"message":"overloaded sk-secret"}}`, "overloaded"},
		{"a wrong type", `{"data":[{"index":"0","embedding":[1,2]}]}`, "data[0].index: expected number, got JSON string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, tc.body) }))
			defer srv.Close()
			c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m", Retry: fast(0), APIKey: "sk-secret"})
			_, err := c.Embed(context.Background(), []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Fatalf("the key is in the error: %v", err)
			}
		})
	}
}

// TestEmbedHostile: the embeddings client has the chat client's
// protections: a server that accepts the connection and never answers
// fails at the probe, after the first-byte wait and without retries; a
// name that does not resolve is not retried; and an error body that
// echoes a secret the client knows (Config.Secrets) is redacted.
func TestEmbedHostile(t *testing.T) {
	addr := nettest.Silent(t)
	c, err := New(Config{BaseURL: "http://" + addr + "/v1", Model: "m", Retry: &retry.Policy{Retries: 5, MinWait: time.Millisecond, FirstByte: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(context.Background(), []string{"a"}); !errors.Is(err, retry.ErrNoAnswer) || c.Usage().Requests != 0 {
		t.Errorf("a silent server: %v, %d requests", err, c.Usage().Requests)
	}

	c, _ = New(Config{BaseURL: "http://no-such-host.invalid/v1", Model: "m", Retry: &retry.Policy{Retries: 5, MinWait: time.Millisecond}})
	if _, err := c.Embed(context.Background(), []string{"a"}); err == nil || c.Usage().Retries != 0 {
		t.Errorf("a name that does not resolve: %v, %d retries", err, c.Usage().Retries)
	}

	const other = "serper-secret-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"error":{"message":"bad key %s"}}`, other)
	}))
	defer srv.Close()
	c, _ = New(Config{BaseURL: srv.URL + "/v1", Model: "m", Retry: fast(0), Secrets: []string{other}})
	if _, err := c.Embed(context.Background(), []string{"a"}); err == nil || strings.Contains(err.Error(), other) {
		t.Errorf("the secret is in the error: %v", err)
	}
}
