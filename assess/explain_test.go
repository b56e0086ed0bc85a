package assess

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/testgen/flaherty"
)

// TestExplainShowsWhy: in IBM's recorded FR2 run on the Flaherty instance,
// atom a20 ("He has worked in productions at the Public Theater", gold NS)
// is entailed by one context, c_a20_2, the article on Aaron Lohr, another
// actor. The explanation shows the sentence of Lohr's article the relation
// rests on, under the relation, both for the atom and for the context.
func TestExplainShowsWhy(t *testing.T) {
	in, _ := flaherty.Load(t)
	a, err := goldenConfig(true).Assess(context.Background(), in, graph.FR2)
	if err != nil {
		t.Fatal(err)
	}
	const sentence = "he has appeared in several productions at the public theater."
	ex := a.Explain("a20")
	if len(ex) != 1 || len(ex[0].Evidence) != 1 {
		t.Fatalf("Explain(a20) = %+v, want one atom with one relation", ex)
	}
	ev := ex[0].Evidence[0]
	if ev.Source != "c_a20_2" || ev.OtherTitle != "Aaron Lohr" || len(ev.Sentences) != 1 || ev.Sentences[0].Text(ev.Premise) != sentence {
		t.Fatalf("a20's relation: from %s %q, sentences %v of its premise; want c_a20_2 \"Aaron Lohr\" resting on %q", ev.Source, ev.OtherTitle, ev.Sentences, sentence)
	}
	if ev.Premise != ev.OtherText {
		t.Error("the premise of a relation into an atom is not the context's text")
	}
	var b bytes.Buffer
	if err := WriteExplanations(&b, a, ex); err != nil {
		t.Fatal(err)
	}
	want := `from c_a20_2 "Aaron Lohr" (P(true) = `
	out := b.String()
	i := strings.Index(out, want)
	if i < 0 {
		t.Fatalf("inspect's text lacks the relation %q:\n%s", want, out)
	}
	if _, next, _ := strings.Cut(out[i:], "\n"); !strings.HasPrefix(next, "        > "+sentence+"\n") {
		t.Errorf("the relation's next line is not the sentence it rests on:\n%s", out)
	}

	// The context's own explanation: the relation to a20 rests on the same
	// sentence of the context itself.
	ex = a.Explain("c_a20_2")
	if len(ex) != 1 {
		t.Fatalf("Explain(c_a20_2): %d explanations", len(ex))
	}
	found := false
	for _, ev := range ex[0].Evidence {
		if ev.Target == "a20" {
			found = true
			if ev.Premise != ex[0].Text || len(ev.Sentences) != 1 || ev.Sentences[0].Text(ev.Premise) != sentence {
				t.Errorf("c_a20_2's relation to a20 rests on %v of its premise, want %q of the context's own text", ev.Sentences, sentence)
			}
		}
	}
	if !found {
		t.Error("c_a20_2's explanation lacks its relation to a20")
	}
}

// TestExplainWhyContextToContext: an FR3 relation between two contexts
// rests on a sentence of its source (the premise), matched against the
// target's text, whichever end is explained.
func TestExplainWhyContextToContext(t *testing.T) {
	in := &instance.Instance{
		Input:  "Tell me about Ada Lovelace.",
		Output: "Ada Lovelace died in 1852.",
		Atoms:  []instance.Atom{{ID: "a0", Text: "Ada Lovelace died in 1852."}},
		Contexts: []instance.Context{
			{ID: "c0", Title: "Death", Text: "She lived in London. Ada Lovelace died of uterine cancer in 1852. Her grave is in Hucknall."},
			{ID: "c1", Title: "Life", Text: "Ada Lovelace was born in 1815. She was a mathematician. Lovelace died of cancer at 36."},
		},
		Relations: []instance.Relation{
			{Source: "c0", Target: "a0", Type: instance.TypeEntailment, Probability: 0.9},
			{Source: "c1", Target: "c0", Type: instance.TypeEntailment, Probability: 0.7},
		},
	}
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := goldenConfig(true).Assess(context.Background(), in, graph.FR3)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c0", "c1"} {
		ex := a.Explain(id)
		var ev *Evidence
		for i := range ex[0].Evidence {
			if e := &ex[0].Evidence[i]; e.Source == "c1" && e.Target == "c0" {
				ev = e
			}
		}
		if ev == nil {
			t.Fatalf("%s: no relation c1 → c0 in %+v", id, ex[0].Evidence)
		}
		var got []string
		for _, s := range ev.Sentences {
			got = append(got, s.Text(ev.Premise))
		}
		if want := "Lovelace died of cancer at 36."; len(got) == 0 || got[len(got)-1] != want || ev.Premise != in.Contexts[1].Text {
			t.Errorf("%s: c1 → c0 rests on %q of %q, want %q of c1's text", id, got, ev.Premise, want)
		}
	}
}
