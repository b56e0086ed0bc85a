package hub

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	hfCommit  = "0123456789abcdef0123456789abcdef01234567"
	hfCommit2 = "89abcdef0123456789abcdef0123456789abcdef"
)

// writeHFSnapshot lays out a snapshot as huggingface_hub does: each file's
// content in blobs/<sha256>, and snapshots/COMMIT/<path> a relative
// symbolic link to it; a ref file for each name in refs.
func writeHFSnapshot(t *testing.T, cacheDir, repo, commit string, files map[string]string, refs ...string) string {
	t.Helper()
	repoDir := HFCache{Dir: cacheDir}.RepoDir(repo)
	for p, content := range files {
		sum := sha256.Sum256([]byte(content))
		blob := filepath.Join(repoDir, "blobs", hex.EncodeToString(sum[:]))
		mustWrite(t, blob, content)
		link := filepath.Join(repoDir, "snapshots", commit, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(filepath.Dir(link), blob)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(rel, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range refs {
		mustWrite(t, filepath.Join(repoDir, "refs", r), commit)
	}
	return repoDir
}

func mustWrite(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// nliFiles is a whole NLI model as plain files (the model is not run
// here).
func nliFiles() map[string]string {
	return map[string]string{
		"onnx/model.onnx":       "graph",
		"config.json":           `{"id2label":{}}`,
		"tokenizer.json":        `{"model":{}}`,
		"tokenizer_config.json": `{}`,
		"README.md":             "not needed",
	}
}

// TestHFCacheFind: the Hugging Face cache is found where huggingface_hub
// puts it, read at the revision asked for, and refused when it is not
// whole or leads outside itself.
func TestHFCacheFind(t *testing.T) {
	const repo = "acme/nli"
	tests := []struct {
		name  string
		setup func(t *testing.T) // sets the environment and writes the cache
		opts  PullOptions
		// want: the commit and files found; or wantErr, a part of the
		// error, and notIn, whether it wraps ErrNotInHFCache.
		commit  string
		files   []string
		onnx    string
		wantErr string
		notIn   bool
	}{
		{
			name: "HF_HOME",
			setup: func(t *testing.T) {
				home := t.TempDir()
				t.Setenv(EnvHome, home)
				writeHFSnapshot(t, filepath.Join(home, "hub"), repo, hfCommit, nliFiles(), "main")
			},
			commit: hfCommit, onnx: "onnx/model.onnx",
			files: []string{"config.json", "onnx/model.onnx", "tokenizer.json", "tokenizer_config.json"},
		},
		{
			name: "XDG_CACHE_HOME",
			setup: func(t *testing.T) {
				xdg := t.TempDir()
				t.Setenv("XDG_CACHE_HOME", xdg)
				writeHFSnapshot(t, filepath.Join(xdg, "huggingface", "hub"), repo, hfCommit, nliFiles(), "main")
			},
			commit: hfCommit, onnx: "onnx/model.onnx",
			files: []string{"config.json", "onnx/model.onnx", "tokenizer.json", "tokenizer_config.json"},
		},
		{
			name: "HF_HUB_CACHE overrides HF_HOME",
			setup: func(t *testing.T) {
				home, hubCache := t.TempDir(), t.TempDir()
				t.Setenv(EnvHome, home)
				t.Setenv(EnvHubCache, hubCache)
				files := nliFiles()
				files["config.json"] = `{"other":1}`
				writeHFSnapshot(t, filepath.Join(home, "hub"), repo, hfCommit, nliFiles(), "main")
				writeHFSnapshot(t, hubCache, repo, hfCommit2, files, "main")
			},
			commit: hfCommit2, onnx: "onnx/model.onnx",
			files: []string{"config.json", "onnx/model.onnx", "tokenizer.json", "tokenizer_config.json"},
		},
		{
			name: "revision a commit id, with graph and external weights",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				writeHFSnapshot(t, c, repo, hfCommit, nliFiles(), "main")
				files := nliFiles()
				files["onnx/model_quantized.onnx"] = "q"
				files["onnx/model_quantized.onnx_data"] = "weights"
				writeHFSnapshot(t, c, repo, hfCommit2, files) // no ref names it
			},
			opts:   PullOptions{Revision: strings.ToUpper(hfCommit2), ONNX: "onnx/model_quantized.onnx"},
			commit: hfCommit2, onnx: "onnx/model_quantized.onnx",
			files: []string{"config.json", "onnx/model_quantized.onnx", "onnx/model_quantized.onnx_data", "tokenizer.json", "tokenizer_config.json"},
		},
		{
			name: "a tag",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				writeHFSnapshot(t, c, repo, hfCommit, nliFiles(), "main")
				writeHFSnapshot(t, c, repo, hfCommit2, nliFiles(), "v2")
			},
			opts:   PullOptions{Revision: "v2"},
			commit: hfCommit2, onnx: "onnx/model.onnx",
			files: []string{"config.json", "onnx/model.onnx", "tokenizer.json", "tokenizer_config.json"},
		},
		{
			name: "not in the cache",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				writeHFSnapshot(t, c, "acme/other", hfCommit, nliFiles(), "main")
			},
			wantErr: "acme/nli: not in the Hugging Face cache", notIn: true,
		},
		{
			name: "no ref for the revision",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				writeHFSnapshot(t, c, repo, hfCommit, nliFiles(), "main")
			},
			opts:    PullOptions{Revision: "v9"},
			wantErr: "no ref v9", notIn: true,
		},
		{
			name: "a ref that is not a commit id",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				dir := writeHFSnapshot(t, c, repo, hfCommit, nliFiles())
				mustWrite(t, filepath.Join(dir, "refs", "main"), "../../../etc")
			},
			wantErr: `holds "../../../etc", not a commit id`,
		},
		{
			name: "a revision that is not a plain path",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				writeHFSnapshot(t, c, repo, hfCommit, nliFiles(), "main")
			},
			opts:    PullOptions{Revision: "../../x"},
			wantErr: "not a plain relative path",
		},
		{
			name: "snapshot without tokenizer.json",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				files := nliFiles()
				delete(files, "tokenizer.json")
				writeHFSnapshot(t, c, repo, hfCommit, files, "main")
			},
			wantErr: "lacks tokenizer.json", notIn: true,
		},
		{
			name: "a link to a blob not downloaded, and no graph",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				files := nliFiles()
				delete(files, "onnx/model.onnx")
				dir := writeHFSnapshot(t, c, repo, hfCommit, files, "main")
				if err := os.Symlink("../../blobs/deadbeef", filepath.Join(dir, "snapshots", hfCommit, "model.onnx")); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "lacks model.onnx or onnx/model.onnx", notIn: true,
		},
		{
			name: "external weights not downloaded",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				dir := writeHFSnapshot(t, c, repo, hfCommit, nliFiles(), "main")
				if err := os.Symlink("../../../blobs/0123", filepath.Join(dir, "snapshots", hfCommit, "onnx", "model.onnx_data")); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "lacks onnx/model.onnx_data", notIn: true,
		},
		{
			name: "a symbolic link that leaves the cache",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				files := nliFiles()
				delete(files, "config.json")
				dir := writeHFSnapshot(t, c, repo, hfCommit, files, "main")
				secret := filepath.Join(t.TempDir(), "secret")
				mustWrite(t, secret, "{}")
				if err := os.Symlink(secret, filepath.Join(dir, "snapshots", hfCommit, "config.json")); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "config.json leads to",
		},
		{
			name: "a symbolic link into another repository",
			setup: func(t *testing.T) {
				c := t.TempDir()
				t.Setenv(EnvHubCache, c)
				other := writeHFSnapshot(t, c, "acme/other", hfCommit, nliFiles(), "main")
				files := nliFiles()
				delete(files, "tokenizer.json")
				dir := writeHFSnapshot(t, c, repo, hfCommit, files, "main")
				if err := os.Symlink(filepath.Join(other, "snapshots", hfCommit, "tokenizer.json"), filepath.Join(dir, "snapshots", hfCommit, "tokenizer.json")); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "outside",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []string{EnvHome, EnvHubCache, envHubCacheLegacy, "XDG_CACHE_HOME"} {
				t.Setenv(v, "")
			}
			tt.setup(t)
			c := HFCache{Dir: HFCacheDir()}
			m, err := c.Find(repo, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.Is(err, ErrNotInHFCache) != tt.notIn {
					t.Fatalf("err %v, want one with %q (not in the cache: %v); model %+v", err, tt.wantErr, tt.notIn, m)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Commit != tt.commit || m.ONNX != tt.onnx || !slices.Equal(m.Files, tt.files) {
				t.Errorf("commit %s, graph %s, files %q; want %s, %s, %q", m.Commit, m.ONNX, m.Files, tt.commit, tt.onnx, tt.files)
			}
			if want := filepath.Join(c.RepoDir(repo), "snapshots", tt.commit); m.Dir != want {
				t.Errorf("dir %s, want %s", m.Dir, want)
			}
			for _, f := range m.Files {
				if _, err := os.ReadFile(filepath.Join(m.Dir, filepath.FromSlash(f))); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestHFCacheReadOnly: Find writes nothing into the cache.
func TestHFCacheReadOnly(t *testing.T) {
	c := t.TempDir()
	writeHFSnapshot(t, c, "acme/nli", hfCommit, nliFiles(), "main")
	if err := os.Chmod(c, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(c, 0o755) })
	before := tree(t, c)
	if _, err := (HFCache{Dir: c}).Find("acme/nli", PullOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := (HFCache{Dir: c}).Find("acme/absent", PullOptions{}); !errors.Is(err, ErrNotInHFCache) {
		t.Fatal(err)
	}
	if after := tree(t, c); !slices.Equal(before, after) {
		t.Errorf("cache changed: %q -> %q", before, after)
	}
}

func tree(t *testing.T, dir string) []string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, p+" "+info.ModTime().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
