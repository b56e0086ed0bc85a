// Package hub downloads models from a Hugging Face–compatible model hub
// (huggingface.co, a mirror, or a private hub) and keeps them in a local
// store, one directory per repository laid out as in the repository.
//
// The client is configured as Hugging Face's own tools are: HF_ENDPOINT
// names the hub and HF_TOKEN authenticates. Downloads resume where they
// were cut off (within a run, and across runs through partial files), and
// every file is checked against the hash the hub lists for it: sha256 for
// files stored with Git LFS (the weights), the git blob id for the others.
package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultEndpoint is the hub used when HF_ENDPOINT is unset.
const DefaultEndpoint = "https://huggingface.co"

// Client talks to a hub.
type Client struct {
	// Endpoint is the hub's root URL.
	Endpoint string
	// Token, when set, is sent as a bearer token.
	Token string
	// HTTP is the client used (default: one with a 30 s timeout per
	// response header and none on the body, which may be gigabytes).
	HTTP *http.Client
	// Retries is how many times a failed download is taken up again
	// (connection cut, 429, 5xx); default 5.
	Retries int
	// Backoff is the wait before the first retry, doubled each time up to
	// a minute; default 1 s.
	Backoff time.Duration
	// Progress, when set, is called as a file downloads.
	Progress func(file string, done, total int64)
	// UserAgent identifies the tool.
	UserAgent string
}

// NewClientFromEnv returns a client for $HF_ENDPOINT (default
// huggingface.co) with $HF_TOKEN.
func NewClientFromEnv() *Client {
	ep := os.Getenv("HF_ENDPOINT")
	if ep == "" {
		ep = DefaultEndpoint
	}
	return &Client{Endpoint: ep, Token: os.Getenv("HF_TOKEN")}
}

// defaultHTTP is the client used when Client.HTTP is nil. It is never
// changed; sharing it lets requests reuse connections.
var defaultHTTP = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	ResponseHeaderTimeout: 30 * time.Second,
	TLSHandshakeTimeout:   30 * time.Second,
}}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return defaultHTTP
}

func (c *Client) endpoint() string { return strings.TrimRight(c.Endpoint, "/") }

// Info is what the hub says about one revision of a model repository.
type Info struct {
	ID    string // the repository id
	SHA   string // the commit the revision resolves to
	Files []File
}

// File is one file of a repository.
type File struct {
	Path   string
	Size   int64  // -1 when the hub does not say
	SHA256 string // for files stored with Git LFS
	BlobID string // the git blob id (sha1), for the others
}

// Find returns the file with the given path.
func (in *Info) Find(path string) (File, bool) {
	for _, f := range in.Files {
		if f.Path == path {
			return f, true
		}
	}
	return File{}, false
}

// ValidRepoID reports whether id looks like a repository id ("name" or
// "owner/name").
func ValidRepoID(id string) bool {
	parts := strings.Split(id, "/")
	if len(parts) > 2 || id == "" {
		return false
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsAny(p, " \\:?#%") {
			return false
		}
	}
	return true
}

// Info fetches the file list of a revision (a branch, tag or commit).
func (c *Client) Info(ctx context.Context, repo, revision string) (*Info, error) {
	if !ValidRepoID(repo) {
		return nil, fmt.Errorf("%q is not a model repository id (owner/name)", repo)
	}
	u := fmt.Sprintf("%s/api/models/%s/revision/%s?blobs=true", c.endpoint(), repo, url.PathEscape(revision))
	req, err := c.request(ctx, u)
	if err != nil {
		return nil, err
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, fmt.Errorf("hub %s: %w", c.endpoint(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(resp, repo, revision, "")
	}
	var raw struct {
		ID       string `json:"id"`
		SHA      string `json:"sha"`
		Siblings []struct {
			RFilename string `json:"rfilename"`
			Size      *int64 `json:"size"`
			BlobID    string `json:"blobId"`
			LFS       *struct {
				SHA256 string `json:"sha256"`
				Size   int64  `json:"size"`
			} `json:"lfs"`
		} `json:"siblings"`
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("hub %s: reading the file list of %s: %w", c.endpoint(), repo, err)
	}
	if err := json.Unmarshal(body, &raw); err != nil || raw.Siblings == nil {
		return nil, fmt.Errorf("hub %s answered %s with something that is not a model's file list (%s): is HF_ENDPOINT a Hugging Face–compatible hub?", c.endpoint(), u, snippet(body))
	}
	info := &Info{ID: raw.ID, SHA: raw.SHA}
	if info.ID == "" {
		info.ID = repo
	}
	for _, s := range raw.Siblings {
		f := File{Path: s.RFilename, Size: -1, BlobID: s.BlobID}
		if s.Size != nil {
			f.Size = *s.Size
		}
		if s.LFS != nil {
			f.SHA256, f.Size = s.LFS.SHA256, s.LFS.Size
		}
		if f.Path == "" || strings.HasPrefix(f.Path, "/") || strings.Contains(f.Path, "..") {
			return nil, fmt.Errorf("hub %s lists a file %q in %s that cannot be stored", c.endpoint(), f.Path, repo)
		}
		info.Files = append(info.Files, f)
	}
	return info, nil
}

func (c *Client) request(ctx context.Context, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	ua := c.UserAgent
	if ua == "" {
		ua = "factreasoner-go"
	}
	req.Header.Set("User-Agent", ua)
	return req, nil
}

// statusError explains a failed request.
func (c *Client) statusError(resp *http.Response, repo, revision, file string) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	what := repo
	if file != "" {
		what = repo + "/" + file
	}
	if revision != "" {
		what += " at " + revision
	}
	msg := fmt.Sprintf("hub %s: %s: HTTP %d", c.endpoint(), what, resp.StatusCode)
	if s := snippet(body); s != "" {
		msg += " (" + s + ")"
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		if c.Token == "" {
			msg += "; the repository may be private or gated: set HF_TOKEN to an access token"
		} else {
			msg += "; HF_TOKEN was sent: check that it grants access to this repository"
		}
	case http.StatusNotFound:
		msg += "; no such repository, revision or file"
	}
	return errors.New(msg)
}

// snippet is the start of a response body, for error messages.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// ErrChecksum marks a download whose content does not match the hub's hash.
var ErrChecksum = errors.New("checksum mismatch")

// Download fetches one file of a repository at a commit into dest,
// resuming from dest's partial file when a previous attempt left one, and
// checks its size and hash. It returns the file's sha256.
func (c *Client) Download(ctx context.Context, repo, commit string, f File, dest string) (string, error) {
	u := fmt.Sprintf("%s/%s/resolve/%s/%s", c.endpoint(), repo, url.PathEscape(commit), escapePath(f.Path))
	part := partialName(dest, f)
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	retries, backoff := c.Retries, c.Backoff
	if retries <= 0 {
		retries = 5
	}
	if backoff <= 0 {
		backoff = time.Second
	}
	var lastErr error
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Minute)
		}
		err := c.fetch(ctx, u, repo, commit, f, part)
		if err == nil {
			break
		}
		var perm permanentError
		if errors.As(err, &perm) || ctx.Err() != nil {
			return "", err
		}
		lastErr = err
		if attempt == retries {
			return "", fmt.Errorf("%w (gave up after %d attempts; run the command again to resume)", lastErr, retries+1)
		}
	}
	sum, err := verify(part, f)
	if err != nil {
		os.Remove(part)
		return "", fmt.Errorf("%s/%s: %w", repo, f.Path, err)
	}
	if err := os.Rename(part, dest); err != nil {
		return "", err
	}
	return sum, nil
}

// permanentError is a failure that retrying will not fix.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

// fetch makes one attempt, appending to the partial file; it returns nil
// when the file is complete.
func (c *Client) fetch(ctx context.Context, u, repo, commit string, f File, part string) error {
	var have int64
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	if f.Size >= 0 && have == f.Size {
		return nil
	}
	if f.Size >= 0 && have > f.Size {
		os.Remove(part)
		have = 0
	}
	req, err := c.request(ctx, u)
	if err != nil {
		return permanentError{err}
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return fmt.Errorf("hub %s: %s/%s: %w", c.endpoint(), repo, f.Path, err)
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		if start, ok := rangeStart(resp.Header.Get("Content-Range")); !ok || start != have {
			return fmt.Errorf("hub %s: %s/%s: asked for bytes from %d, got Content-Range %q", c.endpoint(), repo, f.Path, have, resp.Header.Get("Content-Range"))
		}
	case resp.StatusCode == http.StatusOK:
		// The whole file: the server ignored the range, or none was asked.
		flags = os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		have = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		os.Remove(part) // the partial file is not a prefix of this file
		return fmt.Errorf("hub %s: %s/%s: partial download does not fit; starting over", c.endpoint(), repo, f.Path)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return c.statusError(resp, repo, commit, f.Path)
	default:
		return permanentError{c.statusError(resp, repo, commit, f.Path)}
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return permanentError{err}
	}
	w := &progressWriter{w: out, done: have, total: f.Size, file: f.Path, report: c.Progress}
	_, copyErr := io.Copy(w, resp.Body)
	if err := out.Close(); err != nil && copyErr == nil {
		copyErr = err
	}
	if copyErr != nil {
		return fmt.Errorf("hub %s: %s/%s: download cut at %d bytes: %w", c.endpoint(), repo, f.Path, w.done, copyErr)
	}
	if f.Size >= 0 && w.done < f.Size {
		return fmt.Errorf("hub %s: %s/%s: download cut at %d of %d bytes", c.endpoint(), repo, f.Path, w.done, f.Size)
	}
	return nil
}

// partialName is where a download in progress is kept: beside dest, named
// after the content expected, so that a partial file of another revision
// is never resumed.
func partialName(dest string, f File) string {
	tag := f.SHA256
	if tag == "" {
		tag = f.BlobID
	}
	if len(tag) > 16 {
		tag = tag[:16]
	}
	if tag == "" {
		tag = "x"
	}
	return filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+"."+tag+".part")
}

// rangeStart parses "bytes START-END/SIZE".
func rangeStart(h string) (int64, bool) {
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, false
	}
	start, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(start, 10, 64)
	return n, err == nil
}

// escapePath escapes each segment of a repository path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// verify checks a downloaded file's size and hash and returns its sha256.
func verify(path string, f File) (string, error) {
	file, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return "", err
	}
	if f.Size >= 0 && st.Size() != f.Size {
		return "", fmt.Errorf("%w: %d bytes, the hub lists %d; the download was removed, run the command again", ErrChecksum, st.Size(), f.Size)
	}
	s256 := sha256.New()
	hashes := []hash.Hash{s256}
	var blob hash.Hash
	if f.SHA256 == "" && f.BlobID != "" {
		blob = sha1.New()
		fmt.Fprintf(blob, "blob %d\x00", st.Size())
		hashes = append(hashes, blob)
	}
	ws := make([]io.Writer, len(hashes))
	for i, h := range hashes {
		ws[i] = h
	}
	if _, err := io.Copy(io.MultiWriter(ws...), file); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(s256.Sum(nil))
	if f.SHA256 != "" && !strings.EqualFold(sum, f.SHA256) {
		return "", fmt.Errorf("%w: sha256 %s, the hub lists %s; the download was removed, run the command again", ErrChecksum, sum, f.SHA256)
	}
	if blob != nil {
		if got := hex.EncodeToString(blob.Sum(nil)); !strings.EqualFold(got, f.BlobID) {
			return "", fmt.Errorf("%w: git blob id %s, the hub lists %s; the download was removed, run the command again", ErrChecksum, got, f.BlobID)
		}
	}
	return sum, nil
}

// progressWriter counts bytes written and reports them.
type progressWriter struct {
	w           io.Writer
	done, total int64
	file        string
	report      func(string, int64, int64)
	last        time.Time
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	if p.report != nil && (time.Since(p.last) > 500*time.Millisecond || p.done == p.total) {
		p.last = time.Now()
		p.report(p.file, p.done, p.total)
	}
	return n, err
}
