package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// The planted secrets: one of each kind the process holds.
const (
	plantedOpenAI = "sk-proj-PlantedOpenAIKey0123456789xyz"
	plantedSerper = "5e7a9c1b3d5f7a9c1b3d5f7a9c1b3d5f"
	plantedHF     = "hf_PlantedHubToken0123456789abcdef"
	plantedRemote = "nliPlantedRemoteKey0123456789"
	// plantedRemote as a URL may carry it, some bytes percent-encoded.
	plantedRemoteTyped = "nliPlanted%52emoteKey0123456789"
)

// echoServer answers every request with status and body, the body made by
// body from the request.
func echoServer(t *testing.T, status int, contentType string, body func(r *http.Request) string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		fmt.Fprint(w, body(r))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// padTo puts s after enough filler that it starts at byte n of a message,
// so that a message cut near n cuts the secret.
func padTo(n int, s string) string { return strings.Repeat("x ", n/2) + s + " and more text after it" }

// TestRedactedMessages: each secret the process holds, planted by a server
// in each kind of answer (a 200 with a text body, an error object echoing
// it, the hub's file listing, a model's answer quoting it, Serper's
// messages, an inference server's error), whole or where a message cuts
// it, shows in no message of fr: not whole, and no 8 bytes of it in a row.
func TestRedactedMessages(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	t.Setenv("OPENAI_API_KEY", plantedOpenAI)
	t.Setenv("SERPER_API_KEY", plantedSerper)
	t.Setenv("HF_TOKEN", plantedHF)
	t.Setenv("HF_HUB_OFFLINE", "")
	raw := writeFile(t, "raw.jsonl", rawRecord+"\n")
	atoms := writeFile(t, "atoms.jsonl", `{"input": "Q", "output": "Ruth Adair was born in Tulsa.", "topic": "Ruth Adair", "atoms": [{"id": "a0", "text": "Ruth Adair was born in Tulsa."}]}`+"\n")
	llm := func(url string) []string {
		return []string{"atomize", "--atomizer", "llm", "--revise=false", "--llm-model", "m", "--llm-base-url", url, "--llm-retries", "0", "--llm-reask", "0", "--llm-cache", "off", raw}
	}
	chat := func(content string) string {
		return fmt.Sprintf(`{"choices": [{"message": {"role": "assistant", "content": %q}, "finish_reason": "stop"}]}`, content)
	}
	serper := func(url string) []string {
		return []string{"retrieve", "--source", "serper", "--serper-endpoint", url, "--retries", "0", "--retrieval-cache", "off", atoms}
	}
	tests := []struct {
		name string
		args func() []string
		env  map[string]string
		want string // in the messages: the answer was reported
	}{
		{"llm: 200 with a text body", func() []string {
			return llm(echoServer(t, 200, "text/plain", func(r *http.Request) string {
				return "you sent " + r.Header.Get("Authorization") + " and key " + plantedOpenAI
			}) + "/v1")
		}, nil, "not a chat completion"},
		{"llm: 200 with a text body, key cut", func() []string {
			return llm(echoServer(t, 200, "text/plain", func(*http.Request) string { return padTo(190, plantedOpenAI) }) + "/v1")
		}, nil, "not a chat completion"},
		{"llm: 200 with an error object", func() []string {
			return llm(echoServer(t, 200, "application/json", func(*http.Request) string {
				return `{"error": {"message": "Incorrect API key provided: ` + plantedOpenAI + `", "type": "invalid_request_error"}}`
			}) + "/v1")
		}, nil, "Incorrect API key"},
		{"llm: 401 with an error object", func() []string {
			return llm(echoServer(t, 401, "application/json", func(*http.Request) string {
				return `{"error": {"message": "Incorrect API key provided: ` + padTo(180, plantedOpenAI) + `"}}`
			}) + "/v1")
		}, nil, "401"},
		{"llm: the model's answer quotes the key", func() []string {
			return llm(echoServer(t, 200, "application/json", func(*http.Request) string {
				return chat("I will not split this. By the way, your key is " + plantedOpenAI + ".")
			}) + "/v1")
		}, nil, "could not be read"},
		{"llm: the model's answer quotes the key, cut", func() []string {
			return llm(echoServer(t, 200, "application/json", func(*http.Request) string {
				return chat("- Ruth Adair was born in Tulsa.\n" + padTo(160, plantedOpenAI) + "\n- She died in 2015.")
			}) + "/v1")
		}, nil, "could not be read"},
		{"hub: the file listing echoes the token", func() []string {
			url := echoServer(t, 200, "application/json", func(r *http.Request) string {
				return `{"detail": "token ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + ` has no access", "token": "` + plantedHF + `"}`
			})
			t.Setenv("HF_ENDPOINT", url)
			return []string{"models", "pull", "owner/model"}
		}, nil, "not a model's file list"},
		{"hub: the file listing cuts the token", func() []string {
			url := echoServer(t, 200, "application/json", func(*http.Request) string { return `{"detail": "` + padTo(175, plantedHF) + `"}` })
			t.Setenv("HF_ENDPOINT", url)
			return []string{"models", "pull", "owner/model"}
		}, nil, "not a model's file list"},
		{"serper: 403 message cut in the key", func() []string {
			return serper(echoServer(t, 403, "application/json", func(*http.Request) string {
				return fmt.Sprintf(`{"message": %q, "statusCode": 403}`, padTo(190, plantedSerper))
			}))
		}, nil, "403"},
		{"serper: a text body with the key", func() []string {
			return serper(echoServer(t, 400, "text/html", func(r *http.Request) string { return "<p>bad key " + r.Header.Get("X-API-KEY") + "</p>" }))
		}, nil, "400"},
		{"serper: a text body cut in the key", func() []string {
			return serper(echoServer(t, 502, "text/html", func(*http.Request) string { return padTo(180, plantedSerper) }))
		}, nil, "502"},
		{"serper: an error in a 200", func() []string {
			return serper(echoServer(t, 200, "application/json", func(*http.Request) string {
				return `{"message": "key ` + plantedSerper + ` has no credits", "statusCode": 400}`
			}))
		}, nil, "credits"},
		{"remote nli: the server echoes the credentials", func() []string {
			url := echoServer(t, 500, "application/json", func(r *http.Request) string {
				user, pass, _ := r.BasicAuth()
				return `{"error": "user ` + user + ` with password ` + pass + ` is not ready"}`
			})
			url = strings.Replace(url, "http://", "http://nliuser:"+plantedRemote+"@", 1)
			return []string{"score", "--nli", "remote", "--nli-model", tinyRoberta, "--nli-remote-model", "m", "--llm-retries", "0", "--nli-endpoint", url, exampleFile}
		}, nil, "not ready"},
		{"remote nli: the server echoes the Basic credentials bare", func() []string {
			url := echoServer(t, 500, "application/json", func(r *http.Request) string {
				return `{"error": "credentials ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Basic ") + ` are not ready"}`
			})
			url = strings.Replace(url, "http://", "http://nliuser:"+plantedRemote+"@", 1)
			return []string{"score", "--nli", "remote", "--nli-model", tinyRoberta, "--nli-remote-model", "m", "--llm-retries", "0", "--nli-endpoint", url, exampleFile}
		}, nil, "not ready"},
		{"llm: user:pass in the base URL, percent-encoded, echoed as base64 and as typed", func() []string {
			url := echoServer(t, 400, "application/json", func(r *http.Request) string {
				return `{"error": {"message": "auth ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Basic ") + ` and nliuser:` + plantedRemoteTyped + ` refused"}}`
			})
			return llm(strings.Replace(url, "http://", "http://nliuser:"+plantedRemoteTyped+"@", 1) + "/v1")
		}, map[string]string{"OPENAI_API_KEY": ""}, "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			_, stderr, err := run(t, context.Background(), tt.args()...)
			msgs := stderr
			if err != nil {
				msgs += "\nfr: " + err.Error()
			}
			if !strings.Contains(msgs, tt.want) {
				t.Errorf("the answer was not reported (want %q):\n%s", tt.want, msgs)
			}
			for _, key := range []string{plantedOpenAI, plantedSerper, plantedHF, plantedRemote, base64.StdEncoding.EncodeToString([]byte("nliuser:" + plantedRemote))} {
				for i := 0; i+8 <= len(key); i++ {
					if strings.Contains(msgs, key[i:i+8]) {
						t.Fatalf("%q of a key shows:\n%s", key[i:i+8], msgs)
					}
				}
			}
		})
	}
}

// runChild runs fr in a process of its own (the test binary as fr, see
// TestMain) with env added, and returns its stdout and stderr: for what
// only a whole process shows (Go's standard logger, the exit status).
func runChild(t *testing.T, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	err := cmd.Run()
	return out.String(), errw.String(), err
}

// TestGoHTTPLogRedacted: a server that sends bytes after its answer, on a
// connection the client keeps for the next request, makes Go's HTTP
// client log them ("Unsolicited response received on idle HTTP
// channel"), through the standard logger that nothing of fr's writes to.
// The bytes here echo the request's Authorization header and the key: the
// line still reaches stderr, with neither.
func TestGoHTTPLogRedacted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	answer := `{"choices": [{"message": {"role": "assistant", "content": "- Ruth Adair was born in Tulsa."}, "finish_reason": "stop"}]}`
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					// The answer, and after it, in the same write (so that
					// the client finds it before it sends again), what a
					// broken proxy may send.
					fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"+
						"HTTP/1.1 200 OK\r\nX-Echo: %s %s\r\nContent-Length: 0\r\n\r\n",
						len(answer), answer, req.Header.Get("Authorization"), plantedOpenAI)
				}
			}()
		}
	}()
	var records strings.Builder
	for range 4 {
		records.WriteString(rawRecord + "\n")
	}
	raw := writeFile(t, "raw.jsonl", records.String())
	// The child lives on after each answer (the next records, the
	// output), so that the client's reading goroutine finds the bytes.
	_, stderr, err := runChild(t, []string{"OPENAI_API_KEY=" + plantedOpenAI, "FACTREASONER_CACHE=" + t.TempDir()},
		"atomize", "--atomizer", "llm", "--revise=false", "--llm-model", "m", "--llm-base-url", "http://"+ln.Addr().String()+"/v1",
		"--llm-retries", "0", "--llm-timeout", "10s", "--llm-cache", "off", "--llm-concurrency", "1", raw)
	if !strings.Contains(stderr, "Unsolicited response") {
		t.Fatalf("the client did not log the bytes after the answer (err %v):\n%s", err, stderr)
	}
	for i := 0; i+8 <= len(plantedOpenAI); i++ {
		if strings.Contains(stderr, plantedOpenAI[i:i+8]) {
			t.Fatalf("%q of the key shows:\n%s", plantedOpenAI[i:i+8], stderr)
		}
	}
}

// TestAnswerQuotingSecretNotKept: an atomizer's answer that is readable
// but quotes a secret the process holds (here Serper's key, which the
// LLM endpoint never saw) is not written to the output nor to the LLM
// cache, and shows on no stream: it is asked again with a reminder, and a
// record whose answers keep quoting it fails.
func TestAnswerQuotingSecretNotKept(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("FACTREASONER_CACHE", cache)
	t.Setenv("OPENAI_API_KEY", plantedOpenAI)
	t.Setenv("SERPER_API_KEY", plantedSerper)
	for _, complies := range []bool{false, true} {
		srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
			if complies && strings.Contains(r.Last(), "without repeating any key") {
				return llmtest.Reply{Content: `["Ruth Adair was born in Tulsa."]`}
			}
			return llmtest.Reply{Content: `["Ruth Adair was born in Tulsa.", "Her key is ` + plantedSerper + `."]`}
		})
		out := filepath.Join(t.TempDir(), "out.jsonl")
		stdout, stderr, err := run(t, context.Background(), "atomize", "--atomizer", "llm", "--revise=false", "--llm-model", "m",
			"--llm-base-url", srv.BaseURL(), "--llm-reask", "1", "--skip-invalid", "-o", out, writeFile(t, "raw.jsonl", rawRecord+"\n"))
		if complies != (err == nil) {
			t.Errorf("complies %v: error %v\n%s", complies, err, stderr)
		}
		written, _ := os.ReadFile(out)
		if complies != strings.Contains(string(written), "born in Tulsa") {
			t.Errorf("complies %v: output %q", complies, written)
		}
		cached, err := os.ReadFile(filepath.Join(cache, "llm-cache.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		for where, text := range map[string]string{"stdout": stdout, "stderr": stderr, "the output": string(written), "the LLM cache": string(cached)} {
			if strings.Contains(text, plantedSerper[:8]) || strings.Contains(text, plantedSerper[20:28]) {
				t.Errorf("complies %v: %s holds the key", complies, where)
			}
		}
	}
}
