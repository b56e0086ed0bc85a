package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/hub"
	"github.com/factreasoner/factreasoner-go/internal/cachedir"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
)

// defaultNLIModel is the model of --nli onnx when --nli-model is not given:
// roberta-large-mnli, the classic MNLI cross-encoder, in the ONNX export
// that Transformers.js publishes (the original repository has none).
const defaultNLIModel = "Xenova/roberta-large-mnli"

// onnxFlags configure the onnx NLI backend.
func onnxFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "nli-model", DefaultText: defaultNLIModel,
			Usage: "model of --nli onnx: a directory (model.onnx or onnx/model.onnx, tokenizer.json, config.json) or a hub repository id pulled with fr models pull"},
		&cli.StringFlag{Name: "onnxruntime-lib", EnvVars: []string{onnxnli.LibraryEnvVar}, DefaultText: "installed by scripts/install-onnxruntime",
			Usage: "ONNX Runtime shared library (libonnxruntime.so)"},
		&cli.IntFlag{Name: "nli-batch-size", Value: onnxnli.DefaultBatchSize, Usage: "most sequences per ONNX Runtime call"},
		&cli.IntFlag{Name: "nli-batch-tokens", Value: onnxnli.DefaultBatchTokens, Usage: "most tokens per ONNX Runtime call, padding included (longer sequences run alone)"},
		&cli.IntFlag{Name: "nli-threads", Usage: "ONNX Runtime threads (0: one per core)"},
		&cli.IntFlag{Name: "nli-max-length", Usage: "tokens per model input (0: the model's window); longer premises are split into chunks"},
	}
}

// modelStore is where fr models pull keeps models.
func modelStore() (hub.Store, error) {
	d, err := cachedir.Dir()
	if err != nil {
		return hub.Store{}, err
	}
	return hub.Store{Dir: filepath.Join(d, "models")}, nil
}

// nliModel is a resolved --nli-model.
type nliModel struct {
	dir, name, graph string
}

// resolveNLIModel finds the model a --nli-model value names: an existing
// directory, or a repository id pulled into the store.
func resolveNLIModel(ref string) (nliModel, error) {
	if ref == "" {
		ref = defaultNLIModel
	}
	if st, err := os.Stat(ref); err == nil && st.IsDir() {
		return nliModel{dir: ref, name: ref}, nil
	}
	store, err := modelStore()
	if err != nil {
		return nliModel{}, err
	}
	if !hub.ValidRepoID(ref) {
		return nliModel{}, fmt.Errorf("--nli-model %s: no such directory, and not a hub repository id", ref)
	}
	m, err := store.Manifest(ref)
	if errors.Is(err, fs.ErrNotExist) {
		return nliModel{}, fmt.Errorf("--nli-model %s: no such directory, and the model is not in %s: fetch it with `fr models pull %s` "+
			"(or give the directory of a copy made by hand)", ref, store.Dir, ref)
	}
	if err != nil {
		return nliModel{}, fmt.Errorf("--nli-model %s: %w", ref, err)
	}
	name := ref
	if m.ONNX != "model.onnx" && m.ONNX != "onnx/model.onnx" {
		name += "/" + m.ONNX
	}
	if len(m.Commit) >= 12 {
		name += "@" + m.Commit[:12]
	}
	return nliModel{dir: store.Path(ref), name: name, graph: m.ONNX}, nil
}

// onnxAvailable reports whether --nli auto can use the onnx backend: a
// model was named, or the default model was pulled.
func onnxAvailable(c *cli.Context) bool {
	if c.IsSet("nli-model") {
		return true
	}
	store, err := modelStore()
	if err != nil {
		return false
	}
	_, err = store.Manifest(defaultNLIModel)
	return err == nil
}

// newONNXClassifier loads the onnx NLI backend the flags describe.
func newONNXClassifier(c *cli.Context) (*onnxnli.Model, error) {
	ref, err := resolveNLIModel(c.String("nli-model"))
	if err != nil {
		return nil, err
	}
	return onnxnli.Load(ref.dir, onnxnli.Options{
		Library:     c.String("onnxruntime-lib"),
		Name:        ref.name,
		Graph:       ref.graph,
		BatchSize:   c.Int("nli-batch-size"),
		BatchTokens: c.Int("nli-batch-tokens"),
		Threads:     c.Int("nli-threads"),
		MaxLength:   c.Int("nli-max-length"),
	})
}

// onnxSummary reports what the onnx backend was asked, on stderr.
func onnxSummary(c *cli.Context, m *onnxnli.Model) {
	s := m.Stats()
	if s.Pairs == 0 {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "fr: onnx nli %s: %d pairs, %d model inputs; %d premises split into chunks (up to %d), %d hypotheses cut to half the %d-token window\n",
		m.Identity().Model, s.Pairs, s.Sequences, s.ChunkedPairs, s.MaxChunksOfPair, s.CutHypotheses, m.MaxLength())
}
