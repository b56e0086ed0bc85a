// Package llmtest is an OpenAI-compatible chat-completion server for tests:
// it runs on loopback (httptest), answers with whatever the test's function
// says, including token log probabilities, error statuses, garbage and
// hangs, and records every request it gets and how many were in flight at
// once.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Request is a request as the server received it.
type Request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature"`
	Seed        *int      `json:"seed"`
	MaxTokens   int       `json:"max_tokens"`
	Logprobs    bool      `json:"logprobs"`
	N           int       `json:"n"` // answers asked for; 0 when not sent
	// Raw is the whole body, for checks on fields not modelled here.
	Raw map[string]any `json:"-"`
	// Authorization is the request's Authorization header.
	Authorization string `json:"-"`
	Path          string `json:"-"`
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Last returns the content of the last message.
func (r Request) Last() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// Reply is what the server answers to one request.
type Reply struct {
	Status int               // HTTP status; 0 means 200
	Header map[string]string // extra response headers
	Body   string            // when non-empty, sent as is instead of a chat completion

	Content string
	// Tokens are the answer's tokens; when nil and the request asked for
	// logprobs, Tokenize(Content, -0.01) is used.
	Tokens     []Token
	NoLogprobs bool // answer without a logprobs field even when asked
	// FinishReason is sent as the choice's finish_reason; "stop" when
	// empty ("length" says the answer was cut off at max_tokens).
	FinishReason string

	Delay time.Duration // wait before answering
	Hang  bool          // never answer (until the client gives up)

	// Choices, when not empty, are the answers of a request that asked
	// for several (Request.N), sent in place of this reply's own; only
	// their Content, Tokens, NoLogprobs and FinishReason count.
	Choices []Reply
}

// Token is one answer token; a nil Logprob is sent as JSON null.
type Token struct {
	Text    string
	Logprob *float64
}

// LP returns a pointer to a log probability, for Token literals.
func LP(v float64) *float64 { return &v }

// Tokenize cuts s into tokens the way a subword tokenizer might: a word
// keeps its leading space, and words longer than four bytes are cut into
// pieces of three, so that labels such as "entailment" span several
// tokens. Every token gets logprob lp.
func Tokenize(s string, lp float64) []Token {
	var out []Token
	for len(s) > 0 {
		// one word with its leading whitespace or one punctuation mark
		i := 0
		for i < len(s) && (s[i] == ' ' || s[i] == '\n') {
			i++
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if j == i && j < len(s) {
			j++ // punctuation
		}
		word := s[:j]
		s = s[j:]
		for len(word) > 4 {
			out = append(out, Token{Text: word[:3], Logprob: LP(lp)})
			word = word[3:]
		}
		out = append(out, Token{Text: word, Logprob: LP(lp)})
	}
	return out
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// Server is a running fake endpoint.
type Server struct {
	*httptest.Server
	answer func(n int, r Request) Reply

	mu       sync.Mutex
	requests []Request

	n           atomic.Int64
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
}

// New starts a server that answers the n-th request (from 0) with
// answer(n, request). It is closed when the test ends.
func New(t testing.TB, answer func(n int, r Request) Reply) *Server {
	s := &Server{answer: answer}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the URL to configure clients with, /v1 included.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count is the number of requests received so far.
func (s *Server) Count() int { return int(s.n.Load()) }

// MaxInFlight is the most requests the server was handling at once.
func (s *Server) MaxInFlight() int { return int(s.maxInFlight.Load()) }

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	cur := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if cur <= m || s.maxInFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	json.Unmarshal(body, &req.Raw)
	req.Authorization = r.Header.Get("Authorization")
	req.Path = r.URL.Path
	n := int(s.n.Add(1)) - 1
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"no such path"}}`, http.StatusNotFound)
		return
	}
	rep := s.answer(n, req)
	if rep.Hang {
		<-r.Context().Done()
		return
	}
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	if rep.Body != "" {
		w.WriteHeader(status)
		io.WriteString(w, rep.Body)
		return
	}
	if status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"server_error"}}`, http.StatusText(status)+" from the fake server")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(completion(req, rep))
}

func completion(req Request, rep Reply) map[string]any {
	replies := rep.Choices
	if len(replies) == 0 {
		replies = []Reply{rep}
	}
	var choices []any
	completionTokens := 0
	for i, r := range replies {
		choices = append(choices, choice(req, r, i))
		completionTokens += len(Tokenize(r.Content, 0))
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(strings.Fields(m.Content))
	}
	return map[string]any{
		"id":      "chatcmpl-fake",
		"object":  "chat.completion",
		"model":   req.Model,
		"choices": choices,
		"usage": map[string]any{
			"prompt_tokens":     prompt,
			"completion_tokens": completionTokens,
			"total_tokens":      prompt + completionTokens,
		},
	}
}

// choice is the index-th answer of a completion.
func choice(req Request, rep Reply, index int) map[string]any {
	finish := rep.FinishReason
	if finish == "" {
		finish = "stop"
	}
	choice := map[string]any{
		"index":         index,
		"message":       map[string]any{"role": "assistant", "content": rep.Content},
		"finish_reason": finish,
	}
	if req.Logprobs && !rep.NoLogprobs {
		toks := rep.Tokens
		if toks == nil {
			toks = Tokenize(rep.Content, -0.01)
		}
		content := make([]map[string]any, len(toks))
		for i, t := range toks {
			bs := make([]int, len(t.Text))
			for j := range len(t.Text) {
				bs[j] = int(t.Text[j])
			}
			var lp any
			if t.Logprob != nil {
				lp = *t.Logprob
			}
			content[i] = map[string]any{"token": t.Text, "logprob": lp, "bytes": bs, "top_logprobs": []any{}}
		}
		choice["logprobs"] = map[string]any{"content": content}
	}
	return choice
}
