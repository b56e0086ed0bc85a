package crossenc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/factreasoner/factreasoner-go/hftokenizer"
	"github.com/factreasoner/factreasoner-go/nli"
)

// Sequence is one input of the model: a premise chunk and the hypothesis,
// joined with the special tokens.
type Sequence struct {
	IDs     []int
	TypeIDs []int
	// Premise and Hypothesis are the texts the sequence encodes, kept when
	// the encoder was made with EncoderOptions.Texts: the premise's chunk
	// (the whole premise when it fits) and the hypothesis (its beginning
	// when it was cut). A server that tokenizes them with the same
	// tokenizer.json gets IDs.
	Premise, Hypothesis string
}

// Encoded is a pair as it is put to the model.
type Encoded struct {
	Plan      Plan
	Sequences []Sequence // one per chunk of Plan
	// Retokenized counts the sequences whose texts (EncoderOptions.Texts)
	// tokenize differently from the slice of the pair's tokens they were
	// cut from; their IDs are those of the texts.
	Retokenized int
}

// Encode tokenizes a pair and plans its chunks.
func (e *Encoder) Encode(premise, hypothesis string) (Encoded, error) {
	p, err := e.tok.Encode(premise)
	if err != nil {
		return Encoded{}, err
	}
	h, err := e.tok.Encode(hypothesis)
	if err != nil {
		return Encoded{}, err
	}
	return e.encodeTokens(premise, p, hypothesis, h)
}

func (e *Encoder) encodeTokens(premise string, p hftokenizer.Tokens, hypothesis string, h hftokenizer.Tokens) (Encoded, error) {
	plan := planPair(premise, p, h, e.maxLen, e.tok.Specials())
	enc := Encoded{Plan: plan, Sequences: make([]Sequence, len(plan.Chunks))}
	for i, c := range plan.Chunks {
		pe := e.tok.Pair(p, c.Start, c.End, h, 0, plan.HypothesisTokens)
		ids, types := pe.IDs, pe.TypeIDs
		s := Sequence{IDs: ids, TypeIDs: types}
		if e.texts {
			var (
				changed bool
				err     error
			)
			if s, changed, err = e.asText(s, premise, p, c, hypothesis, h, plan.HypothesisTokens); err != nil {
				return Encoded{}, fmt.Errorf("premise chunk %d of %d: %w", i+1, len(plan.Chunks), err)
			}
			if changed {
				enc.Retokenized++
			}
		}
		enc.Sequences[i] = s
	}
	return enc, nil
}

// asText gives s the texts of premise chunk c and of the hypothesis's
// first keep tokens. A chunk's text runs from the end of the token before
// it (so that the whitespace before its first word is kept, as byte-level
// BPE tokenizers mark it) to the end of its last token, the first and last
// chunks to the ends of the premise. Such a text nearly always tokenizes
// to the chunk's own tokens; when it does not, the sequence takes the
// tokens of the text, which is what a server will see, and it is an error
// for them not to fit the window (the server would truncate, or refuse).
func (e *Encoder) asText(s Sequence, premise string, p hftokenizer.Tokens, c Span, hypothesis string, h hftokenizer.Tokens, keep int) (Sequence, bool, error) {
	wholePremise := c.Start == 0 && c.End == p.Len()
	wholeHypothesis := keep == h.Len()
	s.Premise, s.Hypothesis = premise, hypothesis
	if !wholePremise {
		start, end := 0, len(premise)
		if c.Start > 0 {
			start = p.Offsets[c.Start-1][1]
		}
		if c.End < p.Len() {
			end = p.Offsets[c.End-1][1]
		}
		s.Premise = premise[start:end]
	}
	if !wholeHypothesis {
		s.Hypothesis = hypothesis[:h.Offsets[keep-1][1]]
	}
	if wholePremise && wholeHypothesis {
		return s, false, nil
	}
	rp, err := e.tok.Encode(s.Premise)
	if err != nil {
		return s, false, err
	}
	rh := h
	if !wholeHypothesis {
		if rh, err = e.tok.Encode(s.Hypothesis); err != nil {
			return s, false, err
		}
	}
	pe := e.tok.Pair(rp, 0, rp.Len(), rh, 0, rh.Len())
	ids, types := pe.IDs, pe.TypeIDs
	if slices.Equal(ids, s.IDs) {
		return s, false, nil
	}
	if len(ids) > e.maxLen {
		return s, false, fmt.Errorf("its text %.60q tokenizes to %d tokens with the hypothesis, more than the window of %d (the %d tokens it was cut as do fit); "+
			"sent as text it would be truncated or refused", s.Premise, len(ids), e.maxLen, len(s.IDs))
	}
	s.IDs, s.TypeIDs = ids, types
	return s, true, nil
}

// Batch is sequences put to the model in one call, padded to the longest.
type Batch struct {
	Sequences []Sequence
	// Width is the number of tokens of the longest sequence.
	Width     int
	padID     int
	zeroTypes bool
}

// Batch returns the sequences as one batch.
func (e *Encoder) Batch(seqs []Sequence) *Batch {
	b := &Batch{Sequences: seqs, padID: e.padID, zeroTypes: e.zeroTypes}
	for _, s := range seqs {
		b.Width = max(b.Width, len(s.IDs))
	}
	return b
}

// Tensors returns the batch as the model's three inputs, row-major
// [len(Sequences), Width]: token ids (padding after each sequence),
// attention mask (1 on tokens, 0 on padding) and token type ids (zeros
// when the model takes none but zeros).
func (b *Batch) Tensors() (ids, mask, types []int64) {
	n := len(b.Sequences) * b.Width
	ids = make([]int64, n)
	mask = make([]int64, n)
	types = make([]int64, n)
	for j, s := range b.Sequences {
		row := j * b.Width
		for k := range b.Width {
			if k < len(s.IDs) {
				ids[row+k] = int64(s.IDs[k])
				mask[row+k] = 1
				if !b.zeroTypes && k < len(s.TypeIDs) {
					types[row+k] = int64(s.TypeIDs[k])
				}
			} else {
				ids[row+k] = int64(b.padID)
			}
		}
	}
	return ids, mask, types
}

// Runner is the model's forward pass: it returns the logits of a batch's
// sequences, 3 per sequence in order, each three in the classifier's output
// order (see Encoder.Labels). A Runner is called from as many goroutines
// at once as the Classifier's Concurrency.
type Runner interface {
	Run(ctx context.Context, b *Batch) ([]float32, error)
}

// Options configure a Classifier.
type Options struct {
	// Backend and Name make the classifier's identity; a window narrowed
	// by EncoderOptions.MaxLength is appended to Name as @max_length=N,
	// since answers depend on it.
	Backend, Name string
	// BatchSize is the most sequences per Run (default DefaultBatchSize).
	BatchSize int
	// BatchTokens is the most tokens per Run, padding included (default
	// DefaultBatchTokens).
	BatchTokens int
	// Concurrency is the most Runs at once, of all Classify calls
	// together (default 1).
	Concurrency int
	// Linger is how long a partial batch may wait for the sequences of
	// other Classify calls made at once (the records a run scores in
	// parallel), so that the model gets full batches; it waits only while
	// calls are being made at once. Zero runs it as soon as a Run is free
	// (sequences still share batches while every Run is busy).
	Linger time.Duration
}

// Defaults of the batching options: on a CPU, a batch of long sequences
// runs slower per sequence than the sequences one by one, while short ones
// gain from company (see BENCHMARKS.md).
const (
	DefaultBatchSize   = 16
	DefaultBatchTokens = 256
)

// Classifier classifies pairs with a cross-encoder: it encodes them, runs
// the sequences through a Runner in batches, and reads the answers. It
// implements nli.Classifier and is safe for concurrent use.
type Classifier struct {
	*Encoder
	runner      Runner
	id          nli.Identity
	batchSize   int
	batchTokens int
	concurrency int
	pool        *pool
	stats       statCounters
}

// New returns the classifier that encodes with enc and runs the model with
// r.
func New(enc *Encoder, r Runner, o Options) *Classifier {
	c := &Classifier{Encoder: enc, runner: r, id: nli.Identity{Backend: o.Backend, Model: o.Name},
		batchSize: o.BatchSize, batchTokens: o.BatchTokens, concurrency: o.Concurrency}
	if enc.narrowed {
		c.id.Model = fmt.Sprintf("%s@max_length=%d", c.id.Model, enc.maxLen)
	}
	if c.batchSize <= 0 {
		c.batchSize = DefaultBatchSize
	}
	if c.batchTokens <= 0 {
		c.batchTokens = DefaultBatchTokens
	}
	if c.concurrency <= 0 {
		c.concurrency = 1
	}
	c.pool = newPool(c, o.Linger)
	return c
}

// Identity implements nli.Classifier.
func (c *Classifier) Identity() nli.Identity { return c.id }

var _ nli.Classifier = (*Classifier)(nil)

// Batches returns the batches that Logits makes of seqs, as indices into
// seqs: sequences sorted longest first (ties in input order, so that
// batches and results are the same from run to run), cut into batches of
// at most BatchSize sequences and BatchTokens padded tokens.
func (c *Classifier) Batches(seqs []Sequence) [][]int {
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(seqs[b].IDs), len(seqs[a].IDs)) })
	var batches [][]int
	for lo, hi := 0, 0; lo < len(order); lo = hi {
		hi = batchEnd(len(seqs[order[lo]].IDs), lo, len(order), c.batchSize, c.batchTokens)
		batches = append(batches, order[lo:hi:hi])
	}
	return batches
}

// batchEnd returns the end of the batch that starts at lo among n sequences
// sorted longest first, the first of width tokens: up to size sequences
// while the batch, padded to width, stays within tokens. Short sequences go
// many to a batch, long ones alone.
func batchEnd(width, lo, n, size, tokens int) int {
	hi := lo + 1
	for hi < n && hi-lo < size && (hi-lo+1)*width <= tokens {
		hi++
	}
	return hi
}

// Logits runs the model on sequences and returns each one's logits, in the
// order of the classifier's outputs (see Labels), in batches formed as
// Batches forms them, up to Concurrency of them at once. The sequences of
// calls made at once share batches (see Options.Linger), and Concurrency
// bounds the batches of all calls together.
func (c *Classifier) Logits(ctx context.Context, seqs []Sequence) ([][3]float32, error) {
	for i, s := range seqs {
		if n := len(s.IDs); n > c.maxLen || n == 0 {
			return nil, fmt.Errorf("sequence %d has %d tokens; the model takes 1 to %d", i, n, c.maxLen)
		}
	}
	if len(seqs) == 0 {
		return nil, nil
	}
	return c.pool.logits(ctx, seqs)
}

// Stats counts what the model was asked.
type Stats struct {
	Pairs           int64 // pairs classified
	Sequences       int64 // model inputs (chunks)
	ChunkedPairs    int64 // pairs whose premise took more than one chunk
	CutHypotheses   int64 // pairs whose hypothesis was cut to half the window
	MaxChunksOfPair int64
	// Retokenized counts sequences whose texts tokenize differently from
	// the tokens they were cut as (EncoderOptions.Texts).
	Retokenized int64
	// Runtime is the time spent in the Runner (all goroutines).
	Runtime time.Duration
	// Batches counts the Runs: Sequences/Batches is the mean batch.
	Batches int64
}

// Classify implements nli.Classifier.
func (c *Classifier) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	// Atoms and contexts recur across pairs (FR2 pairs every atom with
	// every context): tokenize each text once.
	memo := map[string]hftokenizer.Tokens{}
	tokens := func(s string) (hftokenizer.Tokens, error) {
		if t, ok := memo[s]; ok {
			return t, nil
		}
		t, err := c.tok.Encode(s)
		if err == nil {
			memo[s] = t
		}
		return t, err
	}
	var (
		seqs  []Sequence
		first = make([]int, len(pairs)+1) // pair i owns seqs[first[i]:first[i+1]]
	)
	for i, p := range pairs {
		pt, err := tokens(p.Premise)
		if err != nil {
			return nil, fmt.Errorf("premise %s: %w", p.PremiseID, err)
		}
		ht, err := tokens(p.Hypothesis)
		if err != nil {
			return nil, fmt.Errorf("hypothesis %s: %w", p.HypothesisID, err)
		}
		e, err := c.encodeTokens(p.Premise, pt, p.Hypothesis, ht)
		if err != nil {
			return nil, fmt.Errorf("premise %s, hypothesis %s: %w", p.PremiseID, p.HypothesisID, err)
		}
		c.count(e)
		seqs = append(seqs, e.Sequences...)
		first[i+1] = len(seqs)
	}
	logits, err := c.Logits(ctx, seqs)
	if err != nil {
		return nil, err
	}
	out := make([]nli.Result, len(pairs))
	for i := range pairs {
		if out[i], err = c.aggregate(logits[first[i]:first[i+1]]); err != nil {
			p := pairs[i]
			return nil, fmt.Errorf("premise %s, hypothesis %s: %w", p.PremiseID, p.HypothesisID, err)
		}
	}
	return out, nil
}

// errNotFinite reports logits that are not numbers.
var errNotFinite = errors.New("the model's logits are not finite numbers")

// aggregate turns the logits of a pair's chunks into its answer: the
// distribution of the chunk with the highest entailment or contradiction
// probability (the earliest on a tie).
func (c *Classifier) aggregate(chunks [][3]float32) (nli.Result, error) {
	var best []float64
	bestScore := -1.0
	for _, z := range chunks {
		for _, v := range z {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nli.Result{}, fmt.Errorf("%w: %v", errNotFinite, z)
			}
		}
		p := Softmax(z)
		dist := make([]float64, 3)
		for k, l := range c.labels {
			dist[l] = p[k]
		}
		if s := max(dist[nli.Entailment], dist[nli.Contradiction]); s > bestScore {
			best, bestScore = dist, s
		}
	}
	// Argmax in the classifier's output order, as numpy's argmax.
	arg := c.labels[0]
	for _, l := range c.labels[1:] {
		if best[l] > best[arg] {
			arg = l
		}
	}
	return nli.Result{Label: arg, Probability: best[arg], Distribution: best}, nil
}

// Softmax returns the softmax of logits, computed in float64.
func Softmax(z [3]float32) [3]float64 {
	hi := math.Inf(-1)
	for _, v := range z {
		hi = max(hi, float64(v))
	}
	var p [3]float64
	sum := 0.0
	for k, v := range z {
		p[k] = math.Exp(float64(v) - hi)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p
}

// statCounters are updated atomically: Classify may run concurrently.
type statCounters struct {
	pairs, seqs, chunked, cut, maxChunks, retokenized atomic.Int64
	runNanos, batches                                 atomic.Int64
}

func (c *Classifier) count(e Encoded) {
	s := &c.stats
	s.pairs.Add(1)
	n := int64(len(e.Sequences))
	s.seqs.Add(n)
	s.retokenized.Add(int64(e.Retokenized))
	if n > 1 {
		s.chunked.Add(1)
	}
	if e.Plan.HypothesisCut {
		s.cut.Add(1)
	}
	for {
		old := s.maxChunks.Load()
		if n <= old || s.maxChunks.CompareAndSwap(old, n) {
			break
		}
	}
}

// Stats returns the counts so far.
func (c *Classifier) Stats() Stats {
	s := &c.stats
	return Stats{Pairs: s.pairs.Load(), Sequences: s.seqs.Load(), ChunkedPairs: s.chunked.Load(),
		CutHypotheses: s.cut.Load(), MaxChunksOfPair: s.maxChunks.Load(), Retokenized: s.retokenized.Load(),
		Runtime: time.Duration(s.runNanos.Load()), Batches: s.batches.Load()}
}
