package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/factreasoner/factreasoner-go/hub"
	"github.com/factreasoner/factreasoner-go/internal/cachedir"
)

// DefaultONNXModel is the onnx NLI backend's model when none is named:
// roberta-large-mnli, the classic MNLI cross-encoder, in the ONNX export
// that Transformers.js publishes (the original repository has none).
const DefaultONNXModel = "Xenova/roberta-large-mnli"

// ModelStore is where `fr models pull` keeps models: models/ in the cache
// directory.
func ModelStore() (hub.Store, error) {
	d, err := cachedir.Dir()
	if err != nil {
		return hub.Store{}, err
	}
	return hub.Store{Dir: filepath.Join(d, "models")}, nil
}

// Model is an NLI model found on disk.
type Model struct {
	Dir   string // the model directory
	Name  string // the name output records carry: the directory as given, or REPO[/GRAPH]@COMMIT
	Graph string // the ONNX graph within Dir, when the store's manifest names it
}

// ResolveModel finds the model a name refers to: an existing directory, or
// a hub repository id pulled into the model store. Empty means
// DefaultONNXModel. Nothing is downloaded.
func ResolveModel(ref string) (Model, error) {
	if ref == "" {
		ref = DefaultONNXModel
	}
	if st, err := os.Stat(ref); err == nil && st.IsDir() {
		return Model{Dir: ref, Name: ref}, nil
	}
	store, err := ModelStore()
	if err != nil {
		return Model{}, err
	}
	if !hub.ValidRepoID(ref) {
		return Model{}, fmt.Errorf("--nli-model %s: no such directory, and not a hub repository id", ref)
	}
	m, err := store.Manifest(ref)
	if errors.Is(err, fs.ErrNotExist) {
		return Model{}, fmt.Errorf("--nli-model %s: no such directory, and the model is not in %s: fetch it with `fr models pull %s` "+
			"(or give the directory of a copy made by hand)", ref, store.Dir, ref)
	}
	if err != nil {
		return Model{}, fmt.Errorf("--nli-model %s: %w", ref, err)
	}
	name := ref
	if m.ONNX != "model.onnx" && m.ONNX != "onnx/model.onnx" {
		name += "/" + m.ONNX
	}
	if len(m.Commit) >= 12 {
		name += "@" + m.Commit[:12]
	}
	return Model{Dir: store.Path(ref), Name: name, Graph: m.ONNX}, nil
}

// onnxAvailable reports whether the auto NLI backend can use the onnx
// backend: a model was named, or the default model was pulled.
func onnxAvailable(model string) bool {
	if model != "" {
		return true
	}
	store, err := ModelStore()
	if err != nil {
		return false
	}
	_, err = store.Manifest(DefaultONNXModel)
	return err == nil
}
