package redact

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	const key = "sk-proj-abc123XYZ"
	tests := []struct {
		name, in string
		secrets  []string
		want     string
	}{
		{"known key", "invalid key " + key + " given", []string{key}, "invalid key REDACTED given"},
		{"short secrets ignored", "a b c", []string{"", "a"}, "a b c"},
		{"bearer", "got Bearer " + key + " here", nil, "got Bearer REDACTED here"},
		{"header echo", "Authorization: Bearer " + key + "\nX", nil, "Authorization: REDACTED\nX"},
		{"json echo", `{"error": {"headers": {"authorization": "Bearer ` + key + `"}}}`, nil, `{"error": {"headers": {"authorization": "REDACTED"}}}`},
		{"basic", `Proxy-Authorization: Basic dXNlcjpwYXNz`, nil, `Proxy-Authorization: REDACTED`},
		{"x-api-key", `X-API-KEY: 0123456789abcdef`, nil, `X-API-KEY: REDACTED`},
		{"api-key json", `{"api-key":"0123456789"}`, nil, `{"api-key":"REDACTED"}`},
		{"userinfo", "POST https://user:" + key + "@api.example.com/v1/chat", nil, "POST https://REDACTED@api.example.com/v1/chat"},
		{"userinfo key only", "GET http://" + key + "@localhost:8000/v1", nil, "GET http://REDACTED@localhost:8000/v1"},
		{"query key", "GET https://x.org/search?q=a&key=AIzaSy123&num=3", nil, "GET https://x.org/search?q=a&key=REDACTED&num=3"},
		{"query api_key", "https://x.org/?api_key=abc&access_token=def", nil, "https://x.org/?api_key=REDACTED&access_token=REDACTED"},
		{"prose", "Bearer token required; token limit exceeded; Basic auth", nil, "Bearer token required; token limit exceeded; Basic auth"},
		{"harmless", "503 Service Unavailable: model overloaded, try later", nil, "503 Service Unavailable: model overloaded, try later"},
		{"no userinfo", "see https://example.com/a@b", nil, "see https://example.com/a@b"},
		{"email kept", "write to someone@example.org", nil, "write to someone@example.org"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.in, tt.secrets...)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if strings.Contains(got, key) {
				t.Errorf("the key survived: %q", got)
			}
		})
	}
}

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:secret@host.example/v1", "https://REDACTED@host.example/v1"},
		{"http://localhost:8000/v1", "http://localhost:8000/v1"},
		{"https://host/api?key=abcdef&q=1", "https://host/api?key=REDACTED&q=1"},
		{"::not a url user:pw@x", "::not a url user:pw@x"},
	}
	for _, tt := range tests {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
