package onnxnli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/factreasoner/factreasoner-go/hftokenizer"
	"github.com/factreasoner/factreasoner-go/nli"
)

// Sequence is one input of the model: a premise chunk and the hypothesis,
// joined with the special tokens.
type Sequence struct {
	IDs     []int
	TypeIDs []int
}

// Encoded is a pair as it is put to the model.
type Encoded struct {
	Plan      Plan
	Sequences []Sequence // one per chunk of Plan
}

// Encode tokenizes a pair and plans its chunks.
func (m *Model) Encode(premise, hypothesis string) (Encoded, error) {
	p, err := m.tok.Encode(premise)
	if err != nil {
		return Encoded{}, err
	}
	h, err := m.tok.Encode(hypothesis)
	if err != nil {
		return Encoded{}, err
	}
	return m.encodeTokens(premise, p, h), nil
}

func (m *Model) encodeTokens(premiseText string, p, h hftokenizer.Tokens) Encoded {
	plan := planPair(premiseText, p, h, m.maxLen, m.tok.Specials())
	e := Encoded{Plan: plan, Sequences: make([]Sequence, len(plan.Chunks))}
	for i, c := range plan.Chunks {
		ids, types := m.tok.Pair(p, c.Start, c.End, h, plan.HypothesisTokens)
		e.Sequences[i] = Sequence{IDs: ids, TypeIDs: types}
	}
	return e
}

// Logits runs the model on sequences and returns each one's logits, in the
// order of the classifier's outputs (see Labels). Sequences are sorted by
// length and run in batches of at most BatchSize sequences and BatchTokens
// padded tokens, each batch padded to its longest.
func (m *Model) Logits(ctx context.Context, seqs []Sequence) ([][3]float32, error) {
	if m.session == nil {
		return nil, errors.New("NLI model is closed")
	}
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
		if n := len(seqs[i].IDs); n > m.maxLen || n == 0 {
			return nil, fmt.Errorf("sequence %d has %d tokens; the model takes 1 to %d", i, n, m.maxLen)
		}
	}
	// Longest first, so that a batch's padding is small; ties keep input
	// order, so batches (and results) are the same from run to run.
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(seqs[b].IDs), len(seqs[a].IDs)) })
	out := make([][3]float32, len(seqs))
	for lo, hi := 0, 0; lo < len(order); lo = hi {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi = batchEnd(len(seqs[order[lo]].IDs), lo, len(order), m.batchSize, m.batchTokens)
		batch := order[lo:hi]
		logits, err := m.run(seqs, batch)
		if err != nil {
			return nil, err
		}
		for j, i := range batch {
			copy(out[i][:], logits[3*j:3*j+3])
		}
	}
	return out, nil
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

// run feeds one batch, padded to its longest sequence, to the session and
// returns its logits, 3 per sequence.
func (m *Model) run(seqs []Sequence, batch []int) ([]float32, error) {
	width := 0
	for _, i := range batch {
		width = max(width, len(seqs[i].IDs))
	}
	n := len(batch) * width
	ids := make([]int64, n)
	mask := make([]int64, n)
	types := make([]int64, n)
	for j, i := range batch {
		row := j * width
		s := seqs[i]
		for k := range width {
			if k < len(s.IDs) {
				ids[row+k] = int64(s.IDs[k])
				mask[row+k] = 1
				if !m.zeroTypes && k < len(s.TypeIDs) {
					types[row+k] = int64(s.TypeIDs[k])
				}
			} else {
				ids[row+k] = int64(m.padID)
			}
		}
	}
	shape := ort.NewShape(int64(len(batch)), int64(width))
	inputs := make([]ort.Value, len(m.inputs))
	defer func() {
		for _, v := range inputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for k, name := range m.inputs {
		data := ids
		switch name {
		case "attention_mask":
			data = mask
		case "token_type_ids":
			data = types
		}
		var (
			v   ort.Value
			err error
		)
		if m.int32IDs {
			v, err = ort.NewTensor(shape, toInt32(data))
		} else {
			v, err = ort.NewTensor(shape, data)
		}
		if err != nil {
			return nil, fmt.Errorf("ONNX Runtime input %s: %w", name, err)
		}
		inputs[k] = v
	}
	outputs := []ort.Value{nil}
	start := time.Now()
	err := m.session.Run(inputs, outputs)
	m.stats.runNanos.Add(int64(time.Since(start)))
	if err != nil {
		return nil, fmt.Errorf("NLI model %s: %w", m.modelFile, err)
	}
	defer outputs[0].Destroy()
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("NLI model %s: output is %T, want a float32 tensor", m.modelFile, outputs[0])
	}
	if got := t.GetShape(); len(got) != 2 || got[0] != int64(len(batch)) || got[1] != 3 {
		return nil, fmt.Errorf("NLI model %s: output shape %v for a batch of %d; want [%d 3]", m.modelFile, got, len(batch), len(batch))
	}
	return slices.Clone(t.GetData()), nil
}

func toInt32(v []int64) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// Stats counts what the model was asked.
type Stats struct {
	Pairs           int64 // pairs classified
	Sequences       int64 // model inputs (chunks)
	ChunkedPairs    int64 // pairs whose premise took more than one chunk
	CutHypotheses   int64 // pairs whose hypothesis was cut to half the window
	MaxChunksOfPair int64
	// Runtime is the time spent in ONNX Runtime's Run (all goroutines).
	Runtime time.Duration
}

// Classify implements nli.Classifier.
func (m *Model) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	// Atoms and contexts recur across pairs (FR2 pairs every atom with
	// every context): tokenize each text once.
	memo := map[string]hftokenizer.Tokens{}
	tokens := func(s string) (hftokenizer.Tokens, error) {
		if t, ok := memo[s]; ok {
			return t, nil
		}
		t, err := m.tok.Encode(s)
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
		e := m.encodeTokens(p.Premise, pt, ht)
		m.count(e)
		seqs = append(seqs, e.Sequences...)
		first[i+1] = len(seqs)
	}
	logits, err := m.Logits(ctx, seqs)
	if err != nil {
		return nil, err
	}
	out := make([]nli.Result, len(pairs))
	for i := range pairs {
		out[i] = m.aggregate(logits[first[i]:first[i+1]])
	}
	return out, nil
}

// aggregate turns the logits of a pair's chunks into its answer: the
// distribution of the chunk with the highest entailment or contradiction
// probability (the earliest on a tie).
func (m *Model) aggregate(chunks [][3]float32) nli.Result {
	var best []float64
	bestScore := -1.0
	for _, z := range chunks {
		p := Softmax(z)
		dist := make([]float64, 3)
		for k, l := range m.labels {
			dist[l] = p[k]
		}
		if s := max(dist[nli.Entailment], dist[nli.Contradiction]); s > bestScore {
			best, bestScore = dist, s
		}
	}
	// Argmax in the classifier's output order, as numpy's argmax.
	arg := m.labels[0]
	for _, l := range m.labels[1:] {
		if best[l] > best[arg] {
			arg = l
		}
	}
	return nli.Result{Label: arg, Probability: best[arg], Distribution: best}
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
	pairs, seqs, chunked, cut, maxChunks atomic.Int64
	runNanos                             atomic.Int64
}

func (m *Model) count(e Encoded) {
	c := &m.stats
	c.pairs.Add(1)
	n := int64(len(e.Sequences))
	c.seqs.Add(n)
	if n > 1 {
		c.chunked.Add(1)
	}
	if e.Plan.HypothesisCut {
		c.cut.Add(1)
	}
	for {
		old := c.maxChunks.Load()
		if n <= old || c.maxChunks.CompareAndSwap(old, n) {
			break
		}
	}
}

// Stats returns the counts so far.
func (m *Model) Stats() Stats {
	c := &m.stats
	return Stats{Pairs: c.pairs.Load(), Sequences: c.seqs.Load(), ChunkedPairs: c.chunked.Load(),
		CutHypotheses: c.cut.Load(), MaxChunksOfPair: c.maxChunks.Load(), Runtime: time.Duration(c.runNanos.Load())}
}
