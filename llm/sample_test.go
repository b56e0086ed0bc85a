package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// sampler is a fake endpoint that samples: the answer to a request is
// "s<seed>.<k>" for its k-th answer, or "bad" where the test says, and it
// honours n or not as the test says.
type sampler struct {
	honoursN bool
	refusesN bool            // answer 400 to a request with n
	bad      map[string]bool // answers to send as "bad"
}

func (s *sampler) answer(_ int, r llmtest.Request) llmtest.Reply {
	if r.N > 1 && s.refusesN {
		return llmtest.Reply{Status: 400}
	}
	name := func(k int) string {
		a := fmt.Sprintf("s%d.%d", *r.Seed, k)
		if s.bad[a] {
			return "bad"
		}
		return a
	}
	if r.N > 1 && s.honoursN {
		var rs []llmtest.Reply
		for k := range r.N {
			rs = append(rs, llmtest.Reply{Content: name(k)})
		}
		return llmtest.Reply{Choices: rs}
	}
	return llmtest.Reply{Content: name(0)}
}

// sampled is the contents of n samples of req.
func sampled(t *testing.T, cl *Client, req Request, n int) []string {
	t.Helper()
	got, err := cl.Sample(context.Background(), req, n)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range got {
		texts = append(texts, r.Content)
	}
	return texts
}

// readable refuses "bad".
func readable(r *Response) error {
	if r.Content == "bad" {
		return errors.New("bad answer")
	}
	return nil
}

// TestSample: samples come from one request asking for n where the server
// honours it, else from one request each with its own seed (after the
// first item taught the client that n is not honoured); an answer that
// cannot be read is drawn again by its own request; everything is cached.
func TestSample(t *testing.T) {
	for _, c := range []struct {
		name     string
		s        sampler
		items    int
		want     [][]string // samples of each item
		requests int        // of the first run
	}{
		{"n honoured", sampler{honoursN: true}, 2,
			[][]string{{"s42.0", "s42.1", "s42.2"}, {"s42.0", "s42.1", "s42.2"}}, 2},
		{"n ignored", sampler{}, 2,
			[][]string{{"s43.0", "s44.0", "s45.0"}, {"s43.0", "s44.0", "s45.0"}}, 1 + 3 + 3},
		{"n refused", sampler{refusesN: true}, 1, [][]string{{"s43.0", "s44.0", "s45.0"}}, 1 + 3},
		// Choice 1 cannot be read: sample 1 is asked with seed 42+1+1.
		{"a choice unreadable", sampler{honoursN: true, bad: map[string]bool{"s42.1": true}}, 1,
			[][]string{{"s42.0", "s44.0", "s42.2"}}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.New(t, c.s.answer)
			cache := filepath.Join(t.TempDir(), "llm.sqlite")
			for run := range 2 {
				cl, _ := newTestClient(t, srv, Config{Seed: 42, CachePath: cache, Concurrency: 2})
				before := srv.Count()
				for i := range c.items {
					req := Request{Messages: []Message{{Role: "user", Content: fmt.Sprint("item ", i)}}, Temperature: 1, Read: readable, Reminder: "again"}
					texts := sampled(t, cl, req, 3)
					if !slices.Equal(texts, c.want[i]) {
						t.Errorf("run %d item %d: samples %v; want %v", run, i, texts, c.want[i])
					}
				}
				want := c.requests
				if run == 1 {
					want = 0 // from the cache
				}
				if n := srv.Count() - before; n != want {
					t.Errorf("run %d: %d requests; want %d", run, n, want)
				}
				cl.Close()
			}
			for _, r := range srv.Requests() {
				if r.Temperature == nil || *r.Temperature != 1 {
					t.Errorf("request at temperature %v", r.Temperature)
				}
			}
		})
	}
}

// TestSampleErrors: sampling needs a temperature above 0 and a number of
// samples within bounds; an answer that stays unreadable is an error.
func TestSampleErrors(t *testing.T) {
	srv := llmtest.New(t, (&sampler{bad: map[string]bool{"s43.0": true}}).answer)
	cl, _ := newTestClient(t, srv, Config{Seed: 42, Reasks: 1})
	req := Request{Messages: []Message{{Role: "user", Content: "x"}}, Temperature: 1, Read: readable, Reminder: "again"}
	for _, c := range []struct {
		req  Request
		n    int
		want string
	}{
		{Request{Messages: req.Messages}, 3, "temperature 0"},
		{req, 0, "0 samples"},
		{req, MaxSamples + 1, "101 samples"},
		{req, 3, "could not be read"},
	} {
		if _, err := cl.Sample(context.Background(), c.req, c.n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v; want one saying %q", err, c.want)
		}
	}
}

func TestSampleShare(t *testing.T) {
	for _, c := range []struct {
		k, n int
		want float64
	}{{5, 5, 5.25 / 5.5}, {3, 5, 3.25 / 5.5}, {0, 5, 0.25 / 5.5}, {10, 10, 10.25 / 10.5}, {1, 1, 1.25 / 1.5}} {
		if got := SampleShare(c.k, c.n); got != c.want {
			t.Errorf("SampleShare(%d, %d) = %v; want %v", c.k, c.n, got, c.want)
		}
	}
}

func TestParseMethod(t *testing.T) {
	for in, want := range map[string]Method{"": Auto, "auto": Auto, "logprobs": Logprobs, "sample": Sample, "fixed": Fixed} {
		if got, err := ParseMethod(in); err != nil || got != want || (in != "" && got.String() != in) {
			t.Errorf("ParseMethod(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMethod("simbauq"); err == nil || !strings.Contains(err.Error(), "auto, logprobs, sample, fixed") {
		t.Errorf("error %v", err)
	}
}

// TestSampleQuotingSecret: a request for n answers one of which quotes
// the API key, even when asked again, is neither kept nor cached
// (Complete's check covers every choice); the samples are then asked one
// a request, and the one whose answer quotes the key is asked again with
// the reminder. No answer
// returned, and nothing in the cache, holds the key.
func TestSampleQuotingSecret(t *testing.T) {
	const key = "sk-SampledSecretKey-0123456789"
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		if r.N > 1 { // asked again or not, answer 1 quotes the key
			rs := make([]llmtest.Reply, r.N)
			for k := range rs {
				rs[k] = llmtest.Reply{Content: fmt.Sprintf("s%d.%d", *r.Seed, k)}
			}
			rs[1].Content = "my key is " + key
			return llmtest.Reply{Choices: rs}
		}
		if r.Last() == secretReminder {
			return llmtest.Reply{Content: "fixed"}
		}
		if *r.Seed == 44 { // sample 1, asked alone
			return llmtest.Reply{Content: "again " + key}
		}
		return llmtest.Reply{Content: fmt.Sprintf("s%d.0", *r.Seed)}
	})
	cache := filepath.Join(t.TempDir(), "llm.sqlite")
	cl, _ := newTestClient(t, srv, Config{Seed: 42, APIKey: key, CachePath: cache, Reasks: 1})
	req := Request{Messages: []Message{{Role: "user", Content: "item"}}, Temperature: 1, Read: readable, Reminder: "again"}
	if texts, want := sampled(t, cl, req, 3), []string{"s43.0", "fixed", "s45.0"}; !slices.Equal(texts, want) {
		t.Errorf("samples %v; want %v", texts, want)
	}
	cl.Close()
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(key)) {
		t.Error("the cache holds the key")
	}
}
