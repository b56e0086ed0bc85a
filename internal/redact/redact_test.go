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

// TestRedactor: a known secret is removed in every form a server may echo
// it in, whole or cut, and text without it is left alone.
func TestRedactor(t *testing.T) {
	const (
		openai = "sk-proj-Abc123Def456Ghi789"
		hf     = "hf_QwErTyUiOpAsDfGhJkL"
		serper = "0123456789abcdef0123456789abcdef"
		slash  = "ab/cd+ef=gh/ij+kl"
	)
	r := New(openai, hf)
	r.Add(serper, slash, "", "abc")
	tests := []struct{ name, in, want string }{
		{"whole", "invalid key " + openai + ".", "invalid key REDACTED."},
		{"in JSON", `{"error": {"message": "Incorrect API key provided: ` + openai + `"}}`, `{"error": {"message": "Incorrect API key provided: REDACTED"}}`},
		{"url-encoded", "GET /x?k=" + "ab%2Fcd%2Bef%3Dgh%2Fij%2Bkl" + " failed", "GET /x?k=REDACTED failed"},
		{"json-escaped slashes", `"key": "ab\/cd+ef=gh\/ij+kl"`, `"key": "REDACTED"`},
		{"cut with an ellipsis", `body starts "your key sk-proj-Ab…"`, `body starts "your key REDACTED…"`},
		{"cut at the end", "your key is sk-pr", "your key is REDACTED"},
		{"cut by hand", "your key is sk-pro...", "your key is REDACTED"},
		{"end of a key at the start", "Ghi789 was refused", "REDACTED was refused"},
		{"part inside", "token=xxhf_QwErTyUiOpyy", "token=REDACTED"},
		{"part of serper's key", "key 89abcdef0123 is not valid", "key REDACTED is not valid"},
		{"short words stay", "sk is a prefix; hf_ too; 0123 a number", "sk is a prefix; hf_ too; 0123 a number"},
		{"a short start in the middle stays", "see sk-p here", "see sk-p here"},
		{"harmless", "503 Service Unavailable: model overloaded", "503 Service Unavailable: model overloaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
	var b strings.Builder
	w := r.Writer(&b)
	if n, err := w.Write([]byte("key " + hf + "\n")); err != nil || n != len(hf)+5 {
		t.Errorf("Write: %d, %v", n, err)
	}
	if b.String() != "key REDACTED\n" {
		t.Errorf("Writer wrote %q", b.String())
	}
}

func TestSecrets(t *testing.T) {
	tests := []struct {
		url  string
		want []string
	}{
		// dXNlcjpwYTU1d29yZA== is base64("user:pa55word"), as Go's client
		// sends it in "Authorization: Basic …".
		{"https://user:pa55word@host/v1?api-key=k3y&q=1", []string{"user", "pa55word", "dXNlcjpwYTU1d29yZA==", "dXNlcjpwYTU1d29yZA", "k3y"}},
		// Percent-encoded as typed, and decoded; base64 of the decoded pair.
		{"http://us%65r:p%40ss%2Fw0rd@host", []string{"user", "p@ss/w0rd", "us%65r", "p%40ss%2Fw0rd", "dXNlcjpwQHNzL3cwcmQ=", "dXNlcjpwQHNzL3cwcmQ"}},
		// A key as the user name alone: sent as base64("key:").
		{"http://sk-abcdefgh@localhost:8000/v1", []string{"sk-abcdefgh", "c2stYWJjZGVmZ2g6"}},
		{"http://localhost:8000/v1", nil},
	}
	for _, tt := range tests {
		got := Secrets(tt.url)
		for _, w := range tt.want {
			if !containsString(got, w) {
				t.Errorf("Secrets(%q) = %q, lacks %q", tt.url, got, w)
			}
		}
		if len(tt.want) == 0 && len(got) != 0 {
			t.Errorf("Secrets of a plain URL = %v", got)
		}
	}
}

// TestURLCredentialForms: the credentials of an endpoint URL, known as
// Secrets finds them, are removed from a message in every form a server
// may echo them in: decoded, percent-encoded as typed, and base64 as in a
// Basic Authorization header echoed without its name.
func TestURLCredentialForms(t *testing.T) {
	const endpoint = "http://nliuser:s3cr%2Ft%40Passw0rd99@127.0.0.1:9/v2"
	r := New(Secrets(endpoint)...)
	basic := "bmxpdXNlcjpzM2NyL3RAUGFzc3cwcmQ5OQ==" // base64("nliuser:s3cr/t@Passw0rd99")
	for _, msg := range []string{
		"you sent " + basic,
		"credentials " + strings.TrimRight(basic, "=") + " refused",
		`{"auth": "Basic ` + basic + `"}`,
		"password s3cr/t@Passw0rd99 is wrong",
		"password s3cr%2Ft%40Passw0rd99 is wrong",
		`log: starting with "s3cr/t@Passw0rd99"`,
	} {
		got := r.String(msg)
		for _, s := range []string{basic[:16], "Passw0rd99", "s3cr/t", "s3cr%2F"} {
			if strings.Contains(got, s) {
				t.Errorf("String(%q) = %q: %q survives", msg, got, s)
			}
		}
	}
}

// TestContains: text that holds a known secret, whole, in another form or
// in part, is found; other text, credential-shaped or not, is not.
func TestContains(t *testing.T) {
	const key = "sk-proj-Abc123Def456Ghi789"
	r := New(key, "user")
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"Ruth Adair was born in Tulsa.", false},
		{"the key is " + key, true},
		{"- an atom\n- key Abc123Def456 in it", true},
		{"partial sk-proj-Ab", true},
		{"a cut start at the end: sk-p", false},
		{"user, a short secret, is ignored", false},
		{"Bearer sk-other-0123456789", false},
		{"sk-proj is a prefix", false},
	} {
		if got := r.Contains(tt.in); got != tt.want {
			t.Errorf("Contains(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if New().Contains("anything " + key) {
		t.Error("a redactor without secrets found one")
	}
	if got := r.Known(); len(got) != 2 || got[0] != key || got[1] != "user" {
		t.Errorf("Known() = %q", got)
	}
}

// FuzzRedactor: whatever text a secret is planted in, and wherever the
// text is then cut, no PartLen bytes of the secret in a row survive.
func FuzzRedactor(f *testing.F) {
	f.Add("sk-proj-Abc123Def456Ghi789", "error: ", " was refused", uint16(20))
	f.Add("0123456789abcdef0123456789abcdef", `{"message": "`, `"}`, uint16(5))
	f.Add("hf_QwErTyUiOpAsDfGhJkL", "", "", uint16(0))
	f.Fuzz(func(t *testing.T, key, before, after string, cut uint16) {
		if len(key) < PartLen || strings.Contains(Mask, key[:PartLen]) {
			return
		}
		for i := 0; i < len(key); i++ {
			if !wordByte(key[i]) {
				return // keys are words
			}
		}
		text := before + key + after
		text = text[:int(cut)%(len(text)+1)]
		got := New(key).String(text)
		for i := 0; i+PartLen <= len(key); i++ {
			if strings.Contains(got, key[i:i+PartLen]) && !strings.Contains(before+after, key[i:i+PartLen]) {
				t.Fatalf("%q survives in %q (from %q)", key[i:i+PartLen], got, text)
			}
		}
	})
}
