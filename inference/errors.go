package inference

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// Error bars.
//
// Every marginal that is not exact comes with a bar: how far it may be
// from the true marginal (Result.Errors). Where a method bounds its own
// error, the bar is that bound: a partial cutset leaves out a share m of
// Z, and then P = (1 − m)·P̂ + m·P_rest for the marginal P̂ of the branches
// solved, so |P − P̂| ≤ m·max(P̂, 1 − P̂) (m itself is estimated from BP's
// marginals, see Auto). Loopy BP and its variants have no such bound: a
// sampler that converges to the truth (gibbs.go) is run beside them, and
// the bar is the distance to its estimate plus errorZ of its standard
// errors. A label (the most probable state) is uncertain when the bar
// could change it: for a binary variable, when P(true) is within the bar
// of 0.5.

// How error bars were found (ComponentReport.ErrorMethod).
const (
	ErrorBound   = "bound"   // a bound: from the share of Z a partial cutset leaves out
	ErrorSampled = "sampled" // an estimate: from tempered Gibbs chains (distance to their estimate + 4 standard errors)
	// ErrorUnknown: no estimate, and the bars are 1. A model with hard
	// constraints (a zero in a factor of two variables or more), where a
	// Gibbs sampler may never cross from one set of states to another, or
	// too large for the error budget to pay for minSweeps sweeps of 16
	// chains.
	ErrorUnknown = "unknown"
)

// NoErrorEstimate as LoopyBP.ErrorBudget turns the sampler off: the
// approximate marginals then carry no error bars.
const NoErrorEstimate = -1

// errorBudget returns the sampler's budget: DefaultErrorBudget for zero.
func (b LoopyBP) errorBudget() int64 {
	if b.ErrorBudget == 0 {
		return DefaultErrorBudget
	}
	return b.ErrorBudget
}

// sampledErrors sets the error bars of r, the result of loopy BP b (or of
// a variant) on the component of the given merged factors, from a sampler
// run with budget (none when it is negative, and none needed when BP
// converged on a tree, where it is exact).
//
// With narrow, when a bar could flip a label, it samples again with
// narrowScale times the budget, and answers with the sampler's own
// estimate (whose bar is its standard errors alone) when its chains have
// mixed (R-hat at most mixedRHat everywhere) and fewer labels are then
// uncertain; otherwise r keeps its marginals, with the bars of the longer
// run.
func sampledErrors(ctx context.Context, b *loopyBP, scopes [][]int, tables [][]float64, r *componentResult, budget int64, narrow bool) error {
	if budget < 0 || r.report.Converged && !slices.Contains(b.loopVars(nil), true) {
		return nil // off, or loopy BP converged on a tree: exact
	}
	cards := b.cards
	entries := 0
	for _, sc := range scopes {
		entries += len(sc)
	}
	if _, sweeps := samplePlan(entries, budget); sweeps < minSweeps || hardConstraints(scopes, tables) {
		bars := make([]float64, len(cards))
		for v := range bars {
			bars[v] = 1
		}
		r.setErrors(bars, ErrorUnknown)
		return nil
	}
	s := newSampler(cards, scopes, tables)
	est, err := s.run(ctx, budget)
	if err != nil {
		return err
	}
	bars := est.errorBars(r.marginals)
	if n := countUncertain(r.marginals, bars); narrow && n > 0 && !est.invalid {
		if est, err = s.run(ctx, narrowScale*budget); err != nil {
			return err
		}
		bars = est.errorBars(r.marginals)
		own := est.errorBars(nil)
		if n = countUncertain(r.marginals, bars); est.mixed() && countUncertain(est.mean, own) < n {
			r.report.Fallbacks = append(r.report.Fallbacks, fmt.Sprintf("%s (%d labels within its error bar, up to %.2g)", r.report.Method, n, maxOf(bars)))
			r.report.Method = MethodGibbs
			r.marginals = est.mean
			bars = own
		}
	}
	r.setErrors(bars, ErrorSampled)
	r.report.Samples = est.chains * est.kept
	r.report.Replicas = est.ladder
	r.report.RHat = est.maxRHat()
	return nil
}

// hardConstraints reports whether a factor of two variables or more rules
// a state out.
func hardConstraints(scopes [][]int, tables [][]float64) bool {
	for fi, sc := range scopes {
		if len(sc) < 2 {
			continue
		}
		for _, l := range tables[fi] {
			if math.IsInf(l, -1) {
				return true
			}
		}
	}
	return false
}

// boundErrors sets the error bars of a partial cutset's result r, which
// leaves out a share missing of Z (see the comment at the top).
func boundErrors(r *componentResult, missing float64) {
	bars := make([]float64, len(r.marginals))
	for v, p := range r.marginals {
		for _, q := range p {
			bars[v] = max(bars[v], missing*max(q, 1-q))
		}
	}
	r.setErrors(bars, ErrorBound)
}

// setErrors records the bars in r and its report.
func (r *componentResult) setErrors(bars []float64, method string) {
	r.errors = bars
	r.report.ErrorMethod = method
	r.report.Error = maxOf(bars)
	r.report.Uncertain = countUncertain(r.marginals, bars)
}

// uncertainLabel reports whether the most probable state of p could
// change if each probability moved by err: whether the two largest are
// within 2·err (for a binary variable: p(1) within err of 0.5).
func uncertainLabel(p []float64, err float64) bool {
	if len(p) < 2 || !(err > 0) {
		return false
	}
	top, second := math.Inf(-1), math.Inf(-1)
	for _, q := range p {
		if q > top {
			top, second = q, top
		} else if q > second {
			second = q
		}
	}
	return top-second <= 2*err
}

func countUncertain(marg [][]float64, bars []float64) int {
	n := 0
	for v, p := range marg {
		if uncertainLabel(p, bars[v]) {
			n++
		}
	}
	return n
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// Uncertain reports whether variable v's label (its most probable state)
// could change within its error bar: never for an exact marginal.
func (r *Result) Uncertain(v int) bool {
	return r.Errors != nil && uncertainLabel(r.Marginals[v], r.Errors[v])
}
