package inference

import (
	"context"
	"fmt"
	"math"
)

// When loopy BP does not converge.
//
// Loopy BP can oscillate for ever on strongly frustrated networks (dense FR
// models full of contradictions). Its fixed points are the stationary
// points of the Bethe free energy
//
//	F(b) = Σ_f Σ b_f log(b_f/ψ_f) + Σ_i Σ b_i [(1 − d_i) log b_i − log π_i]
//
// (ψ_f the factors, π_i the priors, d_i the number of factors of variable
// i), under the constraints that each b_f sums to b_i on its variable i.
// So a method that minimizes F directly reaches the same kind of answer
// with a guarantee BP lacks. runConverging first tries damping (which
// often suffices), then the double-loop algorithm of Yuille (2002) and
// Heskes et al. (2003), a concave–convex procedure (CCCP): the concave
// part Σ_i (1 − d_i) Σ b_i log b_i is replaced by its tangent at the
// current b_i, which bounds F from above and touches it there, and the
// convex problem left is solved exactly (the inner loop). The tighter the
// bound, the longer the steps: as Heskes (2006) shows, a factor's own
// entropy can absorb 1/k of the entropy of each of its k variables and
// stay convex, so only d_i − 1 − κ_i of variable i's concave term, with
// κ_i = min(d_i − 1, Σ_f 1/|f|), is replaced by its tangent (about half,
// on pairwise models). Each outer step
// can only lower F, so the outer loop converges. The inner problem's dual
// is smooth and concave, and the inner loop maximizes it one variable at a
// time in closed form, which converges too: for variable i, with m_fi the
// message of each of its factors computed from the current variable-to-
// factor messages n_jf of its other variables,
//
//	b_i ∝ [π_i · (b_i^t)^(d_i − 1 − κ_i) · Π_f m_fi]^(1/(d_i − κ_i)),   n_if = b_i / m_fi
//
// where b_i^t is the outer iterate. At a fixed point b_i = π_i Π_f m_fi,
// BP's own fixed-point equation.

// dampingSchedule lists the fixed dampings tried after a run that did not
// converge, each from where the last stopped, before the double loop;
// each gives up after scheduleGiveUp sweeps without a new lowest residual.
var dampingSchedule = []float64{0.5, 0.75, 0.9}

const scheduleGiveUp = 3 * stallSweeps

// Limits of the double loop.
const (
	innerSweeps = 3 // inner sweeps per outer step at most (more do not speed the outer loop up, measured on dense FR models)
	// innerTolerance: the inner loop stops when no variable-to-factor
	// message changed by more than this (relative to the outer change).
	innerTolerance = 1e-3
	// doubleLoopTolerance is the least tolerance of the outer loop, on
	// beliefs: it converges linearly, and a change below 1e-7 does not
	// show in marginals printed with 6 decimals.
	doubleLoopTolerance = 1e-7
	// doubleLoopBudget: the double loop may run this many times the
	// sweeps of one BP run. Each step lowers F (up to the precision of
	// the inner loop), so more sweeps are not wasted: the generated
	// contradiction-heavy models need about 2,300, 800 and 1,100 of
	// their own (100x300, 200x600, 500x1500; BENCHMARKS.md).
	doubleLoopBudget = 3
	// Overrelaxation of the outer steps: each accepted step stretches the
	// next by overGrow, up to overMax times the plain step. On the
	// generated 100x300 model 1.2 took fewer sweeps than 1.5 and 2; a
	// larger overMax did not help, and on 500x1500 steps of up to 1000
	// times threw beliefs from one end to the other.
	overGrow = 1.2
	overMax  = 30
)

// tangentFloor is the least belief of a state in the double loop's tangent
// point. A belief that underflows to 0 (after a long overrelaxed step, or
// exp of a large negative log) would otherwise rule its state out for
// good: the tangent's log term is −Inf whatever the messages say, and
// where they allow only that state, the inner loop finds none. A state
// that is really impossible stays so: its prior or its messages are 0.
const tangentFloor = 1e-300

// floorTangent raises the beliefs p below tangentFloor to it and
// normalizes p.
func floorTangent(p []float64) {
	for x := range p {
		p[x] = max(p[x], tangentFloor)
	}
	normalize(p)
}

// runConverging runs BP from the current messages with opts's damping;
// when that does not converge, the damping schedule; then the double
// loop. It returns the statistics of the run kept, its method (MethodBP
// or MethodDoubleLoop), the marginals when the double loop produced them
// (nil otherwise: the caller takes BP's), and what was tried before.
func (b *loopyBP) runConverging(ctx context.Context, opts LoopyBP) (bpStats, string, [][]float64, []string, error) {
	damping, adaptive := opts.Damping.start()
	st, err := b.run(ctx, damping, adaptive, opts.Tolerance, opts.MaxIterations, 0)
	if err != nil || st.converged {
		return st, MethodBP, nil, nil, err
	}
	tried := []string{fmt.Sprintf("bp (damping %v, %d sweeps, residual %.2g)", opts.Damping, st.iterations, st.residual)}
	total := st.iterations
	for _, d := range dampingSchedule {
		if d <= st.damping {
			continue
		}
		s, err := b.run(ctx, d, false, opts.Tolerance, opts.MaxIterations, scheduleGiveUp)
		total += s.iterations
		if err != nil {
			return s, MethodBP, nil, nil, err
		}
		if s.converged {
			s.iterations = total
			return s, MethodBP, nil, tried, nil
		}
		tried = append(tried, fmt.Sprintf("bp (damping %g, %d sweeps, residual %.2g)", d, s.iterations, s.residual))
		st = s
	}
	if b.binary {
		s, marg, err := b.betheMinimize(ctx, opts.Tolerance, doubleLoopBudget*opts.MaxIterations)
		s.iterations += total
		return s, MethodBetheMin, marg, tried, err
	}
	s, marg, err := b.doubleLoop(ctx, max(opts.Tolerance, doubleLoopTolerance), doubleLoopBudget*opts.MaxIterations, true)
	s.iterations += total
	return s, MethodDoubleLoop, marg, tried, err
}

// doubleLoop minimizes the Bethe free energy from the current messages
// (see above), for at most maxOuter inner sweeps in all, until no belief
// changes by more than tolerance in an outer step. Its iterations count
// the inner sweeps. It leaves b's factor-to-
// variable messages at the result, so that marginals and the Bethe
// estimate can be read as after BP, and returns the beliefs.
func (b *loopyBP) doubleLoop(ctx context.Context, tolerance float64, maxOuter int, overrelax bool) (bpStats, [][]float64, error) {
	var st bpStats
	nv := len(b.cards)
	b.sync()
	// Start from BP's beliefs and the messages they imply.
	bt, err := b.marginals()
	if err != nil {
		return st, nil, err
	}
	n := make([]float64, len(b.msg)) // variable → factor messages
	for e, v := range b.edgeVar {
		off := b.edgeOff[e]
		c := b.cards[v]
		for x := range c {
			n[off+x] = bt[v][x] / max(b.msg[off+x], messageFloor)
		}
		normalize(n[off : off+c])
	}
	bel := make([][]float64, nv)
	for v := range nv {
		bel[v] = append([]float64(nil), bt[v]...)
	}
	maxCard := 0
	for _, c := range b.cards {
		maxCard = max(maxCard, c)
	}
	edgeFac := make([]int, len(b.edgeVar))
	edgePos := make([]int, len(b.edgeVar))
	for fi, f := range b.facs {
		for k, e := range f.edges {
			edgeFac[e], edgePos[e] = fi, k
		}
	}
	// kappa[v]: how much of v's concave term the factors' entropies take
	// into the convex part: a factor of k variables can take 1/k of each
	// variable's entropy and stay convex, so kappa[v] = Σ 1/k over v's
	// factors, but no more than the d_v − 1 there is.
	kappa := make([]float64, nv)
	for _, f := range b.facs {
		for _, v := range f.vars {
			kappa[v] += 1 / float64(len(f.vars))
		}
	}
	for v := range kappa {
		kappa[v] = min(kappa[v], float64(len(b.varEdges[v])-1))
	}
	logB := make([]float64, maxCard)
	prod := make([]float64, maxCard)
	prodLog := make([]float64, maxCard)
	old := make([]float64, maxCard)
	logBt := make([][]float64, nv) // ln of the outer iterate
	for v := range nv {
		logBt[v] = make([]float64, b.cards[v])
	}
	var digits []int
	m := make([]float64, len(b.msg)) // factor → variable messages
	// message computes m on edge e from the n of the factor's other edges.
	message := func(e int) []float64 {
		f := &b.facs[edgeFac[e]]
		k := edgePos[e]
		v := b.edgeVar[e]
		out := m[b.edgeOff[e] : b.edgeOff[e]+b.cards[v]]
		clear(out)
		if len(f.vars) == 2 {
			c0, c1 := b.cards[f.vars[0]], b.cards[f.vars[1]]
			in := n[b.edgeOff[f.edges[1-k]]:]
			for x := range c0 {
				row := f.table[x*c1 : (x+1)*c1]
				if k == 0 {
					s := 0.0
					for y, t := range row {
						s += t * in[y]
					}
					out[x] = s
				} else {
					for y, t := range row {
						out[y] += t * in[x]
					}
				}
			}
			return out
		}
		digits = resize(digits, len(f.vars))
		clear(digits)
		for _, t := range f.table {
			if t != 0 {
				w := t
				for j, ej := range f.edges {
					if j != k {
						w *= n[b.edgeOff[ej]+digits[j]]
					}
				}
				out[digits[k]] += w
			}
			for j := len(f.vars) - 1; j >= 0; j-- {
				digits[j]++
				if digits[j] < b.cards[f.vars[j]] {
					break
				}
				digits[j] = 0
			}
		}
		return out
	}
	// The inner sweeps are bounded too, by the budget of the whole loop
	// (the inner loop converges linearly, and on the dense
	// contradiction-heavy models so slowly that more would rarely finish).
	// freeEnergy is the Bethe free energy at beliefs bel with the factor
	// beliefs b_f ∝ ψ_f Π n_if (consistent with bel when the inner loop
	// has converged), up to a constant.
	fromN := func(e int, _ []float64) []float64 { return n[b.edgeOff[e]:] }
	freeEnergy := func(bel [][]float64) float64 { return -b.betheTerms(bel, fromN) }
	for v := range nv {
		floorTangent(bt[v])
	}
	// Adaptive overrelaxation (Salakhutdinov and Roweis 2003): on the
	// dense contradiction-heavy models the plain outer loop creeps along
	// a flat valley of F (a change of 1e-5 per step, for thousands of
	// steps), so each accepted step stretches the next one, bt·(b/bt)^eta
	// with eta growing by overGrow; a step that does not lower F is undone
	// and the plain step taken instead, which keeps F decreasing.
	acceptedF := math.Inf(1)
	acceptedN := make([]float64, len(n))
	accepted := make([][]float64, nv)
	for v := range nv {
		accepted[v] = make([]float64, b.cards[v])
	}
	eta := 1.0
	for outer := 0; outer < maxOuter && st.iterations < maxOuter; {
		if err := ctx.Err(); err != nil {
			return st, nil, err
		}
		for v := range nv {
			for x, p := range bt[v] {
				logBt[v][x] = math.Log(p)
			}
		}
		outerChange := 0.0
		failed := false
	sweeps:
		for inner := 0; inner < innerSweeps; inner++ {
			st.iterations++
			change := 0.0
			for v := range nv {
				edges := b.varEdges[v]
				d := len(edges)
				if d == 0 {
					continue
				}
				c := b.cards[v]
				// The product of the messages, each state's apart: a
				// product falling below 1e-250 is moved into its log
				// (logPr), since on a hub of a thousand factors the
				// states' products can be more than the float range
				// apart, and the root 1/(d − κ) taken below brings them
				// back within it.
				pr, logPr := prod[:c], prodLog[:c]
				for x := range pr {
					pr[x], logPr[x] = 1, 0
				}
				for _, e := range edges {
					me := message(e)
					normalize(me)
					for x := range c {
						pr[x] *= me[x]
						if pr[x] < 1e-250 && pr[x] > 0 {
							logPr[x] += math.Log(pr[x])
							pr[x] = 1
						}
					}
				}
				lb := logB[:c]
				top := math.Inf(-1)
				for x := range c {
					lb[x] = (float64(d-1)-kappa[v])*logBt[v][x] + logPr[x] + math.Log(pr[x])
					if b.prior[v] != nil {
						lb[x] += b.logPrior[v][x]
					}
					lb[x] /= float64(d) - kappa[v]
					top = max(top, lb[x])
				}
				if math.IsInf(top, -1) {
					failed = true
					break sweeps
				}
				p := bel[v]
				for x := range c {
					p[x] = math.Exp(lb[x] - top)
				}
				normalize(p)
				for _, e := range edges {
					off := b.edgeOff[e]
					ne := n[off : off+c]
					sum := 0.0
					for x := range c {
						r := 0.0
						if p[x] > 0 {
							r = p[x] / m[off+x]
						}
						old[x], ne[x] = ne[x], r
						sum += r
					}
					for x := range c {
						ne[x] /= sum
						change = max(change, math.Abs(ne[x]-old[x]))
					}
				}
			}
			if change <= innerTolerance*max(outerChange, tolerance) {
				break
			}
			if inner == 0 {
				outerChange = change
			}
		}
		outer++
		var F float64
		if !failed {
			F = freeEnergy(bel)
		}
		improved := !failed && F < acceptedF
		if eta > 1 && !improved {
			// The extrapolated tangent point overshot: back to the last
			// accepted beliefs, and a plain step from there.
			copy(n, acceptedN)
			for v := range nv {
				copy(bel[v], accepted[v])
				copy(bt[v], accepted[v])
				floorTangent(bt[v])
			}
			eta = 1
			continue
		}
		if failed {
			return st, nil, errInconsistent
		}
		res := 0.0
		for v := range nv {
			for x := range bel[v] {
				res = max(res, math.Abs(bel[v][x]-bt[v][x]))
			}
		}
		st.residual = res
		if res <= tolerance {
			st.converged = true
			break
		}
		acceptedF = F
		copy(acceptedN, n)
		for v := range nv {
			copy(accepted[v], bel[v])
		}
		if improved && overrelax {
			eta = min(eta*overGrow, overMax)
		} else {
			eta = 1
		}
		// The next tangent point: bt·(bel/bt)^eta, or bel.
		for v := range nv {
			if eta == 1 {
				copy(bt[v], bel[v])
			} else {
				top := math.Inf(-1)
				for x, p := range bel[v] {
					lb := math.Inf(-1)
					if p > 0 {
						lb = logBt[v][x] + eta*(math.Log(p)-logBt[v][x])
					}
					logB[x] = lb
					top = max(top, lb)
				}
				for x := range bt[v] {
					bt[v][x] = math.Exp(logB[x] - top)
				}
			}
			floorTangent(bt[v])
		}
	}
	// Leave BP's messages at the result.
	for e := range b.edgeVar {
		me := message(e)
		normalize(me)
		off := b.edgeOff[e]
		for x, y := range me {
			y = max(y, messageFloor)
			b.msg[off+x], b.logMsg[off+x] = y, math.Log(y)
		}
	}
	b.refreshBeliefs()
	b.setLam()
	return st, bel, nil
}
