package inference

import (
	"fmt"
	"slices"
	"strings"
)

// Report says how a result was obtained.
type Report struct {
	Solver string `json:"solver"` // "native", "merlin", ...
	// Method is the method of every component, or the methods used joined
	// by "+" (as "exact+cbp"); see the Method constants.
	Method string `json:"method"`
	Width  int    `json:"width,omitempty"` // largest induced width (clique size − 1) of the junction trees used
	// Iterations, Converged and Residual describe iterative methods. For
	// loopy BP, Iterations counts the sweeps of every run; Converged,
	// Residual (the largest change of a message in the last sweep) and
	// Damping (in the last sweep) describe the runs whose results were
	// combined. Converged is false when any component's method did not
	// converge.
	Iterations int     `json:"iterations,omitempty"`
	Converged  bool    `json:"converged"`
	Residual   float64 `json:"residual,omitempty"`
	Damping    float64 `json:"damping,omitempty"`
	// Clamped is the number of variables loopy BP conditioned on (the
	// most in a component), Branches the number of conditioned runs whose
	// results were combined, and Runs the number of BP runs in all, trial
	// runs included (both summed over components).
	Clamped  int `json:"clamped,omitempty"`
	Branches int `json:"branches,omitempty"`
	Runs     int `json:"runs,omitempty"`
	// Components is the number of connected components with factors that
	// were solved, BPComponents how many of them approximately.
	Components   int `json:"components,omitempty"`
	BPComponents int `json:"bp_components,omitempty"`
	// MaxError is the largest error bar of a marginal (Result.Errors),
	// and Uncertain the number of variables whose label is within its
	// bar (Result.Uncertain); both are 0 when the result is exact.
	MaxError  float64 `json:"max_error,omitempty"`
	Uncertain int     `json:"uncertain,omitempty"`
	// Parts describes each component of two variables or more that was
	// not solved by one junction tree (those are exact: Method and Width
	// above cover them; so is any method on one variable).
	Parts []ComponentReport `json:"parts,omitempty"`
}

// ComponentReport says how one connected component was solved: which
// method produced its marginals, whether it converged, and an indicator of
// its error (zero for exact methods): Residual for loopy BP, Spread for
// conditioned BP, Missing for a partial cutset.
type ComponentReport struct {
	// First is the component's smallest variable, Variables its size.
	First     int    `json:"first"`
	Variables int    `json:"variables"`
	Method    string `json:"method"`
	Exact     bool   `json:"exact"`
	Converged bool   `json:"converged"`
	// Width is the junction tree's (of each branch, for a cutset).
	Width int `json:"width,omitempty"`
	// Cutset is the number of variables of a cutset; Branches the number
	// of branches solved of its TotalBranches (or, for conditioned BP, of
	// leaves combined).
	Cutset        int   `json:"cutset,omitempty"`
	Branches      int64 `json:"branches,omitempty"`
	TotalBranches int64 `json:"total_branches,omitempty"`
	// Missing is a partial cutset's error indicator: the share of Z
	// estimated (from loopy BP's marginals) to lie in the branches not
	// solved. The marginals are off by about that much at most.
	Missing float64 `json:"missing,omitempty"`
	// Loopy BP: sweeps of every run, the largest change of a message in
	// the last sweep, and the damping then; for conditioned BP also the
	// variables clamped, the runs (trials included) and Spread, the
	// largest weighted mean absolute difference between a variable's
	// marginal in the combined branches and the combination.
	Iterations int     `json:"iterations,omitempty"`
	Residual   float64 `json:"residual,omitempty"`
	Damping    float64 `json:"damping,omitempty"`
	Clamped    int     `json:"clamped,omitempty"`
	Runs       int     `json:"runs,omitempty"`
	Spread     float64 `json:"spread,omitempty"`
	// Fallbacks lists what was tried first and did not converge (loopy BP
	// with the damping given, then with stronger damping), or, before the
	// sampler's answer, the answer whose error bars were too wide.
	Fallbacks []string `json:"fallbacks,omitempty"`
	// The error bars of an approximate component (Result.Errors): the
	// largest, how they were found (ErrorBound or ErrorSampled), and the
	// labels within theirs. A sampled bar also gives the sampler's
	// samples (chains × sweeps kept), its replicas per chain and its
	// largest R-hat (near 1 when the chains have mixed).
	Error       float64 `json:"error,omitempty"`
	ErrorMethod string  `json:"error_method,omitempty"`
	Uncertain   int     `json:"uncertain,omitempty"`
	Samples     int     `json:"samples,omitempty"`
	Replicas    int     `json:"replicas,omitempty"`
	RHat        float64 `json:"r_hat,omitempty"`
}

// Methods named in reports.
const (
	MethodExact         = "exact"          // a junction tree
	MethodCutset        = "cutset"         // exact: cutset conditioning, every branch by a junction tree
	MethodPartialCutset = "partial-cutset" // cutset conditioning on the heaviest branches only
	MethodConditionedBP = "cbp"            // conditioned loopy BP
	MethodBP            = "bp"             // loopy BP
	MethodDoubleLoop    = "double-loop"    // the convergent double-loop (CCCP) minimization of the Bethe free energy
	MethodBetheMin      = "bethe-min"      // quasi-Newton (L-BFGS) minimization of the Bethe free energy over the beliefs (binary pairwise models)
	MethodGibbs         = "gibbs"          // tempered Gibbs sampling (where auto found BP's error bars too wide)
	MethodEnumeration   = "enumeration"
)

// methodOrder orders the methods of a joined Method.
var methodOrder = []string{MethodEnumeration, MethodExact, MethodCutset, MethodPartialCutset, MethodConditionedBP, MethodBP, MethodDoubleLoop, MethodBetheMin, MethodGibbs}

// add accounts for a component's report.
func (r *Report) add(c ComponentReport, singleTree bool) {
	r.Components++
	if c.Exact {
		r.Width = max(r.Width, c.Width)
	} else {
		r.BPComponents++
		r.Iterations += c.Iterations
		r.Residual = max(r.Residual, c.Residual)
		r.Damping = max(r.Damping, c.Damping)
		r.Clamped = max(r.Clamped, c.Clamped)
		r.Runs += c.Runs
		if c.Method == MethodConditionedBP || c.Method == MethodBP || c.Method == MethodDoubleLoop || c.Method == MethodBetheMin {
			r.Branches += int(c.Branches)
		}
	}
	r.Converged = r.Converged && c.Converged
	r.MaxError = max(r.MaxError, c.Error)
	r.Uncertain += c.Uncertain
	if !singleTree && (c.Variables > 1 || !c.Converged) {
		r.Parts = append(r.Parts, c)
	}
	methods := strings.Split(r.Method, "+")
	if r.Method == "" {
		methods = nil
	}
	if !slices.Contains(methods, c.Method) {
		methods = append(methods, c.Method)
		slices.SortStableFunc(methods, func(a, b string) int {
			ia, ib := slices.Index(methodOrder, a), slices.Index(methodOrder, b)
			if ia < 0 {
				ia = len(methodOrder)
			}
			if ib < 0 {
				ib = len(methodOrder)
			}
			return ia - ib
		})
		r.Method = strings.Join(methods, "+")
	}
}

// Summary says in one line what the solver did: the method, the largest
// width of the junction trees, and for each part solved otherwise its
// method, convergence and error indicator (the first few parts).
func (r Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Solver, r.Method)
	var details []string
	if r.Width > 0 || r.Method == MethodExact {
		details = append(details, fmt.Sprintf("width %d", r.Width))
	}
	if r.Components > 1 {
		details = append(details, fmt.Sprintf("%d components", r.Components))
	}
	const shown = 3
	for i, p := range r.Parts {
		if i == shown {
			details = append(details, fmt.Sprintf("%d more", len(r.Parts)-shown))
			break
		}
		details = append(details, p.summary())
	}
	if len(r.Parts) == 0 && r.BPComponents > 0 {
		// A report built by another solver, without parts.
		conv := "converged"
		if !r.Converged {
			conv = "NOT converged"
		}
		details = append(details, fmt.Sprintf("%d sweeps, %s, residual %.2g", r.Iterations, conv, r.Residual))
	}
	if len(details) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(details, "; "))
	}
	return b.String()
}

func (c ComponentReport) summary() string {
	var b strings.Builder
	if c.Variables == 1 {
		fmt.Fprintf(&b, "variable %d by %s", c.First, c.Method)
	} else {
		fmt.Fprintf(&b, "%d variables from %d by %s", c.Variables, c.First, c.Method)
	}
	var d []string
	switch c.Method {
	case MethodCutset:
		d = append(d, fmt.Sprintf("%d clamped, %d branches of width %d", c.Cutset, c.Branches, c.Width))
	case MethodPartialCutset:
		d = append(d, fmt.Sprintf("%d clamped, %d of %d branches of width %d, missing %.2g", c.Cutset, c.Branches, c.TotalBranches, c.Width, c.Missing))
	case MethodGibbs:
		if len(c.Fallbacks) > 0 {
			d = append(d, "after "+strings.Join(c.Fallbacks, ", "))
		}
	default:
		if !c.Exact {
			conv := "converged"
			if !c.Converged {
				conv = "NOT converged"
			}
			d = append(d, fmt.Sprintf("%s in %d sweeps, residual %.2g", conv, c.Iterations, c.Residual))
			if c.Clamped > 0 {
				d = append(d, fmt.Sprintf("%d clamped, %d branches, %d runs, spread %.2g", c.Clamped, c.Branches, c.Runs, c.Spread))
			}
			if len(c.Fallbacks) > 0 {
				d = append(d, "after "+strings.Join(c.Fallbacks, ", "))
			}
		}
	}
	if c.ErrorMethod == ErrorUnknown {
		d = append(d, "error unknown (hard constraints, or a model too large for the error budget)")
	} else if c.ErrorMethod != "" {
		e := fmt.Sprintf("error ≤ %.2g (%s", c.Error, c.ErrorMethod)
		if c.Samples > 0 {
			e += fmt.Sprintf(", %d samples, R-hat %.3g", c.Samples, c.RHat)
			if c.RHat > mixedRHat {
				e += ": the chains did not mix, the bars are rough"
			}
		}
		e += fmt.Sprintf("), %d labels uncertain", c.Uncertain)
		d = append(d, e)
	}
	if len(d) > 0 {
		fmt.Fprintf(&b, ": %s", strings.Join(d, ", "))
	}
	return b.String()
}
