package endpoint

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct{ raw, want string }{ // want: "" for accepted, else a part of the error
		{"https://api.openai.com/v1", ""},
		{"http://localhost:8000/v1", ""},
		{" http://127.0.0.1:11434/v1/ ", ""},
		{"http://[::1]:8080", ""},
		{"https://x.openai.azure.com/openai/deployments/d?api-version=2024-02-01", ""},
		{"http://localhost:/v1", "empty port"},
		{"http://localhost:0/v1", "port 0"},
		{"http://localhost:70000/v1", "port 70000"},
		{"http://localhost:http/v1", "not a URL"},
		{"localhost:8000/v1", "not an http"},
		{"ftp://x.org", "not an http"},
		{"http:///v1", "no host"},
		{"http://:8080/v1", "no host"},
		{"http://host/v1#frag", "fragment"},
		{"http://user:s3cr3tpassw0rd@host:/v1", "empty port"},
		{"", "not an http"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.raw)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Parse(%q): %v", tt.raw, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Parse(%q) = %v, want an error saying %q", tt.raw, err, tt.want)
		case err != nil && strings.Contains(err.Error(), "s3cr3t"):
			t.Errorf("Parse(%q) shows the password: %v", tt.raw, err)
		}
	}
}

func TestJoin(t *testing.T) {
	tests := []struct {
		base string
		elem []string
		want string
	}{
		{"https://api.openai.com/v1", []string{"chat/completions"}, "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/v1/", []string{"chat/completions"}, "https://api.openai.com/v1/chat/completions"},
		{"https://x.openai.azure.com/openai/deployments/d?api-version=2024-02-01", []string{"chat/completions"},
			"https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-02-01"},
		{"http://localhost:8000", []string{"v2/models", "a%2Fb", "infer"}, "http://localhost:8000/v2/models/a%2Fb/infer"},
		{"http://host/root?k=v", []string{"health"}, "http://host/root/health?k=v"},
		{"http://00", []string{"chat/completions"}, "http://00/chat/completions"},
	}
	for _, tt := range tests {
		base, err := Parse(tt.base)
		if err != nil {
			t.Fatal(err)
		}
		if got := Join(base, tt.elem...).String(); got != tt.want {
			t.Errorf("Join(%s, %q) = %s, want %s", tt.base, tt.elem, got, tt.want)
		}
	}
}

// FuzzParse: whatever Parse accepts is an http(s) URL with a host, and
// joining a path to it keeps its query.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"http://localhost:8000/v1", "https://h/p?api-version=1", "http://h:/x", "http://[::1]:1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := Parse(raw)
		if err != nil {
			return
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			t.Fatalf("accepted %q", raw)
		}
		j := Join(u, "chat/completions")
		if j.RawQuery != u.RawQuery || !strings.HasSuffix(strings.SplitN(j.String(), "?", 2)[0], "/chat/completions") {
			t.Fatalf("Join(%q) = %q", raw, j)
		}
	})
}
