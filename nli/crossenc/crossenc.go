// Package crossenc is the text side of an MNLI cross-encoder (RoBERTa,
// DeBERTa or BERT family), shared by the backends that run one: onnxnli
// runs the model in process with ONNX Runtime, remotenli on an inference
// server. What the model is asked, and how its answers are read, is the
// same for both; only the forward pass differs, and it is a Runner.
//
// An Encoder reads a model directory laid out as on the Hugging Face hub:
// tokenizer.json (read with hftokenizer) and config.json, whose id2label
// gives the order of the three labels and whose position table gives the
// window. A Classifier puts pairs to the model through a Runner and reads
// the answer for a pair from the softmax of the logits: label = argmax,
// probability = its value, and the full distribution is kept.
//
// Grounding classifiers are read too (see Head): two labels, supported and
// not supported (MiniCheck), or one logit (HHEM-1). Their answer is
// P(supported), the softmax of the supported output or the sigmoid of the
// one logit, and the relation it makes is nli.Supported's: an entailment
// with that probability at 0.5 or above, else neutral (or, when asked, a
// contradiction) with 1 − P. Their pair's answer is that of the chunk with
// the highest P(supported), as MiniCheck itself takes it.
//
// Premises longer than the model's window are cut into chunks that fit, on
// sentence boundaries where possible (see Plan), and every chunk is put to
// the model with the whole hypothesis. The pair's answer is that of the
// most decisive chunk: the one whose entailment or contradiction
// probability is highest (ties keep the earlier chunk). Evidence for or
// against an atom usually sits in one sentence of a passage; the other
// chunks are neutral about it, so averaging would dilute it and a single
// truncated window would lose it.
package crossenc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/factreasoner/factreasoner-go/hftokenizer"
	"github.com/factreasoner/factreasoner-go/internal/jsonpath"
	"github.com/factreasoner/factreasoner-go/internal/safefile"
	"github.com/factreasoner/factreasoner-go/nli"
)

// ErrNotMNLI marks a model whose outputs or labels are neither the three
// NLI ones nor a grounding classifier's (supported and not supported, or
// one score).
var ErrNotMNLI = errors.New("not a 3-way NLI model or a grounding classifier")

// EncoderOptions configure an Encoder.
type EncoderOptions struct {
	// MaxLength caps the tokens of one sequence (0: the model's window).
	MaxLength int
	// Texts makes every sequence carry the premise and hypothesis text it
	// encodes, for runners that send text and let the server tokenize (see
	// Sequence). The tokens of a sequence are then those of its texts.
	Texts bool
	// PositiveLabel names the label of a 2-label grounding classifier
	// that means supported, for exports whose labels do not say it
	// (MiniCheck's: LABEL_0 and LABEL_1, LABEL_1 supported). Empty: the
	// labels must say it (see Head).
	PositiveLabel string
}

// Encoder turns premise/hypothesis pairs into model inputs as a model
// directory says: its tokenizer, special tokens, window, padding id and
// label order. It is safe for concurrent use.
type Encoder struct {
	tok       *hftokenizer.Tokenizer
	head      Head
	labels    [3]nli.Label // head.NLI
	maxLen    int
	narrowed  bool // MaxLength set below the model's window
	padID     int
	zeroTypes bool // feed zeros as token_type_ids (type_vocab_size 1)
	texts     bool
}

// config is what this package reads of config.json.
type config struct {
	ModelType             string            `json:"model_type"`
	ID2Label              map[string]string `json:"id2label"`
	MaxPositionEmbeddings int               `json:"max_position_embeddings"`
	PadTokenID            *int              `json:"pad_token_id"`
	TypeVocabSize         *int              `json:"type_vocab_size"`
	VocabSize             *int              `json:"vocab_size"`
}

// Bounds of config.json's values: beyond them a value is a mistake, and
// would give wrong answers rather than errors (a negative padding id
// widens the window past the position table).
const (
	MaxPositions  = 1 << 17 // max_position_embeddings
	MaxVocabulary = 1 << 24 // vocab_size, and so every token id
	maxTypes      = 1 << 10 // type_vocab_size
)

// check range-checks the values the encoder uses.
func (c *config) check() error {
	if c.MaxPositionEmbeddings < 0 || c.MaxPositionEmbeddings > MaxPositions {
		return fmt.Errorf("max_position_embeddings %d: want 1 to %d", c.MaxPositionEmbeddings, MaxPositions)
	}
	if c.VocabSize != nil && (*c.VocabSize < 1 || *c.VocabSize > MaxVocabulary) {
		return fmt.Errorf("vocab_size %d: want 1 to %d", *c.VocabSize, MaxVocabulary)
	}
	if c.PadTokenID != nil {
		limit := MaxVocabulary
		if c.VocabSize != nil {
			limit = *c.VocabSize
		}
		if *c.PadTokenID < 0 || *c.PadTokenID >= limit {
			return fmt.Errorf("pad_token_id %d: want a token id, 0 to %d", *c.PadTokenID, limit-1)
		}
	}
	if c.TypeVocabSize != nil && (*c.TypeVocabSize < 0 || *c.TypeVocabSize > maxTypes) {
		return fmt.Errorf("type_vocab_size %d: want 0 to %d", *c.TypeVocabSize, maxTypes)
	}
	return nil
}

// LoadEncoder reads the tokenizer.json and config.json of the model
// directory dir (and tokenizer_config.json when there is one).
func LoadEncoder(dir string, o EncoderOptions) (*Encoder, error) {
	tokFile, cfgFile := filepath.Join(dir, "tokenizer.json"), filepath.Join(dir, "config.json")
	var missing []string
	for _, p := range []string{tokFile, cfgFile} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, filepath.Base(p))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("NLI model %s: missing %s (a model directory is laid out as on the Hugging Face hub)", dir, strings.Join(missing, ", "))
	}
	cfg, err := readConfig(cfgFile)
	if err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", cfgFile, err)
	}
	e := &Encoder{texts: o.Texts}
	if e.head, err = readHead(cfg.ID2Label, o.PositiveLabel); err != nil {
		return nil, fmt.Errorf("%s: id2label: %w", cfgFile, err)
	}
	e.labels = e.head.NLI
	if e.maxLen, err = window(cfg, filepath.Join(dir, "tokenizer_config.json")); err != nil {
		return nil, fmt.Errorf("%s: %w", cfgFile, err)
	}
	if o.MaxLength > 0 {
		if o.MaxLength > e.maxLen {
			return nil, fmt.Errorf("NLI model %s: maximum length %d is more than the model's window of %d tokens", dir, o.MaxLength, e.maxLen)
		}
		e.maxLen, e.narrowed = o.MaxLength, true
	}
	if cfg.PadTokenID != nil {
		e.padID = *cfg.PadTokenID
	}
	e.zeroTypes = cfg.TypeVocabSize != nil && *cfg.TypeVocabSize <= 1
	if e.tok, err = hftokenizer.Load(tokFile); err != nil {
		return nil, err
	}
	if cfg.VocabSize != nil && e.tok.MaxID() >= *cfg.VocabSize {
		return nil, fmt.Errorf("NLI model %s: %s names token id %d, outside the model's vocabulary of %d (vocab_size in %s)", dir, tokFile, e.tok.MaxID(), *cfg.VocabSize, cfgFile)
	}
	if e.padID > e.tok.MaxID() {
		return nil, fmt.Errorf("NLI model %s: pad_token_id %d in %s is no token of %s (its ids go to %d)", dir, e.padID, cfgFile, tokFile, e.tok.MaxID())
	}
	if !e.tok.JoinsPairs() {
		return nil, fmt.Errorf("NLI model %s: %s has no post_processor: it does not say how to join a premise and a hypothesis", dir, tokFile)
	}
	if e.maxLen <= e.tok.Specials()+1 {
		return nil, fmt.Errorf("NLI model %s: a window of %d tokens leaves no room for text", dir, e.maxLen)
	}
	return e, nil
}

// maxConfigBytes bounds config.json and tokenizer_config.json: a few
// kilobytes each.
const maxConfigBytes = 4 << 20

func readConfig(path string) (*config, error) {
	data, err := safefile.ReadFile(path, "model config", maxConfigBytes)
	if err != nil {
		return nil, err
	}
	var cfg config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: not a model config.json: %w", path, jsonpath.Error(data, err))
	}
	return &cfg, nil
}

// ParseLabel reads a classifier's label name as an NLI label: entailment,
// neutral or contradiction, in any case.
func ParseLabel(name string) (nli.Label, error) {
	return nli.ParseLabel(strings.ToLower(strings.TrimSpace(name)))
}

// labelOrder maps the classifier's output indices to labels.
func labelOrder(id2label map[string]string) ([3]nli.Label, error) {
	var order [3]nli.Label
	if len(id2label) != 3 {
		return order, fmt.Errorf("%w: %d labels %v (want entailment, neutral and contradiction)", ErrNotMNLI, len(id2label), id2label)
	}
	seen := map[nli.Label]bool{}
	for i := range 3 {
		name, ok := id2label[fmt.Sprint(i)]
		if !ok {
			return order, fmt.Errorf("%w: no label for output %d in %v", ErrNotMNLI, i, id2label)
		}
		l, err := ParseLabel(name)
		if err != nil || seen[l] {
			return order, fmt.Errorf("%w: labels %v (want entailment, neutral and contradiction, in any order and case)", ErrNotMNLI, id2label)
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
	data, err := safefile.ReadFile(tokConfig, "tokenizer config", maxConfigBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist): // optional
	case err != nil:
		return 0, err
	default:
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

// MaxLength returns the number of tokens of one sequence.
func (e *Encoder) MaxLength() int { return e.maxLen }

// Labels returns the label of each output of a 3-way NLI classifier, in
// order (see Head for the others).
func (e *Encoder) Labels() [3]nli.Label { return e.labels }

// Head returns what the classifier's outputs mean.
func (e *Encoder) Head() Head { return e.head }

// Tokenizer returns the model's tokenizer.
func (e *Encoder) Tokenizer() *hftokenizer.Tokenizer { return e.tok }

// ZeroTypes reports that the model takes zeros as token_type_ids whatever
// the tokenizer says (its type_vocab_size is 1).
func (e *Encoder) ZeroTypes() bool { return e.zeroTypes }

// PadID returns the padding token's id.
func (e *Encoder) PadID() int { return e.padID }
