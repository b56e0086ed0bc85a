package retrieve

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/version"
)

// robotsRules prepares a robots.txt file for github.com/temoto/robotstxt
// so that it is read as RFC 9309 says:
//   - a group applies to the fetcher when its user-agent line names the
//     product token factreasoner-go (robotsAgent), not a prefix of it;
//   - the paths of allow and disallow rules are compared in one encoding
//     with the URL's path (robotsPath, §2.2.2): a rule written
//     /wiki/Café matches the link /wiki/Caf%C3%A9, and /%7Ejoe/ matches
//     /~joe/;
//   - the parseable rules are used (§2.2): the library refuses a whole
//     file for a rule before the first user-agent line or for a
//     crawl-delay it cannot read, and a file refused grants nothing. Rules
//     before the first user-agent line belong to no group and are
//     dropped; a crawl-delay (not in RFC 9309, and not used by the
//     fetcher) that is not a number of seconds becomes 0, kept in its
//     place so that the groups stay as they were;
//   - of an allow and a disallow rule that match a path equally long, the
//     allow rule is used (§2.2.2): the library uses the first listed, so
//     each group's disallow rules are moved after its allow rules.
func robotsRules(body []byte) []byte {
	lines := bytes.Split(body, []byte("\n"))
	var out, disallows [][]byte
	inGroup := false
	for _, line := range lines {
		key, value, ok := strings.Cut(string(line), ":")
		if !ok {
			out = append(out, line)
			continue
		}
		switch k := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(key, "\uFEFF"))); k {
		case "user-agent", "useragent":
			inGroup = true
			line = []byte(k + ": " + robotsAgent(value))
			out, disallows = append(out, disallows...), nil // the group before ends here if it had rules
		case "crawl-delay", "crawldelay":
			if !inGroup {
				continue
			}
			value, _, _ = strings.Cut(value, "#")
			if d, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err != nil || d < 0 || math.IsInf(d, 0) || math.IsNaN(d) {
				line = []byte(k + ": 0")
			}
		case "allow", "disallow":
			if !inGroup {
				continue
			}
			value, _, _ = strings.Cut(value, "#")
			line = []byte(k + ": " + robotsPath(strings.TrimSpace(value)))
			if k == "disallow" {
				disallows = append(disallows, line)
				continue
			}
		}
		out = append(out, line)
	}
	return bytes.Join(append(out, disallows...), []byte("\n"))
}

// robotsAgent is the value of a user-agent line as the fetcher's group is
// found (RFC 9309 §2.2.1: the product token, compared without regard to
// case): "*", version.Name for a line that names it (with or without a
// version after it, as Google reads "factreasoner-go/1.0"), and for any
// other robot a name that matches no prefix of version.Name, since the
// library would apply a group for "factreasoner" (a prefix) to
// factreasoner-go. Other robots' groups may then merge; none applies to
// the fetcher either way.
func robotsAgent(value string) string {
	value, _, _ = strings.Cut(value, "#")
	value = strings.TrimSpace(value)
	if value == "*" || strings.HasPrefix(value, "* ") || strings.HasPrefix(value, "*\t") {
		return "*"
	}
	token := value
	if i := strings.IndexFunc(value, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '_' || r == '-')
	}); i >= 0 {
		token = value[:i]
	}
	if strings.EqualFold(token, version.Name) {
		return version.Name
	}
	return "other-robots"
}

// robotsPath puts a URL's path and query, or a rule's path, in the form in
// which RFC 9309 §2.2.2 compares them: octets outside printable ASCII are
// percent-encoded, percent-encoded unreserved characters (letters, digits,
// "-", ".", "_", "~") are decoded, and other percent-encodings (reserved
// characters such as %2F and %3A, which differ from the characters
// themselves) keep their encoding with upper-case hex digits.
func robotsPath(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]):
			v := unhex(p[i+1])<<4 | unhex(p[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(hex[v>>4])
				b.WriteByte(hex[v&15])
			}
			i += 2
		case c <= ' ' || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// isUnreserved reports whether c is an unreserved character of RFC 3986.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
