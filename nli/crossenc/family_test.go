package crossenc

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/hftokenizer"
	"github.com/factreasoner/factreasoner-go/nli"
)

// TestChunksAtSentenceEnds: for every family (byte-level BPE, WordPiece,
// and the DeBERTa-v3-style Unigram whose Precompiled normalizer and
// Metaspace change the text), a premise longer than the window is cut at
// sentence ends, found from the tokens' offsets: every chunk's text but
// the last ends with a sentence, and the chunks make up the premise.
func TestChunksAtSentenceEnds(t *testing.T) {
	premise := strings.Repeat("Marie Curie was born in Warsaw in 1867.\n\nShe won two Nobel Prizes, in physics (1903) and chemistry (1911).  Her café was in Paris! ", 5)
	for _, c := range []struct {
		name string
		dir  string
		max  int
	}{
		{"roberta", testModelDir("tiny-roberta"), 0},
		{"bert", testModelDir("tiny-bert"), 0},
		{"deberta-v3", familyDir(t, filepath.Join("..", "..", "hftokenizer", "testdata", "tokenizers", "unigram", "tokenizer.json"), "deberta-v2"), 60},
	} {
		t.Run(c.name, func(t *testing.T) {
			enc := loadEncoder(t, c.dir, EncoderOptions{MaxLength: c.max, Texts: true})
			e, err := enc.Encode(premise, "Curie won a Nobel Prize.")
			if err != nil {
				t.Fatal(err)
			}
			if len(e.Plan.Chunks) < 3 {
				t.Fatalf("%d chunks; the test wants a premise cut several times", len(e.Plan.Chunks))
			}
			var joined strings.Builder
			for i, s := range e.Sequences {
				joined.WriteString(s.Premise)
				if i == len(e.Sequences)-1 {
					break
				}
				end := strings.TrimRight(s.Premise, " \n")
				if !strings.HasSuffix(end, ".") && !strings.HasSuffix(end, "!") && !strings.HasSuffix(end, ")") {
					t.Errorf("chunk %d does not end a sentence: ...%q", i, end[max(0, len(end)-30):])
				}
				if len(s.IDs) > enc.MaxLength() {
					t.Errorf("chunk %d: %d tokens, window %d", i, len(s.IDs), enc.MaxLength())
				}
			}
			if joined.String() != premise {
				t.Errorf("the chunks do not make up the premise")
			}
		})
	}
}

// TestTokenizedOnce: the pairs of a record put in rounds (as the pipeline
// puts them, 32 at a time) tokenize each distinct text once.
func TestTokenizedOnce(t *testing.T) {
	c := New(loadEncoder(t, testModelDir("tiny-roberta"), EncoderOptions{}), &fakeRunner{}, Options{})
	pairs := testPairs()
	distinct := map[string]bool{}
	for _, p := range pairs {
		distinct[p.Premise], distinct[p.Hypothesis] = true, true
	}
	for round := 0; round < 5; round++ {
		for lo := 0; lo < len(pairs); lo += 3 {
			if _, err := c.Classify(context.Background(), pairs[lo:min(lo+3, len(pairs))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := c.Stats().Tokenized; got != int64(len(distinct)) {
		t.Errorf("%d texts tokenized, want the %d distinct ones once", got, len(distinct))
	}
}

// TestHypothesisChunks: a hypothesis longer than half the window is read
// whole, in chunks, each with every premise chunk; the pair's answer is
// entailment = the least of the chunks' entailment probabilities and
// contradiction = the greatest of their contradiction probabilities (each
// chunk's from its most decisive premise chunk), computed here by hand.
func TestHypothesisChunks(t *testing.T) {
	enc := loadEncoder(t, testModelDir("tiny-bert"), EncoderOptions{})
	premise := strings.Repeat("Marie Curie was born in Warsaw in 1867. ", 4)
	hypothesis := strings.Repeat("She won two Nobel Prizes in physics and chemistry. ", 3)
	e, err := enc.Encode(premise, hypothesis)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Plan.Hypotheses) < 2 || len(e.Plan.Chunks) < 2 || len(e.Sequences) != len(e.Plan.Hypotheses)*len(e.Plan.Chunks) {
		t.Fatalf("plan %+v: want several hypothesis and premise chunks", e.Plan)
	}
	covered := 0
	for _, h := range e.Plan.Hypotheses {
		if h.Start != covered {
			t.Fatalf("hypothesis chunks %v leave a gap", e.Plan.Hypotheses)
		}
		covered = h.End
	}
	h, _ := enc.Tokenizer().Encode(hypothesis)
	if covered != h.Len() {
		t.Fatalf("hypothesis chunks %v cover %d of %d tokens", e.Plan.Hypotheses, covered, h.Len())
	}
	// Logits by hand: label order entailment, neutral, contradiction.
	logits := func(s Sequence) [3]float32 {
		k := float32(s.HypothesisSpan.Start%7 + s.PremiseSpan.Start%5)
		return [3]float32{k / 3, 1, 2 - k/4}
	}
	c := New(enc, &fakeRunner{logits: logits}, Options{})
	res, err := c.Classify(context.Background(), []nli.Pair{{Premise: premise, Hypothesis: hypothesis}})
	if err != nil {
		t.Fatal(err)
	}
	var wantE, wantC float64 = 1, 0
	for _, hc := range e.Plan.Hypotheses {
		var best [3]float64
		score := -1.0
		for _, s := range e.Sequences {
			if s.HypothesisSpan != hc {
				continue
			}
			p := Softmax(logits(s))
			if d := max(p[0], p[2]); d > score {
				best, score = p, d
			}
		}
		wantE, wantC = math.Min(wantE, best[0]), math.Max(wantC, best[2])
	}
	got := res[0].Distribution
	if math.Abs(got[nli.Entailment]-wantE) > 1e-12 || math.Abs(got[nli.Contradiction]-wantC) > 1e-12 ||
		math.Abs(got[nli.Neutral]-(1-wantE-wantC)) > 1e-12 {
		t.Errorf("distribution %v, want entailment %v, contradiction %v, neutral the rest", got, wantE, wantC)
	}
	if st := c.Stats(); st.ChunkedHypotheses != 1 {
		t.Errorf("%d chunked hypotheses counted, want 1", st.ChunkedHypotheses)
	}
}

// TestTextError: a text the tokenizer cannot take (one that is not valid
// UTF-8, which no Hugging Face tokenizer takes) fails the call with an
// *nli.TextError naming the text's id, which the pipeline treats as the
// failure of one record. (A tokenizer whose unknown token is not in its
// vocabulary, which made any unknown word such an error, is now refused
// when it is loaded: hftokenizer's TestVocabChecked.)
func TestTextError(t *testing.T) {
	c := New(loadEncoder(t, testModelDir("tiny-bert"), EncoderOptions{}), &fakeRunner{}, Options{})
	_, err := c.Classify(context.Background(), []nli.Pair{
		{PremiseID: "c1", HypothesisID: "a1", Premise: "Marie Curie was born in Warsaw.", Hypothesis: "Curie was born in Warsaw."},
		{PremiseID: "c1", HypothesisID: "a7", Premise: "Marie Curie was born in Warsaw.", Hypothesis: "Zyzzyva \xff."},
	})
	var te *nli.TextError
	if !errors.As(err, &te) || te.ID != "a7" || te.Role != "hypothesis" || !errors.Is(err, hftokenizer.ErrInvalidUTF8) {
		t.Fatalf("error %v, want an *nli.TextError for hypothesis a7, of invalid UTF-8", err)
	}
}
