package inference

import (
	"context"
	"math"
	"slices"
)

// Loopy BP on binary pairwise models in log-odds.
//
// FR networks have binary variables and pairwise factors only. There a
// message is one number, its log-odds λ = ln(m(1)/m(0)), a belief is the
// prior's log-odds plus those of the incoming messages, and the message
// of a factor f(x, y) to x given y's incoming log-odds η is
//
//	λ = ln((f(1,0) + f(1,1)·e^η) / (f(0,0) + f(0,1)·e^η))
//
// Kept as odds rather than logs, a sweep needs no exp or log at all,
// where the general path takes four calls and a normalization per
// message. Damping mixes the normalized messages, as in the general path.

// maxLogOdds bounds message log-odds: an entry below e^−700 relative to
// the other (under messageFloor, 1e-300) counts as zero, as in the
// general path.
const maxLogOdds = 700

// maxOdds is e^maxLogOdds.
var maxOdds = math.Exp(maxLogOdds)

// runBinary is run for binary pairwise models (see run).
//
// During a run the messages are kept as odds mu[e] = e^lam[e], and each
// belief's odds as mant[v]·2^expo[v] (a float64 alone would overflow: a
// hub's log-odds reach thousands), so that a sweep takes divisions and
// multiplications only; lam is set from mu once, at the end.
func (b *loopyBP) runBinary(ctx context.Context, damping float64, adaptive bool, tolerance float64, maxIter, giveUp int) (bpStats, error) {
	var st bpStats
	nv := len(b.cards)
	// The priors' odds, and the variables a prior fixes (clamped ones).
	prior := make([]float64, nv)
	fixed := make([]int8, nv) // +1: fixed to 1, −1: to 0
	for v, lp := range b.logPrior {
		prior[v] = 1
		switch {
		case lp == nil:
		case math.IsInf(lp[0], -1) && math.IsInf(lp[1], -1):
			return st, errInconsistent
		case math.IsInf(lp[0], -1):
			fixed[v] = 1
		case math.IsInf(lp[1], -1):
			fixed[v] = -1
		default:
			prior[v] = math.Exp(clampLogOdds(lp[1] - lp[0]))
		}
	}
	mu := make([]float64, len(b.lam))
	for e, l := range b.lam {
		mu[e] = math.Exp(clampLogOdds(l))
	}
	mant := make([]float64, nv)
	expo := make([]int, nv)
	// Beliefs keep expo 0 while their odds stay within 2^±900, so that
	// most take the inline path of the sweep below.
	norm := func(v int) {
		if m := mant[v]; m > 0x1p900 || m < 0x1p-900 {
			f, e := math.Frexp(m)
			mant[v], expo[v] = f, expo[v]+e
		}
	}
	// scale multiplies v's belief odds by x (any float64 in range).
	scale := func(v int, x float64) {
		f, e := math.Frexp(x)
		mant[v], expo[v] = mant[v]*f, expo[v]+e
		norm(v)
	}
	refresh := func() {
		for v := range nv {
			mant[v], expo[v] = 1, 0
			scale(v, prior[v])
		}
		for e, v := range b.edgeVar {
			scale(v, mu[e])
		}
	}
	// into returns the odds of the message from v's side into the factor
	// whose message to v is on edge e: v's belief without that message.
	into := func(v, e int) float64 {
		switch fixed[v] {
		case 1:
			return maxOdds
		case -1:
			return 1 / maxOdds
		}
		m := mu[e]
		// mant/m lies within 2^±1300: far beyond, the odds saturate.
		switch ex := expo[v]; {
		case ex > 2400:
			return maxOdds
		case ex < -2400:
			return 1 / maxOdds
		}
		if m < 0x1p-400 || m > 0x1p400 {
			// Far from 1: by logarithms, in case the quotient overflows.
			l := math.Log(mant[v]) + float64(expo[v])*math.Ln2 - math.Log(m)
			return math.Exp(clampLogOdds(l))
		}
		// ·2^expo as two multiplications by powers of two (math.Ldexp
		// costs a quarter of a sweep on the dense models): |expo| ≤ 2400
		// here, and past 2^±1010 the odds saturate anyway.
		ex := expo[v]
		k := min(max(ex, -1000), 1000)
		r := mant[v] / m * pow2(k) * pow2(min(max(ex-k, -1000), 1000))
		return min(max(r, 1/maxOdds), maxOdds)
	}
	// update sets the message on edge e to v to odds ratio (damped) and
	// returns the change of its normalized entries.
	update := func(v, e int, ratio float64) float64 {
		oldMu := mu[e]
		pOld, p := oldMu/(1+oldMu), ratio/(1+ratio)
		change := math.Abs(p - pOld)
		if damping != 0 {
			p = damping*pOld + (1-damping)*p
			ratio = min(max(p/(1-p), 1/maxOdds), maxOdds)
		}
		mu[e] = ratio
		if fixed[v] == 0 {
			if q := ratio / oldMu; q > 0x1p-800 && q < 0x1p800 {
				mant[v] *= q
				norm(v)
			} else {
				scale(v, ratio)
				scale(v, 1/oldMu)
			}
		}
		return change
	}
	best, bestAt := math.Inf(1), 0
	b.stale = true
	defer func() {
		for e, m := range mu {
			b.lam[e] = math.Log(m)
		}
	}()
	for st.iterations < maxIter {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if st.iterations%16 == 0 {
			// From scratch now and then, so that rounding in the
			// incremental updates cannot accumulate.
			refresh()
		}
		res := 0.0
		for fi := range b.facs {
			f := &b.facs[fi]
			e0, e1 := f.edges[0], f.edges[1]
			v0, v1 := f.vars[0], f.vars[1]
			t := f.table
			// The common case inline (into and update are the general
			// ones): free variables whose odds need no exponent. A
			// quotient past float64 saturates, as it should.
			m0, m1 := mu[e0], mu[e1]
			var r0, r1 float64
			if expo[v0] == 0 && fixed[v0] == 0 {
				r0 = min(max(mant[v0]/m0, 1/maxOdds), maxOdds)
			} else {
				r0 = into(v0, e0)
			}
			if expo[v1] == 0 && fixed[v1] == 0 {
				r1 = min(max(mant[v1]/m1, 1/maxOdds), maxOdds)
			} else {
				r1 = into(v1, e1)
			}
			q0, ok0 := oddsRatio(t[2]+t[3]*r1, t[0]+t[1]*r1)
			q1, ok1 := oddsRatio(t[1]+t[3]*r0, t[0]+t[2]*r0)
			if !ok0 || !ok1 {
				return st, errInconsistent
			}
			if fixed[v0] == 0 && fixed[v1] == 0 {
				// |p − p_old| for p = q/(1+q), in one division.
				res = max(res, math.Abs(q0-m0)/((1+q0)*(1+m0)), math.Abs(q1-m1)/((1+q1)*(1+m1)))
				if damping != 0 {
					q0, q1 = dampOdds(damping, m0, q0), dampOdds(damping, m1, q1)
				}
				mu[e0], mu[e1] = q0, q1
				if q := q0 / m0; q > 0x1p-100 && q < 0x1p100 {
					mant[v0] *= q
					norm(v0)
				} else {
					scale(v0, q0)
					scale(v0, 1/m0)
				}
				if q := q1 / m1; q > 0x1p-100 && q < 0x1p100 {
					mant[v1] *= q
					norm(v1)
				} else {
					scale(v1, q1)
					scale(v1, 1/m1)
				}
				continue
			}
			res = max(res, update(v0, e0, q0), update(v1, e1, q1))
		}
		st.iterations++
		st.residual = res
		st.damping = damping
		if res <= tolerance {
			st.converged = true
			break
		}
		if res < best {
			best, bestAt = res, st.iterations
		} else if !adaptive && giveUp > 0 && st.iterations-bestAt >= giveUp {
			break
		} else if adaptive && st.iterations-bestAt >= stallSweeps {
			if damping >= maxDamping {
				break
			}
			damping = min(maxDamping, (1+damping)/2)
			best, bestAt = math.Inf(1), st.iterations
		}
	}
	return st, nil
}

func clampLogOdds(x float64) float64 {
	return min(max(x, -700), 700)
}

// pow2 returns 2^k for |k| ≤ 1022.
func pow2(k int) float64 {
	return math.Float64frombits(uint64(1023+k) << 52)
}

// dampOdds mixes the normalized messages of odds old and q: d·old + (1−d)·q.
func dampOdds(d, old, q float64) float64 {
	p := d*old/(1+old) + (1-d)*q/(1+q)
	return min(max(p/(1-p), 1/maxOdds), maxOdds)
}

// oddsRatio returns num/den within e^±maxLogOdds, and false when both
// are zero (the factor rules out every state).
func oddsRatio(num, den float64) (float64, bool) {
	switch {
	case num == 0 && den == 0:
		return 0, false
	case den == 0 || num/den > maxOdds:
		return maxOdds, true
	case num == 0 || num/den < 1/maxOdds:
		return 1 / maxOdds, true
	}
	return num / den, true
}

// sync brings msg, logMsg and logBel up to date with lam after runBinary.
func (b *loopyBP) sync() {
	if !b.stale {
		return
	}
	b.stale = false
	for e, l := range b.lam {
		off := b.edgeOff[e]
		// log-sigmoid, stably.
		var l0, l1 float64
		if l > 0 {
			l1 = -math.Log1p(math.Exp(-l))
			l0 = l1 - l
		} else {
			l0 = -math.Log1p(math.Exp(l))
			l1 = l0 + l
		}
		m0, m1 := max(math.Exp(l0), messageFloor), max(math.Exp(l1), messageFloor)
		b.msg[off], b.msg[off+1] = m0, m1
		b.logMsg[off], b.logMsg[off+1] = math.Log(m0), math.Log(m1)
	}
	b.refreshBeliefs()
}

// setLam sets lam from logMsg after the general code wrote the messages.
func (b *loopyBP) setLam() {
	if !b.binary {
		return
	}
	for e := range b.lam {
		off := b.edgeOff[e]
		b.lam[e] = b.logMsg[off+1] - b.logMsg[off]
	}
	b.stale = false
}

// snapshot returns a copy of the messages, for restore.
func (b *loopyBP) snapshot() []float64 {
	if b.binary {
		return slices.Clone(b.lam)
	}
	return slices.Clone(b.msg)
}

// restore sets the messages to a snapshot.
func (b *loopyBP) restore(snap []float64) {
	if b.binary {
		copy(b.lam, snap)
		b.stale = true
		return
	}
	copy(b.msg, snap)
	for i, m := range snap {
		b.logMsg[i] = math.Log(m)
	}
}
