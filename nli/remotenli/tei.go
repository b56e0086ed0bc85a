package remotenli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/endpoint"
	"github.com/factreasoner/factreasoner-go/internal/jsonpath"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
)

// Hugging Face text-embeddings-inference (TEI) serving a sequence
// classification model:
//
//	GET  /health   200: ready; 503: not
//	GET  /info     {"model_id", "model_sha", "model_type": {"classifier": {"id2label"}},
//	                (a model of one label is a "reranker" instead of a "classifier")
//	                "max_input_length", "max_client_batch_size", ...}
//	POST /predict  {"inputs": [[premise, hypothesis], ...], "truncate": false, "raw_scores": true}
//	               → [[{"score", "label"}, ...], ...], one list per pair, by score
//
// Errors are an HTTP error status with {"error": "message", "error_type"}.
// TEI tokenizes the texts itself; with truncate false it refuses a pair
// longer than its max_input_length (413) instead of cutting it.

// teiInfo is what the client reads of /info.
type teiInfo struct {
	ModelID         string                     `json:"model_id"`
	ModelSHA        string                     `json:"model_sha"`
	ServedModelName string                     `json:"served_model_name"`
	ModelType       map[string]json.RawMessage `json:"model_type"`
	MaxInputLength  int                        `json:"max_input_length"`
	MaxClientBatch  int                        `json:"max_client_batch_size"`
}

// teiRunner runs batches with predict requests.
type teiRunner struct {
	c       *client
	predict string
	names   []string // the classifier's labels in output order, as normalName writes them
}

// openTEI checks that the server is healthy and serves the encoder's
// classifier (its labels, a window that takes its sequences; a 3-way NLI
// model or a grounding classifier), and returns its runner,
// the most pairs a request may carry, and the model's name with its
// commit.
func openTEI(ctx context.Context, c *client, server *url.URL, name string, enc *crossenc.Encoder) (*teiRunner, int, string, error) {
	shown := strings.TrimRight(redact.URL(server.String()), "/")
	_, err := do(ctx, c, http.MethodGet, endpoint.Join(server, "health").String(), nil, func([]byte) (struct{}, error) { return struct{}{}, nil })
	var se *StatusError
	if errors.As(err, &se) && se.StatusCode == http.StatusNotFound {
		return nil, 0, "", fmt.Errorf("no text-embeddings-inference server at %s (GET %s/health: %s: %s)", shown, shown, se.Status, se.Message)
	}
	if errors.As(err, &se) {
		return nil, 0, "", fmt.Errorf("%w: %s (GET %s/health: %s: %s)", ErrNotReady, shown, shown, se.Status, se.Message)
	}
	if err != nil {
		return nil, 0, "", fmt.Errorf("health: %w", err)
	}
	info, err := do(ctx, c, http.MethodGet, endpoint.Join(server, "info").String(), nil, func(raw []byte) (*teiInfo, error) {
		var in teiInfo
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, err
		}
		if in.ModelID == "" || len(in.ModelType) == 0 {
			return nil, errors.New("no model_id or model_type: not TEI's /info")
		}
		return &in, nil
	})
	if err != nil {
		return nil, 0, "", fmt.Errorf("model info: %w", err)
	}
	if name != "" && name != info.ModelID && name != info.ServedModelName {
		return nil, 0, "", fmt.Errorf("%w: the server at %s serves %s, not %s", ErrUnknownModel, shown, info.ModelID, name)
	}
	raw, ok := info.ModelType["classifier"]
	if !ok {
		// TEI serves a model of one label as a reranker, with the same
		// /predict.
		raw, ok = info.ModelType["reranker"]
	}
	if !ok {
		var kinds []string
		for k := range info.ModelType {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		return nil, 0, "", fmt.Errorf("%w: %s at %s is a %s model, not a sequence classifier", crossenc.ErrNotMNLI, info.ModelID, shown, strings.Join(kinds, "/"))
	}
	var cls struct {
		ID2Label map[string]string `json:"id2label"`
	}
	if err := json.Unmarshal(raw, &cls); err != nil {
		return nil, 0, "", fmt.Errorf("model info from %s/info: model_type.classifier: %w", shown, jsonpath.Error(raw, err))
	}
	head := enc.Head()
	if len(cls.ID2Label) != len(head.Names) {
		return nil, 0, "", fmt.Errorf("%w: %s at %s has %d labels %v; config.json's id2label has %d", crossenc.ErrNotMNLI, info.ModelID, shown, len(cls.ID2Label), cls.ID2Label, len(head.Names))
	}
	names := make([]string, len(head.Names))
	for i, n := range head.Names {
		names[i] = normalName(n)
	}
	for _, n := range cls.ID2Label {
		if !slices.Contains(names, normalName(n)) {
			want := "config.json's " + strings.Join(head.Names, ", ")
			if head.Kind == crossenc.NLI3 {
				want = "want entailment, neutral and contradiction"
			}
			return nil, 0, "", fmt.Errorf("%w: %s at %s has labels %v (%s)", crossenc.ErrNotMNLI, info.ModelID, shown, cls.ID2Label, want)
		}
	}
	if info.MaxInputLength > 0 && info.MaxInputLength < enc.MaxLength() {
		return nil, 0, "", fmt.Errorf("%s at %s takes at most %d tokens a pair, less than the %d of the model directory's window: set the window to %d (remotenli.Options.MaxLength)",
			info.ModelID, shown, info.MaxInputLength, enc.MaxLength(), info.MaxInputLength)
	}
	id := info.ModelID
	if len(info.ModelSHA) >= 12 {
		id += "@" + info.ModelSHA[:12]
	}
	return &teiRunner{c: c, predict: endpoint.Join(server, "predict").String(), names: names}, info.MaxClientBatch, id, nil
}

// teiRequest is the body of a predict request.
type teiRequest struct {
	Inputs    [][2]string `json:"inputs"`
	Truncate  bool        `json:"truncate"`
	RawScores bool        `json:"raw_scores"`
}

// Run implements crossenc.Runner. Raw scores are the logits: the softmax
// is crossenc's, as for the other backends.
func (r *teiRunner) Run(ctx context.Context, b *crossenc.Batch) ([]float32, error) {
	req := teiRequest{Inputs: make([][2]string, len(b.Sequences)), RawScores: true}
	for i, s := range b.Sequences {
		req.Inputs[i] = [2]string{s.Premise, s.Hypothesis}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	return do(ctx, r.c, http.MethodPost, r.predict, body, func(raw []byte) ([]float32, error) { return r.read(raw, len(b.Sequences)) })
}

// read reads the predictions of rows pairs as logits in the classifier's
// output order, matching labels by name in any case.
func (r *teiRunner) read(raw []byte, rows int) ([]float32, error) {
	var preds [][]struct {
		Score *float64 `json:"score"`
		Label string   `json:"label"`
	}
	if err := json.Unmarshal(raw, &preds); err != nil {
		return nil, fmt.Errorf("not a list of predictions per pair: %w", jsonpath.Error(raw, err))
	}
	if len(preds) != rows {
		return nil, fmt.Errorf("%d predictions for %d pairs", len(preds), rows)
	}
	n := len(r.names)
	out := make([]float32, 0, n*rows)
	for i, p := range preds {
		if len(p) != n {
			return nil, fmt.Errorf("pair %d: %d label scores; want %d", i, len(p), n)
		}
		z := make([]float32, n)
		seen := make([]bool, n)
		for _, s := range p {
			k := slices.Index(r.names, normalName(s.Label))
			if k < 0 || seen[k] {
				return nil, fmt.Errorf("pair %d: label %q is not one of the model's labels (%s), or comes twice", i, s.Label, strings.Join(r.names, ", "))
			}
			if s.Score == nil || math.IsNaN(*s.Score) || math.IsInf(*s.Score, 0) || math.Abs(*s.Score) > math.MaxFloat32 {
				return nil, fmt.Errorf("pair %d: label %s has no score that is a number", i, s.Label)
			}
			seen[k] = true
			z[k] = float32(*s.Score)
		}
		out = append(out, z...)
	}
	return out, nil
}

// normalName is a label's name as TEI's answers are matched to the local
// config.json's: in lower case.
func normalName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
