package uai_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/uai"
)

func Example() {
	// Two binary variables; a prior on x0 and a factor over (x1, x0) whose
	// table has x0 changing fastest.
	const model = `MARKOV
2
2 2
2
1 0
2 1 0
2
 0.5 0.5
4
 1 2
 3 4
`
	net, err := uai.Read(strings.NewReader(model), "example.uai")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := inference.Auto{}.Solve(context.Background(), net.Model)
	if err != nil {
		fmt.Println(err)
		return
	}
	uai.WriteMAR(os.Stdout, res)
	// Output:
	// PR
	// 1.609438 (5.000000e+00)
	// STATUS
	// true: Consistent evidence
	// MAR
	// 2 2 0.400000 0.600000 2 0.300000 0.700000
}
