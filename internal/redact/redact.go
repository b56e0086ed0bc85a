// Package redact removes secrets from text meant for people: error
// messages, progress lines and summaries. A secret must never reach a
// terminal or a log because a server echoed a request back, or because a
// user put a key into a URL.
//
// It removes, wherever they appear in the text:
//   - the secrets the caller knows (an API key, a hub token);
//   - bearer credentials in running text (`Bearer sk-…`);
//   - the values of Authorization, Proxy-Authorization, X-API-Key and
//     api-key headers, as a server echoes them in an error body, in header
//     form (`Authorization: …`) or JSON form (`"authorization": "…"`);
//   - the userinfo of URLs (`https://user:key@host` → `https://REDACTED@host`);
//   - the values of query parameters that carry keys: key, api_key, apikey,
//     api-key, access_token, token, auth, password, secret, sig, signature.
package redact

import (
	"net/url"
	"regexp"
	"strings"
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
// too much) and the patterns of the package comment.
func String(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= 4 {
			s = strings.ReplaceAll(s, k, Mask)
		}
	}
	s = header.ReplaceAllString(s, "${1}${2}"+Mask)
	s = scheme.ReplaceAllString(s, "${1}${2}"+Mask)
	s = userinfo.ReplaceAllString(s, "${1}"+Mask+"@")
	s = query.ReplaceAllString(s, "${1}"+Mask)
	return s
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
