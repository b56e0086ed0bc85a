package inference

import (
	"context"
	"math"
	"runtime"

	"github.com/factreasoner/factreasoner-go/internal/parallel"
)

// Minimizing the Bethe free energy by quasi-Newton steps, on binary
// pairwise models (FR networks), where loopy BP does not converge.
//
// On a binary pairwise model the Bethe free energy can be written as a
// function of the variables' beliefs alone (Welling and Teh 2001): given
// the beliefs q_i, q_j of a factor's two variables, the factor belief
// that minimizes F is b_f(x_i, x_j) ∝ ψ_f(x_i, x_j)·e^{ν_i x_i + ν_j x_j},
// with ν_i, ν_j such that its marginals are q_i and q_j (a quadratic in
// b_f(1,1), see pair). With y_i = logit q_i,
//
//	F(q) = Σ_f Σ b_f ln(b_f/ψ_f) + Σ_i [(1 − d_i)(q_i y_i − ln(1 + e^{y_i})) − q_i lp_i] + const
//
// (lp_i the prior's log-odds, d_i the number of factors of i), whose
// gradient in q_i is G_i = y_i − lp_i − Σ_f λ_fi, λ_fi = y_i − ν_i the
// factor's message to i: zero exactly at BP's fixed points, and −G is BP's
// own update of the log-odds. F is minimized by L-BFGS in q, with
// H₀ = diag(q(1 − q)), the inverse curvature of the entropy, so that the
// first direction is −G in y, a BP step; steps are taken in y (a belief
// near 0 or 1 stays inside), each at most maxLogOddsStep or twice BP's,
// and a backtracking line search keeps F decreasing at every step, as in
// the double loop (which took thousands of sweeps on the generated
// contradiction-heavy models: 2,533 on 100x300, against some 200
// evaluations of F here, each about as dear as a sweep).
//
// It reaches the same fixed point as the double loop did on the generated
// contradiction-heavy models (to 8e-6 on 100x300, 1e-6 on 15x30, within
// the double loop's own tolerance of 1e-7 on beliefs; BENCHMARKS.md).

// Limits of the minimization.
const (
	lbfgsMemory = 10 // the curvature pairs kept
	// lbfgsArmijo is the sufficient decrease of the line search.
	lbfgsArmijo = 1e-4
	// pairNewtonTolerance: Newton's method on a factor's messages stops
	// when a step moves them by less than this.
	pairNewtonTolerance = 1e-12
	// maxLogOddsStep bounds a step of a variable's log-odds (see
	// betheMinimize).
	maxLogOddsStep = 30
)

// betheMin is the state of a minimization.
type betheMin struct {
	b     *loopyBP
	n     int
	lp    []float64 // prior log-odds
	fixed []int8    // as in binarySweep
	// Per factor: the log table (entries 00, 01, 10, 11), and per edge
	// (loopyBP's numbering): ν of its variable.
	logs [][4]float64
	nu   []float64
	// Per factor, α = ψ11ψ00/(ψ10ψ01) (see pair), or NaN where it is
	// extreme; per variable, min(q, 1 − q) at the point evaluated.
	alpha []float64
	qmin  []float64
	// Chunks of factors: their terms of F are summed per chunk, and the
	// chunks in order, so that the sum does not depend on the workers.
	chunk   int
	partial []float64
	workers int
}

func newBetheMin(b *loopyBP) *betheMin {
	m := &betheMin{b: b, n: len(b.cards), lp: make([]float64, len(b.cards)), fixed: make([]int8, len(b.cards)),
		logs: make([][4]float64, len(b.facs)), nu: make([]float64, len(b.edgeVar))}
	for v, lp := range b.logPrior {
		switch {
		case lp == nil:
		case math.IsInf(lp[0], -1):
			m.fixed[v] = 1
		case math.IsInf(lp[1], -1):
			m.fixed[v] = -1
		default:
			m.lp[v] = lp[1] - lp[0]
		}
	}
	m.alpha = make([]float64, len(b.facs))
	m.qmin = make([]float64, len(b.cards))
	for fi, f := range b.facs {
		l := &m.logs[fi]
		for k, t := range f.table {
			l[k] = math.Log(t)
		}
		m.alpha[fi] = math.NaN()
		if la := l[3] + l[0] - l[1] - l[2]; math.Abs(la) < 500 {
			m.alpha[fi] = math.Exp(la)
		}
	}
	m.chunk = 2048
	m.partial = make([]float64, (len(b.facs)+m.chunk-1)/m.chunk)
	m.workers = 1
	if len(b.edgeVar) >= parallelEntries {
		m.workers = runtime.GOMAXPROCS(0)
	}
	return m
}

// logAddExp returns ln(e^a + e^b) and the weight of b, e^b/(e^a + e^b).
func logAddExp(a, b float64) (float64, float64) {
	if math.IsInf(a, -1) && math.IsInf(b, -1) {
		return a, 0
	}
	if a >= b {
		e := math.Exp(b - a)
		return a + math.Log1p(e), e / (1 + e)
	}
	e := math.Exp(a - b)
	return b + math.Log1p(e), 1 / (1 + e)
}

// message returns the log-odds of the message of a factor with log table
// (l0a, l0b; l1a, l1b) (rows: the receiving variable's state, columns the
// other's) given the other's log-odds nu, and its derivative in nu.
func message(l00, l01, l10, l11, nu float64) (float64, float64) {
	a, wa := logAddExp(l10, l11+nu)
	c, wc := logAddExp(l00, l01+nu)
	return a - c, wa - wc
}

// pair finds the messages ν of factor fi at beliefs of log-odds y, stores
// them and returns the factor's term of F, Σ b_f ln(b_f/ψ_f).
//
// In closed form: b_f(1,1) = ξ solves ξ·b_f(0,0) = α·b_f(1,0)·b_f(0,1),
// α = ψ11ψ00/(ψ10ψ01), with b_f(1,0) = q_i − ξ and so on: a quadratic. It
// is solved with the states relabelled so that q_i, q_j ≤ 1/2 (then
// 1 − q is never a difference of nearly equal numbers), in the form
// without cancellation, ξ = 2C/(B + √(B² + 4(1 − α)C)), C = α q_i q_j.
// Where α is extreme (a table entry near 0), Newton's method does it
// (pairNewton).
func (m *betheMin) pair(fi int, y []float64) float64 {
	f := &m.b.facs[fi]
	i, j := f.vars[0], f.vars[1]
	l := &m.logs[fi]
	si, sj := 0, 0 // the relabelling: 1 flips the variable's states
	if y[i] > 0 {
		si = 1
	}
	if y[j] > 0 {
		sj = 1
	}
	alpha := m.alpha[fi]
	if math.IsNaN(alpha) {
		return m.pairNewton(fi, y)
	}
	if si != sj { // relabelling one variable inverts α
		alpha = 1 / alpha
	}
	// The log table in the relabelled states (index 2a + b).
	lt := [4]float64{l[2*si+sj], l[2*si+1-sj], l[2*(1-si)+sj], l[2*(1-si)+1-sj]}
	qi, qj := m.qmin[i], m.qmin[j] // ≤ 1/2
	C := alpha * qi * qj
	B := 1 - qi - qj + alpha*(qi+qj)
	xi := 0.0
	if C > 0 {
		xi = 2 * C / (B + math.Sqrt(B*B+4*(1-alpha)*C))
	}
	b10, b01 := max(qi-xi, 0), max(qj-xi, 0)
	b00 := (1 - qi) - b01
	cells := [4]float64{b00, b01, b10, xi}
	kl := 0.0
	var lb [4]float64
	for k, c := range cells {
		lb[k] = math.Log(c)
		if c > 0 {
			kl += c * (lb[k] - lt[k])
		}
	}
	if b00 <= 0 || b10 <= 0 || b01 <= 0 {
		return m.pairNewton(fi, y)
	}
	ni := lb[2] - lb[0] - (lt[2] - lt[0])
	nj := lb[1] - lb[0] - (lt[1] - lt[0])
	if si == 1 {
		ni = -ni
	}
	if sj == 1 {
		nj = -nj
	}
	m.nu[f.edges[0]], m.nu[f.edges[1]] = clampLogOdds(ni), clampLogOdds(nj)
	return kl
}

// pairNewton is pair by Newton's method on ν_j (warm-started from the ν
// stored), for tables the closed form does not suit.
func (m *betheMin) pairNewton(fi int, y []float64) float64 {
	f := &m.b.facs[fi]
	i, j := f.vars[0], f.vars[1]
	e0, e1 := f.edges[0], f.edges[1]
	l := &m.logs[fi]
	yi, yj := y[i], y[j]
	nj := m.nu[e1]
	var ni float64
	for range 50 {
		// ν_i = y_i − m_i(ν_j); g(ν_j) = ν_j + m_j(ν_i) − y_j.
		mi, dmi := message(l[0], l[1], l[2], l[3], nj)
		ni = yi - mi
		mj, dmj := message(l[0], l[2], l[1], l[3], ni)
		g := nj + mj - yj
		// g'(ν_j) = 1 + m_j'(ν_i)·dν_i/dν_j = 1 − m_j'·m_i' > 0.
		step := g / (1 - dmj*dmi)
		nj = min(max(nj-step, -maxLogOdds), maxLogOdds)
		if math.Abs(step) <= pairNewtonTolerance*max(1, math.Abs(nj)) {
			break
		}
	}
	mi, _ := message(l[0], l[1], l[2], l[3], nj)
	ni = min(max(yi-mi, -maxLogOdds), maxLogOdds)
	m.nu[e0], m.nu[e1] = ni, nj
	// ln Z_f = ln Σ ψ(x) e^{ν_i x_i + ν_j x_j}.
	z0, _ := logAddExp(l[0], l[1]+nj)
	z1, _ := logAddExp(l[2], l[3]+nj)
	lnZ, _ := logAddExp(z0, z1+ni)
	return ni*sigmoid(yi) + nj*sigmoid(yj) - lnZ
}

func sigmoid(y float64) float64 {
	if y >= 0 {
		return 1 / (1 + math.Exp(-y))
	}
	e := math.Exp(y)
	return e / (1 + e)
}

// softplus returns ln(1 + e^y).
func softplus(y float64) float64 {
	if y > 0 {
		return y + math.Log1p(math.Exp(-y))
	}
	return math.Log1p(math.Exp(y))
}

// eval returns F at y and sets G (the gradient in q, see above).
func (m *betheMin) eval(ctx context.Context, y, G []float64) (float64, error) {
	b := m.b
	nf := len(b.facs)
	for v, x := range y {
		m.qmin[v] = sigmoid(-math.Abs(x))
	}
	err := parallel.Do(ctx, len(m.partial), m.workers, func(_ context.Context, c int) error {
		s := 0.0
		for fi := c * m.chunk; fi < min((c+1)*m.chunk, nf); fi++ {
			s += m.pair(fi, y)
		}
		m.partial[c] = s
		return nil
	})
	if err != nil {
		return 0, err
	}
	F := 0.0
	for _, s := range m.partial {
		F += s
	}
	for v := range m.n {
		d := float64(len(b.varEdges[v]))
		q := sigmoid(y[v])
		if m.fixed[v] == 0 {
			F += (1-d)*(q*y[v]-softplus(y[v])) - q*m.lp[v]
		}
		g := (1-d)*y[v] - m.lp[v]
		for _, e := range b.varEdges[v] {
			g += m.nu[e]
		}
		G[v] = g
		if m.fixed[v] != 0 {
			G[v] = 0
		}
	}
	return F, nil
}

// betheMinimize minimizes the Bethe free energy from b's current beliefs
// (see above), for at most maxEvals evaluations of F, until no belief is
// further than tolerance from BP's update of it. It leaves b's messages at
// the result and returns the beliefs; its iterations count evaluations.
func (b *loopyBP) betheMinimize(ctx context.Context, tolerance float64, maxEvals int) (bpStats, [][]float64, error) {
	var st bpStats
	marg, err := b.marginals()
	if err != nil {
		return st, nil, err
	}
	m := newBetheMin(b)
	n := m.n
	y := make([]float64, n)
	for v, p := range marg {
		switch m.fixed[v] {
		case 1:
			y[v] = maxLogOdds
		case -1:
			y[v] = -maxLogOdds
		default:
			y[v] = clampLogOdds(math.Log(p[1]) - math.Log(p[0]))
		}
	}
	// Start each factor's ν from BP's messages into it.
	for e, v := range b.edgeVar {
		m.nu[e] = clampLogOdds(y[v] - b.lam[e])
	}
	G := make([]float64, n)
	F, err := m.eval(ctx, y, G)
	st.iterations++
	if err != nil {
		return st, nil, err
	}
	grad := func(G, y, out []float64) { // the gradient in y: G·q(1−q)
		for v := range out {
			q := sigmoid(y[v])
			out[v] = G[v] * q * (1 - q)
		}
	}
	residual := func(G, y []float64) float64 {
		r := 0.0
		for v := range G {
			r = max(r, math.Abs(sigmoid(y[v])-sigmoid(y[v]-G[v])))
		}
		return r
	}
	g := make([]float64, n)
	grad(G, y, g)
	dq := make([]float64, n) // q(1 − q)
	for v, x := range y {
		q := sigmoid(x)
		dq[v] = q * (1 - q)
	}
	var sHist, yHist [][]float64
	var rho []float64
	d := make([]float64, n)
	alpha := make([]float64, lbfgsMemory)
	yNew, GNew, gNew := make([]float64, n), make([]float64, n), make([]float64, n)
	for st.iterations < maxEvals {
		if err := ctx.Err(); err != nil {
			return st, nil, err
		}
		st.residual = residual(G, y)
		if st.residual <= tolerance {
			st.converged = true
			break
		}
		// The direction: −H·g by the two-loop recursion, with H₀ the
		// diagonal that makes the first direction −G.
		// The direction: L-BFGS in the beliefs q, where G is the
		// gradient, with H₀ = diag(q(1 − q)) (the inverse curvature of
		// the entropy), then as a step of y = logit q. The first
		// direction is so −G, BP's own step.
		copy(d, G)
		for k := len(sHist) - 1; k >= 0; k-- {
			alpha[k] = rho[k] * dot(sHist[k], d)
			axpy(-alpha[k], yHist[k], d)
		}
		gamma := 1.0
		if k := len(sHist) - 1; k >= 0 {
			den := 0.0
			for v, x := range yHist[k] {
				den += x * x * dq[v]
			}
			if den > 0 {
				gamma = dot(sHist[k], yHist[k]) / den
			}
		}
		for v := range d {
			d[v] *= gamma * dq[v]
		}
		for k := range sHist {
			beta := rho[k] * dot(yHist[k], d)
			axpy(alpha[k]-beta, sHist[k], d)
		}
		for v := range d {
			if dq[v] > 0 {
				d[v] = -d[v] / dq[v]
			} else {
				d[v] = -G[v]
			}
			// A variable that the history saw move from a moderate
			// belief to an extreme one gets a step of hundreds of
			// log-odds from it (Δq over a tiny q(1 − q)): no step is
			// longer than maxLogOddsStep, or twice BP's.
			lim := max(maxLogOddsStep, 2*math.Abs(G[v]))
			d[v] = min(max(d[v], -lim), lim)
			if m.fixed[v] != 0 {
				d[v] = 0
			}
		}
		slope := dot(g, d)
		if !(slope < 0) {
			// Not a descent direction: forget the history, step along −G.
			sHist, yHist, rho = nil, nil, nil
			for v := range d {
				d[v] = -G[v]
			}
			slope = dot(g, d)
			if !(slope < 0) {
				break
			}
		}
		step := 1.0
		var FNew float64
		accepted := false
		for range 40 {
			for v := range y {
				yNew[v] = clampLogOdds(y[v] + step*d[v])
			}
			if FNew, err = m.eval(ctx, yNew, GNew); err != nil {
				return st, nil, err
			}
			st.iterations++
			// Sufficient decrease; or, near the minimum where F's
			// rounding hides it, no increase beyond rounding and a
			// smaller residual.
			if FNew <= F+lbfgsArmijo*step*slope ||
				FNew <= F+1e-12*(1+math.Abs(F)) && residual(GNew, yNew) < residual(G, y) {
				accepted = true
				break
			}
			step /= 2
		}
		if !accepted {
			break // F no longer decreases beyond rounding
		}
		grad(GNew, yNew, gNew)
		s, yg := make([]float64, n), make([]float64, n)
		for v := range s {
			s[v], yg[v] = sigmoid(yNew[v])-sigmoid(y[v]), GNew[v]-G[v]
		}
		if sy := dot(s, yg); sy > 1e-300 {
			if len(sHist) == lbfgsMemory {
				sHist, yHist, rho = sHist[1:], yHist[1:], rho[1:]
			}
			sHist, yHist, rho = append(sHist, s), append(yHist, yg), append(rho, 1/sy)
		}
		y, yNew = yNew, y
		G, GNew = GNew, G
		g, gNew = gNew, g
		F = FNew
		for v, x := range y {
			q := sigmoid(x)
			dq[v] = q * (1 - q)
		}
	}
	// Leave BP's messages at the result: λ_fi = y_i − ν_i.
	for e, v := range b.edgeVar {
		b.lam[e] = clampLogOdds(y[v] - m.nu[e])
	}
	b.stale = true
	out := make([][]float64, n)
	for v := range out {
		q := sigmoid(y[v])
		out[v] = []float64{1 - q, q}
	}
	return st, out, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// axpy adds a·x to y.
func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}
