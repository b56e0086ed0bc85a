package assemble_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/nlitest"
)

// A Go program scores a record: open a pipeline, assess, read the scores
// and marginals, close. The record here carries its own NLI relations;
// with NLI.Backend "onnx" or "llm" the pipeline would ask a model instead.
func Example() {
	rd := instance.NewReader(strings.NewReader(`{"input": "Tell me about Ada Lovelace.",
 "output": "Ada Lovelace was an English mathematician. She invented the first electronic computer.",
 "atoms": [{"id": "a0", "text": "Ada Lovelace was an English mathematician."},
           {"id": "a1", "text": "Ada Lovelace invented the first electronic computer."}],
 "contexts": [{"id": "c0", "title": "Ada Lovelace", "text": "Ada Lovelace (1815-1852) was an English mathematician."},
              {"id": "c1", "title": "ENIAC", "text": "ENIAC, completed in 1945, was the first electronic general-purpose computer."}],
 "relations": [{"source": "c0", "target": "a0", "type": "entailment", "probability": 0.98},
               {"source": "c1", "target": "a1", "type": "contradiction", "probability": 0.9}]}`), "example")
	in, err := rd.Next()
	if err != nil {
		log.Fatal(err)
	}

	p, err := assemble.Open(context.Background(), assemble.Options{
		Solver: inference.Auto{},
		NLI:    assemble.NLIOptions{Backend: "given"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	a, err := p.Assess(context.Background(), in, graph.FR2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("precision %.2f, %d true, %d false\n", a.Scores.Precision, a.Scores.NumTrueAtoms, a.Scores.NumFalseAtoms)
	for _, id := range []string{"a0", "a1"} {
		pt, _ := a.PTrue(id)
		fmt.Printf("P(%s) = %.4f\n", id, pt)
	}
	// Each atom is linked to one context (prior 0.9), so by hand, with the
	// default factor tables: P(a0) = (0.1·0.5 + 0.9·0.98) / 1 = 0.932 and
	// P(a1) = (0.1·0.5 + 0.9·0.1) / 1 = 0.14.

	// Output:
	// precision 0.50, 1 true, 1 false
	// P(a0) = 0.9320
	// P(a1) = 0.1400
}

// A program adds an NLI backend of its own beside the built-in ones: one
// table entry (here the test backend of package nlitest, which entails
// everything at 0.8) chosen by its name, as "onnx" or "llm" are.
func ExampleNLIBackend() {
	fixed := assemble.NLIBackend{Name: "fixed", Description: "every pair entails, at 0.8",
		Open: func(context.Context, *assemble.Env) (nli.Classifier, error) {
			return &nlitest.Fixed{Label: nli.Entailment, Probability: 0.8}, nil
		}}
	p, err := assemble.Open(context.Background(), assemble.Options{
		NLI: assemble.NLIOptions{Backend: "fixed", Extra: []assemble.NLIBackend{fixed}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	in := &instance.Instance{Input: "Q?", Output: "Ada was a mathematician.",
		Atoms:    []instance.Atom{{ID: "a0", Text: "Ada was a mathematician.", Contexts: []string{"c0"}}},
		Contexts: []instance.Context{{ID: "c0", Text: "Ada Lovelace was an English mathematician."}}}
	a, err := p.Assess(context.Background(), in, graph.FR1)
	if err != nil {
		log.Fatal(err)
	}
	pt, _ := a.PTrue("a0")
	fmt.Printf("%s: P(a0) = %.2f\n", a.NLI, pt) // 0.05 + 0.9·0.8
	// Output: fixed:entailment@0.8: P(a0) = 0.77
}
