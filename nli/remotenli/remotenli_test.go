package remotenli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli/remotenlitest"
	"github.com/factreasoner/factreasoner-go/retry"
)

func modelDir(name string) string { return filepath.Join("..", "..", "testdata", "nli", name) }

// testPairs are the pairs of the model's reference.json (short and long
// premises, some longer than the window, so cut into chunks) and of the
// shipped example, each context with each atom of its record.
func testPairs(t *testing.T, model string) []nli.Pair {
	t.Helper()
	var ref struct {
		Pairs []struct{ Premise, Hypothesis string }
	}
	data, err := os.ReadFile(filepath.Join(modelDir(model), "reference.json"))
	if err == nil {
		err = json.Unmarshal(data, &ref)
	}
	if err != nil {
		t.Fatal(err)
	}
	var pairs []nli.Pair
	for i, p := range ref.Pairs {
		pairs = append(pairs, nli.Pair{PremiseID: fmt.Sprint("ref", i), HypothesisID: fmt.Sprint("ref", i), Premise: p.Premise, Hypothesis: p.Hypothesis})
	}
	example, err := os.ReadFile(filepath.Join("..", "..", "testdata", "example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(example)), "\n") {
		var rec struct {
			Atoms    []struct{ ID, Text string }
			Contexts []struct{ ID, Text string }
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		for _, c := range rec.Contexts {
			for _, a := range rec.Atoms {
				pairs = append(pairs, nli.Pair{PremiseID: c.ID, HypothesisID: a.ID, Premise: c.Text, Hypothesis: a.Text})
			}
		}
	}
	return pairs
}

func localAnswers(t *testing.T, model string, pairs []nli.Pair) ([]nli.Result, crossenc.Stats) {
	t.Helper()
	m, err := onnxnli.Load(modelDir(model), onnxnli.Options{})
	if err != nil {
		t.Fatalf("%v\n(scripts/test installs ONNX Runtime)", err)
	}
	defer m.Close()
	res, err := m.Classify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	return res, m.Stats()
}

// fast are options for tests: short waits between attempts.
func fast(protocol, endpoint, model string) remotenli.Options {
	return remotenli.Options{Protocol: protocol, Endpoint: endpoint, Model: model, Timeout: 5 * time.Second,
		Retry: &retry.Policy{Retries: 2, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}}
}

// TestSameAsONNX: with the model the local onnx backend runs, both
// protocols give exactly its answers (the same float32 logits, so the same
// probabilities to the last bit), for short pairs and for premises cut
// into chunks, at any batch size and concurrency.
func TestSameAsONNX(t *testing.T) {
	for _, model := range []string{"tiny-roberta", "tiny-bert"} {
		pairs := testPairs(t, model)
		want, stats := localAnswers(t, model, pairs)
		if stats.ChunkedPairs < 3 {
			t.Fatalf("%s: only %d pairs chunked; the test wants long premises", model, stats.ChunkedPairs)
		}
		srv := remotenlitest.Start(t, modelDir(model), "nli-"+model)
		for _, protocol := range []string{remotenli.KServe, remotenli.TEI} {
			for _, setting := range []struct{ batch, conc int }{{1, 1}, {4, 3}, {0, 0}} {
				t.Run(fmt.Sprintf("%s/%s/batch=%d,concurrency=%d", model, protocol, setting.batch, setting.conc), func(t *testing.T) {
					o := fast(protocol, srv.URL, srv.Name)
					o.BatchSize, o.Concurrency = setting.batch, setting.conc
					// No faults here: a request repeated after a timeout
					// (the race detector on a loaded machine) would be run
					// twice by the server, and the count below would differ.
					o.Timeout = 2 * time.Minute
					before := srv.Sequences()
					c, err := remotenli.Open(context.Background(), modelDir(model), o)
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					got, err := c.Classify(context.Background(), pairs)
					if err != nil {
						t.Fatal(err)
					}
					for i := range pairs {
						if got[i].Label != want[i].Label || got[i].Probability != want[i].Probability || !slices.Equal(got[i].Distribution, want[i].Distribution) {
							t.Errorf("pair %d (%s, %s): remote %v %v, onnx %v %v", i, pairs[i].PremiseID, pairs[i].HypothesisID,
								got[i].Label, got[i].Distribution, want[i].Label, want[i].Distribution)
						}
					}
					s := c.Stats()
					if s.Sequences != stats.Sequences || s.ChunkedPairs != stats.ChunkedPairs || s.Retokenized != 0 {
						t.Errorf("stats %+v; onnx %+v", s, stats)
					}
					if ran := srv.Sequences() - before; ran != s.Sequences {
						t.Errorf("the server ran %d sequences; the client sent %d (%+v)", ran, s.Sequences, c.Usage())
					}
					wantName := protocol + ":" + srv.Name + "@1;tokenizer=" + modelDir(model)
					if protocol == remotenli.TEI {
						wantName = protocol + ":" + srv.Name + "@c0ffee00c0ff;tokenizer=" + modelDir(model)
					}
					if id := c.Identity(); id.Backend != "remote" || id.Model != wantName {
						t.Errorf("identity %v; want remote %s", id, wantName)
					}
				})
			}
		}
	}
}

// TestOpenErrors: what is wrong with the server or its model is an error
// at Open, before any pair is sent, that says what is wrong.
func TestOpenErrors(t *testing.T) {
	srv := remotenlitest.Start(t, modelDir("tiny-roberta"), "nli")
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	type setup struct {
		ready    bool
		meta     func(*remotenlitest.Metadata)
		info     func(*remotenlitest.Info)
		fault    func(*http.Request, int) *remotenlitest.Fault
		protocol string
		endpoint string
		model    string
		dir      string
		maxLen   int
	}
	kserve := func(edit func(*setup)) setup {
		s := setup{ready: true, protocol: remotenli.KServe, endpoint: srv.URL, model: "nli", dir: modelDir("tiny-roberta")}
		if edit != nil {
			edit(&s)
		}
		return s
	}
	tei := func(edit func(*setup)) setup {
		return kserve(func(s *setup) {
			s.protocol = remotenli.TEI
			if edit != nil {
				edit(s)
			}
		})
	}
	for _, c := range []struct {
		name  string
		setup setup
		is    error
		want  []string
	}{
		{"kserve not ready", kserve(func(s *setup) { s.ready = false }), remotenli.ErrNotReady, []string{`model "nli"`, "/v2/models/nli/ready", "400 Bad Request"}},
		// The Open Inference Protocol's model ready answer is
		// {"name", "ready"}: a server may say 200 with "ready": false
		// (the status alone is Triton's way), or, as KServe's Python
		// server, 503 while the model loads.
		{"kserve ready false", kserve(func(s *setup) {
			s.fault = func(r *http.Request, _ int) *remotenlitest.Fault {
				if strings.HasSuffix(r.URL.Path, "/ready") {
					return &remotenlitest.Fault{Body: `{"name": "nli", "ready": false}`}
				}
				return nil
			}
		}), remotenli.ErrNotReady, []string{`model "nli"`, `"ready": false`}},
		{"kserve ready 503", kserve(func(s *setup) {
			s.fault = func(r *http.Request, _ int) *remotenlitest.Fault {
				if strings.HasSuffix(r.URL.Path, "/ready") {
					return &remotenlitest.Fault{Status: 503, Body: `{"error": "Model with name nli is not ready."}`}
				}
				return nil
			}
		}), remotenli.ErrNotReady, []string{`model "nli"`, "503 Service Unavailable", "is not ready."}},
		{"kserve unknown model", kserve(func(s *setup) { s.model = "roberta" }), remotenli.ErrUnknownModel, []string{`does not serve a model named "roberta"`, "Request for unknown model"}},
		{"kserve unknown model (404)", kserve(func(s *setup) {
			s.fault = func(r *http.Request, _ int) *remotenlitest.Fault {
				return &remotenlitest.Fault{Status: 404, Body: `{"error": "Model with name nli does not exist."}`}
			}
		}), remotenli.ErrUnknownModel, []string{"Model with name nli does not exist.", "Open Inference Protocol server"}},
		{"kserve no model name", kserve(func(s *setup) { s.model = "" }), nil, []string{"the model's name at the server is required"}},
		{"kserve wrong output name", kserve(func(s *setup) {
			s.meta = func(m *remotenlitest.Metadata) { m.Outputs[0].Name = "output_0" }
		}), remotenli.ErrBadOutput, []string{"no output named logits", "output_0"}},
		{"kserve output of two labels", kserve(func(s *setup) {
			s.meta = func(m *remotenlitest.Metadata) { m.Outputs[0].Shape = []int64{-1, 2} }
		}), crossenc.ErrNotMNLI, []string{"2 values per sequence", "3 labels"}},
		{"kserve output of rank 3", kserve(func(s *setup) {
			s.meta = func(m *remotenlitest.Metadata) { m.Outputs[0].Shape = []int64{-1, -1, 3} }
		}), remotenli.ErrBadOutput, []string{"shape [-1 -1 3]"}},
		{"kserve FP16 output", kserve(func(s *setup) {
			s.meta = func(m *remotenlitest.Metadata) { m.Outputs[0].Datatype = "FP16" }
		}), remotenli.ErrBadOutput, []string{"datatype FP16"}},
		{"kserve image input", kserve(func(s *setup) {
			s.meta = func(m *remotenlitest.Metadata) { m.Inputs[0].Name = "pixel_values" }
		}), nil, []string{`unexpected input "pixel_values"`}},
		{"kserve fixed length", kserve(func(s *setup) {
			s.meta = func(m *remotenlitest.Metadata) { m.Inputs[0].Shape = []int64{-1, 512} }
		}), nil, []string{"fixed sequence length of 512"}},
		{"kserve metadata garbage", kserve(func(s *setup) {
			s.fault = func(r *http.Request, _ int) *remotenlitest.Fault {
				return &remotenlitest.Fault{Body: "<html>proxy login</html>"}
			}
		}), nil, []string{"unreadable answer", "proxy login", "after 3 attempts"}},
		// No server: the first attempt says so (not retried).
		{"no server", kserve(func(s *setup) { s.endpoint = closed.URL }), nil, []string{"connection refused"}},
		{"empty port", kserve(func(s *setup) { s.endpoint = "http://localhost:" }), nil, []string{"remotenli.Options.Endpoint", "empty port"}},
		{"not a URL", kserve(func(s *setup) { s.endpoint = "localhost:8000" }), nil, []string{"remotenli.Options.Endpoint", "http://"}},
		{"unknown protocol", kserve(func(s *setup) { s.protocol = "grpc" }), nil, []string{`unknown protocol "grpc"`}},
		{"tokenizer directory missing", kserve(func(s *setup) { s.dir = "/nonexistent" }), nil, []string{"missing tokenizer.json, config.json"}},

		{"tei not ready", tei(func(s *setup) { s.ready = false }), remotenli.ErrNotReady, []string{"/health", "503", "unhealthy"}},
		{"tei at a kserve server", tei(func(s *setup) {
			s.fault = func(r *http.Request, _ int) *remotenlitest.Fault {
				if r.URL.Path == "/health" {
					return &remotenlitest.Fault{Status: 404, Body: "404 page not found"}
				}
				return nil
			}
		}), nil, []string{"no text-embeddings-inference server at"}},
		{"tei other model", tei(func(s *setup) { s.model = "acme/other" }), remotenli.ErrUnknownModel, []string{"serves nli, not acme/other"}},
		{"tei two labels", tei(func(s *setup) {
			s.info = func(in *remotenlitest.Info) {
				in.ModelType = map[string]any{"classifier": map[string]any{"id2label": map[string]string{"0": "entailment", "1": "not_entailment"}}}
			}
		}), crossenc.ErrNotMNLI, []string{"2 labels"}},
		{"tei labels not NLI", tei(func(s *setup) {
			s.info = func(in *remotenlitest.Info) {
				in.ModelType = map[string]any{"classifier": map[string]any{"id2label": map[string]string{"0": "NEGATIVE", "1": "NEUTRAL", "2": "POSITIVE"}}}
			}
		}), crossenc.ErrNotMNLI, []string{"want entailment, neutral and contradiction"}},
		{"tei embedding model", tei(func(s *setup) {
			s.info = func(in *remotenlitest.Info) {
				in.ModelType = map[string]any{"embedding": map[string]any{"pooling": "cls"}}
			}
		}), crossenc.ErrNotMNLI, []string{"embedding model"}},
		{"tei shorter window", tei(func(s *setup) {
			s.info = func(in *remotenlitest.Info) { in.MaxInputLength = 32 }
		}), nil, []string{"at most 32 tokens", "set the window to 32 (remotenli.Options.MaxLength)"}},
		{"tei info garbage", tei(func(s *setup) {
			s.fault = func(r *http.Request, _ int) *remotenlitest.Fault {
				if r.URL.Path == "/info" {
					return &remotenlitest.Fault{Body: `{"model_id": "x"}`}
				}
				return nil
			}
		}), nil, []string{"unreadable answer", "not TEI's /info"}},
		{"max length over the window", kserve(func(s *setup) { s.maxLen = 70 }), nil, []string{"maximum length 70 is more than the model's window of 64"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.setup
			srv.Reset()
			srv.SetReady(s.ready)
			srv.SetFault(s.fault)
			if s.meta != nil {
				srv.EditMetadata(s.meta)
			}
			if s.info != nil {
				srv.EditInfo(s.info)
			}
			o := fast(s.protocol, s.endpoint, s.model)
			o.MaxLength = s.maxLen
			cl, err := remotenli.Open(context.Background(), s.dir, o)
			if err == nil {
				cl.Close()
				t.Fatal("opened")
			}
			t.Log(err)
			if c.name == "no server" && strings.Contains(err.Error(), "attempts") {
				t.Errorf("a server that is not there was asked again: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q", w)
				}
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("errors.Is(err, %v) is false", c.is)
			}
		})
	}
}

// TestFailures: a server that fails, answers garbage or hangs is asked
// again (with backoff) and the answers are then exactly right; a failure
// that outlasts the retries, or that another attempt would not cure, is an
// error that says what the server did, never an answer.
func TestFailures(t *testing.T) {
	pairs := testPairs(t, "tiny-roberta")[:12]
	want, _ := localAnswers(t, "tiny-roberta", pairs)
	srv := remotenlitest.Start(t, modelDir("tiny-roberta"), "nli")
	// firstN fails the first n inference requests with f.
	firstN := func(n int, f remotenlitest.Fault) func(*http.Request, int) *remotenlitest.Fault {
		var mu sync.Mutex
		k := 0
		return func(r *http.Request, _ int) *remotenlitest.Fault {
			if r.Method != http.MethodPost {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			if k++; k <= n {
				return &f
			}
			return nil
		}
	}
	always := func(f remotenlitest.Fault) func(*http.Request, int) *remotenlitest.Fault { return firstN(1<<30, f) }
	for _, protocol := range []string{remotenli.KServe, remotenli.TEI} {
		for _, c := range []struct {
			name    string
			fault   func(*http.Request, int) *remotenlitest.Fault
			retries int // retries the run should make; -1: it fails
			want    []string
		}{
			{"500 then success", firstN(1, remotenlitest.Fault{Status: 500, Body: `{"error": "CUDA out of memory"}`}), 1, nil},
			{"503 twice then success", firstN(2, remotenlitest.Fault{Status: 503, Body: `{"error": "overloaded"}`}), 2, nil},
			{"429 then success", firstN(1, remotenlitest.Fault{Status: 429, Body: `{"error": "Model is overloaded", "error_type": "overloaded"}`}), 1, nil},
			{"garbage then success", firstN(1, remotenlitest.Fault{Body: `<html>502 Bad Gateway</html>`}), 1, nil},
			{"empty then success", firstN(1, remotenlitest.Fault{}), 1, nil},
			{"hang then success", firstN(1, remotenlitest.Fault{Delay: time.Minute}), 1, nil},
			{"always 500", always(remotenlitest.Fault{Status: 500, Body: `{"error": "CUDA out of memory"}`}), -1, []string{"500 Internal Server Error", "CUDA out of memory", "after 3 attempts"}},
			{"always garbage", always(remotenlitest.Fault{Body: `{"outputs": []}`}), -1, []string{"unreadable answer", "after 3 attempts"}},
			{"always hangs", always(remotenlitest.Fault{Delay: time.Minute}), -1, []string{"no answer within 1s", "after 3 attempts"}},
			{"400 is not retried", always(remotenlitest.Fault{Status: 400, Body: `{"error": "inference request batch-size must be <= 2"}`}), -1, []string{"400 Bad Request", "batch-size must be <= 2"}},
		} {
			t.Run(protocol+"/"+c.name, func(t *testing.T) {
				srv.SetFault(nil)
				o := fast(protocol, srv.URL, srv.Name)
				o.Timeout = time.Second
				o.Concurrency = 1
				var mu sync.Mutex
				var notices []string
				o.Retry.Notify = func(err error, attempt int, wait time.Duration) {
					mu.Lock()
					defer mu.Unlock()
					notices = append(notices, fmt.Sprintf("%d: %v", attempt, err))
				}
				cl, err := remotenli.Open(context.Background(), modelDir("tiny-roberta"), o)
				if err != nil {
					t.Fatal(err)
				}
				defer cl.Close()
				srv.SetFault(c.fault)
				before := srv.Requests()
				got, err := cl.Classify(context.Background(), pairs)
				sent := len(srv.Requests()) - len(before)
				if c.retries < 0 {
					if err == nil {
						t.Fatalf("answers %v from a failing server", got)
					}
					t.Log(err)
					for _, w := range c.want {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("error does not say %q", w)
						}
					}
					if strings.Contains(c.name, "not retried") && (sent != 1 || len(notices) != 0) {
						t.Errorf("%d requests, notices %q; want one, not retried", sent, notices)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				for i := range pairs {
					if got[i].Label != want[i].Label || !slices.Equal(got[i].Distribution, want[i].Distribution) {
						t.Errorf("pair %d: %v %v, want %v %v", i, got[i].Label, got[i].Distribution, want[i].Label, want[i].Distribution)
					}
				}
				if u := cl.Usage(); u.Retries != int64(c.retries) || len(notices) != c.retries {
					t.Errorf("usage %+v, notices %q; want %d retries", u, notices, c.retries)
				}
			})
		}
	}
}

// TestUnreadableAnswers: answers that parse but do not hold what was
// asked are errors (after the retries), whatever is wrong with them.
func TestUnreadableAnswers(t *testing.T) {
	pairs := testPairs(t, "tiny-roberta")[:3]
	srv := remotenlitest.Start(t, modelDir("tiny-roberta"), "nli")
	for _, c := range []struct {
		protocol, name, body, want string
	}{
		{remotenli.KServe, "no logits", `{"outputs": [{"name": "probs", "shape": [1, 3], "datatype": "FP32", "data": [1, 2, 3]}]}`, "no output named logits"},
		{remotenli.KServe, "wrong shape", `{"outputs": [{"name": "logits", "shape": [1, 2], "datatype": "FP32", "data": [1, 2]}]}`, "shape [1 2]"},
		{remotenli.KServe, "too few values", `{"outputs": [{"name": "logits", "shape": [1, 3], "datatype": "FP32", "data": [1, 2]}]}`, "2 values"},
		{remotenli.KServe, "strings", `{"outputs": [{"name": "logits", "shape": [1, 3], "datatype": "FP32", "data": ["1", "2", "3"]}]}`, "not a number"},
		{remotenli.KServe, "FP64", `{"outputs": [{"name": "logits", "shape": [1, 3], "datatype": "FP64", "data": [1, 2, 3]}]}`, "want FP32"},
		{remotenli.KServe, "overflow", `{"outputs": [{"name": "logits", "shape": [1, 3], "datatype": "FP32", "data": [1e39, 2, 3]}]}`, "not an FP32 number"},
		{remotenli.TEI, "two labels", `[[{"score": 1, "label": "ENTAILMENT"}, {"score": 0, "label": "NEUTRAL"}]]`, "2 label scores"},
		{remotenli.TEI, "label twice", `[[{"score": 1, "label": "ENTAILMENT"}, {"score": 0, "label": "NEUTRAL"}, {"score": 0, "label": "entailment"}]]`, "comes twice"},
		{remotenli.TEI, "other label", `[[{"score": 1, "label": "LABEL_0"}, {"score": 0, "label": "NEUTRAL"}, {"score": 0, "label": "CONTRADICTION"}]]`, `"LABEL_0"`},
		{remotenli.TEI, "no score", `[[{"label": "ENTAILMENT"}, {"score": 0, "label": "NEUTRAL"}, {"score": 0, "label": "CONTRADICTION"}]]`, "no score"},
		{remotenli.TEI, "one pair short", `[]`, "0 predictions for 1 pairs"},
	} {
		t.Run(c.protocol+"/"+c.name, func(t *testing.T) {
			srv.SetFault(nil)
			o := fast(c.protocol, srv.URL, srv.Name)
			o.BatchSize = 1
			cl, err := remotenli.Open(context.Background(), modelDir("tiny-roberta"), o)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			srv.SetFault(func(r *http.Request, _ int) *remotenlitest.Fault {
				if r.Method == http.MethodPost {
					return &remotenlitest.Fault{Body: c.body}
				}
				return nil
			})
			got, err := cl.Classify(context.Background(), pairs)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "unreadable answer") {
				t.Errorf("%v, %v; want an unreadable answer saying %q", got, err, c.want)
			}
		})
	}
}

// TestConcurrency: --nli-concurrency requests are in flight at once, no
// more.
func TestConcurrency(t *testing.T) {
	pairs := testPairs(t, "tiny-roberta")[:30]
	srv := remotenlitest.Start(t, modelDir("tiny-roberta"), "nli")
	srv.SetFault(func(r *http.Request, _ int) *remotenlitest.Fault {
		if r.Method == http.MethodPost {
			return &remotenlitest.Fault{Delay: 20 * time.Millisecond, Pass: true}
		}
		return nil
	})
	for _, protocol := range []string{remotenli.KServe, remotenli.TEI} {
		o := fast(protocol, srv.URL, srv.Name)
		o.BatchSize, o.Concurrency = 1, 3
		cl, err := remotenli.Open(context.Background(), modelDir("tiny-roberta"), o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Classify(context.Background(), pairs); err != nil {
			t.Fatal(err)
		}
		cl.Close()
		if n := srv.MaxInFlight(); n != 3 {
			t.Errorf("%s: %d requests in flight at most; want 3", protocol, n)
		}
	}
}

// TestCanceled: a canceled context stops the work with its error.
func TestCanceled(t *testing.T) {
	srv := remotenlitest.Start(t, modelDir("tiny-roberta"), "nli")
	cl, err := remotenli.Open(context.Background(), modelDir("tiny-roberta"), fast(remotenli.KServe, srv.URL, srv.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	srv.SetFault(func(r *http.Request, _ int) *remotenlitest.Fault { return &remotenlitest.Fault{Delay: time.Minute} })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := cl.Classify(ctx, testPairs(t, "tiny-roberta")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v; want the context's deadline", err)
	}
}

// TestTEILongPremise: with tei, a premise longer than the window goes to
// the server as chunk texts that each fit: the server, which refuses
// (413) what it would otherwise truncate, never refuses, and the chunks'
// texts make up the premise.
func TestTEILongPremise(t *testing.T) {
	srv := remotenlitest.Start(t, modelDir("tiny-roberta"), "nli")
	var mu sync.Mutex
	var premises []string
	srv.SetFault(func(r *http.Request, _ int) *remotenlitest.Fault {
		if r.URL.Path != "/predict" {
			return nil
		}
		var req struct{ Inputs [][2]string }
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		json.Unmarshal(body, &req)
		mu.Lock()
		for _, p := range req.Inputs {
			premises = append(premises, p[0])
		}
		mu.Unlock()
		return nil
	})
	o := fast(remotenli.TEI, srv.URL, "")
	o.BatchSize = 1
	cl, err := remotenli.Open(context.Background(), modelDir("tiny-roberta"), o)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	long := strings.Repeat("Marie Curie was born in Warsaw in 1867. She won two Nobel Prizes, in physics and in chemistry. ", 5)
	res, err := cl.Classify(context.Background(), []nli.Pair{{Premise: long, Hypothesis: "Curie was born in Warsaw."}})
	if err != nil {
		t.Fatal(err)
	}
	if len(premises) < 3 || !tiles(long, premises) {
		t.Errorf("%d chunk texts %q do not make up the premise", len(premises), premises)
	}
	if math.Abs(res[0].Distribution[0]+res[0].Distribution[1]+res[0].Distribution[2]-1) > 1e-12 {
		t.Errorf("distribution %v", res[0].Distribution)
	}
}

// tiles reports whether texts, in some order, make up s.
func tiles(s string, texts []string) bool {
	if len(texts) == 0 {
		return s == ""
	}
	for i, t := range texts {
		if t != "" && strings.HasPrefix(s, t) && tiles(s[len(t):], slices.Delete(slices.Clone(texts), i, i+1)) {
			return true
		}
	}
	return false
}

// TestUserAgent (issue 15: every HTTP client sends a User-Agent that names
// the tool and its version): the metadata, readiness and inference
// requests of both protocols.
func TestUserAgent(t *testing.T) {
	pairs := testPairs(t, "tiny-roberta")[:2]
	srv := remotenlitest.Start(t, modelDir("tiny-roberta"), "nli")
	for _, protocol := range []string{remotenli.KServe, remotenli.TEI} {
		var mu sync.Mutex
		var agents []string
		srv.SetFault(func(r *http.Request, _ int) *remotenlitest.Fault {
			mu.Lock()
			agents = append(agents, r.Header.Get("User-Agent"))
			mu.Unlock()
			return nil
		})
		cl, err := remotenli.Open(context.Background(), modelDir("tiny-roberta"), fast(protocol, srv.URL, srv.Name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Classify(context.Background(), pairs); err != nil {
			t.Fatal(err)
		}
		cl.Close()
		if len(agents) < 2 {
			t.Fatalf("%s: %d requests seen", protocol, len(agents))
		}
		for _, ua := range agents {
			if ua != version.UserAgent() {
				t.Errorf("%s: User-Agent %q, want %q", protocol, ua, version.UserAgent())
			}
		}
	}
}
