package llmtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/factreasoner/factreasoner-go/bm25"
)

// EmbedServer is an OpenAI-compatible /v1/embeddings endpoint for tests:
// it embeds texts with HashEmbedding, for one model name (any other is
// answered 404, as a server that does not serve it), and counts what it
// was asked: its POST requests (a GET, the client's probe of /v1/models,
// is answered 404 and not counted).
type EmbedServer struct {
	*httptest.Server
	Model string
	Dim   int

	requests, texts atomic.Int64
	// Fail, when set, gives the status with which to answer the n-th
	// request (from 0); 0 answers it.
	Fail func(n int) int
}

// NewEmbeddings starts an embeddings server for model, with vectors of
// dim dimensions. It is closed when the test ends.
func NewEmbeddings(t testing.TB, model string, dim int) *EmbedServer {
	s := &EmbedServer{Model: model, Dim: dim}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the URL to configure clients with, /v1 included.
func (s *EmbedServer) BaseURL() string { return s.URL + "/v1" }

// Requests is how many requests the server received; Texts how many texts
// it embedded.
func (s *EmbedServer) Requests() int { return int(s.requests.Load()) }
func (s *EmbedServer) Texts() int    { return int(s.texts.Load()) }

func (s *EmbedServer) handle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost {
		// The client's probe (GET /v1/models, before its first request):
		// any answer lets it go on, and it is no embeddings request.
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"no such path"}}`)
		return
	}
	n := int(s.requests.Add(1)) - 1
	if r.URL.Path != "/v1/embeddings" {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"no such path"}}`)
		return
	}
	if s.Fail != nil {
		if status := s.Fail(n); status != 0 {
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":%q}}`, http.StatusText(status)+" from the fake server")
			return
		}
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, err.Error())
		return
	}
	if req.Model != s.Model {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, fmt.Sprintf("model %q not found", req.Model))
		return
	}
	s.texts.Add(int64(len(req.Input)))
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string         `json:"object"`
		Data   []item         `json:"data"`
		Model  string         `json:"model"`
		Usage  map[string]int `json:"usage"`
	}{Object: "list", Model: s.Model, Usage: map[string]int{"prompt_tokens": 0, "total_tokens": 0}}
	for i, text := range req.Input {
		out.Data = append(out.Data, item{Object: "embedding", Index: i, Embedding: HashEmbedding(text, s.Dim)})
	}
	json.NewEncoder(w).Encode(out)
}

// HashEmbedding is the fake server's embedding of text: its words
// (bm25.Words) hashed into dim buckets with a hashed sign, counted, and
// scaled to length 1 (all zeros for a text without words). Texts that
// share words point the same way, so a search by these vectors finds what
// a search by words finds: deterministic, and meaningful enough to test
// retrieval with.
func HashEmbedding(text string, dim int) []float32 {
	v := make([]float64, dim)
	for _, w := range bm25.Words(text) {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		v[x%uint64(dim)] += sign
	}
	norm := 0.0
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}
