package crossenc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/factreasoner/factreasoner-go/hftokenizer"
	"github.com/factreasoner/factreasoner-go/nli"
)

// Sequence is one input of the model: a premise chunk and a hypothesis
// chunk (the whole texts when they fit), joined with the special tokens.
type Sequence struct {
	IDs     []int
	TypeIDs []int
	// Premise and Hypothesis are the texts the sequence encodes, kept when
	// the encoder was made with EncoderOptions.Texts: the premise's chunk
	// and the hypothesis's chunk (the whole texts when they fit). A server
	// that tokenizes them with the same tokenizer.json gets IDs.
	Premise, Hypothesis string
	// PremiseSpan and HypothesisSpan are the tokens of the premise and of
	// the hypothesis (without special tokens) the sequence holds.
	PremiseSpan, HypothesisSpan Span
}

// Encoded is a pair as it is put to the model.
type Encoded struct {
	Plan      Plan
	Sequences []Sequence // in the order of Plan.Sequence
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
	plan := planPair(premise, p, hypothesis, h, e.maxLen, e.tok.Specials())
	enc := Encoded{Plan: plan, Sequences: make([]Sequence, plan.Len())}
	for k := range enc.Sequences {
		pc, hc := plan.Sequence(k)
		ids, types := e.tok.PairIDs(p, pc.Start, pc.End, h, hc.Start, hc.End)
		s := Sequence{IDs: ids, TypeIDs: types, PremiseSpan: pc, HypothesisSpan: hc}
		if e.texts {
			var (
				changed bool
				err     error
			)
			if s, changed, err = e.asText(s, premise, p, hypothesis, h); err != nil {
				return Encoded{}, fmt.Errorf("chunk %d of %d: %w", k+1, plan.Len(), err)
			}
			if changed {
				enc.Retokenized++
			}
		}
		enc.Sequences[k] = s
	}
	return enc, nil
}

// chunkText returns the text of tokens c of a text: from the end of the
// token before the chunk (so that the whitespace before its first word is
// kept, as byte-level BPE tokenizers mark it) to the end of its last
// token, the first and last chunks to the ends of the text.
func chunkText(text string, t hftokenizer.Tokens, c Span) string {
	start, end := 0, len(text)
	if c.Start > 0 {
		start = t.Offsets[c.Start-1][1]
	}
	if c.End < t.Len() {
		end = t.Offsets[c.End-1][1]
	}
	if start > end {
		start = end
	}
	return text[start:end]
}

// asText gives s the texts of its premise and hypothesis chunks. Such a
// text nearly always tokenizes to the chunk's own tokens; when it does
// not, the sequence takes the tokens of the texts, which is what a server
// will see, and it is an error for them not to fit the window (the server
// would truncate, or refuse).
func (e *Encoder) asText(s Sequence, premise string, p hftokenizer.Tokens, hypothesis string, h hftokenizer.Tokens) (Sequence, bool, error) {
	wholePremise := s.PremiseSpan == Span{0, p.Len()}
	wholeHypothesis := s.HypothesisSpan == Span{0, h.Len()}
	s.Premise, s.Hypothesis = premise, hypothesis
	if !wholePremise {
		s.Premise = chunkText(premise, p, s.PremiseSpan)
	}
	if !wholeHypothesis {
		s.Hypothesis = chunkText(hypothesis, h, s.HypothesisSpan)
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
	ids, types := e.tok.PairIDs(rp, 0, rp.Len(), rh, 0, rh.Len())
	if slices.Equal(ids, s.IDs) {
		return s, false, nil
	}
	if len(ids) > e.maxLen {
		return s, false, fmt.Errorf("its texts (%.60q, %.60q) tokenize to %d tokens, more than the window of %d (the %d tokens they were cut as do fit); "+
			"sent as text they would be truncated or refused", s.Premise, s.Hypothesis, len(ids), e.maxLen, len(s.IDs))
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
// sequences, Head().Outputs() per sequence in order (3 for an NLI model),
// each in the classifier's output order (see Encoder.Head). A Runner is
// called from as many goroutines at once as the Classifier's Concurrency.
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
	// Unsupported is the label of a pair that a grounding classifier
	// finds not supported (nli.Supported): nli.Neutral (the zero value)
	// or nli.Contradiction. NLI models ignore it.
	Unsupported nli.Label
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
	unsupported nli.Label
	pool        *pool
	stats       statCounters
	cache       tokenCache
}

// New returns the classifier that encodes with enc and runs the model with
// r.
func New(enc *Encoder, r Runner, o Options) *Classifier {
	c := &Classifier{Encoder: enc, runner: r, id: nli.Identity{Backend: o.Backend, Model: o.Name},
		batchSize: o.BatchSize, batchTokens: o.BatchTokens, concurrency: o.Concurrency, unsupported: o.Unsupported}
	if enc.narrowed {
		c.id.Model = fmt.Sprintf("%s@max_length=%d", c.id.Model, enc.maxLen)
	}
	if enc.head.Kind != NLI3 {
		// The kind of model and the relation of "not supported" change
		// every answer: they are part of the identity (the NLI cache, a
		// run's resume and merge), and say in each output line what kind
		// of model answered. An NLI model's identity stays the name.
		c.id.Model += " (" + enc.head.String()
		if c.unsupported == nli.Contradiction {
			c.id.Model += ", not supported=contradiction"
		}
		c.id.Model += ")"
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

// Revision names how this code puts a pair to the model (nlicache's
// Revisioned): answers cached before Hugging Face's exact tokenization and
// the chunked hypotheses (issue 28) were given other token ids, and are not
// reused.
func (c *Classifier) Revision() string { return "hf-tokenizers-0.22;hypothesis-chunks" }

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
// order of the classifier's outputs (see Head), in batches formed as
// Batches forms them, up to Concurrency of them at once. The sequences of
// calls made at once share batches (see Options.Linger), and Concurrency
// bounds the batches of all calls together.
func (c *Classifier) Logits(ctx context.Context, seqs []Sequence) ([][]float32, error) {
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
	Pairs        int64 // pairs classified
	Sequences    int64 // model inputs (chunks)
	ChunkedPairs int64 // pairs whose premise took more than one chunk
	// ChunkedHypotheses counts pairs whose hypothesis took more than half
	// the window and was cut into chunks.
	ChunkedHypotheses int64
	MaxChunksOfPair   int64 // sequences of the pair with the most
	// Tokenized counts the texts tokenized: each distinct text once while
	// it is in the classifier's cache (see Classify).
	Tokenized int64
	// Retokenized counts sequences whose texts tokenize differently from
	// the tokens they were cut as (EncoderOptions.Texts).
	Retokenized int64
	// Runtime is the time spent in the Runner (all goroutines).
	Runtime time.Duration
	// Batches counts the Runs: Sequences/Batches is the mean batch.
	Batches int64
}

// Classify implements nli.Classifier. Each text is tokenized once: the
// classifier keeps the tokens of the texts it has seen lately (a record's
// contexts and atoms come back in every round of its pairs). A text the
// tokenizer cannot take fails the call with an *nli.TextError.
func (c *Classifier) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	var (
		seqs  []Sequence
		first = make([]int, len(pairs)+1) // pair i owns seqs[first[i]:first[i+1]]
		plans = make([]Plan, len(pairs))
	)
	for i, p := range pairs {
		pt, err := c.tokens(p.Premise)
		if err != nil {
			return nil, &nli.TextError{ID: p.PremiseID, Role: "premise", Err: err}
		}
		ht, err := c.tokens(p.Hypothesis)
		if err != nil {
			return nil, &nli.TextError{ID: p.HypothesisID, Role: "hypothesis", Err: err}
		}
		e, err := c.encodeTokens(p.Premise, pt, p.Hypothesis, ht)
		if err != nil {
			return nil, fmt.Errorf("premise %s, hypothesis %s: %w", p.PremiseID, p.HypothesisID, err)
		}
		c.count(e)
		plans[i] = e.Plan
		seqs = append(seqs, e.Sequences...)
		first[i+1] = len(seqs)
	}
	logits, err := c.Logits(ctx, seqs)
	if err != nil {
		return nil, err
	}
	out := make([]nli.Result, len(pairs))
	for i := range pairs {
		if out[i], err = c.aggregate(plans[i], logits[first[i]:first[i+1]]); err != nil {
			p := pairs[i]
			return nil, fmt.Errorf("premise %s, hypothesis %s: %w", p.PremiseID, p.HypothesisID, err)
		}
	}
	return out, nil
}

// tokens returns the tokens of s, from the cache when it has them.
func (c *Classifier) tokens(s string) (hftokenizer.Tokens, error) {
	if t, ok := c.cache.get(s); ok {
		return t, nil
	}
	t, err := c.tok.Encode(s)
	if err != nil {
		return t, err
	}
	c.stats.tokenized.Add(1)
	c.cache.put(s, t)
	return t, nil
}

// cacheTokens bounds the tokens the cache keeps (about 60 bytes each): far
// more than a record's texts, so that each is tokenized once per record
// even with a few records in flight.
const cacheTokens = 1 << 20

// tokenCache keeps the tokens of recent texts in two generations: when the
// current one holds cacheTokens tokens it becomes the old one, and a text
// found in the old one moves back to the current.
type tokenCache struct {
	mu       sync.Mutex
	cur, old map[string]hftokenizer.Tokens
	n        int // tokens in cur
}

func (c *tokenCache) get(s string) (hftokenizer.Tokens, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.cur[s]; ok {
		return t, true
	}
	t, ok := c.old[s]
	if ok {
		c.putLocked(s, t)
	}
	return t, ok
}

func (c *tokenCache) put(s string, t hftokenizer.Tokens) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(s, t)
}

func (c *tokenCache) putLocked(s string, t hftokenizer.Tokens) {
	if c.cur == nil || c.n+t.Len() > cacheTokens {
		c.old, c.cur, c.n = c.cur, make(map[string]hftokenizer.Tokens), 0
	}
	c.cur[s] = t
	c.n += t.Len()
}

// errNotFinite reports logits that are not numbers.
var errNotFinite = errors.New("the model's logits are not finite numbers")

// aggregate turns the logits of a pair's sequences into its answer. For
// each hypothesis chunk, the answer of its premise chunks: for an NLI
// model, the distribution of the most decisive premise chunk (the highest
// entailment or contradiction probability, the earliest on a tie); for a
// grounding classifier, the highest P(supported) (MiniCheck's rule). A
// hypothesis in one chunk (every pair but FR3's long context–context ones)
// has that answer. A hypothesis in several chunks is entailed only as far
// as every chunk is, and contradicted as far as any chunk is: entailment =
// the least of the chunks' entailment probabilities, contradiction = the
// greatest of their contradiction probabilities, neutral = the rest (never
// negative: the least entailment is at most that of the most contradicted
// chunk, whose two add up to at most 1); for a grounding classifier,
// P(supported) = the least over hypothesis chunks of the best over premise
// chunks.
func (c *Classifier) aggregate(plan Plan, seqs [][]float32) (nli.Result, error) {
	for _, z := range seqs {
		for _, v := range z {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nli.Result{}, fmt.Errorf("%w: %v", errNotFinite, z)
			}
		}
	}
	per := len(plan.Chunks)
	if c.head.Kind != NLI3 {
		supported := math.Inf(1)
		for j := range plan.Hypotheses {
			best := -1.0
			for _, z := range seqs[j*per : (j+1)*per] {
				best = max(best, c.head.supported(z))
			}
			supported = min(supported, best)
		}
		return nli.Supported(supported, c.unsupported), nil
	}
	var dist []float64
	for j := range plan.Hypotheses {
		best := c.mostDecisive(seqs[j*per : (j+1)*per])
		if j == 0 {
			dist = best
			continue
		}
		dist[nli.Entailment] = min(dist[nli.Entailment], best[nli.Entailment])
		dist[nli.Contradiction] = max(dist[nli.Contradiction], best[nli.Contradiction])
	}
	if len(plan.Hypotheses) > 1 {
		dist[nli.Neutral] = max(0, 1-dist[nli.Entailment]-dist[nli.Contradiction])
	}
	// Argmax in the classifier's output order, as numpy's argmax.
	arg := c.labels[0]
	for _, l := range c.labels[1:] {
		if dist[l] > dist[arg] {
			arg = l
		}
	}
	return nli.Result{Label: arg, Probability: dist[arg], Distribution: dist}, nil
}

// mostDecisive returns the distribution of the chunk of a 3-way NLI model
// with the highest entailment or contradiction probability (the earliest
// on a tie).
func (c *Classifier) mostDecisive(chunks [][]float32) []float64 {
	var best []float64
	bestScore := -1.0
	for _, z := range chunks {
		p := Softmax([3]float32(z))
		dist := make([]float64, 3)
		for k, l := range c.labels {
			dist[l] = p[k]
		}
		if s := max(dist[nli.Entailment], dist[nli.Contradiction]); s > bestScore {
			best, bestScore = dist, s
		}
	}
	return best
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
	runNanos, batches, tokenized                      atomic.Int64
}

func (c *Classifier) count(e Encoded) {
	s := &c.stats
	s.pairs.Add(1)
	n := int64(len(e.Sequences))
	s.seqs.Add(n)
	s.retokenized.Add(int64(e.Retokenized))
	if len(e.Plan.Chunks) > 1 {
		s.chunked.Add(1)
	}
	if len(e.Plan.Hypotheses) > 1 {
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
		ChunkedHypotheses: s.cut.Load(), MaxChunksOfPair: s.maxChunks.Load(), Retokenized: s.retokenized.Load(),
		Runtime: time.Duration(s.runNanos.Load()), Batches: s.batches.Load(), Tokenized: s.tokenized.Load()}
}
