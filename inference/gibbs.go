package inference

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/factreasoner/factreasoner-go/internal/parallel"
)

// Sampling, to say how far an approximate marginal may be from the truth.
//
// Loopy BP and its variants carry the error of the Bethe approximation,
// which nothing in their own results measures: on contradiction-heavy
// models a converged fixed point can be 0.4 from the exact marginals. A
// Gibbs sampler converges to the truth, and run as several independent
// chains it also says how far its own estimate may be: the spread of the
// chains' means gives a standard error, and the Gelman–Rubin statistic
// R-hat (the spread between chains against the spread within them) says
// whether the chains have mixed.
//
// Plain Gibbs sampling mixes badly on the same frustrated models: a
// context can turn true only when the atoms it implicates agree, and a
// chain stays in one compatible set of contexts for thousands of sweeps.
// So each chain is a ladder of replicas at inverse temperatures 1, r, r²,
// … (parallel tempering, Swendsen and Wang 1986, Geyer 1991): the hot
// replicas move freely, and neighbouring replicas exchange states with
// the Metropolis probability, which leaves the distribution of each
// replica as it is; only the replica at temperature 1 is read.
//
// Each chain estimates a marginal by the average of the variable's
// conditional distribution given the rest, at every sweep after the first
// half (Rao–Blackwellized: less variance than counting states). Each chain
// has its own random stream, seeded from the model itself, and the chains
// are combined in order, so the estimate is the same on every run and on
// any number of cores.

// Sampling constants. On the generated contradiction-heavy 15x30 model
// and the reference FR3 models, 16 chains of 8 replicas (r = 0.8, the
// coldest but one at 0.21) and 1,000 sweeps kept errors within 4 standard
// errors; 8 chains, or 4 replicas, let a biased estimate through once
// (BENCHMARKS.md, Inference).
const (
	sampleChains   = 16
	sampleReplicas = 8
	replicaRatio   = 0.8
	// minTemperedSweeps: the ladder is shortened (down to one replica)
	// when the budget would leave fewer sweeps than this per chain.
	minTemperedSweeps = 1000
	// maxSweeps bounds the sweeps of a chain whatever the budget: small
	// models need no more than 16 chains of 4,000 (the standard errors on
	// the test models are a few thousandths). Where the budget allows
	// fewer than minSweeps, the sampler is not run at all: half of that
	// is burn-in, and the rest would say nothing (16 chains of 11 sweeps
	// on the dense 500x1500 model: R-hat 3.2).
	minSweeps = 50
	maxSweeps = 4_000
	// errorZ: an error bar is this many standard errors (the chains'
	// means are 16 draws: with a Student t of 15 degrees of freedom, 4
	// covers 99.9%).
	errorZ = 4
	// narrowScale: when an approximate answer's error could flip a
	// label, Auto samples again with this many times the budget, and
	// answers with the sampler's estimate.
	narrowScale = 2
)

// DefaultErrorBudget is the default LoopyBP.ErrorBudget: the work of the
// sampler that estimates the error of an approximate component, in factor
// lookups (updating a variable looks each of its factors up), summed over
// chains and replicas; about 4 ns each on the machine of BENCHMARKS.md.
const DefaultErrorBudget = 300_000_000

// sampleEstimate is what the sampler found.
type sampleEstimate struct {
	mean [][]float64 // per variable and state: the average of the chains' means
	se   [][]float64 // their standard error
	rhat []float64   // per variable, the largest over its states
	// floor is the resolution of the estimate: one over the samples
	// kept. A configuration that weighs less may never have been met.
	floor   float64
	chains  int
	sweeps  int // per chain, burn-in included
	kept    int // per chain
	ladder  int // replicas per chain
	invalid bool
}

// sampler runs tempered Gibbs chains on one component, given its merged
// factors (log tables).
type sampler struct {
	cards  []int
	off    []int // the first state of each variable in per-state arrays
	states int
	// The factors of each variable: entries start[v] to start[v+1] of
	// fac and stride (v's stride in the factor's table).
	start  []int32
	fac    []int32
	stride []int32
	scopes [][]int
	tables [][]float64
	seed   uint64
	// On binary pairwise models (FR networks) each variable's pairwise
	// factors are laid out side by side as well (entries pstart[v] to
	// pstart[v+1] of nbr and logs: the other variable and the log table
	// with v first), and its unary factors summed into unary.
	binary bool
	pstart []int32
	nbr    []int32
	logs   [][4]float64
	unary  [][2]float64
}

func newSampler(cards []int, scopes [][]int, tables [][]float64) *sampler {
	n := len(cards)
	s := &sampler{cards: cards, off: make([]int, n+1), start: make([]int32, n+1), scopes: scopes, tables: tables}
	for v, c := range cards {
		s.off[v+1] = s.off[v] + c
	}
	s.states = s.off[n]
	deg := make([]int32, n)
	for _, sc := range scopes {
		for _, v := range sc {
			deg[v]++
		}
	}
	for v := range n {
		s.start[v+1] = s.start[v] + deg[v]
	}
	s.fac = make([]int32, s.start[n])
	s.stride = make([]int32, s.start[n])
	fill := make([]int32, n)
	copy(fill, s.start[:n])
	for fi, sc := range scopes {
		st := 1
		for k := len(sc) - 1; k >= 0; k-- {
			v := sc[k]
			s.fac[fill[v]], s.stride[fill[v]] = int32(fi), int32(st)
			fill[v]++
			st *= cards[v]
		}
	}
	// The seed: a hash of the model, so that the same model always gets
	// the same chains.
	h := fnv.New64a()
	var buf [8]byte
	for _, c := range cards {
		binary.LittleEndian.PutUint64(buf[:], uint64(c))
		h.Write(buf[:])
	}
	for fi, sc := range scopes {
		for _, v := range sc {
			binary.LittleEndian.PutUint64(buf[:], uint64(v))
			h.Write(buf[:])
		}
		for _, x := range tables[fi] {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
			h.Write(buf[:])
		}
	}
	s.seed = h.Sum64()
	s.binary = true
	for _, c := range cards {
		s.binary = s.binary && c == 2
	}
	for _, sc := range scopes {
		s.binary = s.binary && len(sc) <= 2
	}
	if s.binary {
		s.layoutBinary()
	}
	return s
}

// layoutBinary lays a binary pairwise model out for updateBinary.
func (s *sampler) layoutBinary() {
	n := len(s.cards)
	deg := make([]int32, n)
	s.unary = make([][2]float64, n)
	for fi, sc := range s.scopes {
		if len(sc) == 1 {
			t := s.tables[fi]
			s.unary[sc[0]][0] += t[0]
			s.unary[sc[0]][1] += t[1]
			continue
		}
		for _, v := range sc {
			deg[v]++
		}
	}
	start := make([]int32, n+1)
	for v := range n {
		start[v+1] = start[v] + deg[v]
	}
	s.nbr = make([]int32, start[n])
	s.logs = make([][4]float64, start[n])
	fill := slices.Clone(start[:n])
	for fi, sc := range s.scopes {
		if len(sc) != 2 {
			continue
		}
		t := s.tables[fi]
		a, b := sc[0], sc[1]
		s.nbr[fill[a]], s.logs[fill[a]] = int32(b), [4]float64{t[0], t[1], t[2], t[3]}
		s.nbr[fill[b]], s.logs[fill[b]] = int32(a), [4]float64{t[0], t[2], t[1], t[3]}
		fill[a]++
		fill[b]++
	}
	s.pstart = start
}

// samplePlan returns the replicas per chain and the sweeps per chain that
// a budget of work allows (see DefaultErrorBudget) on a model whose
// scopes hold entries variables in all, possibly fewer than minSweeps.
func samplePlan(entries int, budget int64) (replicas, sweeps int) {
	perSweep := max(int64(entries), 1) * sampleChains // one replica
	replicas = sampleReplicas
	for replicas > 1 && budget/(perSweep*int64(replicas)) < minTemperedSweeps {
		replicas--
	}
	return replicas, int(min(budget/(perSweep*int64(replicas)), maxSweeps))
}

// replica is one state of a chain at an inverse temperature.
type replica struct {
	x      []int   // the state of each variable
	idx    []int32 // the entry of each factor's table at x
	energy float64 // Σ of the log factors at x (NaN: to be rescored)
}

// run samples with the given budget of work and returns the estimate.
func (s *sampler) run(ctx context.Context, budget int64) (*sampleEstimate, error) {
	replicas, sweeps := samplePlan(len(s.fac), budget)
	est := &sampleEstimate{chains: sampleChains, sweeps: sweeps, kept: sweeps - sweeps/2, ladder: replicas}
	// Per chain and state: the first conditional kept, and the sums of
	// the later ones' differences from it and of their squares (shifted,
	// so that a variance of 1e-22 around 1 is not lost to rounding).
	refs := make([][]float64, sampleChains)
	sums := make([][]float64, sampleChains)
	sqs := make([][]float64, sampleChains)
	bad := make([]bool, sampleChains)
	err := parallel.Do(ctx, sampleChains, runtime.GOMAXPROCS(0), func(ctx context.Context, k int) error {
		var err error
		refs[k], sums[k], sqs[k], bad[k], err = s.chain(ctx, k, replicas, sweeps)
		return err
	})
	if err != nil {
		return nil, err
	}
	n := len(s.cards)
	est.mean = make([][]float64, n)
	est.se = make([][]float64, n)
	est.rhat = make([]float64, n)
	kept := float64(est.kept)
	K := float64(sampleChains)
	for k := range sampleChains {
		est.invalid = est.invalid || bad[k]
	}
	means := make([]float64, sampleChains)
	for v := range n {
		c := s.cards[v]
		est.mean[v] = make([]float64, c)
		est.se[v] = make([]float64, c)
		est.rhat[v] = 1
		for x := range c {
			i := s.off[v] + x
			mean, within := 0.0, 0.0
			for k := range sampleChains {
				d := sums[k][i] / kept
				means[k] = refs[k][i] + d
				mean += means[k]
				within += max(sqs[k][i]/kept-d*d, 0)
			}
			mean /= K
			within /= K
			between := 0.0 // the variance of the chains' means
			for _, m := range means {
				between += (m - mean) * (m - mean)
			}
			between /= K - 1
			est.mean[v][x] = mean
			est.se[v][x] = math.Sqrt(between / K)
			// Gelman–Rubin: the pooled variance against the within-chain
			// one. Variances below rounding (a conditional that is 1 to
			// the last bit in every sweep) say nothing either way.
			const tiny = 1e-30
			switch {
			case within > tiny:
				r := math.Sqrt(((kept-1)/kept*within + between) / within)
				est.rhat[v] = max(est.rhat[v], r)
			case between > tiny:
				est.rhat[v] = math.Inf(1) // each chain constant, and they differ
			}
		}
	}
	est.floor = 1 / (K * kept)
	return est, nil
}

// chain runs chain k and returns, per state, the conditional probability
// of the first sweep kept (ref) and the sums of the differences from it
// and of their squares over the sweeps kept, and whether it ended in a
// state of probability 0 (a model with hard constraints the chain could
// not satisfy).
func (s *sampler) chain(ctx context.Context, k, replicas, sweeps int) (ref, sum, sq []float64, bad bool, err error) {
	rng := rand.New(rand.NewPCG(s.seed, uint64(k)))
	n := len(s.cards)
	beta := make([]float64, replicas)
	ladder := make([]*replica, replicas)
	for t := range replicas {
		beta[t] = math.Pow(replicaRatio, float64(t))
		ladder[t] = s.start0(rng)
	}
	ref = make([]float64, s.states)
	sum = make([]float64, s.states)
	sq = make([]float64, s.states)
	maxCard := 0
	for _, c := range s.cards {
		maxCard = max(maxCard, c)
	}
	lp := make([]float64, maxCard)
	p := make([]float64, maxCard)
	burn := sweeps / 2
	for sweep := range sweeps {
		if sweep%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, false, err
			}
			for _, r := range ladder {
				s.rescore(r)
			}
		}
		for t, r := range ladder {
			keep := t == 0 && sweep >= burn
			for v := range n {
				if s.binary {
					s.updateBinary(r, v, beta[t], rng, p)
				} else {
					s.update(r, v, beta[t], rng, lp, p)
				}
				if keep {
					c := s.cards[v]
					o := s.off[v]
					r0, acc, acc2 := ref[o:o+c], sum[o:o+c], sq[o:o+c]
					if sweep == burn {
						copy(r0, p[:c])
					}
					for x, q := range p[:c] {
						d := q - r0[x]
						acc[x] += d
						acc2[x] += d * d
					}
				}
			}
		}
		// Exchanges between neighbours on the ladder, even pairs on even
		// sweeps and odd ones on odd sweeps.
		for t := sweep % 2; t+1 < replicas; t += 2 {
			a, b := ladder[t], ladder[t+1]
			d := (beta[t] - beta[t+1]) * (b.energy - a.energy)
			if math.IsNaN(d) || math.IsInf(a.energy, -1) || math.IsInf(b.energy, -1) {
				continue
			}
			if d >= 0 || rng.Float64() < math.Exp(d) {
				ladder[t], ladder[t+1] = b, a
			}
		}
	}
	s.rescore(ladder[0])
	return ref, sum, sq, math.IsInf(ladder[0].energy, -1), nil
}

// start0 returns a replica in a state drawn from each variable's own
// unary factor (uniform where it has none), so that chains start apart.
func (s *sampler) start0(rng *rand.Rand) *replica {
	n := len(s.cards)
	r := &replica{x: make([]int, n), idx: make([]int32, len(s.scopes))}
	for v, c := range s.cards {
		var unary []float64
		for e := s.start[v]; e < s.start[v+1]; e++ {
			if len(s.scopes[s.fac[e]]) == 1 {
				unary = s.tables[s.fac[e]]
			}
		}
		x := rng.IntN(c)
		if unary != nil {
			top := math.Inf(-1)
			for _, l := range unary {
				top = max(top, l)
			}
			total := 0.0
			for _, l := range unary {
				total += math.Exp(l - top)
			}
			u := rng.Float64() * total
			for y, l := range unary {
				if w := math.Exp(l - top); w > 0 {
					x = y
					if u -= w; u < 0 {
						break
					}
				}
			}
		}
		r.x[v] = x
	}
	s.rescore(r)
	return r
}

// rescore recomputes a replica's table entries and energy from its state.
func (s *sampler) rescore(r *replica) {
	if s.binary {
		r.energy = 0
		for v, x := range r.x {
			r.energy += s.unary[v][x]
			for e := s.pstart[v]; e < s.pstart[v+1]; e++ {
				if u := int(s.nbr[e]); u > v {
					r.energy += s.logs[e][2*x+r.x[u]]
				}
			}
		}
		return
	}
	r.energy = 0
	for fi, sc := range s.scopes {
		i := 0
		for _, v := range sc {
			i = i*s.cards[v] + r.x[v]
		}
		r.idx[fi] = int32(i)
		r.energy += s.tables[fi][i]
	}
}

// updateBinary is update on a binary pairwise model.
func (s *sampler) updateBinary(r *replica, v int, beta float64, rng *rand.Rand, p []float64) {
	x := r.x
	l0, l1 := s.unary[v][0], s.unary[v][1]
	for e := s.pstart[v]; e < s.pstart[v+1]; e++ {
		w := &s.logs[e]
		xu := x[s.nbr[e]]
		l0 += w[xu]
		l1 += w[2+xu]
	}
	cur := x[v]
	d := beta * (l0 - l1)
	if math.IsNaN(d) { // both states impossible here: stay
		p[0], p[1] = float64(1-cur), float64(cur)
		return
	}
	p1 := 1 / (1 + math.Exp(d))
	p[0], p[1] = 1-p1, p1
	next := 0
	if rng.Float64() < p1 {
		next = 1
	}
	if next == cur || p[next] == 0 {
		return
	}
	lcur, lnext := l0, l1
	if cur == 1 {
		lcur, lnext = l1, l0
	}
	if math.IsInf(lcur, -1) {
		r.energy = math.NaN() // from an impossible state: rescored later
	} else {
		r.energy += lnext - lcur
	}
	x[v] = next
}

// update draws variable v of replica r from its conditional distribution
// at inverse temperature beta, which it leaves in p (at beta, normalized;
// lp is scratch).
func (s *sampler) update(r *replica, v int, beta float64, rng *rand.Rand, lp, p []float64) {
	c := s.cards[v]
	cur := r.x[v]
	lo, hi := s.start[v], s.start[v+1]
	if c == 2 {
		l0, l1 := 0.0, 0.0
		for e := lo; e < hi; e++ {
			st := s.stride[e]
			t := s.tables[s.fac[e]]
			base := r.idx[s.fac[e]] - int32(cur)*st
			l0 += t[base]
			l1 += t[base+st]
		}
		lp[0], lp[1] = l0, l1
		d := beta * (l0 - l1)
		if math.IsNaN(d) { // both states impossible here: stay
			p[0], p[1] = 1-float64(cur), float64(cur)
			return
		}
		p1 := 1 / (1 + math.Exp(d))
		p[0], p[1] = 1-p1, p1
	} else {
		clear(lp[:c])
		for e := lo; e < hi; e++ {
			st := s.stride[e]
			t := s.tables[s.fac[e]]
			base := r.idx[s.fac[e]] - int32(cur)*st
			for x := range c {
				lp[x] += t[base+int32(x)*st]
			}
		}
		top := math.Inf(-1)
		for _, l := range lp[:c] {
			top = max(top, l)
		}
		if math.IsInf(top, -1) {
			clear(p[:c])
			p[cur] = 1
			return
		}
		total := 0.0
		for x, l := range lp[:c] {
			p[x] = math.Exp(beta * (l - top))
			total += p[x]
		}
		for x := range c {
			p[x] /= total
		}
	}
	u := rng.Float64()
	next := c - 1
	for x := range c - 1 {
		if u -= p[x]; u < 0 {
			next = x
			break
		}
	}
	if p[next] == 0 { // rounding at the end of the walk
		next = cur
	}
	if next == cur {
		return
	}
	if math.IsInf(lp[cur], -1) {
		r.energy = math.NaN() // from an impossible state: rescored later
	} else {
		r.energy += lp[next] - lp[cur]
	}
	r.x[v] = next
	for e := lo; e < hi; e++ {
		r.idx[s.fac[e]] += int32(next-cur) * s.stride[e]
	}
}

// mixedRHat is the largest R-hat of chains taken to have mixed (the
// usual threshold); beyond it the error bars are rough.
const mixedRHat = 1.1

// maxRHat returns the largest R-hat of any variable.
func (e *sampleEstimate) maxRHat() float64 {
	return maxOf(e.rhat)
}

// mixed reports whether the chains have mixed: every R-hat at most
// mixedRHat, and every chain in a possible state.
func (e *sampleEstimate) mixed() bool {
	return !e.invalid && e.maxRHat() <= mixedRHat
}

// errorBars returns, for each variable, how far marg may be from the true
// marginal by the estimate: the largest over its states of the distance
// to the sampler's estimate plus errorZ standard errors (scaled up by
// R-hat where the chains have not mixed), plus the estimate's resolution;
// at most 1.
func (e *sampleEstimate) errorBars(marg [][]float64) []float64 {
	out := make([]float64, len(e.mean))
	for v, m := range e.mean {
		if e.invalid {
			out[v] = 1
			continue
		}
		w := 0.0
		for x := range m {
			d := errorZ * e.se[v][x] * max(1, e.rhat[v])
			if marg != nil {
				d += math.Abs(marg[v][x] - m[x])
			}
			w = max(w, d)
		}
		out[v] = min(1, w+e.floor)
	}
	return out
}
