// Package onnxnli is the NLI backend that runs an MNLI cross-encoder
// (RoBERTa, DeBERTa or BERT family) exported to ONNX, in process, with ONNX
// Runtime (github.com/yalue/onnxruntime_go) and the model's own
// tokenizer.json (github.com/sugarme/tokenizer).
//
// A model is a directory laid out as on the Hugging Face hub: model.onnx or
// onnx/model.onnx, tokenizer.json and config.json, whose id2label gives the
// order of the three labels. The answer for a pair is the softmax of the
// logits: label = argmax, probability = its value, and the full
// distribution is kept.
//
// Premises longer than the model's window are cut into chunks that fit, on
// sentence boundaries where possible (see Plan), and every chunk is put to
// the model with the whole hypothesis. The pair's answer is that of the
// most decisive chunk: the one whose entailment or contradiction
// probability is highest (ties keep the earlier chunk). Evidence for or
// against an atom usually sits in one sentence of a passage; the other
// chunks are neutral about it, so averaging would dilute it and a single
// truncated window would lose it.
package onnxnli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/factreasoner/factreasoner-go/hftokenizer"

	"github.com/factreasoner/factreasoner-go/nli"
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
}

// Defaults of the batching options.
const (
	DefaultBatchSize   = 16
	DefaultBatchTokens = 256
)

// Model is a loaded NLI cross-encoder. It implements nli.Classifier and is
// safe for concurrent use.
type Model struct {
	name      string
	modelFile string
	session   *ort.DynamicAdvancedSession
	tok       *hftokenizer.Tokenizer

	inputs      []string // the graph's inputs, in the order they are fed
	int32IDs    bool     // the graph takes int32 instead of int64 ids
	labels      [3]nli.Label
	maxLen      int
	padID       int
	zeroTypes   bool // feed zeros as token_type_ids (type_vocab_size 1)
	batchSize   int
	batchTokens int

	stats statCounters
}

// config is what this package reads of config.json.
type config struct {
	ModelType             string            `json:"model_type"`
	ID2Label              map[string]string `json:"id2label"`
	MaxPositionEmbeddings int               `json:"max_position_embeddings"`
	PadTokenID            *int              `json:"pad_token_id"`
	TypeVocabSize         *int              `json:"type_vocab_size"`
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
	return model, tokenizer, config, nil
}

// Load opens the model in dir.
func Load(dir string, opts Options) (*Model, error) {
	modelFile, tokFile, cfgFile, err := Files(dir, opts.Graph)
	if err != nil {
		return nil, err
	}
	m := &Model{name: opts.Name, modelFile: modelFile, batchSize: opts.BatchSize}
	if m.name == "" {
		m.name = dir
	}
	if m.batchSize <= 0 {
		m.batchSize = DefaultBatchSize
	}
	if m.batchTokens = opts.BatchTokens; m.batchTokens <= 0 {
		m.batchTokens = DefaultBatchTokens
	}
	cfg, err := readConfig(cfgFile)
	if err != nil {
		return nil, err
	}
	if m.labels, err = labelOrder(cfg.ID2Label); err != nil {
		return nil, fmt.Errorf("%s: id2label: %w", cfgFile, err)
	}
	if m.maxLen, err = window(cfg, filepath.Join(dir, "tokenizer_config.json")); err != nil {
		return nil, fmt.Errorf("%s: %w", cfgFile, err)
	}
	if opts.MaxLength > 0 {
		if opts.MaxLength > m.maxLen {
			return nil, fmt.Errorf("NLI model %s: maximum length %d is more than the model's window of %d tokens", dir, opts.MaxLength, m.maxLen)
		}
		m.maxLen = opts.MaxLength
		// Answers depend on the window: keep them apart in caches.
		m.name = fmt.Sprintf("%s@max_length=%d", m.name, m.maxLen)
	}
	if cfg.PadTokenID != nil {
		m.padID = *cfg.PadTokenID
	}
	m.zeroTypes = cfg.TypeVocabSize != nil && *cfg.TypeVocabSize <= 1
	if m.tok, err = hftokenizer.Load(tokFile); err != nil {
		return nil, err
	}
	if !m.tok.JoinsPairs() {
		return nil, fmt.Errorf("NLI model %s: %s has no post_processor: it does not say how to join a premise and a hypothesis", dir, tokFile)
	}
	if m.maxLen <= m.tok.Specials()+1 {
		return nil, fmt.Errorf("NLI model %s: a window of %d tokens leaves no room for text", dir, m.maxLen)
	}

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

func readConfig(path string) (*config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: not a model config.json: %w", path, err)
	}
	return &cfg, nil
}

// labelOrder maps the classifier's output indices to labels.
func labelOrder(id2label map[string]string) ([3]nli.Label, error) {
	var order [3]nli.Label
	if len(id2label) != 3 {
		return order, fmt.Errorf("%w: %d labels %v (want entailment, neutral and contradiction)", errNotMNLI, len(id2label), id2label)
	}
	seen := map[nli.Label]bool{}
	for i := range 3 {
		name, ok := id2label[fmt.Sprint(i)]
		if !ok {
			return order, fmt.Errorf("%w: no label for output %d in %v", errNotMNLI, i, id2label)
		}
		l, err := nli.ParseLabel(strings.ToLower(strings.TrimSpace(name)))
		if err != nil || seen[l] {
			return order, fmt.Errorf("%w: labels %v (want entailment, neutral and contradiction, in any order and case)", errNotMNLI, id2label)
		}
		seen[l] = true
		order[i] = l
	}
	return order, nil
}

// window is the number of tokens the model takes: its position table, less
// the offset at which RoBERTa-style models start counting positions (after
// the padding id), capped by the tokenizer's model_max_length.
func window(cfg *config, tokConfig string) (int, error) {
	n := cfg.MaxPositionEmbeddings
	if n <= 0 {
		return 0, errors.New("no max_position_embeddings: the model's window is unknown")
	}
	switch cfg.ModelType {
	case "roberta", "xlm-roberta", "camembert", "longformer", "bart", "mbart":
		pad := 1
		if cfg.PadTokenID != nil {
			pad = *cfg.PadTokenID
		}
		n -= pad + 1
	}
	if data, err := os.ReadFile(tokConfig); err == nil {
		var tc struct {
			ModelMaxLength float64 `json:"model_max_length"`
		}
		// transformers writes a huge sentinel when the length is unset.
		if json.Unmarshal(data, &tc) == nil && tc.ModelMaxLength > 0 && tc.ModelMaxLength < float64(n) {
			n = int(tc.ModelMaxLength)
		}
	}
	return n, nil
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
	n, _ := f.Read(head)
	head = head[:n]
	switch {
	case st.Size() < 16:
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
	if d := out.Dimensions; len(d) != 2 || d[1] != 3 {
		return "", fmt.Errorf("%w: output %q has shape %v; want [batch, 3] logits", errNotMNLI, out.Name, d)
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

// Identity implements nli.Classifier.
func (m *Model) Identity() nli.Identity {
	return nli.Identity{Backend: "onnx", Model: m.name}
}

// MaxLength returns the number of tokens of one sequence.
func (m *Model) MaxLength() int { return m.maxLen }

// Labels returns the label of each output of the classifier, in order.
func (m *Model) Labels() [3]nli.Label { return m.labels }

var _ nli.Classifier = (*Model)(nil)

// Tokenizer returns the model's tokenizer.
func (m *Model) Tokenizer() *hftokenizer.Tokenizer { return m.tok }
