package hub

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/fakehub"
)

const (
	testRepo   = "acme/tiny-nli"
	testCommit = "0123456789abcdef0123456789abcdef01234567"
)

// newFakeHub serves one repository with the files an NLI model has, and
// some it does not need.
func newFakeHub(t *testing.T) (*fakehub.Hub, *fakehub.Repo) {
	h := fakehub.New(t)
	r := &fakehub.Repo{
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

func testClient(h *fakehub.Hub) *Client {
	return &Client{Endpoint: h.URL, Backoff: time.Millisecond}
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
		if !bytes.Equal(data, r.Files[f.Path]) || f.SHA256 != fakehub.SHA256(data) || f.Size != int64(len(data)) {
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
	oneRetry := &Client{Endpoint: h2.URL, Backoff: time.Millisecond, Retries: 1}
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
	f := File{Path: "config.json", Size: int64(len(r.Files["config.json"])), BlobID: fakehub.BlobID([]byte("something else"))}
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
	if _, err := store.Pull(ctx, testClient(h), testRepo, PullOptions{}); err == nil || !strings.Contains(err.Error(), "onnx/model_q.onnx with --onnx-file") {
		t.Errorf("no default graph: %v", err)
	}
	delete(r.Files, "onnx/model_q.onnx")
	if _, err := store.Pull(ctx, testClient(h), testRepo, PullOptions{}); err == nil || !strings.Contains(err.Error(), "no ONNX export") {
		t.Errorf("no graph: %v", err)
	}
	// A server that is not there.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	if _, err := store.Pull(ctx, &Client{Endpoint: dead.URL}, testRepo, PullOptions{}); err == nil || !strings.Contains(err.Error(), dead.URL) {
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
