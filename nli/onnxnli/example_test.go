package onnxnli_test

import (
	"context"
	"fmt"
	"log"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
)

// Load a model directory (here the tiny random-weight test model; in use,
// one pulled with `fr models pull`) and classify a premise/hypothesis pair.
// The ONNX Runtime library is found as scripts/install-onnxruntime put it.
func Example() {
	m, err := onnxnli.Load("../../testdata/nli/tiny-roberta", onnxnli.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	res, err := m.Classify(context.Background(), []nli.Pair{{
		Premise:    "Lanny Flaherty is an American actor born on July 27, 1942, in Pensacola, Florida.",
		Hypothesis: "Lanny Flaherty was born in Florida.",
	}})
	if err != nil {
		log.Fatal(err)
	}
	r := res[0]
	fmt.Printf("%s %.3f\n", r.Label, r.Probability)
	fmt.Printf("entailment %.3f, neutral %.3f, contradiction %.3f\n",
		r.Distribution[nli.Entailment], r.Distribution[nli.Neutral], r.Distribution[nli.Contradiction])
	// Output:
	// contradiction 0.739
	// entailment 0.026, neutral 0.235, contradiction 0.739
}
