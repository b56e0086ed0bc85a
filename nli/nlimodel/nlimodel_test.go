package nlimodel

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/hub"
)

const hfCommit = "0123456789abcdef0123456789abcdef01234567"

// writeHFModel lays out repo at hfCommit, ref main, in a Hugging Face
// cache as huggingface_hub does (snapshot files are relative links into
// blobs/), with the files named, as plain text: the model is not run.
func writeHFModel(t *testing.T, cacheDir, repo string, files ...string) string {
	t.Helper()
	repoDir := hub.HFCache{Dir: cacheDir}.RepoDir(repo)
	snap := filepath.Join(repoDir, "snapshots", hfCommit)
	for i, f := range files {
		blob := filepath.Join(repoDir, "blobs", strings.Repeat("a", 63)+string(rune('0'+i)))
		writeFile(t, blob, "{}")
		link := filepath.Join(snap, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Dir(link), blob)
		if err := os.Symlink(rel, link); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(repoDir, "refs", "main"), hfCommit+"\n")
	return snap
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestResolveModelHFCache: a repository id not in the model store is
// found in the Hugging Face cache, whole or not at all, also offline;
// the store comes first.
func TestResolveModelHFCache(t *testing.T) {
	whole := []string{"onnx/model.onnx", "config.json", "tokenizer.json"}
	tests := []struct {
		name    string
		files   []string // in the Hugging Face cache
		pulled  bool     // also in the model store
		offline bool
		// want: Found starting with wantFound; or an error containing
		// wantErr.
		wantFound, wantErr string
	}{
		{name: "only in the Hugging Face cache", files: whole, wantFound: "the Hugging Face cache "},
		{name: "offline, only in the Hugging Face cache", files: whole, offline: true, wantFound: "the Hugging Face cache "},
		{name: "in both: the store first", files: whole, pulled: true, wantFound: "the model store "},
		{name: "partial in the Hugging Face cache", files: whole[:2], wantErr: "lacks tokenizer.json"},
		{name: "nowhere", wantErr: "fr models pull acme/nli"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, hf := t.TempDir(), t.TempDir()
			t.Setenv("FACTREASONER_CACHE", store)
			t.Setenv(hub.EnvHubCache, hf)
			t.Setenv(hub.EnvOffline, "")
			if tt.offline {
				t.Setenv(hub.EnvOffline, "1")
			}
			var snap string
			if tt.files != nil {
				snap = writeHFModel(t, hf, "acme/nli", tt.files...)
			}
			if tt.pulled {
				writeFile(t, filepath.Join(store, "models", "acme", "nli", hub.ManifestName),
					`{"repo":"acme/nli","revision":"main","commit":"fedcba9876543210fedcba9876543210fedcba98","onnx":"model.onnx","files":[]}`)
			}
			m, err := Resolve("acme/nli")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %+v, %v; want an error with %q", m, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(m.Found, tt.wantFound) {
				t.Errorf("found in %q, want %q", m.Found, tt.wantFound)
			}
			if tt.pulled {
				if m.Name != "acme/nli@fedcba987654" || m.Dir != filepath.Join(store, "models", "acme", "nli") {
					t.Errorf("store model: %+v", m)
				}
				return
			}
			if m.Dir != snap || m.Graph != "onnx/model.onnx" || m.Name != "acme/nli@0123456789ab" {
				t.Errorf("got %+v, want dir %s, graph onnx/model.onnx, name acme/nli@0123456789ab", m, snap)
			}
		})
	}
}

// TestAvailableHFCache: --nli auto takes the default model from the
// Hugging Face cache when it is whole there.
func TestAvailableHFCache(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	hf := t.TempDir()
	t.Setenv(hub.EnvHubCache, hf)
	if Available("") {
		t.Fatal("available with no model anywhere")
	}
	writeHFModel(t, hf, Default, "model.onnx", "config.json")
	if Available("") {
		t.Fatal("available with a partial model in the Hugging Face cache")
	}
	writeHFModel(t, hf, Default, "tokenizer.json")
	if !Available("") {
		t.Fatal("not available with the model whole in the Hugging Face cache")
	}
}

// TestMain keeps the tests off the user's own Hugging Face cache, where a
// model downloaded with Hugging Face's tools would change what --nli auto
// does; tests that want one set HF_HUB_CACHE themselves.
func TestMain(m *testing.M) {
	os.Setenv(hub.EnvHubCache, filepath.Join(os.TempDir(), "fr-test-no-hf-cache", "absent"))
	os.Exit(m.Run())
}

// TestPullOffline: offline (HF_HUB_OFFLINE), Pull finds a model whole in
// the Hugging Face cache, copies nothing into the store, and names it by
// its repository id where Resolve takes that to the same snapshot (main,
// the default graph), else by the snapshot's directory; a model in neither
// place is an error that names both.
func TestPullOffline(t *testing.T) {
	whole := []string{"onnx/model.onnx", "config.json", "tokenizer.json"}
	for _, tt := range []struct {
		name     string
		files    []string
		opts     hub.PullOptions
		wantName string // "" for the snapshot's directory
		wantErr  []string
	}{
		{name: "main", files: whole, wantName: "acme/nli"},
		{name: "a commit", files: whole, opts: hub.PullOptions{Revision: hfCommit}},
		{name: "another graph", files: append(whole, "onnx/model_quantized.onnx"), opts: hub.PullOptions{ONNX: "onnx/model_quantized.onnx"}},
		{name: "nowhere", wantErr: []string{hub.ErrOffline.Error(), "acme/nli"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hf, store := t.TempDir(), hub.Store{Dir: t.TempDir()}
			t.Setenv(hub.EnvHubCache, hf)
			var snap string
			if tt.files != nil {
				snap = writeHFModel(t, hf, "acme/nli", tt.files...)
			}
			m, err := Pull(context.Background(), store, &hub.Client{Offline: true}, "acme/nli", tt.opts)
			if tt.wantErr != nil {
				for _, w := range tt.wantErr {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("got %+v, %v; want an error with %q", m, err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Pulled{Repo: "acme/nli", Commit: hfCommit, ONNX: "onnx/model.onnx", Dir: snap, Cached: true, Name: tt.wantName}
			if tt.opts.ONNX != "" {
				want.ONNX = tt.opts.ONNX
			}
			if want.Name == "" {
				want.Name = snap
			}
			if m != want {
				t.Errorf("got %+v\nwant %+v", m, want)
			}
			if entries, _ := os.ReadDir(store.Dir); len(entries) > 0 {
				t.Errorf("the store holds %d entries: an offline pull copies nothing", len(entries))
			}
		})
	}
}
