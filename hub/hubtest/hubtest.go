// Package hubtest is a Hugging Face–compatible model hub for tests, served
// on loopback: the file list of a revision at
// /api/models/<repo>/revision/<rev>?blobs=true, files at
// /<repo>/resolve/<commit>/<path> (Git LFS files through a redirect to
// /cdn/, as huggingface.co sends them to its CDN), byte ranges honoured.
// It can cut connections, list wrong hashes, demand a token, answer
// garbage, serve a hostile file list, send more bytes than it lists and
// echo the Authorization header in its error bodies.
package hubtest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Repo is one model repository.
type Repo struct {
	Commit string
	Files  map[string][]byte
	LFS    map[string]bool // files stored with Git LFS (listed with sha256)
}

// Hub is the fake hub. Set its fields before requests arrive, or under Mu.
type Hub struct {
	Mu    sync.Mutex
	Repos map[string]*Repo
	// Token, when set, must come as a bearer token (except on /cdn/).
	Token string
	// CutAfter cuts successive responses for a file path after so many
	// bytes (the connection is closed mid-body).
	CutAfter map[string][]int
	// BadHash lists files whose sha256 the hub misreports.
	BadHash map[string]bool
	// Garbage makes the file-list endpoint answer HTML.
	Garbage bool
	// Listing, when it has a repository's name, is served as that
	// repository's file list instead of the real one: a hostile hub.
	Listing map[string]string
	// Trailer lists bytes sent after a file's content, beyond the size
	// the list gives.
	Trailer map[string][]byte
	// EchoAuth makes error bodies repeat the request's Authorization
	// header, as some servers do.
	EchoAuth bool

	requests []string // "path range"
	agents   []string // User-Agent of each request
	URL      string
}

// New starts a hub with no repositories; it stops with the test.
func New(t testing.TB) *Hub {
	h, stop := Start()
	t.Cleanup(stop)
	return h
}

// Start starts a hub with no repositories and returns it with the function
// that stops it.
func Start() (*Hub, func()) {
	h := &Hub{Repos: map[string]*Repo{}, CutAfter: map[string][]int{}, BadHash: map[string]bool{},
		Listing: map[string]string{}, Trailer: map[string][]byte{}}
	srv := httptest.NewServer(h)
	h.URL = srv.URL
	return h, srv.Close
}

// AddDir adds a repository whose files are those of a local directory
// (recursively); files ending in .onnx are LFS files.
func (h *Hub) AddDir(t testing.TB, repo, commit, dir string) *Repo {
	t.Helper()
	r := &Repo{Commit: commit, Files: map[string][]byte{}, LFS: map[string]bool{}}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		r.Files[rel] = data
		r.LFS[rel] = strings.HasSuffix(rel, ".onnx")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h.Mu.Lock()
	h.Repos[repo] = r
	h.Mu.Unlock()
	return r
}

// Requests returns the requests so far, as "path range".
func (h *Hub) Requests() []string {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	return append([]string(nil), h.requests...)
}

// UserAgents returns the User-Agent header of each request so far.
func (h *Hub) UserAgents() []string {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	return append([]string(nil), h.agents...)
}

// SHA256 is the hex sha256 of b.
func SHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// BlobID is git's blob id of b.
func BlobID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// ServeHTTP implements http.Handler.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	h.requests = append(h.requests, r.URL.Path+" "+r.Header.Get("Range"))
	h.agents = append(h.agents, r.UserAgent())
	if h.Token != "" && r.Header.Get("Authorization") != "Bearer "+h.Token && !strings.HasPrefix(r.URL.Path, "/cdn/") {
		msg := `{"error":"Invalid credentials in Authorization header"}`
		if h.EchoAuth {
			msg = fmt.Sprintf(`{"error":"Invalid credentials in Authorization header", "received": {"Authorization": %q}}`, r.Header.Get("Authorization"))
		}
		http.Error(w, msg, http.StatusUnauthorized)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/api/models/"); ok {
		h.serveInfo(w, rest)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/cdn/"); ok {
		repo, p, ok := h.split(rest)
		if !ok {
			http.NotFound(w, r)
			return
		}
		h.serveFile(w, r, repo, p)
		return
	}
	for name, repo := range h.Repos {
		p, ok := strings.CutPrefix(r.URL.Path, "/"+name+"/resolve/"+repo.Commit+"/")
		if !ok {
			continue
		}
		if _, ok := repo.Files[p]; !ok {
			http.Error(w, "Entry not found", http.StatusNotFound)
			return
		}
		if repo.LFS[p] {
			http.Redirect(w, r, "/cdn/"+name+"/"+p, http.StatusFound)
			return
		}
		h.serveFile(w, r, repo, p)
		return
	}
	http.NotFound(w, r)
}

// split finds the repository a /cdn/ path belongs to.
func (h *Hub) split(rest string) (*Repo, string, bool) {
	for name, repo := range h.Repos {
		if p, ok := strings.CutPrefix(rest, name+"/"); ok {
			if _, ok := repo.Files[p]; ok {
				return repo, p, true
			}
		}
	}
	return nil, "", false
}

func (h *Hub) serveInfo(w http.ResponseWriter, rest string) {
	name, rev, ok := strings.Cut(rest, "/revision/")
	if body, hostile := h.Listing[name]; hostile && ok {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
		return
	}
	repo := h.Repos[name]
	if !ok || repo == nil || (rev != "main" && rev != repo.Commit) {
		http.Error(w, `{"error":"Repository not found"}`, http.StatusNotFound)
		return
	}
	if h.Garbage {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>Down for maintenance</body></html>"))
		return
	}
	paths := make([]string, 0, len(repo.Files))
	for p := range repo.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	siblings := []map[string]any{}
	for _, p := range paths {
		b := repo.Files[p]
		s := map[string]any{"rfilename": p, "size": len(b), "blobId": BlobID(b)}
		if repo.LFS[p] {
			sum := SHA256(b)
			if h.BadHash[p] {
				sum = strings.Repeat("0", 64)
			}
			s["lfs"] = map[string]any{"sha256": sum, "size": len(b), "pointerSize": 134}
		}
		siblings = append(siblings, s)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": name, "sha": repo.Commit, "siblings": siblings})
}

func (h *Hub) serveFile(w http.ResponseWriter, r *http.Request, repo *Repo, p string) {
	b := repo.Files[p]
	start := 0
	if rg := r.Header.Get("Range"); rg != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
		if err != nil || n >= len(b) {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		start = n
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", n, len(b)-1, len(b)))
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)-start+len(h.Trailer[p])))
	if start > 0 {
		w.WriteHeader(http.StatusPartialContent)
	}
	if cuts := h.CutAfter[p]; len(cuts) > 0 {
		cut := min(cuts[0], len(b)-start)
		h.CutAfter[p] = cuts[1:]
		w.Write(b[start : start+cut])
		w.(http.Flusher).Flush()
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	w.Write(b[start:])
	w.Write(h.Trailer[p])
}
