// Package redact removes secrets from text meant for people: error
// messages, progress lines and summaries. A secret must never reach a
// terminal or a log because a server echoed a request back, or because a
// user put a key into a URL.
//
// It removes, wherever they appear in the text:
//   - the secrets the caller knows (an API key, a hub token), also
//     URL-encoded or JSON-escaped, and their parts: a word that holds
//     PartLen bytes of a secret in a row, and a word at either end of the
//     text (where a message was cut) that is the start or the end of one;
//   - bearer credentials in running text (`Bearer sk-…`);
//   - the values of Authorization, Proxy-Authorization, X-API-Key and
//     api-key headers, as a server echoes them in an error body, in header
//     form (`Authorization: …`) or JSON form (`"authorization": "…"`);
//   - the userinfo of URLs (`https://user:key@host` → `https://REDACTED@host`);
//   - the values of query parameters that carry keys: key, api_key, apikey,
//     api-key, access_token, token, auth, password, secret, sig, signature.
//
// Credentials in a URL (Secrets) are known in every form a request carries
// them in: as typed (percent-encoded or not), decoded, and as the base64
// of "user:password" that an HTTP client sends in a Basic Authorization
// header, which a server may echo without the header's name.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Mask replaces each secret.
const Mask = "REDACTED"

var (
	// A bearer credential in running text; the word stays. Eight
	// characters at least, so that prose ("Bearer token required") stays.
	scheme = regexp.MustCompile(`(?i)\b(bearer)(\s+)[A-Za-z0-9\-._~+/=:]{8,}`)
	// A header or JSON field that carries a key, with its value, whatever
	// scheme word it starts with.
	header = regexp.MustCompile(`(?i)((?:proxy-)?authorization|x-api-key|api-key|x-goog-api-key)(["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;}&]+`)
	// The userinfo of a URL: everything between "scheme://" and the "@"
	// before the host.
	userinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@?#]+@`)
	// Query parameters that carry keys.
	query = regexp.MustCompile(`(?i)([?&;](?:key|api[_\-]?key|access[_\-]?token|token|auth|password|secret|sig|signature)=)[^&#\s"']+`)
)

// String returns s with every secret replaced by Mask: the given secrets
// (empty ones and ones shorter than 4 bytes are ignored: they would match
// too much), their parts, and the patterns of the package comment.
func String(s string, secrets ...string) string {
	return New(secrets...).String(s)
}

// PartLen is the length of a run of a secret's bytes that marks a word as
// holding part of it.
const PartLen = 8

// Redactor removes a set of secrets, and the patterns of the package
// comment, from text. A program makes one, gives it every secret it holds
// (Add), and passes every message through it before it is printed: the
// text may carry a server's answer, cut anywhere. It is safe for
// concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string            // as given, in order
	forms   []string            // the secrets as they may appear, longest first
	parts   map[string]struct{} // every PartLen-byte run of a form
}

// New returns a redactor that knows secrets.
func New(secrets ...string) *Redactor {
	r := &Redactor{parts: make(map[string]struct{})}
	r.Add(secrets...)
	return r
}

// Add makes r know more secrets; empty ones and ones shorter than 4 bytes
// are ignored.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range secrets {
		k = strings.TrimSpace(k)
		if len(k) < 4 || containsString(r.secrets, k) {
			continue
		}
		r.secrets = append(r.secrets, k)
		for _, f := range forms(k) {
			if containsString(r.forms, f) {
				continue
			}
			r.forms = append(r.forms, f)
			for i := 0; i+PartLen <= len(f); i++ {
				r.parts[f[i:i+PartLen]] = struct{}{}
			}
		}
	}
	// Longest first, so that a form that holds another is replaced whole.
	for i := 1; i < len(r.forms); i++ {
		for j := i; j > 0 && len(r.forms[j]) > len(r.forms[j-1]); j-- {
			r.forms[j], r.forms[j-1] = r.forms[j-1], r.forms[j]
		}
	}
}

// forms are the ways k may be written in a message: as it is,
// URL-encoded, JSON-escaped (slashes too, as PHP writes them, and HTML
// characters, as Go writes them) and quoted by Go's %q (log lines).
func forms(k string) []string {
	out := []string{k, url.QueryEscape(k), url.PathEscape(k), strings.ReplaceAll(k, "/", `\/`)}
	if q := strconv.Quote(k); len(q) > 2 {
		out = append(out, q[1:len(q)-1])
	}
	if j, err := json.Marshal(k); err == nil && len(j) > 2 {
		out = append(out, string(j[1:len(j)-1]))
	}
	return out
}

// Known returns the secrets r knows, as they were given (trimmed), in the
// order they were first given.
func (r *Redactor) Known() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]string(nil), r.secrets...)
}

// Contains reports whether s holds a secret r knows of PartLen bytes or
// more, in any form, or a word with PartLen of its bytes in a row. Only
// the secrets given count, not the patterns of the package comment, and
// not the shorter ones (a user name of a URL, matched anywhere, would
// refuse prose): it says whether text quotes a key the process holds (a
// model's answer that is not to be kept), not whether it looks like a
// credential.
func (r *Redactor) Contains(s string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, f := range r.forms {
		if len(f) >= PartLen && strings.Contains(s, f) {
			return true
		}
	}
	found := false
	eachWord(s, func(i, j int) bool {
		for k := i; k+PartLen <= j; k++ {
			if _, ok := r.parts[s[k:k+PartLen]]; ok {
				found = true
				return false
			}
		}
		return true
	})
	return found
}

// eachWord calls fn with the bounds of each word of s (a run of wordByte
// bytes), in order, until fn returns false.
func eachWord(s string, fn func(i, j int) bool) {
	for i := 0; i < len(s); {
		if !wordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && wordByte(s[j]) {
			j++
		}
		if !fn(i, j) {
			return
		}
		i = j
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// String returns s with every secret r knows, its parts, and the patterns
// of the package comment replaced by Mask.
func (r *Redactor) String(s string) string {
	r.mu.RLock()
	for _, f := range r.forms {
		s = strings.ReplaceAll(s, f, Mask)
	}
	if len(r.forms) > 0 {
		s = r.maskParts(s)
	}
	r.mu.RUnlock()
	s = header.ReplaceAllString(s, "${1}${2}"+Mask)
	s = scheme.ReplaceAllString(s, "${1}${2}"+Mask)
	s = userinfo.ReplaceAllString(s, "${1}"+Mask+"@")
	s = query.ReplaceAllString(s, "${1}"+Mask)
	return s
}

// wordByte reports whether c may be part of a secret's word: what keys,
// tokens and their URL and JSON escapes are made of.
func wordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~+/%\\", c) >= 0
}

// maskParts replaces each word of s that holds PartLen bytes of a secret
// in a row, and a word at either end of s that a secret starts or ends
// with (4 bytes at least: a message cut inside the secret), by Mask.
func (r *Redactor) maskParts(s string) string {
	var b strings.Builder
	last := 0 // s[:last] is in b
	eachWord(s, func(i, j int) bool {
		if r.secretWord(s[i:j], i == 0, j == len(s) || strings.HasPrefix(s[j:], "…")) {
			b.WriteString(s[last:i])
			b.WriteString(Mask)
			last = j
		}
		return true
	})
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// secretWord reports whether w holds part of a secret; atStart and atEnd
// say that w begins or ends the text, where a cut secret may show only
// its end or its start.
func (r *Redactor) secretWord(w string, atStart, atEnd bool) bool {
	for i := 0; i+PartLen <= len(w); i++ {
		if _, ok := r.parts[w[i:i+PartLen]]; ok {
			return true
		}
	}
	cut := strings.TrimRight(w, ".") // "sk-ab..." cut by hand
	if len(cut) < 4 || len(cut) >= PartLen || (!atStart && !atEnd) {
		return false
	}
	for _, f := range r.forms {
		if atEnd && strings.HasPrefix(f, cut) || atStart && strings.HasSuffix(f, w) {
			return true
		}
	}
	return false
}

// Writer returns a writer that writes what it is given to w, each write
// redacted (a secret split between two writes is caught by its parts).
func (r *Redactor) Writer(w io.Writer) io.Writer { return &writer{r: r, w: w} }

type writer struct {
	r *Redactor
	w io.Writer
}

// Fd is the file descriptor of the writer written to, so that a
// redacted terminal is still known as one; ^uintptr(0) when it has none.
func (w *writer) Fd() uintptr {
	if f, ok := w.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

func (w *writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, w.r.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Wrap returns err with the message prefix + ": " + err's message,
// redacted as String redacts it; the result still wraps err, so that
// errors.Is and errors.As see through it (a refused connection, a
// certificate error), while its message shows no secret.
func Wrap(prefix string, err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := String(err.Error(), secrets...)
	if prefix != "" {
		msg = prefix + ": " + msg
	}
	return &wrapped{msg: msg, err: err}
}

type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

// Secrets returns the secrets a URL carries: the userinfo (a user name may
// be a key), decoded and as typed in the URL when that differs
// (percent-encoded), the base64 of "user:password" that an HTTP client
// sends for it (Basic authentication: Go's client does so for a URL with
// userinfo), and the values of key-carrying query parameters.
func Secrets(raw string) []string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	add := func(s ...string) {
		for _, x := range s {
			if x != "" && !containsString(out, x) {
				out = append(out, x)
			}
		}
	}
	if u.User != nil {
		user := u.User.Username()
		pass, _ := u.User.Password()
		add(user, pass)
		if info, ok := rawUserinfo(raw); ok {
			typedUser, typedPass, _ := strings.Cut(info, ":")
			add(typedUser, typedPass)
		}
		basic := user + ":" + pass
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			add(enc.EncodeToString([]byte(basic)))
		}
	}
	for name, vs := range u.Query() {
		if query.MatchString("?" + name + "=x") {
			add(vs...)
		}
	}
	return out
}

// rawUserinfo is the userinfo of a URL as typed: what lies between
// "scheme://" and the last "@" of the authority.
func rawUserinfo(raw string) (string, bool) {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return "", false
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	i := strings.LastIndexByte(rest, '@')
	if i < 0 {
		return "", false
	}
	return rest[:i], true
}

// URL returns a URL fit to print: without userinfo and with the values of
// key-carrying query parameters masked. A string that does not parse as a
// URL is redacted as text.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return String(raw)
	}
	if u.User != nil {
		u.User = url.User(Mask)
	}
	return String(u.String())
}
