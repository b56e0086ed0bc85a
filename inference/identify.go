package inference

import (
	"fmt"
	"strconv"
)

// A solver's Identify says what it is, with every setting that can change
// its marginals, in one string, as libDAI's identify() does:
// "bp[damping=0.5,tol=0.001,maxiter=1000,maxmem=536870912]". Two solvers
// of the same identity give the same results on the same model; output
// lines record it so that a resumed run or a merge refuses results of
// another solver. Settings left zero are shown as the defaults they take,
// so the zero value and the defaults given explicitly identify alike.

// Identify says what the solver is: NameEnumeration and its bound.
func (e Enumeration) Identify() string {
	limit := e.MaxStates
	if limit <= 0 {
		limit = defaultMaxStates
	}
	return fmt.Sprintf("%s[maxstates=%d]", NameEnumeration, limit)
}

// Identify says what the solver is: NameJunctionTree and its bounds.
func (j JunctionTree) Identify() string {
	j = j.withDefaults()
	return fmt.Sprintf("%s[maxmem=%d,budget=%v]", NameJunctionTree, j.MaxBytes, j.Budget)
}

// Identify says what the solver is: NameLoopyBP and its settings.
func (b LoopyBP) Identify() string {
	return NameLoopyBP + "[" + b.settings() + "]"
}

func (b LoopyBP) settings() string {
	b = b.withDefaults()
	// The error budget changes more than the error bars: auto answers with
	// the sampler's estimate where BP's bars could flip a label.
	errors := "none"
	if eb := b.errorBudget(); eb != NoErrorEstimate {
		errors = strconv.FormatInt(eb, 10)
	}
	return fmt.Sprintf("damping=%s,tol=%s,maxiter=%d,maxmem=%d,errbudget=%s", b.Damping,
		strconv.FormatFloat(b.Tolerance, 'g', -1, 64), b.MaxIterations, b.MaxBytes, errors)
}

// Identify says what the solver is: NameConditionedBP, its budget
// ("scaled" for the default that scales with the component) and its BP
// settings.
func (c ConditionedBP) Identify() string {
	budget := "scaled"
	if c.Budget != 0 {
		budget = strconv.FormatInt(c.Budget, 10)
	}
	return fmt.Sprintf("%s[budget=%s,%s]", NameConditionedBP, budget, c.BP.settings())
}

// Identify says what the solver is: NameAuto, its exact bounds and the
// identity of its approximate solver.
func (a Auto) Identify() string {
	approx := a.Approximate
	if approx == nil {
		approx = ConditionedBP{}
	}
	e := a.Exact.withDefaults()
	return fmt.Sprintf("%s[maxmem=%d,budget=%v,approx=%s]", NameAuto, e.MaxBytes, e.Budget, approx.Identify())
}
