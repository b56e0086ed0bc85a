// Package paired says how sure a comparison of systems over the same
// responses is: a confidence interval for the mean of a per-response
// measure (a percentile bootstrap over responses), and paired tests of the
// difference between two systems' values on the same responses (Student's
// paired t-test, as the FactReasoner paper's Table 4, and a sign-flip
// permutation test, which assumes no normality).
//
// Everything is deterministic: the resamples come from a fixed seed and a
// generator whose output is part of this package, so that equal inputs
// give byte-identical tables; and two measures over the same number of
// responses are resampled alike, so that their intervals are paired.
package paired

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Options set the resampling.
type Options struct {
	// Level is the confidence level of intervals (0.95 when zero).
	Level float64
	// Resamples is the number of bootstrap resamples, and of random sign
	// flips when a permutation test is not exact (DefaultResamples when
	// zero).
	Resamples int
	// Seed seeds the resamples (DefaultSeed when zero).
	Seed uint64
}

// Defaults.
const (
	DefaultLevel     = 0.95
	DefaultResamples = 10000
	DefaultSeed      = 20250218 // FactReasoner's arXiv submission date
	// ExactFlips: a permutation test over at most this many nonzero
	// differences enumerates all 2^n sign flips instead of sampling them.
	ExactFlips = 16
)

func (o Options) withDefaults() Options {
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	return o
}

func (o Options) check() error {
	if !(o.Level > 0 && o.Level < 1) {
		return fmt.Errorf("confidence level %v: want a number between 0 and 1", o.Level)
	}
	if o.Resamples < 1 {
		return fmt.Errorf("%d resamples: want at least 1", o.Resamples)
	}
	return nil
}

// MeanCI returns the percentile bootstrap interval of the mean of x at
// o.Level: x is resampled with replacement o.Resamples times, and the
// interval is between the (1−Level)/2 and (1+Level)/2 quantiles of the
// resamples' means (gonum's empirical quantile). One value, or equal
// values, give the interval [mean, mean]; no value is an error.
func MeanCI(x []float64, o Options) (lo, hi float64, err error) {
	o = o.withDefaults()
	if err := o.check(); err != nil {
		return 0, 0, err
	}
	if len(x) == 0 {
		return 0, 0, errors.New("no values")
	}
	if uint64(len(x)) >= 1<<32 {
		return 0, 0, fmt.Errorf("%d values: more than a resample draws from", len(x))
	}
	means := make([]float64, o.Resamples)
	g := newGenerator(o.Seed, uint64(len(x)))
	n := uint64(len(x))
	for r := range means {
		// Two indices per draw, each from 32 of its bits by Lemire's
		// multiply-shift (x holds far fewer than 2^32 values: its bias is
		// under n/2^32).
		sum := 0.0
		for i := 0; i < len(x); i += 2 {
			v := g.next()
			sum += x[(v&0xffffffff)*n>>32]
			if i+1 < len(x) {
				sum += x[(v>>32)*n>>32]
			}
		}
		means[r] = sum / float64(len(x))
	}
	slices.Sort(means)
	tail := (1 - o.Level) / 2
	lo = stat.Quantile(tail, stat.Empirical, means, nil)
	hi = stat.Quantile(1-tail, stat.Empirical, means, nil)
	return lo, hi, nil
}

// Test is the result of a paired test of two systems' values on the same
// responses.
type Test struct {
	// MeanDifference is the mean over the responses of a − b.
	MeanDifference float64
	// PValue is two-sided: the probability, were there no difference, of
	// a mean difference at least as far from 0 as the one seen.
	PValue float64
	// N is the number of responses.
	N int
}

// TTest is Student's paired t-test of a against b (a[i] and b[i] are the
// two systems' values on response i): t = mean(d) / (sd(d)/√n), d = a −
// b, with n − 1 degrees of freedom, two-sided (scipy.stats.ttest_rel).
// Where every difference is the same, the p-value is 1 when it is 0 (the
// systems agree) and 0 otherwise (scipy has NaN for both). Fewer than two
// pairs are an error.
func TTest(a, b []float64) (Test, error) {
	d, err := differences(a, b)
	if err != nil {
		return Test{}, err
	}
	if len(d) < 2 {
		return Test{}, errors.New("a paired t-test needs at least two pairs")
	}
	mean, sd := stat.MeanStdDev(d, nil)
	t := Test{MeanDifference: mean, N: len(d)}
	if sd == 0 || allEqual(d) {
		t.PValue = 1
		if mean != 0 {
			t.PValue = 0
		}
		return t, nil
	}
	score := mean / (sd / math.Sqrt(float64(len(d))))
	t.PValue = min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(d) - 1)}.Survival(math.Abs(score)))
	return t, nil
}

// PermutationTest is the paired sign-flip permutation test of a against
// b: under no difference each d = a − b is as likely to have either sign,
// and the p-value is the share of sign assignments whose mean is at least
// as far from 0 as the mean seen. Up to ExactFlips nonzero differences,
// all 2^n assignments are counted (the exact p-value); beyond, o.Resamples
// random ones, and p = (1 + hits) / (1 + resamples), which is never 0. A
// difference of exactly 0 has no sign to flip. No pair is an error.
func PermutationTest(a, b []float64, o Options) (Test, error) {
	o = o.withDefaults()
	if err := o.check(); err != nil {
		return Test{}, err
	}
	d, err := differences(a, b)
	if err != nil {
		return Test{}, err
	}
	if len(d) == 0 {
		return Test{}, errors.New("a permutation test needs at least one pair")
	}
	t := Test{MeanDifference: stat.Mean(d, nil), N: len(d)}
	var nz []float64
	total := 0.0
	for _, x := range d {
		if x != 0 {
			nz = append(nz, math.Abs(x))
			total += math.Abs(x)
		}
	}
	if len(nz) == 0 {
		t.PValue = 1
		return t, nil
	}
	seen := 0.0
	for _, x := range d {
		seen += x
	}
	// A flipped sum at least as far from 0 as the one seen, up to the
	// rounding of adding the same numbers in another order.
	far := math.Abs(seen) - 1e-9*total
	if len(nz) <= ExactFlips {
		hits := 0
		for mask := range uint64(1) << len(nz) {
			s := 0.0
			for i, x := range nz {
				if mask&(1<<i) != 0 {
					s -= x
				} else {
					s += x
				}
			}
			if math.Abs(s) >= far {
				hits++
			}
		}
		t.PValue = float64(hits) / float64(uint64(1)<<len(nz))
		return t, nil
	}
	// Difference i keeps its sign when bit i%64 of draw i/64 is set, and
	// is flipped otherwise: the flipped sum is 2·(sum kept) − total. The
	// kept sum of each block of 8 differences is looked up by the byte of
	// the draw that signs them.
	blocks := (len(nz) + 7) / 8
	kept := make([][256]float64, blocks)
	for b := range kept {
		for mask := 1; mask < 256; mask++ {
			low := mask & -mask // the lowest set bit
			k := 8*b + bits.TrailingZeros(uint(low))
			v := kept[b][mask^low]
			if k < len(nz) {
				v += nz[k]
			}
			kept[b][mask] = v
		}
	}
	g := newGenerator(o.Seed, uint64(len(nz)))
	hits := 0
	for range o.Resamples {
		sum := 0.0
		var draw uint64
		for b := range kept {
			if b%8 == 0 {
				draw = g.next()
			}
			sum += kept[b][draw&0xff]
			draw >>= 8
		}
		if math.Abs(2*sum-total) >= far {
			hits++
		}
	}
	t.PValue = float64(1+hits) / float64(1+o.Resamples)
	return t, nil
}

func differences(a, b []float64) ([]float64, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("%d values against %d: a paired test needs one of each per response", len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) {
			return nil, fmt.Errorf("pair %d is not a pair of numbers (%v, %v)", i, a[i], b[i])
		}
		d[i] = a[i] - b[i]
	}
	return d, nil
}

func allEqual(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}

// generator is SplitMix64 (Steele, Lea and Flood 2014), written out here
// so that the resamples, and the tables made from them, are the same with
// every Go version.
type generator struct{ state uint64 }

// newGenerator starts a stream for a seed and the number of values it
// resamples: two resamplings of the same number of values draw the same
// indices.
func newGenerator(seed, n uint64) *generator {
	return &generator{state: seed ^ (n * 0x9e3779b97f4a7c15)}
}

func (g *generator) next() uint64 {
	g.state += 0x9e3779b97f4a7c15
	z := g.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
