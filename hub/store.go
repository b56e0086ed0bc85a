package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/jsonpath"
	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// ManifestName is the file, in a stored model's directory, that records
// what was pulled. Its presence marks a complete pull.
const ManifestName = ".fr-model.json"

// Manifest records a pulled model.
type Manifest struct {
	Repo     string         `json:"repo"`
	Revision string         `json:"revision"` // as asked for
	Commit   string         `json:"commit"`   // what it resolved to
	Endpoint string         `json:"endpoint"`
	ONNX     string         `json:"onnx"` // the model graph, relative to the directory
	Files    []ManifestFile `json:"files"`
}

// ManifestFile is one stored file.
type ManifestFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Size is the total size of the files.
func (m *Manifest) Size() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// Store keeps pulled models in a directory: <Dir>/<owner>/<name>/, the
// files at their paths in the repository.
type Store struct {
	Dir string
}

// Path returns the directory of a repository's model.
func (s Store) Path(repo string) string {
	return filepath.Join(s.Dir, filepath.FromSlash(repo))
}

// Manifest returns the manifest of a pulled model; fs.ErrNotExist when the
// model was not pulled, or its pull did not finish.
func (s Store) Manifest(repo string) (*Manifest, error) {
	if !ValidRepoID(repo) {
		return nil, fmt.Errorf("%q is not a model repository id (owner/name)", repo)
	}
	return readManifest(filepath.Join(s.Path(repo), ManifestName))
}

// maxManifest bounds a manifest's size.
const maxManifest = 16 << 20

// readManifest reads a manifest and checks that its paths stay inside its
// directory.
func readManifest(p string) (*Manifest, error) {
	data, err := safefile.ReadFile(p, "manifest", maxManifest)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", p, jsonpath.Error(data, err))
	}
	if err := ValidPath(m.ONNX); err != nil {
		return nil, fmt.Errorf("%s: onnx: %w", p, err)
	}
	for _, f := range m.Files {
		if err := ValidPath(f.Path); err != nil {
			return nil, fmt.Errorf("%s: files: %w", p, err)
		}
	}
	return &m, nil
}

// List returns the manifests of the pulled models, sorted by repository.
func (s Store) List() ([]*Manifest, error) {
	var out []*Manifest
	err := filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == s.Dir {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || d.Name() != ManifestName {
			return nil
		}
		m, err := readManifest(p)
		if err != nil {
			return err
		}
		out = append(out, m)
		return nil
	})
	slices.SortFunc(out, func(a, b *Manifest) int { return strings.Compare(a.Repo, b.Repo) })
	return out, err
}

// PullOptions say what to pull.
type PullOptions struct {
	// Revision is a branch, tag or commit (default "main").
	Revision string
	// ONNX is the graph to fetch; empty takes model.onnx, else
	// onnx/model.onnx.
	ONNX string
}

// checked returns the options with the default revision filled in, or an
// error when repo or the graph's path is not one the hub could name.
func (o PullOptions) checked(repo string) (PullOptions, error) {
	if o.Revision == "" {
		o.Revision = "main"
	}
	if !ValidRepoID(repo) {
		return o, fmt.Errorf("%q is not a model repository id (owner/name)", repo)
	}
	if o.ONNX != "" {
		if err := ValidPath(o.ONNX); err != nil {
			return o, fmt.Errorf("onnx file: %w", err)
		}
	}
	return o, nil
}

// defaultGraphs are the graphs Pull takes when PullOptions.ONNX is empty,
// in order.
var defaultGraphs = []string{"model.onnx", "onnx/model.onnx"}

// requiredFiles and optionalFiles are what an NLI model needs beside its
// graph.
var (
	requiredFiles = []string{"config.json", "tokenizer.json"}
	optionalFiles = []string{"tokenizer_config.json", "special_tokens_map.json"}
)

// Pull downloads an ONNX model (its graph, external weights if any, config
// and tokenizer) into the store and writes its manifest last. Files are
// written only inside the model's directory. An offline client (Offline)
// makes no request: it returns the model already pulled at that revision,
// or an error wrapping ErrOffline.
func (s Store) Pull(ctx context.Context, c *Client, repo string, opts PullOptions) (*Manifest, error) {
	opts, err := opts.checked(repo)
	if err != nil {
		return nil, err
	}
	if c.Offline {
		return s.pulled(repo, opts)
	}
	info, err := c.Info(ctx, repo, opts.Revision)
	if err != nil {
		return nil, err
	}
	commit := info.SHA
	if commit == "" {
		commit = opts.Revision
	}
	files, onnxFile, err := selectFiles(info, opts.ONNX)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", repo, opts.Revision, err)
	}
	dir := s.Path(repo)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// An old manifest would vouch for files about to be replaced.
	if err := os.Remove(filepath.Join(dir, ManifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	m := &Manifest{Repo: repo, Revision: opts.Revision, Commit: commit, Endpoint: c.shown(), ONNX: onnxFile}
	for _, f := range files {
		dest, err := inside(dir, f.Path)
		if err != nil {
			return nil, err
		}
		sum, err := c.Download(ctx, repo, commit, f, dest)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(dest)
		if err != nil {
			return nil, err
		}
		m.Files = append(m.Files, ManifestFile{Path: f.Path, Size: st.Size(), SHA256: sum})
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	tmp := filepath.Join(dir, ManifestName+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return nil, err
	}
	return m, os.Rename(tmp, filepath.Join(dir, ManifestName))
}

// pulled answers an offline Pull: the model already in the store at the
// revision asked for (by name or commit), complete, with the graph asked
// for.
func (s Store) pulled(repo string, opts PullOptions) (*Manifest, error) {
	m, err := s.Manifest(repo)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	graphOK := m != nil && (opts.ONNX == m.ONNX || opts.ONNX == "" && slices.Contains(defaultGraphs, m.ONNX))
	if err == nil && (opts.Revision == m.Revision || opts.Revision == m.Commit) && graphOK && s.complete(repo, m) {
		return m, nil
	}
	return nil, fmt.Errorf("%s at %s: %w, and the model is not in %s (fr models list shows what is); unset %s to download it",
		repo, opts.Revision, ErrOffline, s.Dir, EnvOffline)
}

// complete reports whether every file of a manifest is there at its size.
func (s Store) complete(repo string, m *Manifest) bool {
	for _, f := range m.Files {
		p, err := inside(s.Path(repo), f.Path)
		if err != nil {
			return false
		}
		if st, err := os.Stat(p); err != nil || st.Size() != f.Size {
			return false
		}
	}
	return true
}

// selectFiles picks the files of an NLI model from a repository's list.
func selectFiles(info *Info, onnxFile string) ([]File, string, error) {
	var out []File
	for _, p := range requiredFiles {
		f, ok := info.Find(p)
		if !ok {
			return nil, "", fmt.Errorf("the repository has no %s (an NLI model needs config.json and tokenizer.json at its root)", p)
		}
		out = append(out, f)
	}
	for _, p := range optionalFiles {
		if f, ok := info.Find(p); ok {
			out = append(out, f)
		}
	}
	var onnxFiles []string
	for _, f := range info.Files {
		if strings.HasSuffix(f.Path, ".onnx") {
			onnxFiles = append(onnxFiles, f.Path)
		}
	}
	if onnxFile == "" {
		for _, p := range defaultGraphs {
			if slices.Contains(onnxFiles, p) {
				onnxFile = p
				break
			}
		}
		if onnxFile == "" {
			if len(onnxFiles) == 0 {
				return nil, "", errors.New("the repository has no ONNX export: export one with `optimum-cli export onnx --task text-classification --model REPO DIR` and use that directory as the model")
			}
			return nil, "", fmt.Errorf("the repository has no model.onnx or onnx/model.onnx; choose one of %s (hub.PullOptions.ONNX)", strings.Join(onnxFiles, ", "))
		}
	}
	f, ok := info.Find(onnxFile)
	if !ok {
		return nil, "", fmt.Errorf("the repository has no %s (its ONNX files: %s)", onnxFile, strings.Join(onnxFiles, ", "))
	}
	out = append(out, f)
	// Weights over 2 GB live beside the graph (model.onnx_data, or
	// model.onnx.data, possibly split).
	dir, base := path.Split(onnxFile)
	for _, g := range info.Files {
		d, b := path.Split(g.Path)
		if d == dir && b != base && (strings.HasPrefix(b, base+"_data") || strings.HasPrefix(b, base+".data")) {
			out = append(out, g)
		}
	}
	return out, onnxFile, nil
}
