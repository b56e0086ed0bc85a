package assemble

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
	// Found says where a hub repository id was found (the model store,
	// or the Hugging Face cache), for a line on stderr; empty for a
	// directory given by hand.
	Found string
}

// ResolveModel finds the model a name refers to: an existing directory, or
// a hub repository id pulled into the model store, else downloaded at main
// with Hugging Face's own tools into their cache (hub.HFCacheDir), which is
// only read. Empty means DefaultONNXModel. Nothing is downloaded.
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
		return Model{}, fmt.Errorf("model %s: no such directory, and not a hub repository id", ref)
	}
	m, err := store.Manifest(ref)
	if errors.Is(err, fs.ErrNotExist) {
		return resolveHFCache(ref, store)
	}
	if err != nil {
		return Model{}, fmt.Errorf("model %s: %w", ref, err)
	}
	return Model{Dir: store.Path(ref), Name: modelName(ref, m.ONNX, m.Commit), Graph: m.ONNX,
		Found: "the model store " + store.Path(ref)}, nil
}

// resolveHFCache finds a model not in the store in the Hugging Face cache.
func resolveHFCache(ref string, store hub.Store) (Model, error) {
	hf := hub.HFCache{Dir: hub.HFCacheDir()}
	c, err := hf.Find(ref, hub.PullOptions{})
	if err != nil {
		if errors.Is(err, hub.ErrNotInHFCache) {
			return Model{}, fmt.Errorf("model %s: no such directory, and the model is not in %s (%v): fetch it with `fr models pull %s` "+
				"(or give the directory of a copy made by hand)", ref, store.Dir, err, ref)
		}
		return Model{}, fmt.Errorf("model %s: %w", ref, err)
	}
	return Model{Dir: c.Dir, Name: modelName(ref, c.ONNX, c.Commit), Graph: c.ONNX,
		Found: "the Hugging Face cache " + c.Dir}, nil
}

// modelName is the name output records carry for a hub model:
// REPO[/GRAPH]@COMMIT, the graph named only when it is not a default one.
func modelName(repo, graph, commit string) string {
	name := repo
	if graph != "model.onnx" && graph != "onnx/model.onnx" {
		name += "/" + graph
	}
	if len(commit) >= 12 {
		name += "@" + commit[:12]
	}
	return name
}

// onnxAvailable reports whether the auto NLI backend can use the onnx
// backend: a model was named, or the default model was pulled (or is
// whole in the Hugging Face cache).
func onnxAvailable(model string) bool {
	if model != "" {
		return true
	}
	store, err := ModelStore()
	if err != nil {
		return false
	}
	if _, err = store.Manifest(DefaultONNXModel); err == nil {
		return true
	}
	_, err = hub.HFCache{Dir: hub.HFCacheDir()}.Find(DefaultONNXModel, hub.PullOptions{})
	return err == nil
}
