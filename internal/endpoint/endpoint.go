// Package endpoint reads the base URL of a service the tool talks to (an
// LLM endpoint, an inference server, a model hub) and makes the URLs of its
// requests from it. A base URL is checked when it is read, so that a
// malformed one fails at once with one line rather than at every request;
// request paths are joined to its path (url.URL.JoinPath), so that a query
// it carries (Azure OpenAI's ?api-version=) stays a query.
package endpoint

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/redact"
)

// Parse reads a base URL: an absolute http or https URL with a host, a
// port that is a number from 1 to 65535 when one is written (an empty
// port, as in http://localhost:/v1, is an error), and no fragment.
// Messages show the URL redacted.
func Parse(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // it repeats the URL, unredacted
		}
		return nil, fmt.Errorf("%s is not a URL: %v", redact.URL(raw), redact.String(err.Error()))
	}
	shown := redact.URL(raw)
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%s is not an http:// or https:// URL", shown)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("%s names no host", shown)
	case strings.HasSuffix(u.Host, ":"):
		return nil, fmt.Errorf("%s has an empty port (write the port after the colon, or leave both out)", shown)
	case u.Fragment != "" || strings.HasSuffix(raw, "#"):
		return nil, fmt.Errorf("%s has a fragment (#…), which no request sends", shown)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%s has port %s: want 1 to 65535", shown, p)
		}
	}
	return u, nil
}

// Join returns the URL of a request: base with elem joined to its path
// (each element already escaped, as url.PathEscape makes it), its query
// kept.
func Join(base *url.URL, elem ...string) *url.URL {
	return base.JoinPath(elem...)
}

// WebLink reports whether link is an absolute http or https URL with a
// host: the only links a passage keeps. A search result may carry any
// other (javascript:, data:, file:), which a report would render as
// something to click.
func WebLink(link string) bool {
	u, err := url.Parse(strings.TrimSpace(link))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
