package assess

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/internal/testgen/flaherty"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/score"
	summarizer "github.com/factreasoner/factreasoner-go/summarize"
)

// premiseRecorder answers every pair neutral and notes the premises and
// hypotheses it is asked about.
type premiseRecorder struct {
	mu    sync.Mutex
	texts map[string]bool
}

func (c *premiseRecorder) Identity() nli.Identity { return nli.Identity{Backend: "recorder"} }

func (c *premiseRecorder) Classify(_ context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		c.texts[p.Premise] = true
		if p.HypothesisID[0] == 'c' { // FR3: a context as hypothesis
			c.texts[p.Hypothesis] = true
		}
		out[i] = nli.Result{Label: nli.Neutral, Probability: 0.9}
	}
	return out, nil
}

// TestUseSummariesReference: IBM's recorded FactReasoner run
// (reference_factreasoner_output.json, web contexts summarized by its
// context summarizer) scored with UseSummaries: NLI reads the 39 contexts'
// synthetic_summary, never their text, in FR2 and in FR3 (as premise and
// as hypothesis); FR2 merges none of them (their 39 summaries differ,
// though some texts repeat); the output line carries the contexts as they
// were, texts, summaries and priors, and says the summaries were given.
// Without UseSummaries NLI reads the texts.
func TestUseSummariesReference(t *testing.T) {
	ins, err := instance.ReadFile(refdata.Path(t, "factreasoner", "reference_factreasoner_output.json"))
	if err != nil || len(ins) != 1 {
		t.Fatalf("%d records, %v", len(ins), err)
	}
	in := ins[0]
	summaries, texts := map[string]bool{}, map[string]bool{}
	for _, c := range in.Contexts {
		if c.SyntheticSummary == "" || c.Probability == nil {
			t.Fatalf("context %s carries no summary or probability", c.ID)
		}
		summaries[c.SyntheticSummary] = true
		texts[c.NLIText()] = true
	}
	if len(in.Contexts) != 39 || len(summaries) != 39 {
		t.Fatalf("%d contexts, %d summaries", len(in.Contexts), len(summaries))
	}
	for _, v := range []graph.Version{graph.FR2, graph.FR3} {
		rec := &premiseRecorder{texts: map[string]bool{}}
		p := &Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Solver: inference.Auto{}, Classifier: rec, UseSummaries: true}
		a, err := p.Assess(context.Background(), in, v)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Nodes.Contexts) != 39 {
			t.Errorf("%s: %d contexts in the network, want 39", v, len(a.Nodes.Contexts))
		}
		if !reflect.DeepEqual(rec.texts, summaries) {
			t.Errorf("%s: NLI read %d texts; want the 39 summaries", v, len(rec.texts))
		}
		r := a.Record()
		if r.Summarizer != SummariesGiven || r.ContextsIrrelevant != nil || !reflect.DeepEqual(r.Contexts, in.Contexts) {
			t.Errorf("%s: summarizer %q, irrelevant %v, contexts as given: %v", v, r.Summarizer, r.ContextsIrrelevant, reflect.DeepEqual(r.Contexts, in.Contexts))
		}
	}
	rec := &premiseRecorder{texts: map[string]bool{}}
	p := &Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Solver: inference.Auto{}, Classifier: rec}
	a, err := p.Assess(context.Background(), in, graph.FR2)
	if err != nil {
		t.Fatal(err)
	}
	for text := range rec.texts {
		if !texts[text] {
			t.Errorf("without summaries NLI read %.60q, not a context's text", text)
		}
	}
	if a.Record().Summarizer != "" {
		t.Error("a record scored without summaries names a summarizer")
	}
}

// TestSummarizeRefusesGivenRelations: a record whose own relations would
// be used (GivenWhenPresent) is not summarized: its relations were
// computed on the contexts' texts. Nothing is asked.
func TestSummarizeRefusesGivenRelations(t *testing.T) {
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply {
		t.Error("the summarizer was asked")
		return llmtest.Reply{Content: "None"}
	})
	client, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	s, err := summarizer.NewLLM(client, summarizer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := flaherty.Load(t) // with IBM's relations
	p := &Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Solver: inference.Auto{}, Given: GivenWhenPresent, Summarizer: s}
	_, err = p.Assess(context.Background(), in, graph.FR2)
	var fe *instance.FieldError
	if !errors.As(err, &fe) || fe.Field != "relations" {
		t.Errorf("want a FieldError at relations, got %v", err)
	}
}
