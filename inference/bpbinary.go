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
// one exp and one log per message, where the general path takes four
// (and normalizes). Damping mixes log-odds. The fixed points are BP's;
// only the path to them differs.

// maxLogOdds bounds message log-odds: an entry below e^−700 relative to
// the other (under messageFloor, 1e-300) counts as zero, as in the
// general path.
const maxLogOdds = 700

// runBinary is run for binary pairwise models (see run). Its residual is
// the largest change of a message's log-odds over 4, which bounds the
// change of its normalized entries.
func (b *loopyBP) runBinary(ctx context.Context, damping float64, adaptive bool, tolerance float64, maxIter, giveUp int) (bpStats, error) {
	var st bpStats
	nv := len(b.cards)
	prior := make([]float64, nv)
	for v, lp := range b.logPrior {
		if lp == nil {
			continue
		}
		if math.IsInf(lp[0], -1) && math.IsInf(lp[1], -1) {
			return st, errInconsistent
		}
		prior[v] = lp[1] - lp[0]
	}
	eta := make([]float64, nv)
	refresh := func() {
		copy(eta, prior)
		for e, v := range b.edgeVar {
			eta[v] += b.lam[e]
		}
	}
	best, bestAt := math.Inf(1), 0
	b.stale = true
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
			r0 := math.Exp(clampLogOdds(eta[v0] - b.lam[e0]))
			r1 := math.Exp(clampLogOdds(eta[v1] - b.lam[e1]))
			l0, ok0 := logRatio(t[2]+t[3]*r1, t[0]+t[1]*r1)
			l1, ok1 := logRatio(t[1]+t[3]*r0, t[0]+t[2]*r0)
			if !ok0 || !ok1 {
				return st, errInconsistent
			}
			old0, old1 := b.lam[e0], b.lam[e1]
			res = max(res, math.Abs(l0-old0), math.Abs(l1-old1))
			l0 = damping*old0 + (1-damping)*l0
			l1 = damping*old1 + (1-damping)*l1
			eta[v0] += l0 - old0
			eta[v1] += l1 - old1
			b.lam[e0], b.lam[e1] = l0, l1
		}
		res /= 4
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

// logRatio returns ln(num/den) within ±maxLogOdds, and false when both
// are zero (the factor rules out every state).
func logRatio(num, den float64) (float64, bool) {
	switch {
	case num == 0 && den == 0:
		return 0, false
	case den == 0:
		return maxLogOdds, true
	case num == 0:
		return -maxLogOdds, true
	}
	return min(max(math.Log(num/den), -maxLogOdds), maxLogOdds), true
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
