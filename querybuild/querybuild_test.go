package querybuild

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/prompts"
)

// TestLLMPrompt: with FactReasoner's prompt, the query writer sends the
// data file filled with the atom as one user message (the response is not
// part of it), reads the one fenced query of the answer, asks again with
// FactReasoner's format after an answer without fences, and reports an
// answer that stays unreadable as an *llm.UnreadableAnswerError, never
// falling back to the atom's text as FactReasoner does.
func TestLLMPrompt(t *testing.T) {
	tmpl, err := prompts.Load("factreasoner/querybuilder")
	if err != nil {
		t.Fatal(err)
	}
	const (
		good  = "Lanny Flaherty was born in Pontotoc."
		fixed = "Lanny Flaherty died in 2024."
		bad   = "Lanny Flaherty acted in Signs."
	)
	var (
		mu   sync.Mutex
		sent []llmtest.Request
	)
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		mu.Lock()
		sent = append(sent, r)
		mu.Unlock()
		first := r.Messages[0].Content
		switch {
		case strings.Contains(first, "STATEMENT: "+good+"\n"):
			return llmtest.Reply{Content: "OUTPUT:\n```\n\"Lanny Flaherty\" born Pontotoc Mississippi\n```"}
		case strings.Contains(first, "STATEMENT: "+fixed+"\n") && llmtest.IsReask(r):
			if !strings.Contains(r.Last(), "wrapped between Markdown code fences") {
				t.Errorf("the reminder %q does not ask for code fences", r.Last())
			}
			return llmtest.Reply{Content: "```\nLanny Flaherty death 2024\n```"}
		}
		return llmtest.Reply{Content: "Lanny Flaherty filmography"} // no fences
	})
	c, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "qb-1", Concurrency: 1, Reasks: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	b, err := NewPrompt(c, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "llm:qb-1 (prompt factreasoner/querybuilder)" {
		t.Errorf("name %q", b.Name())
	}
	ctx := context.Background()
	const response = "Lanny Flaherty (1942-2024) was an American actor."
	for _, tc := range []struct{ atom, want string }{
		{good, `"Lanny Flaherty" born Pontotoc Mississippi`},
		{fixed, "Lanny Flaherty death 2024"},
	} {
		qs, err := b.Queries(ctx, tc.atom, response)
		if err != nil || len(qs) != 1 || qs[0] != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.atom, qs, err, tc.want)
		}
	}
	want, _ := tmpl.Fill(map[string]string{"statement_text": good})
	if len(sent[0].Messages) != 1 || sent[0].Messages[0].Role != "user" || sent[0].Messages[0].Content != want {
		t.Errorf("first request %+v, want one user message:\n%s", sent[0].Messages, want)
	}
	if strings.Contains(sent[0].Messages[0].Content, response) {
		t.Error("the response was sent: FactReasoner's prompt has the atom alone")
	}
	qs, err := b.Queries(ctx, bad, response)
	var u *llm.UnreadableAnswerError
	if !errors.As(err, &u) || u.Attempts != 2 || !strings.Contains(u.Err.Error(), "no code block") {
		t.Errorf("unreadable answer: %q, %v", qs, err)
	}
	if s := b.Stats(); s != (Stats{Atoms: 2, Queries: 2, Reasks: 2, Unreadable: 1}) {
		t.Errorf("stats %+v", s)
	}
	if _, err := NewPrompt(c, prompts.Template{Name: "x"}); err == nil {
		t.Error("a template without {{statement_text}} accepted")
	}
}
