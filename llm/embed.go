package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/factreasoner/factreasoner-go/internal/jsonpath"
	"github.com/factreasoner/factreasoner-go/internal/redact"
)

// MaxEmbedBatch is the most texts one embeddings request may carry:
// OpenAI takes 2,048, vLLM and TEI fewer by default; Embed splits longer
// lists.
const MaxEmbedBatch = 64

// Embed returns the embedding of each text from the endpoint's
// OpenAI-compatible /embeddings API (OpenAI, vLLM, Ollama, llama.cpp's
// server, Hugging Face TEI), for the client's model, in the order of
// texts. Long lists go in requests of MaxEmbedBatch texts, sent as the
// client's concurrency allows, each repeated by the retry policy as a chat
// request is. An answer that does not hold one finite vector per text, all
// of one dimension, is an error, never a guess. Embeddings are not cached:
// a knowledge base stores its passages' vectors, and the retrieval cache
// keeps what a query found.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	n := (len(texts) + MaxEmbedBatch - 1) / MaxEmbedBatch
	errs := make(chan error, n)
	sem := make(chan struct{}, cap(c.slots))
	for b := 0; b < n; b++ {
		lo, hi := b*MaxEmbedBatch, min((b+1)*MaxEmbedBatch, len(texts))
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		go func() {
			defer func() { <-sem }()
			vs, err := c.embedBatch(ctx, texts[lo:hi])
			if err == nil {
				copy(out[lo:hi], vs)
			}
			errs <- err
		}()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	for i := 1; i < len(out); i++ {
		if len(out[i]) != len(out[0]) {
			return nil, fmt.Errorf("llm: POST %s: embeddings of %d and %d dimensions for one model", redact.URL(c.embedURL), len(out[0]), len(out[i]))
		}
	}
	return out, nil
}

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type embedResponse struct {
	Data []struct {
		Index     *int       `json:"index"`
		Embedding []*float64 `json:"embedding"`
	} `json:"data"`
	Usage *TokenUsage `json:"usage"`
	Error *apiError   `json:"error"`
}

func (c *Client) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	shown := redact.URL(c.embedURL)
	body, err := json.Marshal(embedRequest{Model: c.model, Input: texts, EncodingFormat: "float"})
	if err != nil {
		return nil, fmt.Errorf("llm: encoding request: %w", err)
	}
	raw, err := c.post(ctx, c.embedURL, shown, body)
	if err != nil {
		return nil, err
	}
	c.calls.Add(1)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("llm: POST %s: %s", shown, c.red.String(fmt.Sprintf(format, args...)))
	}
	var r embedResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fail("the answer is not an embeddings response: %v (%s)", jsonpath.Error(raw, err), snippet(raw))
	}
	if r.Error != nil && r.Error.Message != "" {
		return nil, fail("the server answered with an error: %s", r.Error.Message)
	}
	if len(r.Data) != len(texts) {
		return nil, fail("%d embeddings for %d texts", len(r.Data), len(texts))
	}
	if r.Usage != nil {
		c.promptTokens.Add(int64(r.Usage.PromptTokens))
	}
	out := make([][]float32, len(texts))
	for i, d := range r.Data {
		j := i
		if d.Index != nil {
			j = *d.Index
		}
		if j < 0 || j >= len(out) || out[j] != nil {
			return nil, fail("embedding %d has index %d: want each of 0 to %d once", i, j, len(texts)-1)
		}
		if len(d.Embedding) == 0 {
			return nil, fail("embedding %d is empty", j)
		}
		v := make([]float32, len(d.Embedding))
		for k, x := range d.Embedding {
			if x == nil || math.IsNaN(*x) || math.IsInf(*x, 0) || math.Abs(*x) > math.MaxFloat32 {
				return nil, fail("embedding %d holds a value that is not a finite number at %d", j, k)
			}
			v[k] = float32(*x)
		}
		out[j] = v
	}
	return out, nil
}

// EmbedEndpoint is the embeddings URL requests go to, as messages show it.
func (c *Client) EmbedEndpoint() string { return redact.URL(c.embedURL) }
