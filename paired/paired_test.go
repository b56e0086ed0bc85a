package paired

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// scipyCases are computed by SciPy 1.10.1 (testdata/scipy_reference.py):
// ttest_rel's two-sided p-value and, up to 16 pairs, the exact two-sided
// p-value of permutation_test over every sign flip (perm < 0: not computed
// exactly; permEstimate is SciPy's estimate from 200000 random flips).
var scipyCases = []struct {
	name                 string
	a, b                 []float64
	meanDiff, tP, perm   float64
	permEstimate, within float64
}{
	{name: "seven", a: []float64{0.8, 0.6, 0.9, 0.7, 0.75, 0.5, 0.65}, b: []float64{0.7, 0.62, 0.85, 0.6, 0.7, 0.55, 0.6},
		meanDiff: 0.04000000000000002, tP: 0.1105517404022668, perm: 0.15625},
	{name: "ties", a: []float64{1.0, 0.5, 0.5, 0.25, 1.0, 0.0}, b: []float64{1.0, 0.5, 0.25, 0.25, 0.5, 0.0},
		meanDiff: 0.125, tP: 0.203110663720055, perm: 0.5},
	{name: "forty",
		a:        []float64{0.1602, 0.5722, 0.3771, 0.3229, 0.6866, 0.9722, 0.9668, 0.6713, 0.8301, 0.4597, 0.3171, 0.5426, 0.6012, 0.913, 0.4085, 0.5509, 0.4105, 0.1524, 0.0405, 0.2332, 0.6078, 0.9048, 0.0087, 0.4592, 0.8126, 0.9618, 0.1612, 0.0667, 0.1493, 0.3268, 0.3654, 0.5914, 0.0466, 0.9245, 0.6639, 0.5357, 0.9873, 0.4309, 0.2986, 0.7489},
		b:        []float64{0.195, 0.3148, 0.0836, 0.4687, 0.4743, 0.8533, 1.0, 0.6333, 0.7088, 0.2531, 0.5317, 0.7563, 0.4162, 0.5799, 0.3343, 0.7762, 0.4517, 0.0, 0.0575, 0.3369, 0.5517, 0.8879, 0.0, 0.3084, 0.6299, 0.638, 0.0, 0.0, 0.1866, 0.3723, 0.3255, 0.6262, 0.0051, 0.7188, 0.6477, 0.4161, 0.8905, 0.0, 0.1351, 0.7759},
		meanDiff: 0.072495, tP: 0.004369708100017691, perm: -1, permEstimate: 0.00421, within: 0.0015},
	{name: "strong", a: []float64{0.9, 0.85, 0.95, 0.8, 0.92, 0.88, 0.9, 0.87, 0.93, 0.91, 0.86, 0.89},
		b:        []float64{0.5, 0.55, 0.45, 0.6, 0.52, 0.48, 0.5, 0.53, 0.47, 0.49, 0.54, 0.51},
		meanDiff: 0.37666666666666665, tP: 3.874981967282126e-09, perm: 0.00048828125},
}

// TestAgainstSciPy: the p-values agree with SciPy's to 1e-6 (exact ones),
// the sampled permutation p-value with SciPy's estimate within its
// sampling error.
func TestAgainstSciPy(t *testing.T) {
	for _, tc := range scipyCases {
		tt, err := TTest(tc.a, tc.b)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(tt.PValue-tc.tP) > 1e-6 || math.Abs(tt.MeanDifference-tc.meanDiff) > 1e-12 || tt.N != len(tc.a) {
			t.Errorf("%s: t-test %+v, want mean difference %v, p %v", tc.name, tt, tc.meanDiff, tc.tP)
		}
		pt, err := PermutationTest(tc.a, tc.b, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		switch {
		case tc.perm >= 0 && math.Abs(pt.PValue-tc.perm) > 1e-12:
			t.Errorf("%s: exact permutation p %v, want %v", tc.name, pt.PValue, tc.perm)
		case tc.perm < 0 && math.Abs(pt.PValue-tc.permEstimate) > tc.within:
			t.Errorf("%s: sampled permutation p %v, want %v ± %v", tc.name, pt.PValue, tc.permEstimate, tc.within)
		}
	}
}

// TestPermutationBruteForce: the exact test counts what a plain
// enumeration of every sign vector (zeros flipped too, which changes
// nothing) counts.
func TestPermutationBruteForce(t *testing.T) {
	a := []float64{3, 1, 4, 1, 5, 9, 2, 6, 5}
	b := []float64{2, 7, 1, 8, 2, 8, 1, 8, 2}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	seen := math.Abs(stat.Mean(d, nil))
	var count func(i int, sum float64) int
	count = func(i int, sum float64) int {
		if i == len(d) {
			if math.Abs(sum/float64(len(d))) >= seen-1e-12 {
				return 1
			}
			return 0
		}
		return count(i+1, sum+d[i]) + count(i+1, sum-d[i])
	}
	want := float64(count(0, 0)) / math.Pow(2, float64(len(d)))
	got, err := PermutationTest(a, b, Options{})
	if err != nil || math.Abs(got.PValue-want) > 1e-12 {
		t.Errorf("p %v (%v), want %v", got.PValue, err, want)
	}
}

// TestDegenerate: equal systems, a constant difference, too few pairs,
// mismatched lengths and non-numbers.
func TestDegenerate(t *testing.T) {
	same := []float64{0.5, 0.25, 1}
	if tt, err := TTest(same, same); err != nil || tt.PValue != 1 || tt.MeanDifference != 0 {
		t.Errorf("same values: %+v, %v", tt, err)
	}
	if pt, err := PermutationTest(same, same, Options{}); err != nil || pt.PValue != 1 {
		t.Errorf("same values, permutation: %+v, %v", pt, err)
	}
	if tt, err := TTest([]float64{1, 2, 3}, []float64{0, 1, 2}); err != nil || tt.PValue != 0 || tt.MeanDifference != 1 {
		t.Errorf("constant difference: %+v, %v", tt, err)
	}
	for _, tc := range []struct {
		name string
		a, b []float64
	}{
		{"one pair", []float64{1}, []float64{0}},
		{"lengths", []float64{1, 2}, []float64{1}},
		{"NaN", []float64{1, math.NaN()}, []float64{1, 2}},
	} {
		if _, err := TTest(tc.a, tc.b); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, err := PermutationTest(nil, nil, Options{}); err == nil {
		t.Error("no pairs: no error")
	}
	if _, _, err := MeanCI(nil, Options{}); err == nil {
		t.Error("MeanCI of nothing: no error")
	}
	if _, _, err := MeanCI([]float64{1}, Options{Level: 1.5}); err == nil {
		t.Error("level 1.5: no error")
	}
}

// TestMeanCIExact compares the sampled interval with the exact bootstrap
// distribution, every one of the 5^5 equally likely resamples of five
// values enumerated: its quantiles and the sampled interval's ends agree
// to within the sampling error of 10000 resamples.
func TestMeanCIExact(t *testing.T) {
	x := []float64{0, 0.25, 0.5, 0.9, 1}
	var means []float64
	var walk func(i int, sum float64)
	walk = func(i int, sum float64) {
		if i == len(x) {
			means = append(means, sum/float64(len(x)))
			return
		}
		for _, v := range x {
			walk(i+1, sum+v)
		}
	}
	walk(0, 0)
	slices.Sort(means)
	wantLo := stat.Quantile(0.025, stat.Empirical, means, nil)
	wantHi := stat.Quantile(0.975, stat.Empirical, means, nil)
	lo, hi, err := MeanCI(x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(lo-wantLo) > 0.03 || math.Abs(hi-wantHi) > 0.03 {
		t.Errorf("interval [%v, %v], exact bootstrap [%v, %v]", lo, hi, wantLo, wantHi)
	}
	mean := stat.Mean(x, nil)
	if !(lo <= mean && mean <= hi) {
		t.Errorf("interval [%v, %v] leaves out the mean %v", lo, hi, mean)
	}
}

// TestMeanCIDeterministic: the same values give the same interval; the
// same number of values is resampled alike (paired intervals); one value
// or equal values give [mean, mean].
func TestMeanCIDeterministic(t *testing.T) {
	x := []float64{0.1, 0.4, 0.35, 0.8, 0.9, 0.2, 0.65}
	lo1, hi1, _ := MeanCI(x, Options{})
	lo2, hi2, _ := MeanCI(x, Options{})
	if lo1 != lo2 || hi1 != hi2 {
		t.Errorf("two runs: [%v, %v] and [%v, %v]", lo1, hi1, lo2, hi2)
	}
	// y = 2x + 1 resampled alike: its interval is the image of x's.
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 2*v + 1
	}
	ylo, yhi, _ := MeanCI(y, Options{})
	if math.Abs(ylo-(2*lo1+1)) > 1e-12 || math.Abs(yhi-(2*hi1+1)) > 1e-12 {
		t.Errorf("y = 2x+1: [%v, %v], want [%v, %v]", ylo, yhi, 2*lo1+1, 2*hi1+1)
	}
	for _, c := range [][]float64{{0.3}, {0.7, 0.7, 0.7}} {
		lo, hi, err := MeanCI(c, Options{})
		if m := stat.Mean(c, nil); err != nil || lo != m || hi != m {
			t.Errorf("%v: [%v, %v] (%v)", c, lo, hi, err)
		}
	}
	differ := false
	for seed := uint64(7); seed < 10; seed++ {
		lo, hi, _ := MeanCI(x, Options{Seed: seed})
		differ = differ || lo != lo1 || hi != hi1
	}
	if !differ {
		t.Error("three other seeds gave the same interval: the seed is not used")
	}
}
