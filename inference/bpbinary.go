package inference

import (
	"context"
	"math"
	"runtime"
	"slices"

	"github.com/factreasoner/factreasoner-go/internal/parallel"
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

// The schedule. A sweep visits the variables one colour class at a time
// (classes of variables that share no factor, from a greedy colouring in
// the order of the variables): each variable's incoming messages are
// computed afresh from its neighbours' beliefs, and then its belief. A
// variable reads only its neighbours, which are of other classes, and
// writes only its own messages and belief, so the variables of a class
// can be updated in any order, on any number of cores, with the same
// arithmetic: the result does not depend on the number of workers.
//
// A sweep computes every message once, as the factor-by-factor sweep did,
// and reaches the same fixed points (they do not depend on the schedule).

// binaryLayout is a binary pairwise model laid out for runBinary: each
// variable's incoming messages side by side (entries start[v] to
// start[v+1]), with what computing them needs.
type binaryLayout struct {
	start   []int32
	edge    []int32 // the edge, in loopyBP's numbering, of each entry
	entries []binaryEntry
	// phases lists, per colour class, its variables in chunks.
	phases  [][][]int32
	workers int
}

// binaryEntry is what computing a message takes.
type binaryEntry struct {
	// coef: the message of the entry's factor to its variable has odds
	// (A + B·r)/(C + D·r), r the odds of the other variable's message
	// into the factor.
	coef  [4]float64
	other int32 // the entry of the same factor's message to its other variable
	nbr   int32 // that other variable
}

// Parallel sweeps: a class is cut into chunks of about chunkEntries
// messages, and a model of fewer than parallelEntries messages is swept on
// one core (goroutines would cost more than they save).
const (
	chunkEntries    = 4096
	parallelEntries = 1 << 15
)

// binaryLayout returns the layout of b, made on first use.
func (b *loopyBP) binaryLayout() *binaryLayout {
	if b.layout != nil {
		return b.layout
	}
	n := len(b.cards)
	l := &binaryLayout{start: make([]int32, n+1)}
	ne := len(b.edgeVar)
	l.edge = make([]int32, 0, ne)
	pos := make([]int32, ne) // the entry of each edge
	for v := range n {
		l.start[v] = int32(len(l.edge))
		for _, e := range b.varEdges[v] {
			pos[e] = int32(len(l.edge))
			l.edge = append(l.edge, int32(e))
		}
	}
	l.start[n] = int32(len(l.edge))
	l.entries = make([]binaryEntry, ne)
	// Each factor writes its own two entries.
	chunkDo(len(b.facs), ne >= parallelEntries, func(_, lo, hi int) {
		for _, f := range b.facs[lo:hi] {
			t := f.table
			e0, e1 := f.edges[0], f.edges[1]
			p0, p1 := pos[e0], pos[e1]
			// To x = vars[0] from y: (f(1,0) + f(1,1)·r)/(f(0,0) + f(0,1)·r).
			l.entries[p0] = binaryEntry{coef: [4]float64{t[2], t[3], t[0], t[1]}, other: p1, nbr: int32(f.vars[1])}
			// To y from x: (f(0,1) + f(1,1)·r)/(f(0,0) + f(1,0)·r).
			l.entries[p1] = binaryEntry{coef: [4]float64{t[1], t[3], t[0], t[2]}, other: p0, nbr: int32(f.vars[0])}
		}
	})
	// Greedy colouring in the order of the variables.
	color := make([]int32, n)
	var used []int32 // used[c] == v+1: colour c is taken by a neighbour of v
	var classes [][]int32
	for v := range n {
		for p := l.start[v]; p < l.start[v+1]; p++ {
			if u := l.entries[p].nbr; int(u) < v {
				for int(color[u]) >= len(used) {
					used = append(used, 0)
				}
				used[color[u]] = int32(v + 1)
			}
		}
		c := int32(0)
		for int(c) < len(used) && used[c] == int32(v+1) {
			c++
		}
		color[v] = c
		for int(c) >= len(classes) {
			classes = append(classes, nil)
		}
		classes[c] = append(classes[c], int32(v))
	}
	for _, class := range classes {
		var chunks [][]int32
		from, entries := 0, int32(0)
		for i, v := range class {
			entries += l.start[v+1] - l.start[v]
			if entries >= chunkEntries || i == len(class)-1 {
				chunks = append(chunks, class[from:i+1])
				from, entries = i+1, 0
			}
		}
		l.phases = append(l.phases, chunks)
	}
	l.workers = 1
	if ne >= parallelEntries {
		l.workers = runtime.GOMAXPROCS(0)
	}
	b.layout = l
	return l
}

// binarySweep is the state of one run of runBinary.
type binarySweep struct {
	l        *binaryLayout
	prior    []float64 // odds
	fixed    []int8    // +1: fixed to 1 by its prior, −1: to 0
	mu       []float64 // the messages' odds, by entry
	mant     []float64 // each belief's odds are mant·2^expo
	expo     []int
	damping  float64
	residual []float64 // per chunk of the phase at hand
}

// runBinary is run for binary pairwise models (see run and the schedule
// above).
//
// During a run the messages are kept as odds mu = e^lam, and each
// belief's odds as mant[v]·2^expo[v] (a float64 alone would overflow: a
// hub's log-odds reach thousands), so that a sweep takes divisions and
// multiplications only; lam is set from mu once, at the end.
func (b *loopyBP) runBinary(ctx context.Context, damping float64, adaptive bool, tolerance float64, maxIter, giveUp int) (bpStats, error) {
	var st bpStats
	l := b.binaryLayout()
	nv := len(b.cards)
	s := &binarySweep{l: l, prior: make([]float64, nv), fixed: make([]int8, nv),
		mu: make([]float64, len(l.edge)), mant: make([]float64, nv), expo: make([]int, nv)}
	// The priors' odds, and the variables a prior fixes (clamped ones).
	for v, lp := range b.logPrior {
		s.prior[v] = 1
		switch {
		case lp == nil:
		case math.IsInf(lp[0], -1) && math.IsInf(lp[1], -1):
			return st, errInconsistent
		case math.IsInf(lp[0], -1):
			s.fixed[v] = 1
		case math.IsInf(lp[1], -1):
			s.fixed[v] = -1
		default:
			s.prior[v] = math.Exp(clampLogOdds(lp[1] - lp[0]))
		}
	}
	for p, e := range l.edge {
		s.mu[p] = math.Exp(clampLogOdds(b.lam[e]))
	}
	for v := range nv {
		s.belief(int32(v))
	}
	maxChunks := 0
	for _, ph := range l.phases {
		maxChunks = max(maxChunks, len(ph))
	}
	s.residual = make([]float64, maxChunks)
	best, bestAt := math.Inf(1), 0
	b.stale = true
	defer func() {
		for p, e := range l.edge {
			b.lam[e] = math.Log(s.mu[p])
		}
	}()
	for st.iterations < maxIter {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		s.damping = damping
		res, err := s.sweep(ctx)
		if err != nil {
			return st, err
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

// sweep updates every variable once, class by class, and returns the
// largest change of a normalized message.
func (s *binarySweep) sweep(ctx context.Context) (float64, error) {
	res := 0.0
	for _, ph := range s.l.phases {
		if s.l.workers == 1 || len(ph) == 1 {
			for _, chunk := range ph {
				r, err := s.update(chunk)
				if err != nil {
					return 0, err
				}
				res = max(res, r)
			}
			continue
		}
		err := parallel.Do(ctx, len(ph), s.l.workers, func(_ context.Context, i int) error {
			r, err := s.update(ph[i])
			s.residual[i] = r
			return err
		})
		if err != nil {
			return 0, err
		}
		for _, r := range s.residual[:len(ph)] {
			res = max(res, r)
		}
	}
	return res, nil
}

// update computes the incoming messages of the variables given, then
// their beliefs, and returns the largest change of a normalized message.
func (s *binarySweep) update(vars []int32) (float64, error) {
	l := s.l
	res := 0.0
	for _, v := range vars {
		for p := l.start[v]; p < l.start[v+1]; p++ {
			en := &l.entries[p]
			r := s.cavity(en.nbr, s.mu[en.other])
			c := &en.coef
			num, den := c[0]+c[1]*r, c[2]+c[3]*r
			q := num / den
			if !(q >= 1/maxOdds && q <= maxOdds) { // rare: saturated, or both 0
				var ok bool
				if q, ok = oddsRatio(num, den); !ok {
					return 0, errInconsistent
				}
			}
			m := s.mu[p]
			// |p − p_old| for p = q/(1+q), in one division.
			res = max(res, math.Abs(q-m)/((1+q)*(1+m)))
			if s.damping != 0 {
				q = dampOdds(s.damping, m, q)
			}
			s.mu[p] = q
		}
		s.belief(v)
	}
	return res, nil
}

// belief sets v's belief from its prior and incoming messages.
func (s *binarySweep) belief(v int32) {
	switch s.fixed[v] {
	case 1: // odds of +Inf or 0: cavity saturates them, whatever the message
		s.mant[v], s.expo[v] = math.Inf(1), 0
		return
	case -1:
		s.mant[v], s.expo[v] = 0, 0
		return
	}
	l := s.l
	m, ex := s.prior[v], 0
	for _, q := range s.mu[l.start[v]:l.start[v+1]] {
		if q > 0x1p-100 && q < 0x1p100 {
			m *= q
		} else {
			f, e := math.Frexp(q)
			m, ex = m*f, ex+e
		}
		if m > 0x1p900 || m < 0x1p-900 {
			f, e := math.Frexp(m)
			m, ex = f, ex+e
		}
	}
	if ex != 0 {
		// Back to a plain float64 where it fits, so that cavity takes
		// its quick path.
		if f, e := math.Frexp(m); e+ex > -1000 && e+ex < 1000 {
			m, ex = math.Ldexp(f, e+ex), 0
		}
	}
	s.mant[v], s.expo[v] = m, ex
}

// cavity returns the odds of the message from u into the factor whose
// message to u has odds m: u's belief without that message.
func (s *binarySweep) cavity(u int32, m float64) float64 {
	ex := s.expo[u]
	if ex == 0 {
		// A quotient past float64 saturates, as it should.
		return min(max(s.mant[u]/m, 1/maxOdds), maxOdds)
	}
	// mant/m lies within 2^±1300: far beyond, the odds saturate.
	switch {
	case ex > 2400:
		return maxOdds
	case ex < -2400:
		return 1 / maxOdds
	}
	if m < 0x1p-400 || m > 0x1p400 {
		// Far from 1: by logarithms, in case the quotient overflows.
		l := math.Log(s.mant[u]) + float64(ex)*math.Ln2 - math.Log(m)
		return math.Exp(clampLogOdds(l))
	}
	// ·2^expo as two multiplications by powers of two: |expo| ≤ 2400
	// here, and past 2^±1010 the odds saturate anyway.
	k := min(max(ex, -1000), 1000)
	r := s.mant[u] / m * pow2(k) * pow2(min(max(ex-k, -1000), 1000))
	return min(max(r, 1/maxOdds), maxOdds)
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
	if b.msg == nil {
		b.initMessages()
	}
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

// floorLogOdds is the largest log-odds of a message whose entries are
// kept above messageFloor (as the general path keeps them): one beyond
// rules a state out.
var floorLogOdds = -math.Log(messageFloor)

// beliefLogOdds returns v's belief's log-odds from lam and its prior, and
// whether each state is possible: allowed by the prior and by every
// incoming message (one whose log-odds reach floorLogOdds against a state
// rules it out, as a message at the floor does in marginals' general
// path).
func (b *loopyBP) beliefLogOdds(v int) (l float64, ok0, ok1 bool) {
	ok0, ok1 = true, true
	if lp := b.logPrior[v]; lp != nil {
		ok0, ok1 = !math.IsInf(lp[0], -1), !math.IsInf(lp[1], -1)
		switch {
		case !ok0 && ok1:
			l = math.Inf(1)
		case !ok1 && ok0:
			l = math.Inf(-1)
		case ok0 && ok1:
			l = lp[1] - lp[0]
		}
	}
	for _, e := range b.varEdges[v] {
		m := b.lam[e]
		ok0, ok1 = ok0 && m < floorLogOdds, ok1 && m > -floorLogOdds
		l += min(max(m, -floorLogOdds), floorLogOdds)
	}
	return l, ok0, ok1
}

// marginalsBinary is marginals on a binary pairwise model, from lam.
func (b *loopyBP) marginalsBinary() ([][]float64, error) {
	out := make([][]float64, len(b.cards))
	flat := make([]float64, 2*len(b.cards))
	for v := range b.cards {
		l, ok0, ok1 := b.beliefLogOdds(v)
		if !ok0 && !ok1 {
			return nil, errInconsistent
		}
		q := sigmoid(l)
		out[v] = flat[2*v : 2*v+2 : 2*v+2]
		out[v][0], out[v][1] = 1-q, q
		if l < 0 {
			out[v][0] = sigmoid(-l) // 1 − q without the rounding
		}
	}
	return out, nil
}

// betheBinary is betheTerms on a binary pairwise model at its current
// messages lam: the factor beliefs are b_f ∝ f·n_i·n_j, n the messages
// into the factor (each variable's belief without the factor's own
// message). Its sums run over fixed chunks of factors, on every core for
// a large model, and are added in order.
func (b *loopyBP) betheBinary(marg [][]float64) float64 {
	nv := len(b.cards)
	bel := make([]float64, nv)
	for v := range nv {
		bel[v], _, _ = b.beliefLogOdds(v)
	}
	// into returns the log-odds of the message into factor f from the
	// variable of its edge e.
	into := func(v, e int) float64 {
		if math.IsInf(bel[v], 0) {
			return bel[v]
		}
		return bel[v] - min(max(b.lam[e], -floorLogOdds), floorLogOdds)
	}
	sum := chunkSum(len(b.facs), len(b.edgeVar) >= parallelEntries, func(lo, hi int) float64 {
		s := 0.0
		for fi := lo; fi < hi; fi++ {
			f := &b.facs[fi]
			n0 := into(f.vars[0], f.edges[0])
			n1 := into(f.vars[1], f.edges[1])
			// The normalized messages, by state: (1 − σ, σ).
			a := [2]float64{sigmoid(-n0), sigmoid(n0)}
			c := [2]float64{sigmoid(-n1), sigmoid(n1)}
			var w [4]float64
			z := 0.0
			for k, t := range f.table {
				w[k] = t * a[k>>1] * c[k&1]
				z += w[k]
			}
			for k, t := range f.table {
				if p := w[k] / z; p > 0 {
					s += p * (math.Log(t) - math.Log(p))
				}
			}
		}
		return s
	})
	return sum + b.variableTerms(marg)
}

// sumChunk is how many items chunkSum gives each call.
const sumChunk = 2048

// chunkSum returns the sum of fn over the chunks [lo, hi) of sumChunk
// items of [0, n), added in order (so that it does not depend on the
// workers), on every core when parallel.
func chunkSum(n int, parallelize bool, fn func(lo, hi int) float64) float64 {
	partial := make([]float64, (n+sumChunk-1)/sumChunk)
	chunkDo(n, parallelize, func(c, lo, hi int) {
		partial[c] = fn(lo, hi)
	})
	s := 0.0
	for _, x := range partial {
		s += x
	}
	return s
}

// chunkDo calls fn(c, lo, hi) for the chunks c, [lo, hi) of sumChunk
// items of [0, n), on every core when parallel: fn must write only what
// belongs to its chunk, so that the result does not depend on the workers.
func chunkDo(n int, parallelize bool, fn func(c, lo, hi int)) {
	workers := 1
	if parallelize {
		workers = runtime.GOMAXPROCS(0)
	}
	parallel.Do(context.Background(), (n+sumChunk-1)/sumChunk, workers, func(_ context.Context, c int) error {
		fn(c, c*sumChunk, min((c+1)*sumChunk, n))
		return nil
	})
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
