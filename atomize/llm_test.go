package atomize

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

func newClient(t *testing.T, srv *llmtest.Server, cache string, reasks int) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "atomizer-1", Concurrency: 3, CachePath: cache, Reasks: reasks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// fakeAtomizerAndReviser answers atomizer prompts with a fenced JSON list
// amid chatter, and reviser prompts by replacing "She" with the name, with
// an empty answer for atoms about Chicago until it is reminded of the
// format, and then a Llama-style answer.
func fakeAtomizerAndReviser(_ int, r llmtest.Request) llmtest.Reply {
	if strings.HasPrefix(r.Messages[0].Content, "You split a text") {
		return llmtest.Reply{Content: "Sure! Here they are:\n```json\n[\"Ruth Adair was a pianist.\", \"She was born in Tulsa.\", \"She moved to Chicago.\"]\n```\nHope this helps."}
	}
	q := r.Messages[2*len(reviserExamples)+1].Content
	atom := q[strings.Index(q, "ATOM: ")+len("ATOM: "):]
	if strings.Contains(atom, "Chicago") {
		if !llmtest.IsReask(r) {
			return llmtest.Reply{Content: "  \n"}
		}
		return llmtest.Reply{Content: "Sure! Here is the revised atom:\n\n\"" + strings.Replace(atom, "She", "Ruth Adair", 1) + "\"\n\nLet me know if you need anything else!"}
	}
	return llmtest.Reply{Content: "Revised atom: " + strings.Replace(atom, "She", "Ruth Adair", 1)}
}

// TestLLMAtomizeAndRevise: the atomizer's list is read out of a code fence;
// the reviser asks once per atom; an empty revision is asked again with the
// reminder, never kept or cached, and the answer to the reminder is read;
// Original holds the atomizer's text, Text the revision. A rerun from the
// cache sends no request.
func TestLLMAtomizeAndRevise(t *testing.T) {
	srv := llmtest.New(t, fakeAtomizerAndReviser)
	cache := filepath.Join(t.TempDir(), "llm.sqlite")
	c := newClient(t, srv, cache, 2)
	a, r := NewLLM(c), NewLLMReviser(c)
	response := "Ruth Adair was a pianist. She was born in Tulsa and moved to Chicago."
	atoms, err := Atoms(context.Background(), a, r, response)
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]string{
		{"a0", "Ruth Adair was a pianist.", "Ruth Adair was a pianist."},
		{"a1", "She was born in Tulsa.", "Ruth Adair was born in Tulsa."},
		{"a2", "She moved to Chicago.", "Ruth Adair moved to Chicago."},
	}
	if len(atoms) != len(want) {
		t.Fatalf("atoms %+v", atoms)
	}
	for i, w := range want {
		if atoms[i].ID != w[0] || atoms[i].Original != w[1] || atoms[i].Text != w[2] {
			t.Errorf("atom %d = %+v, want %q", i, atoms[i], w)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1+3+1 {
		t.Fatalf("%d requests, want 1 atomizer + 3 reviser + 1 re-ask", len(reqs))
	}
	if !strings.HasSuffix(reqs[0].Last(), response) {
		t.Errorf("atomizer prompt does not end with the response: %q", reqs[0].Last())
	}
	reasks := 0
	for _, q := range reqs {
		if q.Temperature == nil || *q.Temperature != 0 || q.Logprobs {
			t.Errorf("request %+v", q)
		}
		if llmtest.IsReask(q) {
			reasks++
			m := q.Messages
			if m[len(m)-2].Role != "assistant" || m[len(m)-2].Content != "  \n" || m[len(m)-1].Content != reviserReminder {
				t.Errorf("re-ask %+v", m[len(m)-2:])
			}
		}
	}
	if reasks != 1 {
		t.Errorf("%d re-asks, want 1", reasks)
	}
	for _, q := range reqs[1:] {
		if !strings.Contains(q.Messages[2*len(reviserExamples)+1].Content, "TEXT:\n"+response) {
			t.Errorf("reviser prompt lacks the response: %q", q.Last())
		}
	}
	if s := a.Stats(); s != (LLMStats{Responses: 1, Atoms: 3}) || s.String() != "1 responses split into 3 atoms; 0 re-asks, 0 answers unreadable after re-asking" {
		t.Errorf("atomizer stats %+v: %s", s, s)
	}
	if s := r.Stats(); s != (ReviserStats{Atoms: 3, Changed: 2, Reasks: 1}) || s.String() != "3 atoms revised, 2 changed; 1 re-asks, 0 answers unreadable after re-asking" {
		t.Errorf("reviser stats %+v: %s", s, s)
	}
	c.Close()

	c2 := newClient(t, srv, cache, 2)
	again, err := Atoms(context.Background(), NewLLM(c2), NewLLMReviser(c2), response)
	if err != nil || !reflect.DeepEqual(again, atoms) {
		t.Errorf("rerun: %+v, %v", again, err)
	}
	if srv.Count() != len(reqs) {
		t.Errorf("the rerun from the cache sent %d requests", srv.Count()-len(reqs))
	}
}

// TestLLMAtomizeUnreadable: an answer that stays unreadable is an
// *llm.UnreadableAnswerError naming the stage, the item and the answer,
// after the re-asks the client allows; it is not cached (a rerun against a
// server that has learned the format gets atoms), and the counts say so.
// An empty list is ErrNoAtoms.
func TestLLMAtomizeUnreadable(t *testing.T) {
	var fixed atomic.Bool
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		if strings.HasSuffix(r.Messages[len(r.Messages)-1].Content, "Hmm!") {
			return llmtest.Reply{Content: "[]"}
		}
		if fixed.Load() {
			return llmtest.Reply{Content: "1. Ruth Adair was a pianist."}
		}
		return llmtest.Reply{Content: "I cannot split this text."}
	})
	cache := filepath.Join(t.TempDir(), "llm.sqlite")
	c := newClient(t, srv, cache, 2)
	a := NewLLM(c)
	_, err := Atoms(context.Background(), a, nil, "Hmm.")
	var ue *llm.UnreadableAnswerError
	if !errors.As(err, &ue) || ue.Stage != "atomizer" || ue.Item != `response "Hmm."` || ue.Answer != "I cannot split this text." || ue.Attempts != 3 {
		t.Fatalf("err %v (%+v)", err, ue)
	}
	if !strings.Contains(err.Error(), "declines the task") || strings.Count(err.Error(), "atomizer") != 1 {
		t.Errorf("err %v", err)
	}
	if srv.Count() != 3 {
		t.Errorf("%d requests, want 1 + 2 re-asks", srv.Count())
	}
	if s := a.Stats(); s != (LLMStats{Reasks: 2, Unreadable: 1}) {
		t.Errorf("stats %+v", s)
	}
	if _, err := Atoms(context.Background(), a, nil, "Hmm!"); err != ErrNoAtoms {
		t.Errorf("err %v", err)
	}
	c.Close()

	fixed.Store(true)
	c2 := newClient(t, srv, cache, 0)
	atoms, err := Atoms(context.Background(), NewLLM(c2), nil, "Hmm.")
	if err != nil || len(atoms) != 1 || atoms[0].Text != "Ruth Adair was a pianist." {
		t.Errorf("after the fix: %+v, %v", atoms, err)
	}
}

// TestLLMAtomizeMixed: an endpoint that answers the atomizer and the
// reviser in every shape of llm/llmtest, and unreadably until
// reminded for some, gives each response its atoms and revisions; the
// counts are exact.
func TestLLMAtomizeMixed(t *testing.T) {
	facts := []string{"She was born in 1948.", "She was an American pianist.", `She recorded "Nocturnes" for Decca.`}
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		q := r.Messages[len(r.Messages)-1].Content
		if llmtest.IsReask(r) {
			q = r.Messages[len(r.Messages)-3].Content
		}
		if strings.HasPrefix(r.Messages[0].Content, "You split a text") {
			// The response is "Response k."; answer in shape k.
			k := int(q[len(q)-2] - '0')
			if k == 3 && !llmtest.IsReask(r) {
				return llmtest.Reply{Content: llmtest.UnreadableAtoms}
			}
			return llmtest.Reply{Content: llmtest.AtomAnswer(k, facts)}
		}
		text := q[strings.Index(q, "TEXT:\n")+6 : strings.Index(q, "\n\nATOM: ")]
		atom := q[strings.Index(q, "ATOM: ")+6:]
		k := int(text[len(text)-2]-'0') + strings.Index(strings.Join(facts, "|"), atom)
		if k%4 == 0 && !llmtest.IsReask(r) {
			return llmtest.Reply{Content: llmtest.UnreadableRevision}
		}
		return llmtest.Reply{Content: llmtest.RevisedAnswer(k, strings.Replace(atom, "She", "Ruth Adair", 1))}
	})
	c := newClient(t, srv, "", 1)
	a, r := NewLLM(c), NewLLMReviser(c)
	reasks := 0
	for k := range llmtest.AtomShapes {
		atoms, err := Atoms(context.Background(), a, r, fmt.Sprintf("Response %d.", k))
		if err != nil {
			t.Fatalf("response %d: %v", k, err)
		}
		for i, f := range facts {
			if atoms[i].Original != f || atoms[i].Text != strings.Replace(f, "She", "Ruth Adair", 1) {
				t.Errorf("response %d atom %d: %+v", k, i, atoms[i])
			}
			if (k+strings.Index(strings.Join(facts, "|"), f))%4 == 0 {
				reasks++
			}
		}
	}
	if s := a.Stats(); s != (LLMStats{Responses: llmtest.AtomShapes, Atoms: 3 * llmtest.AtomShapes, Reasks: 1}) {
		t.Errorf("atomizer stats %+v", s)
	}
	if s := r.Stats(); s != (ReviserStats{Atoms: 3 * llmtest.AtomShapes, Changed: 3 * llmtest.AtomShapes, Reasks: int64(reasks)}) || reasks == 0 {
		t.Errorf("reviser stats %+v, want %d re-asks", s, reasks)
	}
}
