package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// Models downloaded with Hugging Face's own tools (huggingface_hub,
// `hf download`, transformers) sit in their cache. HFCache reads a model
// from there, read-only, so that a user who has one need not download it
// again, and so that HF_HUB_OFFLINE still finds it.

// The environment variables that name huggingface_hub's cache directory.
const (
	EnvHubCache = "HF_HUB_CACHE" // the hub cache, instead of $HF_HOME/hub

	// envHubCacheLegacy is the older name of HF_HUB_CACHE, read after it.
	envHubCacheLegacy = "HUGGINGFACE_HUB_CACHE"
)

// ErrNotInHFCache is the error of a model that the Hugging Face cache does
// not hold whole at the revision asked for.
var ErrNotInHFCache = errors.New("not in the Hugging Face cache")

// maxRefFile bounds a ref file's size: it holds one commit id.
const maxRefFile = 1 << 10

// HFCacheDir is huggingface_hub's cache directory: $HF_HUB_CACHE (or the
// older $HUGGINGFACE_HUB_CACHE), else Home()/hub. "" when none can be
// found.
func HFCacheDir() string {
	for _, name := range []string{EnvHubCache, envHubCacheLegacy} {
		if d := os.Getenv(name); d != "" {
			return expandHome(d)
		}
	}
	if h := Home(); h != "" {
		return filepath.Join(h, "hub")
	}
	return ""
}

// HFCache is huggingface_hub's cache directory, laid out as huggingface_hub
// lays it out: models--OWNER--NAME/refs/REVISION holds a commit id, and
// models--OWNER--NAME/snapshots/COMMIT/ holds the repository's files as
// symbolic links into models--OWNER--NAME/blobs/ (or as files, where the
// system has no symbolic links). It is only read, never written.
type HFCache struct {
	Dir string
}

// CachedModel is an NLI model found in the Hugging Face cache.
type CachedModel struct {
	Repo     string
	Revision string   // as asked for
	Commit   string   // the snapshot's commit
	Dir      string   // the snapshot directory
	ONNX     string   // the model graph, relative to Dir
	Files    []string // the files the model uses, relative to Dir
}

// RepoDir returns the directory huggingface_hub keeps a model repository
// in.
func (c HFCache) RepoDir(repo string) string {
	return filepath.Join(c.Dir, "models--"+strings.ReplaceAll(repo, "/", "--"))
}

// Find returns the model of a repository at a revision (a branch or tag
// with a ref in the cache, or a commit id; default main) with the files
// Store.Pull would take: the graph (opts.ONNX, else model.onnx, else
// onnx/model.onnx) with the external weights beside it, config.json,
// tokenizer.json, and tokenizer_config.json and special_tokens_map.json
// when present. Every file must resolve to a regular file inside the
// repository's directory in the cache; a symbolic link that leads
// elsewhere is refused. A model the cache does not hold whole is an error
// wrapping ErrNotInHFCache that says what is missing: a partial model is
// never returned.
func (c HFCache) Find(repo string, opts PullOptions) (*CachedModel, error) {
	opts, err := opts.checked(repo)
	if err != nil {
		return nil, err
	}
	if c.Dir == "" {
		return nil, fmt.Errorf("%s: %w (no cache directory: set %s or %s)", repo, ErrNotInHFCache, EnvHubCache, EnvHome)
	}
	repoDir := c.RepoDir(repo)
	if _, err := os.Stat(repoDir); err != nil {
		return nil, fmt.Errorf("%s: %w %s", repo, ErrNotInHFCache, c.Dir)
	}
	where := fmt.Sprintf("%s at %s in the Hugging Face cache %s", repo, opts.Revision, repoDir)
	commit, err := c.commit(repoDir, opts.Revision)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	snap := filepath.Join(repoDir, "snapshots", commit)
	if st, err := os.Stat(snap); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: %w: no snapshot %s", where, ErrNotInHFCache, commit)
	}
	// Symbolic links are judged by where they lead, in the real
	// directory (the cache itself may sit behind a link).
	realRepo, err := filepath.EvalSymlinks(repoDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	m := &CachedModel{Repo: repo, Revision: opts.Revision, Commit: commit, Dir: snap}
	var missing []string
	// have reports whether a file is in the snapshot, and errors for one
	// that leads outside the repository's directory.
	have := func(rel string) (bool, error) {
		p, err := inside(snap, rel)
		if err != nil {
			return false, err
		}
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil // a link to a blob not (yet) downloaded
		}
		if err != nil {
			return false, err
		}
		if r, err := filepath.Rel(realRepo, real); err != nil || !filepath.IsLocal(r) {
			return false, fmt.Errorf("%s leads to %s, outside %s: refused", rel, real, repoDir)
		}
		st, err := os.Stat(real)
		if err != nil {
			return false, err
		}
		if !st.Mode().IsRegular() {
			return false, fmt.Errorf("%s is not a regular file", rel)
		}
		return true, nil
	}
	take := func(rel string, required bool) error {
		ok, err := have(rel)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", where, err)
		case ok:
			m.Files = append(m.Files, rel)
		case required:
			missing = append(missing, rel)
		}
		return nil
	}
	for _, rel := range requiredFiles {
		if err := take(rel, true); err != nil {
			return nil, err
		}
	}
	for _, rel := range optionalFiles {
		if err := take(rel, false); err != nil {
			return nil, err
		}
	}
	graphs := defaultGraphs
	if opts.ONNX != "" {
		graphs = []string{opts.ONNX}
	}
	for _, g := range graphs {
		ok, err := have(g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if ok {
			m.ONNX = g
			m.Files = append(m.Files, g)
			break
		}
	}
	if m.ONNX == "" {
		missing = append(missing, strings.Join(graphs, " or "))
	} else {
		// Weights over 2 GB live beside the graph, as in selectFiles.
		dir, base := path.Split(m.ONNX)
		entries, err := os.ReadDir(filepath.Join(snap, filepath.FromSlash(dir)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		for _, e := range entries {
			b := e.Name()
			if b != base && (strings.HasPrefix(b, base+"_data") || strings.HasPrefix(b, base+".data")) {
				if err := take(dir+b, true); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: %w: snapshot %s lacks %s (an unfinished download? fetch the model again, or use fr models pull)",
			where, ErrNotInHFCache, commit, strings.Join(missing, ", "))
	}
	slices.Sort(m.Files)
	return m, nil
}

// commit resolves a revision: a commit id is taken as it is; a branch or
// tag is read from refs/, and must hold a commit id.
func (c HFCache) commit(repoDir, rev string) (string, error) {
	if validCommit(rev) {
		return strings.ToLower(rev), nil
	}
	ref, err := inside(filepath.Join(repoDir, "refs"), rev)
	if err != nil {
		return "", fmt.Errorf("revision: %w", err)
	}
	data, err := safefile.ReadFile(ref, "ref", maxRefFile)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: no ref %s", ErrNotInHFCache, rev)
	}
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(string(data))
	if !validCommit(commit) {
		return "", fmt.Errorf("ref %s holds %q, not a commit id (40 hexadecimal digits): refused", ref, clip(commit))
	}
	return strings.ToLower(commit), nil
}
