package crossenc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/nli"
)

func testModelDir(name string) string { return filepath.Join("..", "..", "testdata", "nli", name) }

func loadEncoder(t testing.TB, dir string, o EncoderOptions) *Encoder {
	t.Helper()
	e, err := LoadEncoder(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// fakeRunner answers each sequence with logits computed from its tokens
// alone (so that a sequence's answer does not depend on its batch), and
// records the batches it saw.
type fakeRunner struct {
	mu       sync.Mutex
	batches  [][]Sequence
	inFlight atomic.Int32
	maxIn    atomic.Int32
	fail     func(b *Batch) error
	gate     chan struct{} // when set, each Run waits for a token
	logits   func(s Sequence) [3]float32
}

func seqLogits(s Sequence) [3]float32 {
	sum := 0
	for _, id := range s.IDs {
		sum += id
	}
	return [3]float32{float32(sum % 7), float32(len(s.IDs) % 5), float32(sum%3) / 2}
}

func (r *fakeRunner) Run(ctx context.Context, b *Batch) ([]float32, error) {
	n := r.inFlight.Add(1)
	defer r.inFlight.Add(-1)
	for {
		old := r.maxIn.Load()
		if n <= old || r.maxIn.CompareAndSwap(old, n) {
			break
		}
	}
	if r.gate != nil {
		select {
		case <-r.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r.mu.Lock()
	r.batches = append(r.batches, b.Sequences)
	r.mu.Unlock()
	if r.fail != nil {
		if err := r.fail(b); err != nil {
			return nil, err
		}
	}
	f := r.logits
	if f == nil {
		f = seqLogits
	}
	var out []float32
	for _, s := range b.Sequences {
		z := f(s)
		out = append(out, z[:]...)
	}
	return out, nil
}

func testPairs() []nli.Pair {
	long := strings.Repeat("Marie Curie was born in Warsaw in 1867. She won two Nobel Prizes in physics and chemistry. ", 6)
	var pairs []nli.Pair
	for i, h := range []string{"Marie Curie was a physicist.", "She was born in Paris.", "Curie won a Nobel Prize.", "The Eiffel Tower is in Paris."} {
		pairs = append(pairs,
			nli.Pair{PremiseID: "short", HypothesisID: fmt.Sprint(i), Premise: "Marie Curie was a Polish-born physicist.", Hypothesis: h},
			nli.Pair{PremiseID: "long", HypothesisID: fmt.Sprint(i), Premise: long, Hypothesis: h})
	}
	return pairs
}

// TestConcurrencyKeepsAnswers: answers with up to 4 batches in flight are
// those of one batch at a time, and the batches are those Batches makes.
func TestConcurrencyKeepsAnswers(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-roberta"), EncoderOptions{})
	pairs := testPairs()
	var want []nli.Result
	for _, conc := range []int{1, 2, 4} {
		r := &fakeRunner{}
		c := New(enc, r, Options{Backend: "fake", Name: "m", BatchSize: 2, BatchTokens: 1 << 20, Concurrency: conc})
		got, err := c.Classify(context.Background(), pairs)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
		} else if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("concurrency %d: answers differ from one at a time", conc)
		}
		if s := c.Stats(); s.Pairs != int64(len(pairs)) || s.ChunkedPairs != 4 || r.maxIn.Load() > int32(conc) {
			t.Errorf("concurrency %d: stats %+v, %d in flight", conc, s, r.maxIn.Load())
		}
		if n := len(r.batches); int64(n) != (c.Stats().Sequences+1)/2 {
			t.Errorf("concurrency %d: %d batches for %d sequences in batches of 2", conc, n, c.Stats().Sequences)
		}
	}
}

// TestConcurrencyInFlight: with Concurrency 3, three batches run at once.
func TestConcurrencyInFlight(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-roberta"), EncoderOptions{})
	r := &fakeRunner{gate: make(chan struct{})}
	c := New(enc, r, Options{BatchSize: 1, Concurrency: 3})
	done := make(chan error)
	go func() {
		_, err := c.Classify(context.Background(), testPairs())
		done <- err
	}()
	for r.inFlight.Load() < 3 {
		// Wait until three runs hold their slots.
		time.Sleep(time.Millisecond)
		select {
		case err := <-done:
			t.Fatalf("finished early: %v", err)
		default:
		}
	}
	close(r.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if r.maxIn.Load() != 3 {
		t.Errorf("%d runs at once; want 3", r.maxIn.Load())
	}
}

// TestRunnerErrors: the runner's error stops the work; a runner that gives
// the wrong number of logits, or logits that are not numbers, is an error,
// never an answer.
func TestRunnerErrors(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-roberta"), EncoderOptions{})
	boom := errors.New("boom")
	for _, c := range []struct {
		name string
		r    *fakeRunner
		want string
	}{
		{"error", &fakeRunner{fail: func(*Batch) error { return boom }}, "boom"},
		{"short", &fakeRunner{logits: func(Sequence) [3]float32 { return [3]float32{} }, fail: func(b *Batch) error {
			if len(b.Sequences) > 1 {
				b.Sequences = b.Sequences[:1]
			}
			return nil
		}}, "logits for"},
		{"NaN", &fakeRunner{logits: func(Sequence) [3]float32 { return [3]float32{float32(math.NaN()), 0, 0} }}, "not finite"},
		{"Inf", &fakeRunner{logits: func(Sequence) [3]float32 { return [3]float32{0, float32(math.Inf(1)), 0} }}, "not finite"},
	} {
		for _, conc := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d", c.name, conc), func(t *testing.T) {
				cl := New(enc, c.r, Options{BatchSize: 2, Concurrency: conc})
				res, err := cl.Classify(context.Background(), testPairs())
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%v, %v; want an error saying %q", res, err, c.want)
				}
			})
		}
	}
}

func TestTensors(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-bert"), EncoderOptions{})
	b := enc.Batch([]Sequence{{IDs: []int{5, 6, 7}, TypeIDs: []int{0, 1, 1}}, {IDs: []int{8}, TypeIDs: []int{0}}})
	ids, mask, types := b.Tensors()
	pad := int64(enc.PadID())
	if b.Width != 3 || !slices.Equal(ids, []int64{5, 6, 7, 8, pad, pad}) || !slices.Equal(mask, []int64{1, 1, 1, 1, 0, 0}) {
		t.Errorf("width %d, ids %v, mask %v", b.Width, ids, mask)
	}
	if wantTypes := []int64{0, 1, 1, 0, 0, 0}; !enc.ZeroTypes() && !slices.Equal(types, wantTypes) {
		t.Errorf("types %v, want %v", types, wantTypes)
	}
	// tiny-roberta's type_vocab_size is 1: zeros whatever the tokenizer says.
	enc = loadEncoder(t, testModelDir("tiny-roberta"), EncoderOptions{})
	if _, _, types := enc.Batch([]Sequence{{IDs: []int{5, 6}, TypeIDs: []int{0, 1}}}).Tensors(); !slices.Equal(types, []int64{0, 0}) {
		t.Errorf("types %v with type_vocab_size 1", types)
	}
}

// TestTexts: with EncoderOptions.Texts every sequence carries the texts a
// server would tokenize, and those texts tokenize to the sequence's own
// tokens: the chunks of a long premise, with the real roberta-base and the
// tiny BERT tokenizers, and a hypothesis longer than half the window,
// in chunks.
func TestTexts(t *testing.T) {
	flaherty, err := os.ReadFile(refdata.Path(t, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		t.Fatal(err)
	}
	longText := string(flaherty[:6000])
	for _, c := range []struct {
		name, dir  string
		maxLength  int
		premise    string
		hypothesis string
	}{
		{"roberta-base", refdata.Path(t, "tokenizers", "roberta-base"), 64, longText, "Lanny Flaherty is an American actor."},
		{"roberta-base long hypothesis", refdata.Path(t, "tokenizers", "roberta-base"), 40, longText[:800], longText[1000:1400]},
		{"tiny-roberta", testModelDir("tiny-roberta"), 0, strings.Repeat("Marie Curie was born in Warsaw in 1867.  She won two Nobel Prizes. ", 8), "Curie was born in Warsaw."},
		{"tiny-bert", testModelDir("tiny-bert"), 0, strings.Repeat("Marie Curie was born in Warsaw in 1867. She won two Nobel Prizes!\n", 8), "Curie was born in Warsaw."},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir
			if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
				// The shared tokenizer directory has no config.json: give
				// it tiny-roberta's, with a window of 514 positions.
				dir = t.TempDir()
				tok, _ := os.ReadFile(filepath.Join(c.dir, "tokenizer.json"))
				os.WriteFile(filepath.Join(dir, "tokenizer.json"), tok, 0o644)
				os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"model_type": "roberta", "max_position_embeddings": 514, "pad_token_id": 1,
					"id2label": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}}`), 0o644)
			}
			plain := loadEncoder(t, dir, EncoderOptions{MaxLength: c.maxLength})
			texts := loadEncoder(t, dir, EncoderOptions{MaxLength: c.maxLength, Texts: true})
			a, err := plain.Encode(c.premise, c.hypothesis)
			if err != nil {
				t.Fatal(err)
			}
			b, err := texts.Encode(c.premise, c.hypothesis)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Sequences) < 2 {
				t.Fatalf("%d chunks: the test wants a premise that is cut", len(a.Sequences))
			}
			if b.Retokenized != 0 {
				t.Errorf("%d chunk texts tokenize differently from their chunks", b.Retokenized)
			}
			var joined, joinedHyp strings.Builder
			for i, s := range b.Sequences {
				if !slices.Equal(s.IDs, a.Sequences[i].IDs) {
					t.Errorf("chunk %d: ids differ from the plain encoding", i)
				}
				if s.HypothesisSpan == b.Plan.Hypotheses[0] {
					joined.WriteString(s.Premise)
				}
				if s.PremiseSpan == b.Plan.Chunks[0] {
					joinedHyp.WriteString(s.Hypothesis)
				}
				// What a server does with the texts.
				p, _ := texts.Tokenizer().Encode(s.Premise)
				h, _ := texts.Tokenizer().Encode(s.Hypothesis)
				if ids := texts.Tokenizer().Pair(p, 0, p.Len(), h, 0, h.Len()).IDs; !slices.Equal(ids, s.IDs) {
					t.Errorf("chunk %d: its texts tokenize to %d tokens, not its own %d", i, len(ids), len(s.IDs))
				}
				if !strings.Contains(c.hypothesis, s.Hypothesis) || ((len(a.Plan.Hypotheses) > 1) != (s.Hypothesis != c.hypothesis)) {
					t.Errorf("chunk %d: hypothesis text %q", i, s.Hypothesis)
				}
			}
			if joined.String() != c.premise {
				t.Errorf("the chunk texts do not make up the premise")
			}
			if joinedHyp.String() != c.hypothesis {
				t.Errorf("the hypothesis chunk texts do not make up the hypothesis")
			}
		})
	}
}

// TestTextsRetokenized: a chunk whose text tokenizes differently (here
// cuts inside a word, where no word boundary fits the window: a WordPiece
// continuation becomes a word start) takes the text's tokens, which fit.
func TestTextsRetokenized(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-bert"), EncoderOptions{MaxLength: 12, Texts: true})
	e, err := enc.Encode(strings.Repeat("radioactivity", 6), "Curie.")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range e.Sequences {
		p, _ := enc.Tokenizer().Encode(s.Premise)
		h, _ := enc.Tokenizer().Encode(s.Hypothesis)
		if ids := enc.Tokenizer().Pair(p, 0, p.Len(), h, 0, h.Len()).IDs; !slices.Equal(ids, s.IDs) || len(ids) > 12 {
			t.Errorf("chunk %d: ids %v, its texts' %v", i, s.IDs, ids)
		}
	}
	if e.Retokenized < len(e.Sequences)-1 {
		t.Errorf("%d of %d chunks retokenized; want all but the first", e.Retokenized, len(e.Sequences))
	}
}

// waitPending waits until n sequences wait in c's pool.
func waitPending(c *Classifier, n int) {
	for {
		c.pool.mu.Lock()
		got := len(c.pool.pending)
		c.pool.mu.Unlock()
		if got == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// batchSizes are the sizes of the batches r ran.
func (r *fakeRunner) batchSizes() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sizes []int
	for _, b := range r.batches {
		sizes = append(sizes, len(b))
	}
	return fmt.Sprint(sizes)
}

// Each two of testPairs (a short premise, then a long one) make 5
// sequences: the long premise takes 4 chunks of tiny-roberta's window.

// TestPoolSharesBatches: the sequences of calls made while the model is
// busy go to it in common batches, full ones, and each call gets the
// answers it gets alone.
func TestPoolSharesBatches(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-roberta"), EncoderOptions{})
	pairs := testPairs()
	alone, err := New(enc, &fakeRunner{}, Options{BatchSize: 4, BatchTokens: 1 << 20}).Classify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	r := &fakeRunner{gate: make(chan struct{})}
	c := New(enc, r, Options{BatchSize: 4, BatchTokens: 1 << 20})
	// The first call's first batch holds the model; the other three calls
	// wait, with the first call's fifth sequence.
	results := make([][]nli.Result, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	wg.Go(func() { results[0], errs[0] = c.Classify(context.Background(), pairs[:2]) })
	waitPending(c, 1)
	for k := 1; k < 4; k++ {
		wg.Go(func() { results[k], errs[k] = c.Classify(context.Background(), pairs[2*k:2*k+2]) })
	}
	waitPending(c, 16)
	close(r.gate)
	wg.Wait()
	for k := range 4 {
		if errs[k] != nil {
			t.Fatal(errs[k])
		}
		if fmt.Sprint(results[k]) != fmt.Sprint(alone[2*k:2*k+2]) {
			t.Errorf("call %d: %v; alone %v", k, results[k], alone[2*k:2*k+2])
		}
	}
	// Each call alone would run batches of 4 and 1.
	if got := r.batchSizes(); got != "[4 4 4 4 4]" || c.Stats().Batches != 5 {
		t.Errorf("batches of %v (%d runs); want [4 4 4 4 4]", got, c.Stats().Batches)
	}
}

// TestPoolLinger: while calls are made at once, a partial batch waits up
// to Linger for other calls' sequences, and runs as soon as it is full;
// a call alone does not wait.
func TestPoolLinger(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-roberta"), EncoderOptions{})
	pairs := testPairs()
	r := &fakeRunner{}
	c := New(enc, r, Options{BatchSize: 10, BatchTokens: 1 << 20, Concurrency: 4, Linger: time.Hour})
	// Alone: no waiting (the test would time out).
	if _, err := c.Classify(context.Background(), pairs[:2]); err != nil {
		t.Fatal(err)
	}
	// Calls at once: the 5 sequences of the first wait (a slot is free,
	// but the batch is not full) until the second brings 5 more.
	c.pool.mu.Lock()
	c.pool.calls++ // as if a call were waiting: the pool expects company
	c.pool.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { _, errs[0] = c.Classify(context.Background(), pairs[2:4]) })
	waitPending(c, 5)
	wg.Go(func() { _, errs[1] = c.Classify(context.Background(), pairs[4:6]) })
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if got := r.batchSizes(); got != "[5 10]" {
		t.Errorf("batches of %v; want [5 10]: the lone call's, then one full batch of both calls", got)
	}
}

// TestPoolCancel: a call whose context is canceled returns at once; a call
// that shares its batch still gets its answers, and a batch that serves
// canceled calls only is canceled.
func TestPoolCancel(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-roberta"), EncoderOptions{})
	pairs := testPairs()
	alone, err := New(enc, &fakeRunner{}, Options{}).Classify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	r := &fakeRunner{gate: make(chan struct{})}
	c := New(enc, r, Options{BatchSize: 16, BatchTokens: 1 << 20})
	first := make(chan error)
	go func() {
		_, err := c.Classify(context.Background(), pairs[:2]) // runs alone, held at the gate
		first <- err
	}()
	for r.inFlight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	canceled, other := make(chan error), make(chan error)
	var got []nli.Result
	go func() {
		_, err := c.Classify(ctx, pairs[2:4])
		canceled <- err
	}()
	waitPending(c, 5)
	go func() {
		var err error
		got, err = c.Classify(context.Background(), pairs[4:6])
		other <- err
	}()
	waitPending(c, 10)
	r.gate <- struct{}{} // the first call's batch; then both calls' in one
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for r.inFlight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-canceled; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled call: %v", err)
	}
	r.gate <- struct{}{}
	if err := <-other; err != nil || fmt.Sprint(got) != fmt.Sprint(alone[4:6]) {
		t.Fatalf("the call that shared the canceled call's batch: %v, %v; alone %v", got, err, alone[4:6])
	}
	// A batch of canceled calls only is canceled: the runner returns
	// without passing the gate.
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		_, err := c.Classify(ctx, pairs[:2])
		canceled <- err
	}()
	for r.inFlight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-canceled; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled call: %v", err)
	}
	for r.inFlight.Load() > 0 {
		time.Sleep(time.Millisecond)
	}
	if got := r.batchSizes(); got != "[5 10]" {
		t.Errorf("batches of %v passed the gate; want [5 10]", got)
	}
}

// TestPoolSharedError: a batch's error is the error of every call it
// serves.
func TestPoolSharedError(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-roberta"), EncoderOptions{})
	pairs := testPairs()
	boom := errors.New("boom")
	r := &fakeRunner{gate: make(chan struct{}), fail: func(b *Batch) error {
		if len(b.Sequences) > 5 {
			return boom
		}
		return nil
	}}
	c := New(enc, r, Options{BatchSize: 16, BatchTokens: 1 << 20})
	errs := make([]error, 3)
	var wg sync.WaitGroup
	wg.Go(func() { _, errs[0] = c.Classify(context.Background(), pairs[:2]) }) // runs alone
	for r.inFlight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	wg.Go(func() { _, errs[1] = c.Classify(context.Background(), pairs[2:4]) })
	waitPending(c, 5)
	wg.Go(func() { _, errs[2] = c.Classify(context.Background(), pairs[4:6]) })
	waitPending(c, 10)
	close(r.gate)
	wg.Wait()
	if errs[0] != nil || !errors.Is(errs[1], boom) || !errors.Is(errs[2], boom) {
		t.Errorf("errors %v; want the first call's answers and the shared batch's error for the others", errs)
	}
}
