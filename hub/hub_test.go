package hub

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/hub/hubtest"
	"github.com/factreasoner/factreasoner-go/internal/safefile/safefiletest"
	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/retry"
)

const (
	testRepo   = "acme/tiny-nli"
	testCommit = "0123456789abcdef0123456789abcdef01234567"
)

// newFakeHub serves one repository with the files an NLI model has, and
// some it does not need.
func newFakeHub(t *testing.T) (*hubtest.Hub, *hubtest.Repo) {
	h := hubtest.New(t)
	r := &hubtest.Repo{
		Commit: testCommit,
		Files: map[string][]byte{
			"config.json":           []byte(`{"model_type": "roberta"}`),
			"tokenizer.json":        []byte(`{"model": {}}`),
			"README.md":             []byte("# tiny\n"),
			"onnx/model.onnx":       bytes.Repeat([]byte("weights-"), 5000),
			"onnx/model_q.onnx":     []byte("quantized"),
			"pytorch_model.bin":     []byte("torch"),
			"tokenizer_config.json": []byte(`{"model_max_length": 512}`),
		},
		LFS: map[string]bool{"onnx/model.onnx": true, "onnx/model_q.onnx": true, "pytorch_model.bin": true},
	}
	h.Repos[testRepo] = r
	return h, r
}

// fastRetry repeats a failure up to n times, after milliseconds.
func fastRetry(n int) *retry.Policy {
	return &retry.Policy{Retries: n, MinWait: time.Millisecond, MaxWait: 4 * time.Millisecond}
}

func testClient(h *hubtest.Hub) *Client {
	return &Client{Endpoint: h.URL, Retry: fastRetry(5)}
}

func TestPull(t *testing.T) {
	h, r := newFakeHub(t)
	store := Store{Dir: t.TempDir()}
	m, err := store.Pull(context.Background(), testClient(h), testRepo, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Commit != testCommit || m.ONNX != "onnx/model.onnx" || m.Revision != "main" {
		t.Errorf("manifest %+v", m)
	}
	got := map[string]string{}
	for _, f := range m.Files {
		got[f.Path] = f.SHA256
		data, err := os.ReadFile(filepath.Join(store.Path(testRepo), f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, r.Files[f.Path]) || f.SHA256 != hubtest.SHA256(data) || f.Size != int64(len(data)) {
			t.Errorf("%s stored wrong", f.Path)
		}
	}
	for _, p := range []string{"config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"} {
		if _, ok := got[p]; !ok {
			t.Errorf("%s not pulled", p)
		}
	}
	for _, p := range []string{"pytorch_model.bin", "onnx/model_q.onnx", "README.md"} {
		if _, ok := got[p]; ok {
			t.Errorf("%s pulled", p)
		}
	}
	// Created private: files 0600 in directories 0700 (the store lies in
	// the user's cache directory); the store's own directory existed.
	filepath.WalkDir(store.Path(testRepo), func(p string, d fs.DirEntry, err error) error {
		st, _ := os.Stat(p)
		if want := fs.FileMode(0o600); d.IsDir() && st.Mode().Perm() != 0o700 || !d.IsDir() && st.Mode().Perm()&^want != 0 {
			t.Errorf("%s: mode %v", p, st.Mode().Perm())
		}
		return nil
	})
	list, err := store.List()
	if err != nil || len(list) != 1 || list[0].Repo != testRepo {
		t.Errorf("list %v, %v", list, err)
	}
	again, err := store.Manifest(testRepo)
	if err != nil || again.Commit != testCommit {
		t.Errorf("manifest %v, %v", again, err)
	}
	// Another ONNX file on request.
	m, err = store.Pull(context.Background(), testClient(h), testRepo, PullOptions{ONNX: "onnx/model_q.onnx", Revision: testCommit})
	if err != nil || m.ONNX != "onnx/model_q.onnx" {
		t.Errorf("pull --onnx-file: %v, %v", m, err)
	}
}

// TestResume: a connection cut in the middle of the weights is taken up
// again from where it stopped (a Range request), and so is a partial file
// left by an earlier run.
func TestResume(t *testing.T) {
	h, r := newFakeHub(t)
	h.CutAfter["onnx/model.onnx"] = []int{12345}
	store := Store{Dir: t.TempDir()}
	if _, err := store.Pull(context.Background(), testClient(h), testRepo, PullOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(store.Path(testRepo), "onnx", "model.onnx"))
	if !bytes.Equal(data, r.Files["onnx/model.onnx"]) {
		t.Fatal("resumed file differs")
	}
	if !contains(h.Requests(), "/cdn/acme/tiny-nli/onnx/model.onnx bytes=12345-") {
		t.Errorf("no range request after the cut: %q", h.Requests())
	}

	// A run that gave up (its one retry cut too) leaves a partial file
	// that the next run resumes.
	h2, r2 := newFakeHub(t)
	h2.CutAfter["onnx/model.onnx"] = []int{15000, 15000}
	store2 := Store{Dir: t.TempDir()}
	oneRetry := &Client{Endpoint: h2.URL, Retry: fastRetry(1)}
	_, err := store2.Pull(context.Background(), oneRetry, testRepo, PullOptions{})
	if err == nil || !strings.Contains(err.Error(), "run the command again to resume") {
		t.Fatalf("first run: %v", err)
	}
	if _, err := store2.Manifest(testRepo); err == nil {
		t.Error("an unfinished pull has a manifest")
	}
	if _, err := store2.Pull(context.Background(), testClient(h2), testRepo, PullOptions{}); err != nil {
		t.Fatal(err)
	}
	log := h2.Requests()
	if !contains(log, "/cdn/acme/tiny-nli/onnx/model.onnx bytes=30000-") {
		t.Errorf("second run did not resume from the partial file: %q", log)
	}
	data, _ = os.ReadFile(filepath.Join(store2.Path(testRepo), "onnx", "model.onnx"))
	if !bytes.Equal(data, r2.Files["onnx/model.onnx"]) {
		t.Fatal("resumed file differs")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestChecksumMismatch(t *testing.T) {
	h, r := newFakeHub(t)
	h.BadHash["onnx/model.onnx"] = true
	store := Store{Dir: t.TempDir()}
	_, err := store.Pull(context.Background(), testClient(h), testRepo, PullOptions{})
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "onnx/model.onnx") || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("error %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(store.Path(testRepo), "onnx"))
	if len(entries) != 0 {
		t.Errorf("bad download kept: %v", entries)
	}
	if _, err := store.Manifest(testRepo); err == nil {
		t.Error("manifest written")
	}
	// A non-LFS file is checked against its git blob id.
	h.BadHash = map[string]bool{}
	r.Files["config.json"] = []byte(`{"model_type": "bert"}`)
	f := File{Path: "config.json", Size: int64(len(r.Files["config.json"])), BlobID: hubtest.BlobID([]byte("something else"))}
	if _, err := testClient(h).Download(context.Background(), testRepo, testCommit, f, filepath.Join(t.TempDir(), "config.json")); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "git blob id") {
		t.Errorf("blob id mismatch: %v", err)
	}
}

func TestErrors(t *testing.T) {
	h, r := newFakeHub(t)
	ctx := context.Background()
	store := Store{Dir: t.TempDir()}
	if _, err := store.Pull(ctx, testClient(h), "acme/missing", PullOptions{}); err == nil || !strings.Contains(err.Error(), "HTTP 404") || !strings.Contains(err.Error(), "acme/missing") {
		t.Errorf("missing repo: %v", err)
	}
	if _, err := store.Pull(ctx, testClient(h), "../etc", PullOptions{}); err == nil || !strings.Contains(err.Error(), "not a model repository id") {
		t.Errorf("bad id: %v", err)
	}
	h.Token = "secret"
	if _, err := store.Pull(ctx, testClient(h), testRepo, PullOptions{}); err == nil || !strings.Contains(err.Error(), "HF_TOKEN") {
		t.Errorf("no token: %v", err)
	}
	c := testClient(h)
	c.Token = "secret"
	if _, err := store.Pull(ctx, c, testRepo, PullOptions{}); err != nil {
		t.Errorf("with token: %v", err)
	}
	h.Token = ""
	h.Garbage = true
	if _, err := store.Pull(ctx, testClient(h), testRepo, PullOptions{}); err == nil || !strings.Contains(err.Error(), "not a model's file list") {
		t.Errorf("garbage: %v", err)
	}
	h.Garbage = false
	delete(r.Files, "onnx/model.onnx")
	if _, err := store.Pull(ctx, testClient(h), testRepo, PullOptions{}); err == nil || !strings.Contains(err.Error(), "onnx/model_q.onnx (hub.PullOptions.ONNX)") {
		t.Errorf("no default graph: %v", err)
	}
	delete(r.Files, "onnx/model_q.onnx")
	if _, err := store.Pull(ctx, testClient(h), testRepo, PullOptions{}); err == nil || !strings.Contains(err.Error(), "no ONNX export") {
		t.Errorf("no graph: %v", err)
	}
	// A server that is not there.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	if _, err := store.Pull(ctx, &Client{Endpoint: dead.URL, Retry: fastRetry(1)}, testRepo, PullOptions{}); err == nil || !strings.Contains(err.Error(), dead.URL) {
		t.Errorf("dead server: %v", err)
	}
}

func TestSelectExternalData(t *testing.T) {
	info := &Info{Files: []File{{Path: "config.json"}, {Path: "tokenizer.json"}, {Path: "onnx/model.onnx"},
		{Path: "onnx/model.onnx_data"}, {Path: "onnx/model_fp16.onnx"}, {Path: "onnx/model_fp16.onnx_data"}}}
	files, graph, err := selectFiles(info, "")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if graph != "onnx/model.onnx" || strings.Join(paths, " ") != "config.json tokenizer.json onnx/model.onnx onnx/model.onnx_data" {
		t.Errorf("%s: %v", graph, paths)
	}
}

// listing is a file list as the hub's API gives it, config.json and
// tokenizer.json sound, with the extra siblings given.
func listing(commit string, extra ...string) string {
	sibs := []string{
		`{"rfilename": "config.json", "size": 2, "blobId": "` + hubtest.BlobID([]byte("{}")) + `"}`,
		`{"rfilename": "tokenizer.json", "size": 2, "blobId": "` + hubtest.BlobID([]byte("{}")) + `"}`,
	}
	return `{"id": "acme/tiny-nli", "sha": "` + commit + `", "siblings": [` + strings.Join(append(sibs, extra...), ", ") + `]}`
}

// treeFiles lists every file under dir.
func treeFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestHostileListing: a hub whose file list names files outside the
// model's directory, or gives hashes that are not hashes (the sha256 once
// made the partial file's name), is refused before anything is written,
// anywhere (issue 16 item 6).
func TestHostileListing(t *testing.T) {
	lfs := func(name, sha string) string {
		return `{"rfilename": "` + name + `", "size": 5, "lfs": {"sha256": "` + sha + `", "size": 5}}`
	}
	good := strings.Repeat("ab", 32)
	tests := []struct {
		name, body, want string
	}{
		{"sha256 climbs out", listing(testCommit, lfs("model.onnx", "/../../../pwn")), "sha256"},
		{"sha256 climbs out, short", listing(testCommit, lfs("model.onnx", "../../pwn")), "sha256"},
		{"blob id climbs out", listing(testCommit, `{"rfilename": "model.onnx", "size": 5, "blobId": "../../../../pwn"}`), "blob id"},
		{"file name climbs out", listing(testCommit, lfs("../../pwn.onnx", good)), "not a plain relative path"},
		{"file name climbs out inside", listing(testCommit, lfs("onnx/../../../pwn.onnx", good)), "not a plain relative path"},
		{"absolute file name", listing(testCommit, lfs("/tmp/pwn.onnx", good)), "not a plain relative path"},
		{"backslash", listing(testCommit, lfs(`..\\pwn.onnx`, good)), "backslash"},
		{"drive letter", listing(testCommit, lfs(`C:pwn.onnx`, good)), "colon"},
		{"control character", listing(testCommit, lfs(`model\n.onnx`, good)), "control character"},
		{"no hash", listing(testCommit, `{"rfilename": "model.onnx", "size": 5}`), "no sha256 or blob id"},
		{"negative size", listing(testCommit, `{"rfilename": "model.onnx", "size": -7, "blobId": "`+strings.Repeat("a", 40)+`"}`), "size -7"},
		{"listed twice", listing(testCommit, lfs("model.onnx", good), lfs("model.onnx", good)), "listed twice"},
		{"commit is a path", listing("../../../pwn", lfs("model.onnx", good)), "not a commit id"},
		{"an unneeded file is hostile", listing(testCommit, lfs("model.onnx", good), lfs("../README.md", good)), "not a plain relative path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := newFakeHub(t)
			h.Listing[testRepo] = tt.body
			base := t.TempDir()
			store := Store{Dir: filepath.Join(base, "cache", "models")}
			_, err := store.Pull(context.Background(), testClient(h), testRepo, PullOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if files := treeFiles(t, base); len(files) != 0 {
				t.Errorf("files written: %q", files)
			}
			for _, r := range h.Requests() {
				if strings.Contains(r, "/resolve/") || strings.Contains(r, "/cdn/") {
					t.Errorf("a file was requested: %s", r)
				}
			}
		})
	}
}

// TestDownloadRefusesHostileFile: Download, called directly with what a
// hostile listing would say, writes nothing.
func TestDownloadRefusesHostileFile(t *testing.T) {
	h, r := newFakeHub(t)
	base := t.TempDir()
	dest := filepath.Join(base, "models", "acme", "tiny-nli", "config.json")
	for _, f := range []File{
		{Path: "config.json", Size: 25, SHA256: "/../../../../pwn"},
		{Path: "config.json", Size: 25, BlobID: "../../../pwn"},
		{Path: "../config.json", Size: 25, BlobID: hubtest.BlobID(r.Files["config.json"])},
	} {
		if _, err := testClient(h).Download(context.Background(), testRepo, testCommit, f, dest); err == nil {
			t.Errorf("%+v: downloaded", f)
		}
	}
	if files := treeFiles(t, base); len(files) != 0 {
		t.Errorf("files written: %q", files)
	}
	// Not even for a moment: a download that fails its check is removed,
	// but one cut off would stay where its name put it.
	if reqs := h.Requests(); len(reqs) != 0 {
		t.Errorf("requests made: %q", reqs)
	}
}

// TestOversizedBody: a server that sends more than the size it lists does
// not get to write it.
func TestOversizedBody(t *testing.T) {
	h, _ := newFakeHub(t)
	h.Trailer["onnx/model.onnx"] = bytes.Repeat([]byte("x"), 1<<20)
	store := Store{Dir: t.TempDir()}
	_, err := store.Pull(context.Background(), testClient(h), testRepo, PullOptions{})
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("error %v", err)
	}
	for _, p := range treeFiles(t, store.Dir) {
		if st, _ := os.Stat(p); st.Size() > 40000 {
			t.Errorf("%s kept %d bytes", p, st.Size())
		}
	}
}

// TestManifestPaths: a manifest whose paths leave the model's directory is
// refused.
func TestManifestPaths(t *testing.T) {
	store := Store{Dir: t.TempDir()}
	dir := store.Path(testRepo)
	os.MkdirAll(dir, 0o755)
	for _, m := range []string{
		`{"repo": "acme/tiny-nli", "onnx": "../../../x.onnx", "files": []}`,
		`{"repo": "acme/tiny-nli", "onnx": "model.onnx", "files": [{"path": "/etc/passwd"}]}`,
	} {
		os.WriteFile(filepath.Join(dir, ManifestName), []byte(m), 0o644)
		if _, err := store.Manifest(testRepo); err == nil || !strings.Contains(err.Error(), "relative path") {
			t.Errorf("%s: %v", m, err)
		}
	}
}

// TestOffline: with HF_HUB_OFFLINE a pull makes no request; it answers
// with the model already pulled at that revision, and otherwise says why
// it cannot.
func TestOffline(t *testing.T) {
	h, _ := newFakeHub(t)
	store := Store{Dir: t.TempDir()}
	ctx := context.Background()
	if _, err := store.Pull(ctx, testClient(h), testRepo, PullOptions{}); err != nil {
		t.Fatal(err)
	}
	n := len(h.Requests())
	off := testClient(h)
	off.Offline = true
	for _, opts := range []PullOptions{{}, {Revision: "main"}, {Revision: testCommit}, {ONNX: "onnx/model.onnx"}} {
		if m, err := store.Pull(ctx, off, testRepo, opts); err != nil || m.Commit != testCommit {
			t.Errorf("offline pull %+v: %v, %v", opts, m, err)
		}
	}
	for _, opts := range []PullOptions{{Revision: "dev"}, {ONNX: "onnx/model_q.onnx"}} {
		if _, err := store.Pull(ctx, off, testRepo, opts); !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "HF_HUB_OFFLINE") {
			t.Errorf("offline pull %+v: %v", opts, err)
		}
	}
	if _, err := store.Pull(ctx, off, "acme/other", PullOptions{}); !errors.Is(err, ErrOffline) {
		t.Errorf("offline pull of a model not pulled: %v", err)
	}
	if _, err := off.Info(ctx, testRepo, "main"); !errors.Is(err, ErrOffline) {
		t.Errorf("offline info: %v", err)
	}
	// A file gone missing: not complete, so not answered.
	os.Remove(filepath.Join(store.Path(testRepo), "config.json"))
	if _, err := store.Pull(ctx, off, testRepo, PullOptions{}); !errors.Is(err, ErrOffline) {
		t.Errorf("offline pull of a damaged model: %v", err)
	}
	if len(h.Requests()) != n {
		t.Errorf("offline client made %d requests", len(h.Requests())-n)
	}
}

// TestEnv: the token, Hugging Face's home and offline mode are read as
// huggingface_hub reads them.
func TestEnv(t *testing.T) {
	home := t.TempDir()
	write := func(p, s string) string {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hfHome := filepath.Join(home, "hf")
	tokenFile := write(filepath.Join(hfHome, "token"), "  hf_fromhome\r\n")
	pathFile := write(filepath.Join(home, "elsewhere", "tok"), "hf_frompath\n")
	xdgFile := write(filepath.Join(home, "xdg", "huggingface", "token"), "hf_fromxdg")
	userFile := write(filepath.Join(home, ".cache", "huggingface", "token"), "hf_fromuser")
	tests := []struct {
		name                  string
		env                   map[string]string
		wantToken, wantSource string
	}{
		{"HF_TOKEN first", map[string]string{"HF_TOKEN": " hf_env\n", "HF_TOKEN_PATH": pathFile, "HF_HOME": hfHome}, "hf_env", "$HF_TOKEN"},
		{"legacy variable", map[string]string{"HUGGING_FACE_HUB_TOKEN": "hf_old", "HF_HOME": hfHome}, "hf_old", "$HUGGING_FACE_HUB_TOKEN"},
		{"blank HF_TOKEN is none", map[string]string{"HF_TOKEN": "  ", "HF_HOME": hfHome}, "hf_fromhome", tokenFile},
		{"HF_TOKEN_PATH before HF_HOME", map[string]string{"HF_TOKEN_PATH": pathFile, "HF_HOME": hfHome}, "hf_frompath", pathFile},
		{"HF_HOME/token", map[string]string{"HF_HOME": hfHome}, "hf_fromhome", tokenFile},
		{"XDG_CACHE_HOME/huggingface/token", map[string]string{"XDG_CACHE_HOME": filepath.Join(home, "xdg")}, "hf_fromxdg", xdgFile},
		{"~/.cache/huggingface/token", nil, "hf_fromuser", userFile},
		{"no token anywhere", map[string]string{"HF_HOME": filepath.Join(home, "empty")}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HOME", "XDG_CACHE_HOME"} {
				t.Setenv(k, tt.env[k])
			}
			t.Setenv("HOME", home)
			tok, src, err := Token()
			if err != nil || tok != tt.wantToken || src != tt.wantSource {
				t.Errorf("Token() = %q, %q, %v; want %q from %q", tok, src, err, tt.wantToken, tt.wantSource)
			}
		})
	}
	t.Run("unreadable token file", func(t *testing.T) {
		t.Setenv("HF_TOKEN", "")
		t.Setenv("HF_TOKEN_PATH", home) // a directory
		if _, _, err := Token(); err == nil {
			t.Error("no error")
		}
		big := write(filepath.Join(home, "big"), strings.Repeat("x", maxTokenFile+1))
		t.Setenv("HF_TOKEN_PATH", big)
		if _, _, err := Token(); err == nil || !strings.Contains(err.Error(), big) {
			t.Errorf("oversized token file: %v", err)
		}
		// A named pipe would block every command that reads the token
		// (fr reads it at start, to redact it): refused, not opened.
		fifo := filepath.Join(home, "fifo")
		safefiletest.Make(t, fifo, "named pipe")
		t.Setenv("HF_TOKEN_PATH", fifo)
		if err := safefiletest.Within(t, func() error { _, _, err := Token(); return err }); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("a FIFO token file: %v", err)
		}
	})
	for _, tt := range []struct {
		hf, transformers string
		want             bool
	}{{"1", "", true}, {"yes", "", true}, {"On", "", true}, {"TRUE", "", true}, {"0", "1", false}, {"", "1", true}, {"", "", false}, {"2", "", false}} {
		t.Setenv("HF_HUB_OFFLINE", tt.hf)
		t.Setenv("TRANSFORMERS_OFFLINE", tt.transformers)
		if got := Offline(); got != tt.want {
			t.Errorf("HF_HUB_OFFLINE=%q TRANSFORMERS_OFFLINE=%q: offline %v", tt.hf, tt.transformers, got)
		}
	}
}

// TestClientFromEnv: the token of the token file authenticates; a wrong
// one is named by its source, never printed, even when the hub echoes it;
// every request names the tool and its version; an endpoint's userinfo
// is not shown.
func TestClientFromEnv(t *testing.T) {
	h, _ := newFakeHub(t)
	h.Token = "hf_right_token_123"
	h.EchoAuth = true
	hfHome := t.TempDir()
	t.Setenv("HF_ENDPOINT", h.URL)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	t.Setenv("HF_TOKEN_PATH", "")
	t.Setenv("HF_HOME", hfHome)
	t.Setenv("HF_HUB_OFFLINE", "")
	os.WriteFile(filepath.Join(hfHome, "token"), []byte("hf_right_token_123\n"), 0o600)
	c, err := NewClientFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	c.Retry = fastRetry(1)
	store := Store{Dir: t.TempDir()}
	if _, err := store.Pull(context.Background(), c, testRepo, PullOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, ua := range h.UserAgents() {
		if ua != version.UserAgent() {
			t.Errorf("User-Agent %q", ua)
		}
	}

	const wrong = "hf_wrong_token_456"
	os.WriteFile(filepath.Join(hfHome, "token"), []byte(wrong), 0o600)
	t.Setenv("HF_ENDPOINT", strings.Replace(h.URL, "http://", "http://me:s3cr3tpassw0rd@", 1))
	c, err = NewClientFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	c.Retry = fastRetry(1)
	_, err = store.Pull(context.Background(), c, testRepo, PullOptions{})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), filepath.Join(hfHome, "token")) {
		t.Fatalf("error %v", err)
	}
	if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), "s3cr3tpassw0rd") {
		t.Errorf("secret printed: %v", err)
	}
	t.Setenv("HF_HUB_OFFLINE", "1")
	if c, err := NewClientFromEnv(); err != nil || !c.Offline {
		t.Errorf("HF_HUB_OFFLINE=1: %+v, %v", c, err)
	}
}
