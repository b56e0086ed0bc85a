// Package remotenlitest is an inference server for tests. It serves an NLI
// cross-encoder of testdata/nli, run in process with ONNX Runtime, on
// loopback (httptest), over two protocols at once: the Open Inference
// Protocol's HTTP/REST API (KServe v2) as Triton Inference Server speaks
// it, and Hugging Face text-embeddings-inference's (TEI) for a sequence
// classification model, tokenizing the texts it is sent with the model's
// tokenizer.json. It misbehaves as a test asks (not ready, error answers,
// garbage, hangs, altered metadata) and records the requests it gets and
// how many were in flight at once.
package remotenlitest

import (
	"bytes"
	"cmp"
	"encoding/json"
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
	"sync/atomic"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/nli/crossenc"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
)

// Tensor is a tensor of the model metadata.
type Tensor struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

// Metadata is the model metadata the kserve API gives.
type Metadata struct {
	Name     string   `json:"name"`
	Versions []string `json:"versions,omitempty"`
	Platform string   `json:"platform"`
	Inputs   []Tensor `json:"inputs"`
	Outputs  []Tensor `json:"outputs"`
}

// Info is what TEI's /info gives (the fields a client of a classifier
// reads, and a few more).
type Info struct {
	ModelID            string         `json:"model_id"`
	ModelSHA           string         `json:"model_sha,omitempty"`
	ModelDtype         string         `json:"model_dtype"`
	ModelType          map[string]any `json:"model_type"`
	MaxConcurrent      int            `json:"max_concurrent_requests"`
	MaxInputLength     int            `json:"max_input_length"`
	MaxBatchTokens     int            `json:"max_batch_tokens"`
	MaxClientBatchSize int            `json:"max_client_batch_size"`
	AutoTruncate       bool           `json:"auto_truncate"`
	Version            string         `json:"version"`
}

// Fault is an answer the server gives instead of its own.
type Fault struct {
	Status int    // HTTP status; 0 means 200
	Body   string // sent as is
	// Delay holds the answer back (until the client gives up, if sooner).
	Delay time.Duration
	// Pass, after Delay, lets the server answer as usual.
	Pass bool
}

// Server is a running fake inference server.
type Server struct {
	URL string
	// Name is the model's name in the kserve API, and its model_id in
	// TEI's.
	Name string

	http     *httptest.Server
	model    *onnxnli.Model
	enc      *crossenc.Encoder
	id2label map[string]string
	outputs  int // logits per sequence

	mu       sync.Mutex
	notReady bool
	meta     Metadata
	info     Info
	meta0    Metadata
	info0    Info
	fault    func(r *http.Request, n int) *Fault
	counts   map[string]int
	requests []string
	batches  []int // sequences of each inference request run

	inFlight, maxInFlight atomic.Int32
	sequences             atomic.Int64
	handlerNanos          atomic.Int64
}

// Start serves the model in dir under name until the test ends. ONNX
// Runtime is found as onnxnli.FindLibrary finds it.
func Start(t testing.TB, dir, name string) *Server {
	t.Helper()
	s, err := New(dir, name)
	if err != nil {
		t.Fatalf("fakeinfer: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// New serves the model in dir under name until Close: a 3-way NLI model,
// or a grounding classifier (two labels, or one).
func New(dir, name string) (*Server, error) {
	var cfg struct {
		ID2Label map[string]string `json:"id2label"`
		Label2ID map[string]int    `json:"label2id"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err == nil {
		err = json.Unmarshal(data, &cfg)
	}
	if err != nil {
		return nil, err
	}
	// A server runs the graph whatever its labels mean: which of two
	// means supported is the client's business, so any of them will do
	// to load the model.
	var positive string
	if len(cfg.ID2Label) == 2 {
		positive = cfg.ID2Label["1"]
	}
	m, err := onnxnli.Load(dir, onnxnli.Options{PositiveLabel: positive})
	if err != nil {
		return nil, err
	}
	enc, err := crossenc.LoadEncoder(dir, crossenc.EncoderOptions{PositiveLabel: positive})
	if err != nil {
		m.Close()
		return nil, err
	}
	k := enc.Head().Outputs()
	s := &Server{Name: name, model: m, enc: enc, id2label: cfg.ID2Label, counts: map[string]int{}, outputs: k}
	s.meta = Metadata{Name: name, Versions: []string{"1"}, Platform: "onnxruntime_onnx",
		Outputs: []Tensor{{Name: "logits", Datatype: "FP32", Shape: []int64{-1, int64(k)}}}}
	for _, in := range m.Inputs() {
		// As Triton reports a model with max_batch_size > 0 and dims [-1].
		s.meta.Inputs = append(s.meta.Inputs, Tensor{Name: in, Datatype: "INT64", Shape: []int64{-1, -1}})
	}
	// TEI serves a model of one label as a reranker.
	kind := "classifier"
	if k == 1 {
		kind = "reranker"
	}
	s.info = Info{ModelID: name, ModelSHA: "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", ModelDtype: "float32",
		ModelType:     map[string]any{kind: map[string]any{"id2label": cfg.ID2Label, "label2id": cfg.Label2ID}},
		MaxConcurrent: 512, MaxInputLength: enc.MaxLength(), MaxBatchTokens: 16384, MaxClientBatchSize: 32, Version: "fakeinfer"}
	s.meta0, s.info0 = s.meta, s.info
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL
	return s, nil
}

// Close stops the server and releases the model.
func (s *Server) Close() {
	s.http.Close()
	s.model.Close()
}

// Reset undoes SetReady, EditMetadata, EditInfo and SetFault.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notReady, s.fault = false, nil
	s.meta, s.info = s.meta0, s.info0
	s.meta.Inputs, s.meta.Outputs = slices.Clone(s.meta0.Inputs), slices.Clone(s.meta0.Outputs)
}

// SetReady makes the server (and its model) ready or not.
func (s *Server) SetReady(ready bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notReady = !ready
}

// EditMetadata changes the kserve model metadata the server gives (not
// what the model takes).
func (s *Server) EditMetadata(edit func(*Metadata)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	edit(&s.meta)
}

// EditInfo changes what TEI's /info gives.
func (s *Server) EditInfo(edit func(*Info)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	edit(&s.info)
}

// SetFault makes f decide, for each request, whether to answer with a
// Fault instead; n counts the requests to the same method and path, from
// 1. A nil f (or answer) lets the server answer.
func (s *Server) SetFault(f func(r *http.Request, n int) *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// Requests returns "METHOD PATH" of every request so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// MaxInFlight returns the most inference requests served at once.
func (s *Server) MaxInFlight() int { return int(s.maxInFlight.Load()) }

// HandlerTime returns the time spent answering inference requests (from
// the request's body read to the answer written), the model's time
// included.
func (s *Server) HandlerTime() time.Duration { return time.Duration(s.handlerNanos.Load()) }

// ModelTime returns the time the model spent in ONNX Runtime's Run.
func (s *Server) ModelTime() time.Duration { return s.model.Stats().Runtime }

// Sequences returns the number of sequences the model ran.
func (s *Server) Sequences() int64 { return s.sequences.Load() }

// Batches returns the number of sequences of each inference request the
// model ran, in the order they ran.
func (s *Server) Batches() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.batches)
}

// ran counts a request of n sequences that the model ran.
func (s *Server) ran(n int) {
	s.sequences.Add(int64(n))
	s.mu.Lock()
	s.batches = append(s.batches, n)
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	// Read the body first: a fault may look at it, and the server notices
	// a client that hangs up (canceling r.Context()) only once the body
	// is read.
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	key := r.Method + " " + r.URL.Path
	s.mu.Lock()
	s.requests = append(s.requests, key)
	s.counts[key]++
	n, fault, notReady := s.counts[key], s.fault, s.notReady
	s.mu.Unlock()
	if r.Method == http.MethodPost {
		// An inference request (infer or predict), delayed or not.
		defer s.track()()
		start := time.Now()
		defer func() { s.handlerNanos.Add(int64(time.Since(start))) }()
	}
	if fault != nil {
		if f := fault(r, n); f != nil {
			if f.Delay > 0 {
				select {
				case <-time.After(f.Delay):
				case <-r.Context().Done():
					return
				}
			}
			if !f.Pass {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(cmp.Or(f.Status, http.StatusOK))
				io.WriteString(w, f.Body)
				return
			}
		}
	}
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/v2"):
		s.serveKServe(w, r, path, notReady)
	case path == "/health" && r.Method == http.MethodGet:
		if notReady {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "unhealthy", "error_type": "unhealthy"})
			return
		}
		w.WriteHeader(http.StatusOK)
	case path == "/info" && r.Method == http.MethodGet:
		s.mu.Lock()
		info := s.info
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, info)
	case path == "/predict" && r.Method == http.MethodPost:
		s.predict(w, r)
	default:
		http.NotFound(w, r)
	}
}

// track counts a request in flight until the function it returns is
// called.
func (s *Server) track() func() {
	n := s.inFlight.Add(1)
	for {
		old := s.maxInFlight.Load()
		if n <= old || s.maxInFlight.CompareAndSwap(old, n) {
			break
		}
	}
	return func() { s.inFlight.Add(-1) }
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// tritonError answers as Triton does: an error status and {"error": msg}.
func tritonError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...)})
}

// serveKServe answers the Open Inference Protocol's HTTP/REST API.
func (s *Server) serveKServe(w http.ResponseWriter, r *http.Request, path string, notReady bool) {
	rest := strings.TrimPrefix(path, "/v2")
	switch {
	case rest == "" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"name": "fakeinfer", "version": "1", "extensions": []string{}})
		return
	case rest == "/health/live" && r.Method == http.MethodGet:
		w.WriteHeader(http.StatusOK)
		return
	case rest == "/health/ready" && r.Method == http.MethodGet:
		if notReady {
			w.WriteHeader(http.StatusBadRequest)
		}
		return
	}
	parts := strings.Split(strings.TrimPrefix(rest, "/models/"), "/")
	if !strings.HasPrefix(rest, "/models/") || parts[0] == "" {
		tritonError(w, http.StatusNotFound, "not found")
		return
	}
	name, parts := parts[0], parts[1:]
	s.mu.Lock()
	meta := s.meta
	s.mu.Unlock()
	if name != s.Name {
		tritonError(w, http.StatusBadRequest, "Request for unknown model: '%s' is not found", name)
		return
	}
	if len(parts) >= 2 && parts[0] == "versions" {
		if !slices.Contains(meta.Versions, parts[1]) {
			tritonError(w, http.StatusBadRequest, "Request for unknown model: '%s' version %s is not found", name, parts[1])
			return
		}
		parts = parts[2:]
	}
	switch {
	case len(parts) == 0 && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, meta)
	case len(parts) == 1 && parts[0] == "ready" && r.Method == http.MethodGet:
		if notReady {
			w.WriteHeader(http.StatusBadRequest)
		}
	case len(parts) == 1 && parts[0] == "infer" && r.Method == http.MethodPost:
		if notReady {
			tritonError(w, http.StatusBadRequest, "Request for unknown model: '%s' is not ready", name)
			return
		}
		s.infer(w, r, meta)
	default:
		tritonError(w, http.StatusNotFound, "not found")
	}
}

// infer answers an inference request.
func (s *Server) infer(w http.ResponseWriter, r *http.Request, meta Metadata) {
	var req struct {
		ID     string `json:"id"`
		Inputs []struct {
			Name     string          `json:"name"`
			Shape    []int64         `json:"shape"`
			Datatype string          `json:"datatype"`
			Data     json.RawMessage `json:"data"`
		} `json:"inputs"`
		Outputs []struct {
			Name string `json:"name"`
		} `json:"outputs"`
	}
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		tritonError(w, http.StatusBadRequest, "failed to parse the request JSON buffer: %v", err)
		return
	}
	tensors := map[string][]int64{}
	var rows, width int64 = -1, -1
	for _, in := range req.Inputs {
		i := slices.IndexFunc(meta.Inputs, func(t Tensor) bool { return t.Name == in.Name })
		if i < 0 {
			tritonError(w, http.StatusBadRequest, "unexpected inference input '%s' for model '%s'", in.Name, s.Name)
			return
		}
		if in.Datatype != meta.Inputs[i].Datatype {
			tritonError(w, http.StatusBadRequest, "unexpected datatype TYPE_%s for inference input '%s', expecting TYPE_%s", in.Datatype, in.Name, meta.Inputs[i].Datatype)
			return
		}
		if len(in.Shape) != 2 || in.Shape[0] <= 0 || in.Shape[1] <= 0 || (rows >= 0 && (in.Shape[0] != rows || in.Shape[1] != width)) {
			tritonError(w, http.StatusBadRequest, "unexpected shape %v for input '%s'", in.Shape, in.Name)
			return
		}
		rows, width = in.Shape[0], in.Shape[1]
		data, err := ints(in.Data)
		if err != nil || int64(len(data)) != rows*width {
			tritonError(w, http.StatusBadRequest, "input '%s': %d values for shape %v (%v)", in.Name, len(data), in.Shape, err)
			return
		}
		tensors[in.Name] = data
	}
	for _, t := range meta.Inputs {
		if tensors[t.Name] == nil {
			tritonError(w, http.StatusBadRequest, "expected %d inputs but got %d inputs for model '%s'", len(meta.Inputs), len(req.Inputs), s.Name)
			return
		}
	}
	for _, o := range req.Outputs {
		if !slices.ContainsFunc(meta.Outputs, func(t Tensor) bool { return t.Name == o.Name }) {
			tritonError(w, http.StatusBadRequest, "unexpected inference output '%s' for model '%s'", o.Name, s.Name)
			return
		}
	}
	zeros := make([]int64, rows*width)
	get := func(name string) []int64 {
		if t := tensors[name]; t != nil {
			return t
		}
		return zeros
	}
	logits, err := s.model.RunTensors(int(rows), int(width), get("input_ids"), get("attention_mask"), get("token_type_ids"))
	if err != nil {
		tritonError(w, http.StatusInternalServerError, "onnx runtime error: %v", err)
		return
	}
	s.ran(int(rows))
	resp := map[string]any{
		"model_name": s.Name, "model_version": "1",
		"outputs": []any{map[string]any{"name": meta.Outputs[0].Name, "datatype": "FP32", "shape": []int64{rows, int64(s.outputs)}, "data": logits}},
	}
	if req.ID != "" {
		resp["id"] = req.ID
	}
	writeJSON(w, http.StatusOK, resp)
}

// ints reads integer tensor data, flat or nested.
func ints(data json.RawMessage) ([]int64, error) {
	var out []int64
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case json.Delim:
		case json.Number:
			v, err := t.Int64()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		default:
			return nil, fmt.Errorf("%v is not an integer", tok)
		}
	}
}

// teiError answers as TEI does.
func teiError(w http.ResponseWriter, status int, kind, format string, args ...any) {
	writeJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...), "error_type": kind})
}

// prediction is one label's score.
type prediction struct {
	Score float32 `json:"score"`
	Label string  `json:"label"`
}

// predict answers TEI's /predict for a batch of pairs (or one pair).
func (s *Server) predict(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Inputs    json.RawMessage `json:"inputs"`
		Truncate  *bool           `json:"truncate"`
		RawScores bool            `json:"raw_scores"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		teiError(w, http.StatusUnprocessableEntity, "validation", "Failed to deserialize the JSON body into the target type: %v", err)
		return
	}
	if req.Truncate != nil && *req.Truncate {
		teiError(w, http.StatusUnprocessableEntity, "validation", "fakeinfer does not truncate")
		return
	}
	var (
		batch  [][]string
		single []string
	)
	if err := json.Unmarshal(req.Inputs, &batch); err != nil {
		if err := json.Unmarshal(req.Inputs, &single); err != nil || len(single) != 2 {
			teiError(w, http.StatusUnprocessableEntity, "validation", "inputs: want a pair of strings or a batch of pairs")
			return
		}
		batch = nil
	}
	pairs := batch
	if single != nil {
		pairs = [][]string{single}
	}
	s.mu.Lock()
	maxBatch := s.info.MaxClientBatchSize
	s.mu.Unlock()
	if len(pairs) == 0 || len(pairs) > maxBatch {
		teiError(w, http.StatusRequestEntityTooLarge, "validation", "batch size %d > maximum allowed batch size %d", len(pairs), maxBatch)
		return
	}
	// Tokenize as TEI does, refusing what does not fit, then run the
	// request's pairs as one batch (TEI batches requests as it likes).
	tok := s.enc.Tokenizer()
	seqs := make([]crossenc.Sequence, len(pairs))
	for i, p := range pairs {
		if len(p) != 2 {
			teiError(w, http.StatusUnprocessableEntity, "validation", "fakeinfer classifies pairs of strings")
			return
		}
		a, err := tok.Encode(p[0])
		if err != nil {
			teiError(w, http.StatusUnprocessableEntity, "tokenizer", "%v", err)
			return
		}
		b, err := tok.Encode(p[1])
		if err != nil {
			teiError(w, http.StatusUnprocessableEntity, "tokenizer", "%v", err)
			return
		}
		pe := tok.Pair(a, 0, a.Len(), b, 0, b.Len())
		ids, types := pe.IDs, pe.TypeIDs
		if len(ids) > s.enc.MaxLength() {
			teiError(w, http.StatusRequestEntityTooLarge, "validation", "`inputs` must have less than %d tokens. Given: %d", s.enc.MaxLength(), len(ids))
			return
		}
		seqs[i] = crossenc.Sequence{IDs: ids, TypeIDs: types}
	}
	logits, err := s.model.Run(r.Context(), s.enc.Batch(seqs))
	if err != nil {
		teiError(w, http.StatusFailedDependency, "backend", "%v", err)
		return
	}
	s.ran(len(seqs))
	var out [][]prediction
	for i := range seqs {
		k := s.outputs
		scores := logits[k*i : k*i+k]
		if !req.RawScores {
			scores = softmax32(scores)
		}
		var preds []prediction
		for k, v := range scores {
			preds = append(preds, prediction{Score: v, Label: s.id2label[fmt.Sprint(k)]})
		}
		// As TEI: best first.
		slices.SortStableFunc(preds, func(x, y prediction) int { return cmp.Compare(y.Score, x.Score) })
		out = append(out, preds)
	}
	if single != nil {
		writeJSON(w, http.StatusOK, out[0])
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// softmax32 is TEI's scores without raw_scores: the softmax of the
// logits, or the sigmoid of a single one.
func softmax32(z []float32) []float32 {
	if len(z) == 1 {
		return []float32{float32(1 / (1 + math.Exp(-float64(z[0]))))}
	}
	hi := slices.Max(z)
	out := make([]float32, len(z))
	var sum float32
	for i, v := range z {
		out[i] = float32(math.Exp(float64(v - hi)))
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}
