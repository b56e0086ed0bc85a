// Package nlimodel finds the NLI models (ONNX cross-encoders) that the
// onnx and remote backends read: the default model, the model store that
// fr models pull fills (models/ in the cache directory), and where a
// model's name leads: a directory, the store, or the Hugging Face cache
// (Resolve, which downloads nothing). Pull is the one download, with an
// offline fallback to the Hugging Face cache.
package nlimodel

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/factreasoner/factreasoner-go/hub"
	"github.com/factreasoner/factreasoner-go/internal/cachedir"
)

// Default is the onnx NLI backend's model when none is named:
// roberta-large-mnli, the classic MNLI cross-encoder, in the ONNX export
// that Transformers.js publishes (the original repository has none).
const Default = "Xenova/roberta-large-mnli"

// Store is where `fr models pull` keeps models: models/ in the cache
// directory.
func Store() (hub.Store, error) {
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

// Resolve finds the model a name refers to: an existing directory, or a
// hub repository id pulled into the model store, else downloaded at main
// with Hugging Face's own tools into their cache (hub.HFCacheDir), which is
// only read. Empty means Default. Nothing is downloaded.
func Resolve(ref string) (Model, error) {
	if ref == "" {
		ref = Default
	}
	if st, err := os.Stat(ref); err == nil && st.IsDir() {
		return Model{Dir: ref, Name: ref}, nil
	}
	store, err := Store()
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

// Available reports whether the model of a name (Resolve) can be looked
// for: a model was named, or the default model was pulled (or is whole in
// the Hugging Face cache). The auto NLI backend uses the onnx backend when
// it is.
func Available(model string) bool {
	if model != "" {
		return true
	}
	store, err := Store()
	if err != nil {
		return false
	}
	if _, err = store.Manifest(Default); err == nil {
		return true
	}
	_, err = hub.HFCache{Dir: hub.HFCacheDir()}.Find(Default, hub.PullOptions{})
	return err == nil
}

// Pulled is a model that Pull made available.
type Pulled struct {
	Repo, Commit, ONNX string
	// Dir is where the model is: its directory in the model store, or,
	// found offline in the Hugging Face cache (Cached), its snapshot
	// there, used where it is: nothing was downloaded or copied.
	Dir    string
	Cached bool
	// Size is the bytes of the model's files in the store (0 when
	// Cached).
	Size int64
	// Name names the model to Resolve: the repository id, or the
	// snapshot's directory for a model found offline at another revision
	// or graph than Resolve takes (main, the default graph).
	Name string
}

// Pull downloads a model from the hub into the store (hub.Store.Pull:
// resumable, checked against the hub's hashes). Offline (hub.ErrOffline:
// HF_HUB_OFFLINE), it finds the model in the Hugging Face cache instead,
// the other place a model can come from, and copies nothing; one in
// neither place is an error that names both.
func Pull(ctx context.Context, store hub.Store, c *hub.Client, repo string, o hub.PullOptions) (Pulled, error) {
	m, err := store.Pull(ctx, c, repo, o)
	if errors.Is(err, hub.ErrOffline) {
		cm, cerr := hub.HFCache{Dir: hub.HFCacheDir()}.Find(repo, o)
		if cerr != nil {
			return Pulled{}, fmt.Errorf("%w; %w", err, cerr)
		}
		name := cm.Dir
		if (o.Revision == "" || o.Revision == "main") && o.ONNX == "" {
			name = repo
		}
		return Pulled{Repo: repo, Commit: cm.Commit, ONNX: cm.ONNX, Dir: cm.Dir, Cached: true, Name: name}, nil
	}
	if err != nil {
		return Pulled{}, err
	}
	return Pulled{Repo: m.Repo, Commit: m.Commit, ONNX: m.ONNX, Dir: store.Path(m.Repo), Size: m.Size(), Name: m.Repo}, nil
}
