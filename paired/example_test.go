package paired_test

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/paired"
)

// Two systems' factual precision on the same seven responses: is the
// first one's lead real?
func Example() {
	fr2 := []float64{0.8, 0.6, 0.9, 0.7, 0.75, 0.5, 0.65}
	fr3 := []float64{0.7, 0.62, 0.85, 0.6, 0.7, 0.55, 0.6}
	lo, hi, _ := paired.MeanCI(fr2, paired.Options{})
	fmt.Printf("FR2 mean precision 95%% interval [%.3f, %.3f]\n", lo, hi)
	t, _ := paired.TTest(fr2, fr3)
	fmt.Printf("paired t: FR2 − FR3 = %.3f, p = %.3f\n", t.MeanDifference, t.PValue)
	p, _ := paired.PermutationTest(fr2, fr3, paired.Options{})
	fmt.Printf("sign-flip permutation (exact over %d pairs): p = %.3f\n", p.N, p.PValue)
	// Output:
	// FR2 mean precision 95% interval [0.614, 0.793]
	// paired t: FR2 − FR3 = 0.040, p = 0.111
	// sign-flip permutation (exact over 7 pairs): p = 0.156
}
