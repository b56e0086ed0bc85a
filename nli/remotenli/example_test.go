package remotenli_test

import (
	"context"
	"fmt"
	"log"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli/remotenlitest"
	"github.com/factreasoner/factreasoner-go/retry"
)

// Classify a pair on an inference server that speaks the Open Inference
// Protocol (here a fake one on loopback, serving the tiny random-weight
// test model; in use, Triton with the model in its repository). The model
// directory gives the tokenizer, window and labels, as for the onnx
// backend; the answer is the one the onnx backend gives.
func Example() {
	srv, err := remotenlitest.New("../../testdata/nli/tiny-roberta", "roberta-large-mnli")
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	c, err := remotenli.Open(context.Background(), "../../testdata/nli/tiny-roberta", remotenli.Options{
		Protocol: remotenli.KServe,
		Endpoint: srv.URL, // e.g. http://localhost:8000, Triton's HTTP port
		Model:    "roberta-large-mnli",
		Retry:    &retry.Policy{Retries: 3},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.Classify(context.Background(), []nli.Pair{{
		Premise:    "Lanny Flaherty is an American actor born on July 27, 1942, in Pensacola, Florida.",
		Hypothesis: "Lanny Flaherty was born in Florida.",
	}})
	if err != nil {
		log.Fatal(err)
	}
	r := res[0]
	fmt.Println(c.Identity().Backend, c.RemoteModel())
	fmt.Printf("%s %.3f\n", r.Label, r.Probability)
	// Output:
	// remote roberta-large-mnli@1
	// contradiction 0.739
}
