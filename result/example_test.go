package result_test

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/result"
)

// Two lines of runs that differ only in the solver's settings are not one
// run: Compare names the field.
func ExampleCompare() {
	a := []byte(`{"factuality_score":1,"num_atoms":1,"k":1,"marginals":[{"variable":"a0","probabilities":[0.1,0.9]}],"version":"FR3","nli_backend":"given","model_name":"given","run":{"nli":"given","inference":"exact[maxmem=536870912,budget=2s]","k":"half"},"line":1}`)
	b := []byte(`{"factuality_score":1,"num_atoms":1,"k":1,"marginals":[{"variable":"a0","probabilities":[0.1,0.9]}],"version":"FR3","nli_backend":"given","model_name":"given","run":{"nli":"given","inference":"bp[damping=0.5,tol=0.001,maxiter=1000,maxmem=536870912]","k":"half"},"line":2}`)
	la, err := result.Decode(a)
	if err != nil {
		panic(err)
	}
	lb, err := result.Decode(b)
	if err != nil {
		panic(err)
	}
	d := result.Compare(la.Identity(), lb.Identity())
	fmt.Printf("%s: %s vs %s\n", d.Field, d.A, d.B)
	// Output: run.inference: exact[maxmem=536870912,budget=2s] vs bp[damping=0.5,tol=0.001,maxiter=1000,maxmem=536870912]
}
