package inference_test

import (
	"context"
	"fmt"
	"math"

	"github.com/factreasoner/factreasoner-go/inference"
)

func ExampleAuto() {
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
	res, err := inference.Auto{}.Solve(context.Background(), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("P(a0 = true) = %.4f, Z = %.4f, by %s (width %d)\n",
		res.Marginals[0][1], math.Exp(res.LogZ), res.Report.Method, res.Report.Width)
	// Output: P(a0 = true) = 0.7700, Z = 0.5000, by exact (width 1)
}

func ExampleNew() {
	// A loop of three binary variables that prefer to agree, and a prior
	// on the first. Solvers are built by name, as the command line does.
	// By hand: all three equal weighs 0.2·8 or 0.8·8, any other state
	// 0.2·2 or 0.8·2, so Z = 14 and P(x2 = 1) = 8.8/14. Loopy BP is off on
	// the loop; conditioning on one variable cuts it.
	agree := []float64{2, 1, 1, 2}
	m := &inference.Model{
		Cards: []int{2, 2, 2},
		Factors: []inference.Factor{
			{Scope: []int{0}, Table: []float64{0.2, 0.8}},
			{Scope: []int{0, 1}, Table: agree},
			{Scope: []int{1, 2}, Table: agree},
			{Scope: []int{2, 0}, Table: agree},
		},
	}
	for _, name := range []string{"exact", "bp", "cbp"} {
		s, err := inference.New(name, inference.Options{BP: inference.LoopyBP{Damping: inference.NoDamping()}})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := s.Solve(context.Background(), m)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-5s P(x2 = 1) = %.4f\n", name, res.Marginals[2][1])
	}
	// Output:
	// exact P(x2 = 1) = 0.6286
	// bp    P(x2 = 1) = 0.6346
	// cbp   P(x2 = 1) = 0.6286
}
