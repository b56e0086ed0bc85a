package atomize

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/fakellm"
	"github.com/factreasoner/factreasoner-go/llm"
)

func TestParseList(t *testing.T) {
	want := []string{"Ruth Adair was a pianist.", "Ruth Adair was born in Tulsa."}
	tests := []struct {
		name   string
		answer string
		want   []string // nil: error expected
	}{
		{"bare array", `["Ruth Adair was a pianist.", "Ruth Adair was born in Tulsa."]`, want},
		{"code fence", "```json\n[\"Ruth Adair was a pianist.\",\n \"Ruth Adair was born in Tulsa.\"]\n```", want},
		{"stray text around", "Here are the atomic facts:\n[\"Ruth Adair was a pianist.\", \"Ruth Adair was born in Tulsa.\"]\nLet me know if you need more [or fewer] facts.", want},
		{"brackets in the prose before", "Facts [as requested]:\n[\"Ruth Adair was a pianist.\", \"Ruth Adair was born in Tulsa.\"]", want},
		{"trailing comma", "[\"Ruth Adair was a pianist.\",\n\"Ruth Adair was born in Tulsa.\",\n]", want},
		{"objects with text", `[{"text": "Ruth Adair was a pianist."}, {"atom": "Ruth Adair was born in Tulsa."}]`, want},
		{"wrapped in an object", `{"atoms": ["Ruth Adair was a pianist.", "Ruth Adair was born in Tulsa."]}`, want},
		{"object with one unnamed list", `{"result": ["Ruth Adair was a pianist.", "Ruth Adair was born in Tulsa."], "count": 2}`, want},
		{"blank strings dropped", `["Ruth Adair was a pianist.", "  ", "Ruth Adair was born in Tulsa."]`, want},
		{"empty list", `[]`, []string{}},
		{"brackets inside strings", `["Ruth Adair [née Smith] was a pianist."]`, []string{"Ruth Adair [née Smith] was a pianist."}},
		{"not JSON", "- Ruth Adair was a pianist.\n- Ruth Adair was born in Tulsa.", nil},
		{"numbers, not strings", "[1, 2, 3]", nil},
		{"cut off", `["Ruth Adair was a pianist.", "Ruth Ad`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseList(tt.answer)
			if tt.want == nil {
				if err == nil || !strings.Contains(err.Error(), "no JSON list") {
					t.Errorf("got %q, err %v; want an error", got, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseRevised(t *testing.T) {
	tests := []struct{ answer, want string }{
		{"Ruth Adair moved to Chicago.", "Ruth Adair moved to Chicago."},
		{"  Revised atom: Ruth Adair moved to Chicago.\n", "Ruth Adair moved to Chicago."},
		{"\"Ruth Adair moved to Chicago.\"", "Ruth Adair moved to Chicago."},
		{"```\nRuth Adair moved to Chicago.\n```", "Ruth Adair moved to Chicago."},
		{"Ruth Adair moved to Chicago.\n\nI replaced 'she' with the name.", "Ruth Adair moved to Chicago."},
		{"", ""},
		{"```\n```", ""},
	}
	for _, tt := range tests {
		got, ok := ParseRevised(tt.answer)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ParseRevised(%q) = %q, %v; want %q", tt.answer, got, ok, tt.want)
		}
	}
}

func newClient(t *testing.T, srv *fakellm.Server) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "atomizer-1", Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// fakeAtomizerAndReviser answers atomizer prompts with a fenced JSON list
// amid chatter, and reviser prompts by replacing "She" with the name, with
// an empty answer for atoms about Chicago.
func fakeAtomizerAndReviser(_ int, r fakellm.Request) fakellm.Reply {
	if strings.HasPrefix(r.Messages[0].Content, "You split a text") {
		return fakellm.Reply{Content: "Sure! Here they are:\n```json\n[\"Ruth Adair was a pianist.\", \"She was born in Tulsa.\", \"She moved to Chicago.\"]\n```\nHope this helps."}
	}
	atom := r.Last()[strings.Index(r.Last(), "ATOM: ")+len("ATOM: "):]
	if strings.Contains(atom, "Chicago") {
		return fakellm.Reply{Content: "  \n"}
	}
	return fakellm.Reply{Content: "Revised atom: " + strings.Replace(atom, "She", "Ruth Adair", 1)}
}

// TestLLMAtomizeAndRevise: the atomizer's list is read out of a code fence;
// the reviser asks once per atom; an unusable revision keeps the atom and is
// counted; Original holds the atomizer's text, Text the revision.
func TestLLMAtomizeAndRevise(t *testing.T) {
	srv := fakellm.New(t, fakeAtomizerAndReviser)
	c := newClient(t, srv)
	a, r := NewLLM(c), NewLLMReviser(c)
	response := "Ruth Adair was a pianist. She was born in Tulsa and moved to Chicago."
	atoms, err := Atoms(context.Background(), a, r, response)
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]string{
		{"a0", "Ruth Adair was a pianist.", "Ruth Adair was a pianist."},
		{"a1", "She was born in Tulsa.", "Ruth Adair was born in Tulsa."},
		{"a2", "She moved to Chicago.", "She moved to Chicago."},
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
	if len(reqs) != 1+3 {
		t.Fatalf("%d requests, want 1 atomizer + 3 reviser", len(reqs))
	}
	if !strings.HasSuffix(reqs[0].Last(), response) {
		t.Errorf("atomizer prompt does not end with the response: %q", reqs[0].Last())
	}
	for _, q := range reqs {
		if q.Temperature == nil || *q.Temperature != 0 || q.Logprobs {
			t.Errorf("request %+v", q)
		}
	}
	for _, q := range reqs[1:] {
		if !strings.Contains(q.Last(), "TEXT:\n"+response) {
			t.Errorf("reviser prompt lacks the response: %q", q.Last())
		}
	}
	if s := a.Stats(); s != "1 responses split into 3 atoms" {
		t.Errorf("atomizer stats %q", s)
	}
	if s := r.Stats(); s != "3 atoms revised, 1 changed, 1 kept as they were because the answer was empty" {
		t.Errorf("reviser stats %q", s)
	}
}

// TestLLMAtomizeBadAnswer: an answer with no list is an error that quotes
// it; an empty list is ErrNoAtoms.
func TestLLMAtomizeBadAnswer(t *testing.T) {
	srv := fakellm.New(t, func(n int, r fakellm.Request) fakellm.Reply {
		if n == 0 {
			return fakellm.Reply{Content: "I cannot split this text."}
		}
		return fakellm.Reply{Content: "[]"}
	})
	a := NewLLM(newClient(t, srv))
	_, err := Atoms(context.Background(), a, nil, "Hmm.")
	if err == nil || !strings.Contains(err.Error(), "atomizer") || !strings.Contains(err.Error(), "I cannot split this text.") {
		t.Errorf("err %v", err)
	}
	if _, err := Atoms(context.Background(), a, nil, "Hmm!"); err != ErrNoAtoms {
		t.Errorf("err %v", err)
	}
}
