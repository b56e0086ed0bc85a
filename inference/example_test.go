package inference_test

import (
	"context"
	"fmt"
	"math"

	"github.com/factreasoner/factreasoner-go/inference"
)

func ExampleNative() {
	// An FR-style network: atom a0 (prior 0.5) and context c0 (prior 0.9);
	// c0 entails a0 with probability 0.8. Tables list f(0,0), f(0,1), …
	// with the last scope variable changing fastest.
	m := &inference.Model{
		Cards: []int{2, 2},
		Factors: []inference.Factor{
			{Scope: []int{0}, Table: []float64{0.5, 0.5}},
			{Scope: []int{1}, Table: []float64{0.1, 0.9}},
			{Scope: []int{1, 0}, Table: []float64{0.5, 0.5, 0.2, 0.8}}, // c0 → a0
		},
	}
	res, err := inference.Native{}.Solve(context.Background(), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("P(a0 = true) = %.4f, Z = %.4f, by %s (width %d)\n",
		res.Marginals[0][1], math.Exp(res.LogZ), res.Report.Method, res.Report.Width)
	// Output: P(a0 = true) = 0.7700, Z = 0.5000, by exact (width 1)
}
