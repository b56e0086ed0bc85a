package assemble_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/nlitest"
)

// oneAtom is a record of one atom with one context of its own, without
// relations.
func oneAtom() *instance.Instance {
	return &instance.Instance{Input: "Q?", Output: "Ada was a mathematician.",
		Atoms:    []instance.Atom{{ID: "a0", Text: "Ada was a mathematician.", Contexts: []string{"c0"}}},
		Contexts: []instance.Context{{ID: "c0", Text: "Ada Lovelace was an English mathematician."}}}
}

// TestExtraNLIBackend: a backend of its own package (nlitest), added by one
// table entry, is chosen by name like the built-in ones; its answers make
// the factors (FR1: P(a0) = 0.05 + 0.9·0.8 with the context prior 0.9, by
// hand), its identity is the record's, and its end-of-run summary goes to
// the log at Close. A built-in name is not taken twice.
func TestExtraNLIBackend(t *testing.T) {
	ctx := context.Background()
	fixed := &nlitest.Fixed{Label: nli.Entailment, Probability: 0.8}
	entry := assemble.NLIBackend{Name: "fixed", Description: "every pair entails, at 0.8",
		Open: func(context.Context, *assemble.Env) (nli.Classifier, error) { return fixed, nil }}
	var log bytes.Buffer
	p, err := assemble.Open(ctx, assemble.Options{NLI: assemble.NLIOptions{Backend: "fixed", Extra: []assemble.NLIBackend{entry}}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Assess(ctx, oneAtom(), graph.FR1)
	if err != nil {
		t.Fatal(err)
	}
	pt, _ := a.PTrue("a0")
	if want := 0.05 + 0.9*0.8; math.Abs(pt-want) > 1e-12 || fixed.Asked() != 1 {
		t.Errorf("P(a0) = %v, want %v; %d pairs asked", pt, want, fixed.Asked())
	}
	if rec := a.Record(); rec.NLIBackend != "fixed" || rec.ModelName != "entailment@0.8" {
		t.Errorf("record's backend %q, model %q", rec.NLIBackend, rec.ModelName)
	}
	if run := p.RunIdentity(); run.NLI != "fixed:entailment@0.8" {
		t.Errorf("run NLI %q", run.NLI)
	}
	p.Close()
	if !strings.Contains(log.String(), "fixed nli: 1 pairs answered entailment") || strings.Contains(log.String(), "fr:") {
		t.Errorf("log: %q", log.String())
	}

	entry.Name = "onnx"
	_, err = assemble.Open(ctx, assemble.Options{NLI: assemble.NLIOptions{Backend: "onnx", Extra: []assemble.NLIBackend{entry}}})
	var oe *assemble.OptionError
	if !errors.As(err, &oe) || oe.Option != "NLI.Extra" {
		t.Errorf("a built-in's name taken again: %v", err)
	}
	_, err = assemble.Open(ctx, assemble.Options{NLI: assemble.NLIOptions{Backend: "oracle"}})
	if !errors.As(err, &oe) || oe.Option != "NLI.Backend" || !strings.Contains(err.Error(), "want auto, given, onnx, remote, llm or lexical") {
		t.Errorf("unknown backend: %v", err)
	}
}

// TestZeroOptions: the zero Options score a record with relations from
// them, and refuse one without: the error is ErrNoNLI and names what to
// configure, never a silent lexical run.
func TestZeroOptions(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir()) // no model pulled
	ctx := context.Background()
	p, err := assemble.Open(ctx, assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Assess(ctx, oneAtom(), graph.FR2)
	if !errors.Is(err, assess.ErrNoNLI) || !strings.Contains(err.Error(), "Options.NLI.Backend") {
		t.Errorf("no relations: %v, want ErrNoNLI naming Options.NLI.Backend", err)
	}
	in := oneAtom()
	in.Relations = []instance.Relation{{Source: "c0", Target: "a0", Type: instance.TypeEntailment, Probability: 0.9}}
	a, err := p.Assess(ctx, in, graph.FR2)
	if err != nil {
		t.Fatal(err)
	}
	if pt, _ := a.PTrue("a0"); a.NLI.Backend != "given" || !(pt > 0.5) {
		t.Errorf("with relations: backend %s, P(a0) %v", a.NLI.Backend, pt)
	}
}

// inProcess is a classifier that runs its model in this process, as onnx
// does.
type inProcess struct{ *nlitest.Fixed }

func (inProcess) InProcess() bool { return true }

func TestAutoJobs(t *testing.T) {
	local, other := inProcess{&nlitest.Fixed{}}, &nlitest.Fixed{}
	tests := []struct {
		name string
		p    *assess.Pipeline
		want int
	}{
		{"onnx", &assess.Pipeline{Classifier: local}, 1},
		{"onnx, records with relations use them", &assess.Pipeline{Classifier: local, Given: assess.GivenWhenPresent}, 1},
		{"given only", &assess.Pipeline{Classifier: local, Given: assess.GivenAlways}, 2},
		{"another backend", &assess.Pipeline{Classifier: other}, 2},
		{"no classifier", &assess.Pipeline{Given: assess.GivenAlways}, 2},
	}
	for _, tc := range tests {
		if got := (&assemble.Pipeline{Pipeline: tc.p}).AutoJobs(); got != tc.want {
			t.Errorf("%s: AutoJobs %d, want %d", tc.name, got, tc.want)
		}
	}
}
