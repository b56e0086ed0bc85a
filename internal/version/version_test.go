package version

import (
	"regexp"
	"testing"
)

func TestFromBuild(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", Fallback},
		{"(devel)", Fallback},
		{"v1.2.3", "1.2.3"},
		{"v0.0.0-20250102030405-abcdefabcdef+dirty", "0.0.0-20250102030405-abcdefabcdef+dirty"},
	}
	for _, tt := range tests {
		if got := fromBuild(tt.in); got != tt.want {
			t.Errorf("fromBuild(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestUserAgent: the header value is one product token, name/version, as
// RFC 9110 defines it (no spaces, no characters outside tchar).
func TestUserAgent(t *testing.T) {
	ua := UserAgent()
	if !regexp.MustCompile(`^factreasoner-go/[0-9A-Za-z.+\-]+$`).MatchString(ua) {
		t.Errorf("User-Agent %q is not a product token factreasoner-go/VERSION", ua)
	}
}
