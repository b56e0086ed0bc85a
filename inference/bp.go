package inference

import (
	"context"
	"math"
)

// LoopyBP is sum-product loopy belief propagation, per connected
// component: exact on trees, the Bethe approximation elsewhere (when it
// converges). The zero value is ready to use.
type LoopyBP struct {
	// Damping of the message updates; the zero value adapts it.
	Damping Damping
	// Tolerance: a run stops when no message entry changed by more than
	// this in a sweep. Zero selects DefaultTolerance.
	Tolerance float64
	// MaxIterations caps the sweeps of one run. Zero selects
	// DefaultMaxIterations.
	MaxIterations int
	// MaxBytes bounds the memory of the model's tables, messages and
	// marginals (estimated before any is allocated). Zero selects
	// DefaultMaxBytes.
	MaxBytes int64
	// ErrorBudget bounds the work of the sampler that gives each
	// approximate marginal its error bar (Result.Errors), per component,
	// in factor lookups (updating a variable looks each of its factors
	// up). Zero selects DefaultErrorBudget; NoErrorEstimate turns it off.
	ErrorBudget int64
}

func (b LoopyBP) withDefaults() LoopyBP {
	if b.Tolerance == 0 {
		b.Tolerance = DefaultTolerance
	}
	if b.MaxIterations == 0 {
		b.MaxIterations = DefaultMaxIterations
	}
	if b.MaxBytes == 0 {
		b.MaxBytes = DefaultMaxBytes
	}
	return b
}

// Solve implements Solver.
func (b LoopyBP) Solve(ctx context.Context, m *Model) (*Result, error) {
	if err := b.validate(); err != nil {
		return nil, err
	}
	b = b.withDefaults()
	return solveByComponents(ctx, m, b, b.MaxBytes)
}

func (b LoopyBP) solveComponent(ctx context.Context, m *Model) (*componentResult, error) {
	scopes, tables := mergeFactors(m)
	bp, err := newLoopyBP(m.Cards, scopes, tables)
	if err != nil {
		return nil, err
	}
	r, err := conditionedBP(ctx, bp, nil, b, 0)
	if err != nil {
		return nil, err
	}
	return r, sampledErrors(ctx, bp, scopes, tables, r, b.errorBudget(), false)
}

// newLoopyBPModel prepares loopy BP on a component.
func newLoopyBPModel(m *Model) (*loopyBP, error) {
	scopes, tables := mergeFactors(m)
	return newLoopyBP(m.Cards, scopes, tables)
}

// loopyBP runs sum-product belief propagation on the factor graph of a
// connected model. Unary factors are folded into per-variable priors;
// every other factor exchanges messages with its variables.
//
// Messages from factors to variables are normalized distributions; each
// variable keeps the log of its belief (prior times incoming messages), so
// that the product of hundreds of messages cannot underflow. A sweep visits
// the factors in a fixed order and updates their outgoing messages at once
// (a sequential, Gauss–Seidel schedule), with damping; the run stops when
// no message changed by more than the tolerance in a sweep.
type loopyBP struct {
	cards    []int
	logPrior [][]float64 // per variable; nil when it has no unary factor
	prior    [][]float64 // same, linear
	facs     []bpFactor
	varEdges [][]int // edges (factor, position) incident to each variable

	// Per edge: the variable, and the offset of its messages in msg/logMsg.
	edgeVar []int
	edgeOff []int
	msg     []float64 // factor → variable messages, each summing to 1
	logMsg  []float64
	logBel  [][]float64 // per variable: log prior + Σ log incoming messages

	logScale float64 // Σ of the logs of the factors' rescaling

	// binary is set when every variable is binary and every factor
	// pairwise (FR networks): run then keeps each message as its log-odds
	// lam[e] = ln(m(1)/m(0)), the authoritative copy, and msg, logMsg and
	// logBel follow it only when read (stale says they lag behind).
	binary bool
	lam    []float64
	stale  bool
	layout *binaryLayout // made by runBinary on first use
}

type bpFactor struct {
	vars  []int
	table []float64
	edges []int // edge id of each scope position
}

// messageFloor keeps every message entry positive so that its logarithm
// is finite; 1e-300 is far below anything that can change a marginal.
const messageFloor = 1e-300

// newLoopyBP prepares BP on factors given by their scopes and log tables
// (over distinct variable sets). Each table is rescaled so that its
// largest entry is 1; the scales are kept in logScale for ln Z.
func newLoopyBP(cards []int, scopes [][]int, logTables [][]float64) (*loopyBP, error) {
	b := &loopyBP{
		cards:    cards,
		logPrior: make([][]float64, len(cards)),
		prior:    make([][]float64, len(cards)),
		varEdges: make([][]int, len(cards)),
		logBel:   make([][]float64, len(cards)),
	}
	// Size the flat arrays first, and note where each chunk of factors
	// starts in them, so that the chunks can be filled on every core.
	type chunkStart struct{ entry, edge, msg, fac int }
	starts := make([]chunkStart, 0, (len(scopes)+sumChunk-1)/sumChunk)
	entries, edges, msgs, nfacs := 0, 0, 0, 0
	degree := make([]int, len(cards))
	for fi, s := range scopes {
		if fi%sumChunk == 0 {
			starts = append(starts, chunkStart{entries, edges, msgs, nfacs})
		}
		entries += len(logTables[fi])
		if len(s) > 1 {
			nfacs++
			edges += len(s)
			for _, v := range s {
				msgs += cards[v]
				degree[v]++
			}
		}
	}
	tables := make([]float64, entries)
	edgeIDs := make([]int, edges)
	varEdges := make([]int, edges) // cut into b.varEdges
	for v, d := range degree {
		b.varEdges[v] = varEdges[:0:d]
		varEdges = varEdges[d:]
	}
	b.facs = make([]bpFactor, nfacs)
	b.edgeVar = make([]int, edges)
	b.edgeOff = make([]int, edges)
	// Each chunk writes only its own factors' entries (and the priors of
	// its unary factors, over distinct variables), with the same
	// arithmetic on any number of cores.
	maxes := make([]float64, len(scopes))
	chunkDo(len(scopes), edges >= parallelEntries, func(c, lo, hi int) {
		st := starts[c]
		for fi := lo; fi < hi; fi++ {
			s, lt := scopes[fi], logTables[fi]
			mx := math.Inf(-1)
			for _, x := range lt {
				if x > mx {
					mx = x
				}
			}
			maxes[fi] = mx
			t := tables[st.entry : st.entry+len(lt) : st.entry+len(lt)]
			st.entry += len(lt)
			for i, x := range lt {
				t[i] = math.Exp(x - mx)
			}
			if len(s) == 1 {
				// Scopes are distinct, so this is the only unary factor of v.
				b.prior[s[0]] = t
				continue
			}
			f := bpFactor{vars: s, table: t, edges: edgeIDs[st.edge : st.edge+len(s) : st.edge+len(s)]}
			for k, v := range s {
				e := st.edge + k
				f.edges[k] = e
				b.edgeVar[e] = v
				b.edgeOff[e] = st.msg
				st.msg += cards[v]
			}
			st.edge += len(s)
			b.facs[st.fac] = f
			st.fac++
		}
	})
	for _, mx := range maxes {
		if math.IsInf(mx, -1) {
			return nil, errInconsistent
		}
		b.logScale += mx
	}
	// Edges are numbered in the order of the factors and their scopes,
	// the order each variable lists its edges in.
	for e, v := range b.edgeVar {
		b.varEdges[v] = append(b.varEdges[v], e)
	}
	for v, p := range b.prior {
		b.logBel[v] = make([]float64, cards[v])
		if p == nil {
			continue
		}
		b.logPrior[v] = make([]float64, cards[v])
		for x := range p {
			b.logPrior[v][x] = math.Log(p[x])
		}
	}
	b.binary = len(b.facs) > 0
	for _, c := range cards {
		b.binary = b.binary && c == 2
	}
	for _, f := range b.facs {
		b.binary = b.binary && len(f.vars) == 2
	}
	if b.binary {
		// The messages are lam; msg and logMsg are made when the general
		// code needs them (sync).
		b.lam = make([]float64, len(b.edgeVar))
	} else {
		b.initMessages()
	}
	return b, nil
}

// initMessages makes msg and logMsg, uniform.
func (b *loopyBP) initMessages() {
	n := 0
	for _, v := range b.edgeVar {
		n += b.cards[v]
	}
	b.msg, b.logMsg = make([]float64, n), make([]float64, n)
	for e, v := range b.edgeVar {
		c := b.cards[v]
		for x := range c {
			b.msg[b.edgeOff[e]+x] = 1 / float64(c)
			b.logMsg[b.edgeOff[e]+x] = -math.Log(float64(c))
		}
	}
}

// bpStats says how a run ended.
type bpStats struct {
	iterations int
	converged  bool
	residual   float64 // largest change of a message entry in the last sweep
	damping    float64 // in the last sweep
}

// stallSweeps is how many sweeps without a new smallest residual make
// adaptive damping step up (or, at maxDamping, give up).
const stallSweeps = 20

// maxDamping is the strongest damping adaptive damping reaches.
const maxDamping = 0.95

// run iterates until convergence or maxIter sweeps, starting with damping.
// With adaptive, each time the residual has not reached a new low for
// stallSweeps sweeps the damping moves halfway to 1 (0.5, 0.75, …, at
// most maxDamping), and the run stops when it stalls there too.
//
// With giveUp > 0, a run without adaptive damping stops when the residual
// has not reached a new low for giveUp sweeps.
func (b *loopyBP) run(ctx context.Context, damping float64, adaptive bool, tolerance float64, maxIter, giveUp int) (bpStats, error) {
	if b.binary {
		return b.runBinary(ctx, damping, adaptive, tolerance, maxIter, giveUp)
	}
	var st bpStats
	best, bestAt := math.Inf(1), 0
	maxArity, maxCard := 0, 0
	for _, f := range b.facs {
		maxArity = max(maxArity, len(f.vars))
	}
	for _, c := range b.cards {
		maxCard = max(maxCard, c)
	}
	in := make([][]float64, maxArity)  // variable → factor messages
	out := make([][]float64, maxArity) // new factor → variable messages
	for k := range in {
		in[k] = make([]float64, maxCard)
		out[k] = make([]float64, maxCard)
	}
	digits := make([]int, maxArity)
	for st.iterations < maxIter {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		b.refreshBeliefs()
		res := 0.0
		for fi := range b.facs {
			f := &b.facs[fi]
			for k, e := range f.edges {
				b.incoming(e, in[k])
			}
			f.messages(b.cards, in, out, digits)
			for k, e := range f.edges {
				v := b.edgeVar[e]
				c := b.cards[v]
				o := out[k][:c]
				if !normalize(o) {
					return st, errInconsistent
				}
				off := b.edgeOff[e]
				old := b.msg[off : off+c]
				oldLog := b.logMsg[off : off+c]
				bel := b.logBel[v]
				for x := range o {
					res = max(res, math.Abs(o[x]-old[x]))
					m := damping*old[x] + (1-damping)*o[x]
					m = max(m, messageFloor)
					lm := math.Log(m)
					bel[x] += lm - oldLog[x]
					old[x], oldLog[x] = m, lm
				}
			}
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
				// Stalled at the strongest damping: more sweeps of the
				// same will not do (the caller falls back).
				break
			}
			damping = min(maxDamping, (1+damping)/2)
			best, bestAt = math.Inf(1), st.iterations
		}
	}
	return st, nil
}

// refreshBeliefs recomputes each variable's log belief from scratch, so
// that rounding in the incremental updates cannot accumulate.
func (b *loopyBP) refreshBeliefs() {
	for v, bel := range b.logBel {
		if lp := b.logPrior[v]; lp != nil {
			copy(bel, lp)
		} else {
			clear(bel)
		}
		for _, e := range b.varEdges[v] {
			off := b.edgeOff[e]
			for x := range bel {
				bel[x] += b.logMsg[off+x]
			}
		}
	}
}

// incoming writes the message from the variable of edge e to its factor:
// the variable's belief without that factor's own message, normalized.
func (b *loopyBP) incoming(e int, dst []float64) {
	v := b.edgeVar[e]
	bel := b.logBel[v]
	off := b.edgeOff[e]
	m := math.Inf(-1)
	for x := range bel {
		m = max(m, bel[x]-b.logMsg[off+x])
	}
	sum := 0.0
	for x := range bel {
		d := math.Exp(bel[x] - b.logMsg[off+x] - m)
		dst[x] = d
		sum += d
	}
	for x := range bel {
		dst[x] /= sum
	}
}

// messages computes the factor's outgoing messages out[k] (unnormalized)
// from the incoming ones in[k]; digitsBuf is scratch of at least the
// factor's arity.
func (f *bpFactor) messages(cards []int, in, out [][]float64, digitsBuf []int) {
	if len(f.vars) == 2 {
		c0, c1 := cards[f.vars[0]], cards[f.vars[1]]
		in0, in1 := in[0][:c0], in[1][:c1]
		o0, o1 := out[0][:c0], out[1][:c1]
		clear(o1)
		for x := range c0 {
			row := f.table[x*c1 : (x+1)*c1]
			s := 0.0
			for y, t := range row {
				s += t * in1[y]
				o1[y] += t * in0[x]
			}
			o0[x] = s
		}
		return
	}
	n := len(f.vars)
	digits := digitsBuf[:n]
	clear(digits)
	for k := range n {
		clear(out[k][:cards[f.vars[k]]])
	}
	for _, t := range f.table {
		if t != 0 {
			for k := range n {
				w := t
				for j := range n {
					if j != k {
						w *= in[j][digits[j]]
					}
				}
				out[k][digits[k]] += w
			}
		}
		for j := n - 1; j >= 0; j-- {
			digits[j]++
			if digits[j] < cards[f.vars[j]] {
				break
			}
			digits[j] = 0
		}
	}
}

// normalize scales p to sum to 1; it reports false when p is all zero.
func normalize(p []float64) bool {
	s := 0.0
	for _, x := range p {
		s += x
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return false
	}
	for i := range p {
		p[i] /= s
	}
	return true
}

// marginals returns each variable's normalized belief. It fails when some
// variable's every state is ruled out by its prior or by an incoming
// message that is zero up to the floor: the model is then inconsistent
// (BP cannot tell this from its floored messages alone).
func (b *loopyBP) marginals() ([][]float64, error) {
	if b.binary {
		return b.marginalsBinary()
	}
	b.refreshBeliefs()
	out := make([][]float64, len(b.cards))
	for v, bel := range b.logBel {
		possible := false
		for x := range bel {
			ok := b.prior[v] == nil || b.prior[v][x] > 0
			for _, e := range b.varEdges[v] {
				ok = ok && b.msg[b.edgeOff[e]+x] > messageFloor
			}
			possible = possible || ok
		}
		if !possible {
			return nil, errInconsistent
		}
		m := math.Inf(-1)
		for _, x := range bel {
			m = max(m, x)
		}
		p := make([]float64, len(bel))
		for x := range bel {
			p[x] = math.Exp(bel[x] - m)
		}
		normalize(p)
		out[v] = p
	}
	return out, nil
}

// bethe returns the Bethe approximation of ln Z at the current messages
// (exact on trees at convergence):
//
//	ln Z ≈ Σ_f [E_bf ln f + H(b_f)] + Σ_v [E_bv ln prior_v − (d_v − 1) H(b_v)]
//
// where d_v counts the non-unary factors of v.
func (b *loopyBP) bethe(marg [][]float64) float64 {
	if b.binary {
		return b.logScale + b.betheBinary(marg)
	}
	return b.logScale + b.betheTerms(marg, func(e int, scratch []float64) []float64 {
		b.incoming(e, scratch)
		return scratch
	})
}

// betheTerms returns the sums of bethe's formula (the negated Bethe free
// energy, up to the tables' scale) at variable beliefs marg and the
// factor beliefs b_f ∝ f · Π_k in(e_k), where in returns the message into
// the factor on its edge e, in scratch (of the variable's size) or
// elsewhere.
func (b *loopyBP) betheTerms(marg [][]float64, in func(e int, scratch []float64) []float64) float64 {
	sum := 0.0
	maxArity, maxCard := 0, 0
	for _, f := range b.facs {
		maxArity = max(maxArity, len(f.vars))
	}
	for _, c := range b.cards {
		maxCard = max(maxCard, c)
	}
	scratch := make([][]float64, maxArity)
	for k := range scratch {
		scratch[k] = make([]float64, maxCard)
	}
	msgs := make([][]float64, maxArity)
	var digits []int
	var w []float64
	for fi := range b.facs {
		f := &b.facs[fi]
		for k, e := range f.edges {
			msgs[k] = in(e, scratch[k][:b.cards[f.vars[k]]])
		}
		n := len(f.vars)
		digits = resize(digits, n)
		clear(digits)
		w = resize(w, len(f.table))
		z := 0.0
		for i, t := range f.table {
			p := t
			for j := range n {
				p *= msgs[j][digits[j]]
			}
			w[i] = p
			z += p
			for j := n - 1; j >= 0; j-- {
				digits[j]++
				if digits[j] < b.cards[f.vars[j]] {
					break
				}
				digits[j] = 0
			}
		}
		for i, t := range f.table {
			if p := w[i] / z; p > 0 {
				sum += p * (math.Log(t) - math.Log(p))
			}
		}
	}
	return sum + b.variableTerms(marg)
}

// variableTerms returns the variables' sums of bethe's formula at beliefs
// marg: Σ_v [E_bv ln prior_v − (d_v − 1) H(b_v)].
func (b *loopyBP) variableTerms(marg [][]float64) float64 {
	sum := 0.0
	for v, p := range marg {
		d := len(b.varEdges[v])
		for x, q := range p {
			if q <= 0 {
				continue
			}
			if lp := b.logPrior[v]; lp != nil {
				sum += q * lp[x]
			}
			sum += float64(d-1) * q * math.Log(q)
		}
	}
	return sum
}
