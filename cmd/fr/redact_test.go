package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The planted secrets: one of each kind the process holds.
const (
	plantedOpenAI = "sk-proj-PlantedOpenAIKey0123456789xyz"
	plantedSerper = "5e7a9c1b3d5f7a9c1b3d5f7a9c1b3d5f"
	plantedHF     = "hf_PlantedHubToken0123456789abcdef"
	plantedRemote = "nliPlantedRemoteKey0123456789"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := run(t, context.Background(), tt.args()...)
			msgs := stderr
			if err != nil {
				msgs += "\nfr: " + err.Error()
			}
			if !strings.Contains(msgs, tt.want) {
				t.Errorf("the answer was not reported (want %q):\n%s", tt.want, msgs)
			}
			for _, key := range []string{plantedOpenAI, plantedSerper, plantedHF, plantedRemote} {
				for i := 0; i+8 <= len(key); i++ {
					if strings.Contains(msgs, key[i:i+8]) {
						t.Fatalf("%q of a key shows:\n%s", key[i:i+8], msgs)
					}
				}
			}
		})
	}
}
