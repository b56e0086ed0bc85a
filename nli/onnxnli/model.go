// Package onnxnli is the NLI backend that runs an MNLI cross-encoder
// (RoBERTa, DeBERTa or BERT family) exported to ONNX, in process, with ONNX
// Runtime (github.com/yalue/onnxruntime_go); or a grounding classifier of
// those families (two labels, supported and not supported, or one score:
// see crossenc.Head).
//
// A model is a directory laid out as on the Hugging Face hub: model.onnx or
// onnx/model.onnx, tokenizer.json and config.json. Everything but the
// forward pass (tokenizing with the model's own tokenizer.json, chunking
// long premises, batching, reading the answers in config.json's label
// order, the most decisive chunk's answer for a pair) is package crossenc's,
// shared with the remote backend; this package is its Runner on ONNX
// Runtime.
package onnxnli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
)

// Options configure a Model.
type Options struct {
	// Library is the ONNX Runtime shared library; empty finds it as
	// FindLibrary does.
	Library string
	// Name identifies the model in output records and cache keys (a hub
	// repository id, or the directory as the user gave it). Empty uses the
	// directory.
	Name string
	// BatchSize is the most sequences per ONNX Runtime call (default
	// DefaultBatchSize).
	BatchSize int
	// BatchTokens is the most tokens per call, padding included (default
	// DefaultBatchTokens): on a CPU, a batch of long sequences runs slower
	// per sequence than the sequences one by one, while short ones gain
	// from company (see BENCHMARKS.md).
	BatchTokens int
	// Threads is ONNX Runtime's intra-op thread count (0: its default, one
	// per core).
	Threads int
	// MaxLength caps the tokens of one sequence (0: the model's window).
	MaxLength int
	// Graph is the ONNX file, relative to the directory (default
	// model.onnx, else onnx/model.onnx).
	Graph string
	// PositiveLabel names a 2-label classifier's supported label where
	// its labels do not say it (crossenc.EncoderOptions.PositiveLabel);
	// Unsupported is the label of a pair such a classifier finds not
	// supported (crossenc.Options.Unsupported).
	PositiveLabel string
	Unsupported   nli.Label
}

// MaxGraphBytes bounds an ONNX graph file: protobuf caps a model at 2 GiB
// (larger weights go to external data files, which ONNX Runtime reads).
const MaxGraphBytes = 2 << 30

// Defaults of the batching options.
const (
	DefaultBatchSize   = crossenc.DefaultBatchSize
	DefaultBatchTokens = crossenc.DefaultBatchTokens
)

// Model is a loaded NLI cross-encoder: crossenc's classifier with ONNX
// Runtime as its forward pass. It implements nli.Classifier and is safe for
// concurrent use.
type Model struct {
	*crossenc.Classifier
	modelFile string
	session   *ort.DynamicAdvancedSession
	inputs    []string // the graph's inputs, in the order they are fed
	int32IDs  bool     // the graph takes int32 instead of int64 ids
	runNanos  atomic.Int64
}

// Files returns the paths of a model directory's ONNX graph (graph, or by
// default model.onnx or onnx/model.onnx), tokenizer and config, with an
// error naming what is missing.
func Files(dir, graph string) (model, tokenizer, config string, err error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", "", "", fmt.Errorf("NLI model directory: %w", err)
	}
	if !st.IsDir() {
		return "", "", "", fmt.Errorf("NLI model %s: not a directory (want a directory with model.onnx or onnx/model.onnx, tokenizer.json and config.json)", dir)
	}
	graphs := []string{"model.onnx", filepath.Join("onnx", "model.onnx")}
	if graph != "" {
		graphs = []string{filepath.FromSlash(graph)}
	}
	for _, p := range graphs {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			model = filepath.Join(dir, p)
			break
		}
	}
	var missing []string
	switch {
	case model == "" && graph != "":
		missing = append(missing, graph)
	case model == "":
		missing = append(missing, "model.onnx (or onnx/model.onnx)")
	}
	tokenizer, config = filepath.Join(dir, "tokenizer.json"), filepath.Join(dir, "config.json")
	for _, p := range []string{tokenizer, config} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, filepath.Base(p))
		}
	}
	if len(missing) > 0 {
		return "", "", "", fmt.Errorf("NLI model %s: missing %s (a model directory is laid out as on the Hugging Face hub; "+
			"export one with `optimum-cli export onnx --task text-classification --model REPO DIR`)", dir, strings.Join(missing, ", "))
	}
	// ONNX Runtime would block on a named pipe and fail obscurely on a
	// directory; the tokenizer and config are checked as they are read.
	if _, err := safefile.Check(model, "NLI model graph", MaxGraphBytes); err != nil {
		return "", "", "", err
	}
	return model, tokenizer, config, nil
}

// Load opens the model in dir.
func Load(dir string, opts Options) (*Model, error) {
	modelFile, _, _, err := Files(dir, opts.Graph)
	if err != nil {
		return nil, err
	}
	enc, err := crossenc.LoadEncoder(dir, crossenc.EncoderOptions{MaxLength: opts.MaxLength, PositiveLabel: opts.PositiveLabel})
	if err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		name = dir
	}
	m := &Model{modelFile: modelFile}
	m.Classifier = crossenc.New(enc, m, crossenc.Options{Backend: "onnx", Name: name, BatchSize: opts.BatchSize, BatchTokens: opts.BatchTokens, Unsupported: opts.Unsupported})

	lib, err := FindLibrary(opts.Library)
	if err != nil {
		return nil, err
	}
	if err := initRuntime(lib); err != nil {
		return nil, err
	}
	if err := checkONNX(modelFile); err != nil {
		return nil, err
	}
	ins, outs, err := graphInfo(modelFile)
	if err != nil {
		return nil, fmt.Errorf("NLI model %s: ONNX Runtime cannot load it: %w", modelFile, err)
	}
	output, err := m.checkGraph(ins, outs)
	if err != nil {
		return nil, fmt.Errorf("NLI model %s: %w", modelFile, err)
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime session options: %w", err)
	}
	defer so.Destroy()
	if opts.Threads > 0 {
		if err := so.SetIntraOpNumThreads(opts.Threads); err != nil {
			return nil, fmt.Errorf("ONNX Runtime threads: %w", err)
		}
	}
	if m.session, err = ort.NewDynamicAdvancedSession(modelFile, m.inputs, []string{output}, so); err != nil {
		return nil, fmt.Errorf("NLI model %s: ONNX Runtime cannot load it: %w", modelFile, err)
	}
	return m, nil
}

// graphInfo reads a graph's inputs and outputs. The binding can only do it
// by loading the model in a session of its own; that session skips the
// graph optimizations, which the session that runs the model does anyway.
func graphInfo(path string) (ins, outs []ort.InputOutputInfo, err error) {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, nil, err
	}
	defer so.Destroy()
	if err := so.SetGraphOptimizationLevel(ort.GraphOptimizationLevelDisableAll); err != nil {
		return nil, nil, err
	}
	return ort.GetInputOutputInfoWithOptions(path, so)
}

// checkONNX rejects files that are plainly not ONNX protobufs before ONNX
// Runtime sees them (its message for a text file is obscure).
func checkONNX(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case st.Size() < 16 || n < 16:
		return fmt.Errorf("NLI model %s: %d bytes is not an ONNX model", path, st.Size())
	case strings.HasPrefix(string(head), "version https://git-lfs"):
		return fmt.Errorf("NLI model %s: a Git LFS pointer, not the model (fetch the file itself, e.g. with fr models pull or git lfs pull)", path)
	case head[0] != 0x08: // field 1 (ir_version), varint: every ONNX ModelProto starts so
		return fmt.Errorf("NLI model %s: not an ONNX model (the file does not start like an ONNX protobuf)", path)
	}
	return nil
}

// checkGraph checks the graph's inputs and output against what an NLI
// cross-encoder takes and gives, and records the inputs to feed. It returns
// the output to read.
func (m *Model) checkGraph(ins, outs []ort.InputOutputInfo) (string, error) {
	known := map[string]bool{"input_ids": true, "attention_mask": true, "token_type_ids": true}
	var names []string
	hasIDs := false
	for _, in := range ins {
		if !known[in.Name] {
			return "", fmt.Errorf("unexpected input %q (an NLI cross-encoder takes input_ids, attention_mask and optionally token_type_ids)", in.Name)
		}
		switch in.DataType {
		case ort.TensorElementDataTypeInt64:
		case ort.TensorElementDataTypeInt32:
			m.int32IDs = true
		default:
			return "", fmt.Errorf("input %q has element type %v; want int64 or int32", in.Name, in.DataType)
		}
		if len(in.Dimensions) != 2 {
			return "", fmt.Errorf("input %q has shape %v; want [batch, sequence]", in.Name, in.Dimensions)
		}
		hasIDs = hasIDs || in.Name == "input_ids"
		names = append(names, in.Name)
	}
	if !hasIDs {
		return "", errors.New("no input_ids input")
	}
	m.inputs = names
	var out *ort.InputOutputInfo
	for i := range outs {
		if outs[i].Name == "logits" {
			out = &outs[i]
		}
	}
	if out == nil {
		if len(outs) != 1 {
			return "", fmt.Errorf("no output named logits among %d outputs", len(outs))
		}
		out = &outs[0]
	}
	if out.DataType != ort.TensorElementDataTypeFloat {
		return "", fmt.Errorf("output %q has element type %v; want float32 logits", out.Name, out.DataType)
	}
	if d, k := out.Dimensions, m.Head().Outputs(); len(d) != 2 || d[1] != int64(k) {
		return "", fmt.Errorf("%w: output %q has shape %v; want [batch, %d] logits, as config.json's id2label has %d labels", errNotMNLI, out.Name, d, k, k)
	}
	return out.Name, nil
}

// Close releases the ONNX Runtime session.
func (m *Model) Close() error {
	if m.session == nil {
		return nil
	}
	err := m.session.Destroy()
	m.session = nil
	return err
}

var _ nli.Classifier = (*Model)(nil)

// Inputs returns the graph's inputs, in the order they are fed: input_ids,
// attention_mask and token_type_ids, as the graph declares them.
func (m *Model) Inputs() []string { return slices.Clone(m.inputs) }

// Run implements crossenc.Runner: it runs the graph on one batch, padded
// to its longest sequence.
func (m *Model) Run(ctx context.Context, b *crossenc.Batch) ([]float32, error) {
	ids, mask, types := b.Tensors()
	return m.RunTensors(len(b.Sequences), b.Width, ids, mask, types)
}

// RunTensors runs the graph on row-major [rows, width] tensors of token
// ids, attention mask and token type ids (each fed when the graph declares
// it) and returns the logits, Head().Outputs() per row.
func (m *Model) RunTensors(rows, width int, ids, mask, types []int64) ([]float32, error) {
	if m.session == nil {
		return nil, errors.New("NLI model is closed")
	}
	n := rows * width
	if rows <= 0 || width <= 0 || len(ids) != n || len(mask) != n || len(types) != n {
		return nil, fmt.Errorf("NLI model %s: tensors of %d, %d and %d values for shape [%d %d]", m.modelFile, len(ids), len(mask), len(types), rows, width)
	}
	shape := ort.NewShape(int64(rows), int64(width))
	inputs := make([]ort.Value, len(m.inputs))
	defer func() {
		for _, v := range inputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for k, name := range m.inputs {
		data := ids
		switch name {
		case "attention_mask":
			data = mask
		case "token_type_ids":
			data = types
		}
		var (
			v   ort.Value
			err error
		)
		if m.int32IDs {
			v, err = ort.NewTensor(shape, toInt32(data))
		} else {
			v, err = ort.NewTensor(shape, data)
		}
		if err != nil {
			return nil, fmt.Errorf("ONNX Runtime input %s: %w", name, err)
		}
		inputs[k] = v
	}
	outputs := []ort.Value{nil}
	start := time.Now()
	err := m.session.Run(inputs, outputs)
	m.runNanos.Add(int64(time.Since(start)))
	if err != nil {
		return nil, fmt.Errorf("NLI model %s: %w", m.modelFile, err)
	}
	defer outputs[0].Destroy()
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("NLI model %s: output is %T, want a float32 tensor", m.modelFile, outputs[0])
	}
	if got, k := t.GetShape(), int64(m.Head().Outputs()); len(got) != 2 || got[0] != int64(rows) || got[1] != k {
		return nil, fmt.Errorf("NLI model %s: output shape %v for a batch of %d; want [%d %d]", m.modelFile, got, rows, rows, k)
	}
	return slices.Clone(t.GetData()), nil
}

// Stats returns the counts so far; Runtime is the time spent in ONNX
// Runtime's Run (all goroutines).
func (m *Model) Stats() crossenc.Stats {
	s := m.Classifier.Stats()
	s.Runtime = time.Duration(m.runNanos.Load())
	return s
}

func toInt32(v []int64) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// RunSummary says in one line what the model did in a run ("" when it
// classified nothing), for the end of a run's log.
func (m *Model) RunSummary() string {
	s := m.Stats()
	if s.Pairs == 0 {
		return ""
	}
	return fmt.Sprintf("onnx nli %s: %d pairs, %d model inputs; %d premises split into chunks (up to %d), %d hypotheses longer than half the %d-token window split into chunks",
		m.Identity().Model, s.Pairs, s.Sequences, s.ChunkedPairs, s.MaxChunksOfPair, s.ChunkedHypotheses, m.MaxLength())
}

// InProcess reports that the model runs in this process, with ONNX
// Runtime's threads on every core: a second record in flight only makes
// the two contend.
func (m *Model) InProcess() bool { return true }
