// Package hub downloads models from a Hugging Face–compatible model hub
// (huggingface.co, a mirror, or a private hub) and keeps them in a local
// store, one directory per repository laid out as in the repository.
//
// The client is configured as Hugging Face's own tools are: HF_ENDPOINT
// names the hub; the token is HF_TOKEN, else the token file that
// `hf auth login` writes ($HF_TOKEN_PATH, else $HF_HOME/token); and
// HF_HUB_OFFLINE=1 forbids any request. Downloads resume where they were
// cut off (within a run, and across runs through partial files), failures
// are repeated under the shared retry policy (package retry), and every
// file is checked against the hash the hub lists for it: sha256 for files
// stored with Git LFS (the weights), the git blob id for the others.
//
// HFCache reads, without writing, a model that Hugging Face's own tools
// downloaded into their cache ($HF_HUB_CACHE, else $HF_HOME/hub).
//
// Nothing the hub says reaches a file name unchecked: file names must be
// plain relative paths and hashes must be hexadecimal of the right length,
// and files are written only inside the model's directory.
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

	"github.com/factreasoner/factreasoner-go/internal/endpoint"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/retry"
)

// DefaultEndpoint is the hub used when HF_ENDPOINT is unset.
const DefaultEndpoint = "https://huggingface.co"

// ErrOffline is the error of a request refused because the client is
// offline (HF_HUB_OFFLINE).
var ErrOffline = errors.New("HF_HUB_OFFLINE is set: no request to the hub")

// Client talks to a hub.
type Client struct {
	// Endpoint is the hub's root URL.
	Endpoint string
	// Token, when set, is sent as a bearer token.
	Token string
	// TokenSource says where Token came from ("$HF_TOKEN", a file), for
	// messages.
	TokenSource string
	// Offline refuses every request with ErrOffline; Store.Pull then
	// answers from models already pulled.
	Offline bool
	// HTTP is the client used (default: one with a 30 s timeout per
	// response header and none on the body, which may be gigabytes).
	HTTP *http.Client
	// Retry is how failed requests are repeated (a cut connection, 429,
	// 5xx): a download is taken up where it stopped. Nil is
	// retry.Default().
	Retry *retry.Policy
	// Progress, when set, is called as a file downloads.
	Progress func(file string, done, total int64)
	// UserAgent is sent with every request; default version.UserAgent(),
	// factreasoner-go/VERSION.
	UserAgent string
}

// NewClientFromEnv returns a client configured as Hugging Face's own
// tools are: the hub $HF_ENDPOINT (default huggingface.co), the token of
// Token ($HF_TOKEN, else the token file), offline when HF_HUB_OFFLINE
// says so.
func NewClientFromEnv() (*Client, error) {
	ep := os.Getenv(EnvEndpoint)
	if ep == "" {
		ep = DefaultEndpoint
	}
	if _, err := endpoint.Parse(ep); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvEndpoint, err)
	}
	tok, src, err := Token()
	if err != nil {
		return nil, err
	}
	return &Client{Endpoint: ep, Token: tok, TokenSource: src, Offline: Offline()}, nil
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

// url is the URL of a request: elem (escaped) joined to the endpoint's
// path, its query kept.
func (c *Client) url(elem ...string) (*url.URL, error) {
	base, err := endpoint.Parse(c.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	return endpoint.Join(base, elem...), nil
}

// shown is the endpoint as messages show it.
func (c *Client) shown() string { return redact.URL(c.endpoint()) }

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
// "owner/name"), fit to name a directory of the store.
func ValidRepoID(id string) bool {
	parts := strings.Split(id, "/")
	if len(parts) > 2 || id == "" || ValidPath(id) != nil {
		return false
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsAny(p, " \\:?#%") {
			return false
		}
	}
	return true
}

// maxListing bounds a file list's size.
const maxListing = 64 << 20

// Info fetches the file list of a revision (a branch, tag or commit). Every
// file name and hash in it is checked (ParseInfo).
func (c *Client) Info(ctx context.Context, repo, revision string) (*Info, error) {
	if !ValidRepoID(repo) {
		return nil, fmt.Errorf("%q is not a model repository id (owner/name)", repo)
	}
	if c.Offline {
		return nil, fmt.Errorf("hub %s: file list of %s: %w", c.shown(), repo, ErrOffline)
	}
	list, err := c.url("api/models", repo, "revision", url.PathEscape(revision))
	if err != nil {
		return nil, err
	}
	q := list.Query()
	q.Set("blobs", "true")
	list.RawQuery = q.Encode()
	u := list.String()
	body, err := retry.Do(ctx, c.Retry, func(int) ([]byte, error) {
		req, err := c.request(ctx, u)
		if err != nil {
			return nil, retry.Permanent(err)
		}
		resp, err := c.http().Do(req)
		if err != nil {
			return nil, c.netError(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, retry.ForStatus(c.statusError(resp, repo, revision, ""), resp)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxListing+1))
		if err != nil {
			return nil, fmt.Errorf("hub %s: reading the file list of %s: %w", c.shown(), repo, err)
		}
		if len(body) > maxListing {
			return nil, retry.Permanent(fmt.Errorf("hub %s: the file list of %s is over %d MiB", c.shown(), repo, maxListing>>20))
		}
		return body, nil
	})
	if err != nil {
		return nil, err
	}
	info, err := ParseInfo(body)
	if err != nil {
		// The listing may echo the token.
		return nil, fmt.Errorf("hub %s answered %s with %s", c.shown(), redact.URL(u), redact.String(err.Error(), c.Token))
	}
	if info.ID == "" {
		info.ID = repo
	}
	return info, nil
}

// ParseInfo reads a revision's file list as the hub's API gives it
// (/api/models/REPO/revision/REV?blobs=true). It checks every file name
// (ValidPath), size and hash, and the commit id, and refuses the whole
// list when one is wrong: a hub that lists a path out of the model's
// directory or a hash that is not one is not to be trusted with the rest.
func ParseInfo(body []byte) (*Info, error) {
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
	if err := json.Unmarshal(body, &raw); err != nil || raw.Siblings == nil {
		return nil, fmt.Errorf("something that is not a model's file list (%s): is HF_ENDPOINT a Hugging Face–compatible hub?", snippet(body))
	}
	if raw.SHA != "" && !validCommit(raw.SHA) {
		return nil, fmt.Errorf("a file list whose commit %q is not a commit id", clip(raw.SHA))
	}
	info := &Info{ID: raw.ID, SHA: strings.ToLower(raw.SHA)}
	seen := make(map[string]bool, len(raw.Siblings))
	for _, s := range raw.Siblings {
		f := File{Path: s.RFilename, Size: -1, BlobID: strings.ToLower(s.BlobID)}
		if s.Size != nil {
			f.Size = *s.Size
		}
		if s.LFS != nil {
			f.SHA256, f.Size = strings.ToLower(s.LFS.SHA256), s.LFS.Size
		}
		if err := validFile(f); err != nil {
			return nil, fmt.Errorf("a file list that cannot be trusted: %w", err)
		}
		if seen[f.Path] {
			return nil, fmt.Errorf("a file list that cannot be trusted: %s is listed twice", f.Path)
		}
		seen[f.Path] = true
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
		ua = version.UserAgent()
	}
	req.Header.Set("User-Agent", ua)
	return req, nil
}

// netError explains a request that got no answer.
func (c *Client) netError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // it repeats the URL
	}
	return redact.Wrap("hub "+c.shown(), err, c.Token)
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
	msg := fmt.Sprintf("hub %s: %s: HTTP %d", c.shown(), what, resp.StatusCode)
	if s := redact.String(snippet(body), c.Token); s != "" {
		msg += " (" + s + ")"
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		switch {
		case c.Token == "":
			msg += "; the repository may be private or gated: set HF_TOKEN to an access token, or log in with `hf auth login`"
		case c.TokenSource != "":
			msg += "; the token from " + c.TokenSource + " was sent: check that it grants access to this repository"
		default:
			msg += "; a token was sent: check that it grants access to this repository"
		}
	case http.StatusNotFound:
		msg += "; no such repository, revision or file"
	}
	return errors.New(msg)
}

// snippet is the start of a response body, for error messages, with
// anything that looks like a credential redacted.
func snippet(b []byte) string {
	s := redact.String(strings.Join(strings.Fields(string(b)), " "))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// ErrChecksum marks a download whose content does not match the hub's hash.
var ErrChecksum = errors.New("checksum mismatch")

// Download fetches one file of a repository at a commit into dest,
// resuming from dest's partial file when a previous attempt left one, and
// checks its size and hash. It returns the file's sha256. f must be as
// ParseInfo accepts it; the partial file lies beside dest.
func (c *Client) Download(ctx context.Context, repo, commit string, f File, dest string) (string, error) {
	if !ValidRepoID(repo) {
		return "", fmt.Errorf("%q is not a model repository id (owner/name)", repo)
	}
	if err := validFile(f); err != nil {
		return "", fmt.Errorf("%s: %w", repo, err)
	}
	if c.Offline {
		return "", fmt.Errorf("hub %s: %s/%s: %w", c.shown(), repo, f.Path, ErrOffline)
	}
	file, err := c.url(repo, "resolve", url.PathEscape(commit), escapePath(f.Path))
	if err != nil {
		return "", err
	}
	u := file.String()
	part := partialName(dest, f)
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return "", err
	}
	_, err = retry.Do(ctx, c.Retry, func(int) (struct{}, error) {
		return struct{}{}, c.fetch(ctx, u, repo, commit, f, part)
	})
	if err != nil {
		if !retry.IsPermanent(err) && ctx.Err() == nil {
			err = fmt.Errorf("%w; run the command again to resume", err)
		}
		return "", err
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

// fetch makes one attempt, appending to the partial file; it returns nil
// when the file is complete. Its errors are marked for the retry policy.
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
		return retry.Permanent(err)
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return fmt.Errorf("%s/%s: %w", repo, f.Path, c.netError(err))
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		if start, ok := rangeStart(resp.Header.Get("Content-Range")); !ok || start != have {
			return fmt.Errorf("hub %s: %s/%s: asked for bytes from %d, got Content-Range %q", c.shown(), repo, f.Path, have, clip(resp.Header.Get("Content-Range")))
		}
	case resp.StatusCode == http.StatusOK:
		// The whole file: the server ignored the range, or none was asked.
		flags = os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		have = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		os.Remove(part) // the partial file is not a prefix of this file
		return fmt.Errorf("hub %s: %s/%s: partial download does not fit; starting over", c.shown(), repo, f.Path)
	default:
		return retry.ForStatus(c.statusError(resp, repo, commit, f.Path), resp)
	}
	out, err := os.OpenFile(part, flags, 0o600)
	if err != nil {
		return retry.Permanent(err)
	}
	w := &progressWriter{w: out, done: have, total: f.Size, file: f.Path, report: c.Progress}
	body := io.Reader(resp.Body)
	if f.Size >= 0 {
		// Never more than the listed size (and one byte to notice more):
		// a server that sends more must not fill the disk.
		body = io.LimitReader(resp.Body, f.Size-have+1)
	}
	_, copyErr := io.Copy(w, body)
	if err := out.Close(); err != nil && copyErr == nil {
		copyErr = err
	}
	if copyErr != nil {
		return fmt.Errorf("hub %s: %s/%s: download cut at %d bytes: %w", c.shown(), repo, f.Path, w.done, copyErr)
	}
	if f.Size >= 0 && w.done > f.Size {
		os.Remove(part)
		return retry.Permanent(fmt.Errorf("hub %s: %s/%s: %w: the server sent more than the %d bytes it lists; the download was removed", c.shown(), repo, f.Path, ErrChecksum, f.Size))
	}
	if f.Size >= 0 && w.done < f.Size {
		return fmt.Errorf("hub %s: %s/%s: download cut at %d of %d bytes", c.shown(), repo, f.Path, w.done, f.Size)
	}
	return nil
}

// partialName is where a download in progress is kept: beside dest, named
// after the content expected (a hash validFile has checked is hexadecimal),
// so that a partial file of another revision is never resumed.
func partialName(dest string, f File) string {
	tag := f.SHA256
	if tag == "" {
		tag = f.BlobID
	}
	tag = tag[:min(len(tag), 16)]
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
