package veriscore

import (
	"slices"
)

// K is VeriScore's K over responses with these numbers of claims: the
// median as its code takes it, the middle of the sorted counts (for an
// even number of responses the upper of the two middle ones); 0 without
// responses.
func K(claims []int) int {
	if len(claims) == 0 {
		return 0
	}
	c := slices.Clone(claims)
	slices.Sort(c)
	return c[len(c)/2]
}

// F1 is a response's F1@K: precision supported/claims, recall
// min(supported/K, 1), their harmonic mean, and 0 when nothing is
// supported (or there is no claim, or K is 0).
func F1(supported, claims, k int) float64 {
	if supported == 0 || claims == 0 || k <= 0 {
		return 0
	}
	p := float64(supported) / float64(claims)
	r := min(float64(supported)/float64(k), 1)
	return 2 * p * r / (p + r)
}

// Score is VeriScore over responses: K, and the mean F1@K. A response with
// no verifiable claim scores 0 and counts (VeriScore's code appends 0 for
// it); responses that abstained are not given here.
func Score(supported, claims []int) (k int, veriscore float64) {
	k = K(claims)
	if len(claims) == 0 {
		return k, 0
	}
	for i := range claims {
		veriscore += F1(supported[i], claims[i], k)
	}
	return k, veriscore / float64(len(claims))
}
