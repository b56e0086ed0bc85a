package main

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/nettest"
)

// closedPort returns a loopback address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestUnreachableEndpoint: an endpoint that is not there (a refused
// connection) or a malformed endpoint URL (an empty port) fails at the
// first request with one line, the error: no retry notices, no summaries
// of work that did not happen.
func TestUnreachableEndpoint(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	raw := writeFile(t, "raw.jsonl", rawRecord+"\n")
	addr := closedPort(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"llm refused", []string{"score", "--nli", "llm", "--atomizer", "sentences", "--llm-model", "m", "--llm-base-url", "http://" + addr + "/v1", raw}, "connection refused"},
		{"atomizer refused", []string{"atomize", "--atomizer", "llm", "--llm-model", "m", "--llm-base-url", "http://" + addr + "/v1", raw}, "connection refused"},
		{"llm empty port", []string{"score", "--nli", "llm", "--atomizer", "sentences", "--llm-model", "m", "--llm-base-url", "http://localhost:/v1", raw}, "empty port"},
		{"remote nli refused", []string{"score", "--nli", "remote", "--nli-model", tinyRoberta, "--nli-remote-model", "m", "--nli-endpoint", "http://" + addr, exampleFile}, "connection refused"},
		{"remote nli empty port", []string{"score", "--nli", "remote", "--nli-model", tinyRoberta, "--nli-remote-model", "m", "--nli-endpoint", "http://localhost:", exampleFile}, "empty port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := run(t, context.Background(), tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q\n%s", err, tt.want, stderr)
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "attempts") {
				t.Errorf("the error is not one line of one attempt: %q", err)
			}
			if stderr != "" {
				t.Errorf("stderr holds more than the error:\n%s", stderr)
			}
		})
	}
}

// TestFetchPrivateHint: pages refused for their address are counted, and
// fr says which flag allows them.
func TestFetchPrivateHint(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	t.Setenv("SERPER_API_KEY", e2eSerperKey)
	serper, _ := webFakes(t)
	in := writeTemp(t, "in.jsonl", bornRecord)
	_, stderr, err := run(t, context.Background(), "retrieve", "--source", "serper", "--serper-endpoint", serper.URL, "--fetch-pages", "--retrieval-cache", "off", in)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "private or local address") || !strings.Contains(stderr, "--fetch-private allows them") {
		t.Errorf("stderr does not name --fetch-private for the refused pages:\n%s", stderr)
	}
}

// TestSilentEndpoint: a server that accepts the connection and never
// answers is told after --first-byte-timeout, in one line that says so,
// without a retry, for the LLM endpoint (asked for its models before the
// first request), a remote NLI server, Wikipedia and fr kb build's
// embeddings endpoint (whose password is never shown).
func TestSilentEndpoint(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	raw := writeFile(t, "raw.jsonl", rawRecord+"\n")
	atoms := writeFile(t, "atoms.jsonl", `{"input": "Q", "output": "Ruth Adair was born in Tulsa.", "topic": "Ruth Adair", "atoms": [{"id": "a0", "text": "Ruth Adair was born in Tulsa."}]}`+"\n")
	addr := nettest.Silent(t)
	fast := []string{"--first-byte-timeout", "200ms"}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"llm", append([]string{"atomize", "--atomizer", "llm", "--llm-model", "m", "--llm-base-url", "http://" + addr + "/v1"}, append(fast, raw)...)},
		{"remote nli", append([]string{"score", "--nli", "remote", "--nli-model", tinyRoberta, "--nli-remote-model", "m", "--nli-endpoint", "http://" + addr}, append(fast, exampleFile)...)},
		{"wikipedia", append([]string{"retrieve", "--source", "wikipedia", "--wikipedia-endpoint", "http://" + addr + "/w/api.php", "--retrieval-cache", "off"}, append(fast, atoms)...)},
		// fr kb build's embeddings client, its endpoint with a password.
		{"embeddings", append([]string{"kb", "build", "--embed-model", "m", "--embed-endpoint", "http://user:embedpass@" + addr + "/v1",
			"-o", filepath.Join(t.TempDir(), "kb.db")}, append(fast, writeFile(t, "Ruth Adair.txt", "Ruth Adair was born in Tulsa."))...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := run(t, context.Background(), tt.args...)
			if err == nil || !strings.Contains(err.Error(), "sent no answer within 200ms") || !strings.Contains(err.Error(), addr) {
				t.Fatalf("error %v\n%s", err, stderr)
			}
			if strings.Contains(err.Error()+stderr, "embedpass") {
				t.Errorf("the endpoint's password is shown:\n%s\n%v", stderr, err)
			}
			if strings.Contains(err.Error(), "attempts") || strings.Contains(stderr, "retrying") {
				t.Errorf("retried:\n%s\n%v", stderr, err)
			}
		})
	}
}
