// Package remotenli is the NLI backend that runs an MNLI cross-encoder (or
// a grounding classifier: see crossenc.Head) on an inference server, which
// can scale across GPUs and machines, over one of two protocols:
//
//   - kserve: the Open Inference Protocol (KServe v2) over HTTP/REST, as
//     Triton Inference Server (ONNX Runtime backend), KServe and Seldon
//     MLServer speak it. The client tokenizes and sends INT64 input_ids and
//     attention_mask (and token_type_ids when the model declares them);
//     the server returns the FP32 logits.
//   - tei: Hugging Face text-embeddings-inference serving a sequence
//     classification model. The client sends text pairs to /predict and
//     reads back the raw score of each label, by name.
//
// Everything but the forward pass is package crossenc's, as for the local
// onnx backend: the client reads the tokenizer, window and label order of
// a local model directory (the same model the server runs), cuts long
// premises into chunks that fit, batches by the same rule, and takes the
// most decisive chunk's answer. With tei, each chunk is sent as its text,
// and the client checks that the text tokenizes to the chunk's own tokens
// (see crossenc.EncoderOptions.Texts), so nothing is left to the server's
// truncation: pairs are sent with truncate false, and a pair the server
// finds too long is an error, never a cut answer.
//
// Requests run Concurrency at a time (the records a run scores in parallel
// share them, and share batches: see Options.Linger), each attempt bounded
// by Timeout; failed attempts (network errors, timeouts, 408, 429, 5xx,
// answers that cannot be read) are repeated as the run's retry policy says
// (package retry). Open checks the server before any pair is sent: that it is ready,
// serves the named model, and that the model takes and gives what an NLI
// cross-encoder does.
package remotenli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/endpoint"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
	"github.com/factreasoner/factreasoner-go/retry"
)

// Errors of Open, for errors.Is; crossenc.ErrNotMNLI marks a model whose
// outputs or labels are not the three NLI ones.
var (
	ErrNotReady     = errors.New("the inference server is not ready")
	ErrUnknownModel = errors.New("unknown model")
	ErrBadOutput    = errors.New("the model does not give logits as an NLI cross-encoder does")
)

// Protocols.
const (
	KServe = "kserve"
	TEI    = "tei"
)

// Defaults of Options.
const (
	DefaultConcurrency = 4
	DefaultTimeout     = time.Minute
	// DefaultBatchTokens caps a request's padded tokens: 16 sequences of
	// the 512-token window, so that in effect only BatchSize limits a
	// request. The local backend's lower cap is for CPU caches; a server
	// (on a GPU, batching requests itself) gains from larger requests, and
	// each request costs a round trip.
	DefaultBatchTokens = 16 * 512
	// DefaultLinger is how long a partial batch waits for the sequences of
	// other records scored at once (crossenc.Options.Linger): short beside
	// a request's round trip and the model's time on a batch.
	DefaultLinger = 5 * time.Millisecond
)

// Options configure a Classifier.
type Options struct {
	// Protocol is KServe or TEI.
	Protocol string
	// Endpoint is the server's base URL: http://host:8000 for Triton's
	// HTTP port, the root under which v2/models/... (kserve) or /predict
	// (tei) answer.
	Endpoint string
	// Model is the model's name at the server: required with kserve (the
	// name in Triton's model repository); with tei, optional, and checked
	// against the model TEI serves.
	Model string
	// Name identifies the local model directory (the tokenizer) in the
	// classifier's identity; empty uses the directory.
	Name string
	// BatchSize and BatchTokens bound the sequences and padded tokens of a
	// request (default crossenc.DefaultBatchSize and DefaultBatchTokens);
	// MaxLength caps the tokens of one sequence (0: the model's window).
	BatchSize, BatchTokens, MaxLength int
	// Concurrency is the most requests in flight, of all Classify calls
	// together (default DefaultConcurrency).
	Concurrency int
	// Linger is how long a request that is not full may wait for the
	// pairs of other Classify calls made at once (the records a run scores
	// in parallel), so that the server gets full batches (default
	// DefaultLinger; negative: none). See crossenc.Options.Linger.
	Linger time.Duration
	// Timeout bounds each attempt of a request (default DefaultTimeout).
	Timeout time.Duration
	// Retry says how failed attempts are repeated; nil is
	// retry.Default(). Share the run's policy.
	Retry *retry.Policy
	// HTTPClient sends the requests; default a client of its own that
	// keeps Concurrency connections open.
	HTTPClient *http.Client
	// PositiveLabel names a 2-label classifier's supported label where
	// its labels do not say it (crossenc.EncoderOptions.PositiveLabel);
	// Unsupported is the label of a pair such a classifier finds not
	// supported (crossenc.Options.Unsupported).
	PositiveLabel string
	Unsupported   nli.Label
}

// Classifier classifies pairs on an inference server. It implements
// nli.Classifier and is safe for concurrent use.
type Classifier struct {
	*crossenc.Classifier
	client   *client
	protocol string
	endpoint string
	model    string // the server's model, with its version
	own      *http.Client
}

var _ nli.Classifier = (*Classifier)(nil)

// Open reads the tokenizer, window and labels of the model directory dir,
// checks the server as o describes it, and returns the classifier.
func Open(ctx context.Context, dir string, o Options) (*Classifier, error) {
	server, err := endpoint.Parse(o.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("endpoint: %w: want the server's base URL, e.g. http://localhost:8000 (remotenli.Options.Endpoint)", err)
	}
	c := &Classifier{protocol: o.Protocol, endpoint: strings.TrimRight(server.String(), "/"), client: &client{timeout: o.Timeout, http: o.HTTPClient}}
	if c.client.timeout <= 0 {
		c.client.timeout = DefaultTimeout
	}
	conc := o.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	if c.client.http == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = conc
		c.own = &http.Client{Transport: t}
		c.client.http = c.own
	}
	if c.client.retry = o.Retry; c.client.retry == nil {
		c.client.retry = retry.Default()
	}
	if c.client.retry.Retries < 0 {
		return nil, fmt.Errorf("remotenli: negative retry count %d", c.client.retry.Retries)
	}

	enc, err := crossenc.LoadEncoder(dir, crossenc.EncoderOptions{MaxLength: o.MaxLength, Texts: o.Protocol == TEI, PositiveLabel: o.PositiveLabel})
	if err != nil {
		return nil, err
	}
	batchSize, batchTokens := o.BatchSize, o.BatchTokens
	if batchSize <= 0 {
		batchSize = crossenc.DefaultBatchSize
	}
	if batchTokens <= 0 {
		batchTokens = DefaultBatchTokens
	}
	var runner crossenc.Runner
	switch o.Protocol {
	case KServe:
		r, model, err := openKServe(ctx, c.client, server, o.Model, enc.Head().Outputs())
		if err != nil {
			return nil, fmt.Errorf("kserve: %w", err)
		}
		runner, c.model = r, model
	case TEI:
		r, maxBatch, model, err := openTEI(ctx, c.client, server, o.Model, enc)
		if err != nil {
			return nil, fmt.Errorf("tei: %w", err)
		}
		if maxBatch > 0 {
			// TEI refuses larger requests (413).
			batchSize = min(batchSize, maxBatch)
		}
		runner, c.model = r, model
	default:
		return nil, fmt.Errorf("unknown protocol %q (want %s or %s) (remotenli.Options.Protocol)", o.Protocol, KServe, TEI)
	}
	name := o.Name
	if name == "" {
		name = dir
	}
	c.Classifier = crossenc.New(enc, runner, crossenc.Options{
		Backend: "remote",
		// Answers depend on the server's model and on the tokenizer (and
		// window) the client cuts with; not on the endpoint, so that the
		// replicas of one deployment share cache entries.
		Name:        fmt.Sprintf("%s:%s;tokenizer=%s", o.Protocol, c.model, name),
		BatchSize:   batchSize,
		BatchTokens: batchTokens,
		Concurrency: conc,
		Linger:      linger(o.Linger),
		Unsupported: o.Unsupported,
	})
	return c, nil
}

// linger is the linger of Options o.Linger.
func linger(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultLinger
	case d < 0:
		return 0
	}
	return d
}

// Endpoint returns the server's base URL.
func (c *Classifier) Endpoint() string { return c.endpoint }

// Protocol returns KServe or TEI.
func (c *Classifier) Protocol() string { return c.protocol }

// RemoteModel returns the server's model, with its version or commit when
// the server names one.
func (c *Classifier) RemoteModel() string { return c.model }

// Usage counts a classifier's requests since it was opened.
type Usage struct {
	Requests int64 // HTTP requests sent, checks and retries included
	Retries  int64 // requests that repeated a failed one
}

// Usage returns the counts so far.
func (c *Classifier) Usage() Usage {
	return Usage{Requests: c.client.requests.Load(), Retries: c.client.retried.Load()}
}

// Close closes the idle connections of the classifier's own HTTP client.
func (c *Classifier) Close() error {
	if c.own != nil {
		c.own.CloseIdleConnections()
	}
	return nil
}

// RunSummary says in one line what the backend did in a run ("" when it
// classified nothing), for the end of a run's log.
func (c *Classifier) RunSummary() string {
	s, u := c.Stats(), c.Usage()
	if s.Pairs == 0 {
		return ""
	}
	msg := fmt.Sprintf("remote nli %s %s at %s: %d pairs, %d model inputs in %d requests (%d retries); %d premises split into chunks (up to %d), %d hypotheses longer than half the %d-token window split into chunks",
		c.Protocol(), c.RemoteModel(), c.Endpoint(), s.Pairs, s.Sequences, u.Requests, u.Retries, s.ChunkedPairs, s.MaxChunksOfPair, s.ChunkedHypotheses, c.MaxLength())
	if s.Retokenized > 0 {
		msg += fmt.Sprintf("; %d chunk texts tokenized differently from their chunks (sent as the texts' tokens)", s.Retokenized)
	}
	return msg
}
