package remotenli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/endpoint"
	"github.com/factreasoner/factreasoner-go/internal/jsonpath"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
)

// The Open Inference Protocol (KServe v2) over HTTP/REST, as Triton
// Inference Server, KServe and Seldon MLServer speak it:
//
//	GET  v2/models/{name}/ready   200: ready; 4xx: not ready
//	GET  v2/models/{name}         {"name", "versions"?, "platform", "inputs": [tensor], "outputs": [tensor]}
//	POST v2/models/{name}/infer   {"inputs": [{"name", "shape", "datatype", "data"}], "outputs": [{"name"}]}
//	                              → {"model_name", "outputs": [{"name", "shape", "datatype", "data"}]}
//
// Errors are an HTTP error status with {"error": "message"}. Tensor data
// is row-major, flat or nested.

// tensorMeta is a tensor of the model metadata.
type tensorMeta struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

// modelMeta is the model metadata response.
type modelMeta struct {
	Name     string       `json:"name"`
	Versions []string     `json:"versions"`
	Platform string       `json:"platform"`
	Inputs   []tensorMeta `json:"inputs"`
	Outputs  []tensorMeta `json:"outputs"`
}

// logitsOutput is the output the client reads.
const logitsOutput = "logits"

// kserveRunner runs batches with infer requests.
type kserveRunner struct {
	c       *client
	infer   string       // the infer URL
	inputs  []tensorMeta // the model's inputs, as declared
	outputs int          // logits per sequence: config.json's labels
}

// openKServe checks that the model is ready and takes what an NLI
// cross-encoder takes and gives, and returns its runner and the model's
// name with its version (when the server names one).
func openKServe(ctx context.Context, c *client, server *url.URL, name string, outputs int) (*kserveRunner, string, error) {
	if name == "" {
		return nil, "", errors.New("the model's name at the server is required with the kserve protocol: its name in the server's model repository (remotenli.Options.Model)")
	}
	model := endpoint.Join(server, "v2/models", url.PathEscape(name))
	base, shownServer, shownBase := model.String(), strings.TrimRight(redact.URL(server.String()), "/"), redact.URL(model.String())
	meta, metaErr := do(ctx, c, http.MethodGet, base, nil, func(raw []byte) (*modelMeta, error) {
		var m modelMeta
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		if len(m.Inputs) == 0 || len(m.Outputs) == 0 {
			return nil, errors.New("no inputs or no outputs: not model metadata")
		}
		return &m, nil
	})
	var se *StatusError
	if errors.As(metaErr, &se) && (se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusBadRequest) {
		// Triton answers 400 for a model it does not know, KServe and
		// MLServer 404; a server that does not speak the protocol 404 too.
		hint := ""
		if se.StatusCode == http.StatusNotFound {
			hint = "; is it an Open Inference Protocol server (Triton's HTTP port, KServe, MLServer)?"
		}
		return nil, "", fmt.Errorf("%w: the server at %s does not serve a model named %q (GET %s: %s: %s)%s", ErrUnknownModel, shownServer, name, shownBase, se.Status, se.Message, hint)
	}
	if metaErr != nil {
		return nil, "", fmt.Errorf("model metadata: %w", metaErr)
	}
	// The status says whether the model is ready (Triton: 200 or 400;
	// KServe's Python server: 503 while the model loads, asked again
	// first); the body, where there is one, is {"name", "ready"}, and a
	// server may answer 200 with "ready": false.
	ready, err := do(ctx, c, http.MethodGet, endpoint.Join(model, "ready").String(), nil, readyAnswer)
	if err != nil {
		if errors.As(err, &se) && (se.StatusCode/100 == 4 || se.StatusCode == http.StatusServiceUnavailable) {
			return nil, "", fmt.Errorf("%w: model %q at %s (GET %s/ready: %s: %s)", ErrNotReady, name, shownServer, shownBase, se.Status, se.Message)
		}
		return nil, "", fmt.Errorf("model readiness: %w", err)
	}
	if !ready {
		return nil, "", fmt.Errorf(`%w: model %q at %s (GET %s/ready: 200 OK with "ready": false)`, ErrNotReady, name, shownServer, shownBase)
	}
	r := &kserveRunner{c: c, infer: endpoint.Join(model, "infer").String(), outputs: outputs}
	if err := r.check(meta); err != nil {
		return nil, "", fmt.Errorf("model %q at %s: %w", name, shownServer, err)
	}
	if len(meta.Versions) == 1 {
		name += "@" + meta.Versions[0]
	}
	return r, name, nil
}

// readyAnswer reads the body of a 2xx model ready answer: false only
// when it is the protocol's {"name", "ready"} object with "ready" false.
// An empty body (Triton's), or another one, leaves the status to say it.
func readyAnswer(raw []byte) (bool, error) {
	var r struct {
		Ready *bool `json:"ready"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Ready == nil {
		return true, nil
	}
	return *r.Ready, nil
}

// check checks the model's inputs and outputs against what an NLI
// cross-encoder takes and gives, and records the inputs to send.
func (r *kserveRunner) check(m *modelMeta) error {
	known := map[string]bool{"input_ids": true, "attention_mask": true, "token_type_ids": true}
	hasIDs := false
	for _, in := range m.Inputs {
		if !known[in.Name] {
			return fmt.Errorf("unexpected input %q (an NLI cross-encoder takes input_ids, attention_mask and optionally token_type_ids)", in.Name)
		}
		if in.Datatype != "INT64" && in.Datatype != "INT32" {
			return fmt.Errorf("input %q has datatype %s; want INT64 (or INT32)", in.Name, in.Datatype)
		}
		if len(in.Shape) != 2 {
			return fmt.Errorf("input %q has shape %v; want [batch, sequence] (with Triton, max_batch_size > 0 and dims [ -1 ])", in.Name, in.Shape)
		}
		if in.Shape[1] >= 0 {
			return fmt.Errorf("input %q has a fixed sequence length of %d; the client sends each batch padded to its longest sequence: declare the length variable (-1)", in.Name, in.Shape[1])
		}
		hasIDs = hasIDs || in.Name == "input_ids"
		r.inputs = append(r.inputs, in)
	}
	if !hasIDs {
		return errors.New("no input_ids input")
	}
	i := slices.IndexFunc(m.Outputs, func(t tensorMeta) bool { return t.Name == logitsOutput })
	if i < 0 {
		var names []string
		for _, o := range m.Outputs {
			names = append(names, o.Name)
		}
		return fmt.Errorf("%w: no output named %s (the model's outputs: %s)", ErrBadOutput, logitsOutput, strings.Join(names, ", "))
	}
	out := m.Outputs[i]
	if out.Datatype != "FP32" {
		return fmt.Errorf("%w: output %s has datatype %s; want FP32", ErrBadOutput, out.Name, out.Datatype)
	}
	if len(out.Shape) != 2 {
		return fmt.Errorf("%w: output %s has shape %v; want [batch, %d]", ErrBadOutput, out.Name, out.Shape, r.outputs)
	}
	if n := out.Shape[1]; n >= 0 && n != int64(r.outputs) {
		return fmt.Errorf("%w: output %s has %d values per sequence (shape %v), but config.json's id2label has %d labels", crossenc.ErrNotMNLI, out.Name, n, out.Shape, r.outputs)
	}
	return nil
}

// inferInput is one input tensor of an infer request. Data is written by
// appendInts, not encoding/json: a batch is up to thousands of ids.
type inferInput struct {
	Name     string
	Datatype string
	Shape    [2]int
	Data     []int64
}

// Run implements crossenc.Runner.
func (r *kserveRunner) Run(ctx context.Context, b *crossenc.Batch) ([]float32, error) {
	ids, mask, types := b.Tensors()
	rows := len(b.Sequences)
	body := []byte(`{"inputs":[`)
	for k, in := range r.inputs {
		data := ids
		switch in.Name {
		case "attention_mask":
			data = mask
		case "token_type_ids":
			data = types
		}
		if k > 0 {
			body = append(body, ',')
		}
		body = appendInput(body, inferInput{Name: in.Name, Datatype: in.Datatype, Shape: [2]int{rows, b.Width}, Data: data})
	}
	body = append(body, `],"outputs":[{"name":"`+logitsOutput+`"}]}`...)
	return do(ctx, r.c, http.MethodPost, r.infer, body, func(raw []byte) ([]float32, error) { return readLogits(raw, rows, r.outputs) })
}

func appendInput(b []byte, in inferInput) []byte {
	name, _ := json.Marshal(in.Name)
	b = append(b, `{"name":`...)
	b = append(b, name...)
	b = append(b, `,"datatype":"`...)
	b = append(b, in.Datatype...)
	b = append(b, `","shape":[`...)
	b = strconv.AppendInt(b, int64(in.Shape[0]), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(in.Shape[1]), 10)
	b = append(b, `],"data":[`...)
	for i, v := range in.Data {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return append(b, "]}"...)
}

// readLogits reads the logits output of an infer response for rows
// sequences, k each.
func readLogits(raw []byte, rows, k int) ([]float32, error) {
	var resp struct {
		Outputs []struct {
			Name     string          `json:"name"`
			Shape    []int64         `json:"shape"`
			Datatype string          `json:"datatype"`
			Data     json.RawMessage `json:"data"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("not an inference response: %w", jsonpath.Error(raw, err))
	}
	for _, o := range resp.Outputs {
		if o.Name != logitsOutput {
			continue
		}
		if o.Datatype != "FP32" {
			return nil, fmt.Errorf("output %s has datatype %q; want FP32", o.Name, o.Datatype)
		}
		if len(o.Shape) != 2 || o.Shape[0] != int64(rows) || o.Shape[1] != int64(k) {
			return nil, fmt.Errorf("output %s has shape %v for a batch of %d; want [%d %d]", o.Name, o.Shape, rows, rows, k)
		}
		values, err := flatten(o.Data)
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", o.Name, err)
		}
		if len(values) != k*rows {
			return nil, fmt.Errorf("output %s has %d values for shape %v", o.Name, len(values), o.Shape)
		}
		out := make([]float32, len(values))
		for i, v := range values {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat32 {
				return nil, fmt.Errorf("output %s: value %d (%v) is not an FP32 number", o.Name, i, v)
			}
			out[i] = float32(v)
		}
		return out, nil
	}
	var names []string
	for _, o := range resp.Outputs {
		names = append(names, o.Name)
	}
	return nil, fmt.Errorf("no output named %s among %d outputs %v", logitsOutput, len(resp.Outputs), names)
}

// flatten reads tensor data, flat or nested, in row-major order: numbers
// only.
func flatten(data json.RawMessage) ([]float64, error) {
	var out []float64
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("tensor data: %w", err)
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '[' {
				depth++
			} else {
				depth--
			}
		case json.Number:
			if depth == 0 {
				return nil, errors.New("tensor data is not an array")
			}
			v, err := t.Float64()
			if err != nil {
				return nil, fmt.Errorf("tensor data: %w", err)
			}
			out = append(out, v)
		default:
			return nil, fmt.Errorf("tensor data holds %v, not a number", tok)
		}
		if depth == 0 {
			if out == nil {
				out = []float64{}
			}
			if dec.More() {
				return nil, errors.New("tensor data: more after the array")
			}
			break
		}
	}
	return out, nil
}
