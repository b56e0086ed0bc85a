package onnxnli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// Tokenizer encodes premise/hypothesis pairs as a Hugging Face
// tokenizer.json describes, with github.com/sugarme/tokenizer.
type Tokenizer struct {
	tk *tokenizer.Tokenizer
	// specials is the number of tokens the post-processor adds to a pair
	// (4 for RoBERTa's <s> A </s></s> B </s>, 3 for BERT's).
	specials int
}

// LoadTokenizer reads a tokenizer.json.
func LoadTokenizer(path string) (t *Tokenizer, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	var head struct {
		PreTokenizer *struct {
			Type           string `json:"type"`
			AddPrefixSpace bool   `json:"add_prefix_space"`
			UseRegex       *bool  `json:"use_regex"`
		} `json:"pre_tokenizer"`
		PostProcessor json.RawMessage `json:"post_processor"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("tokenizer %s: not a tokenizer.json: %w", path, err)
	}
	if len(head.PostProcessor) == 0 || string(head.PostProcessor) == "null" {
		return nil, fmt.Errorf("tokenizer %s: no post_processor: the file does not say how to join a premise and a hypothesis", path)
	}
	// sugarme asserts the types of the file's fields and panics on a
	// malformed file; that must be an error here.
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("tokenizer %s: malformed tokenizer.json: %v", path, p)
		}
	}()
	tk, err := pretrained.FromFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	// Truncation and padding are this package's job: sugarme's truncation
	// exits the process when a sequence is too short to cut.
	tk.WithTruncation(nil)
	tk.WithPadding(nil)
	if pt := head.PreTokenizer; pt != nil && pt.Type == "ByteLevel" && (pt.UseRegex == nil || *pt.UseRegex) {
		tk.WithPreTokenizer(byteLevel{addPrefixSpace: pt.AddPrefixSpace})
	}
	pp := tk.GetPostProcessor()
	if pp == nil {
		return nil, fmt.Errorf("tokenizer %s: unsupported post_processor", path)
	}
	return &Tokenizer{tk: tk, specials: pp.AddedTokens(true)}, nil
}

// Tokens is an encoded text without special tokens: ids and the byte range
// of each token in the text (whitespace may or may not be included).
type Tokens struct {
	IDs     []int
	Offsets [][2]int
	// enc is the library's encoding, sliced to make pairs.
	enc *tokenizer.Encoding
}

// Len returns the number of tokens.
func (t Tokens) Len() int { return len(t.IDs) }

// Encode tokenizes text without special tokens.
func (t *Tokenizer) Encode(text string) (toks Tokens, err error) {
	if text == "" {
		return Tokens{enc: tokenizer.NewEncoding(nil, nil, nil, nil, nil, nil, nil)}, nil
	}
	defer func() {
		if p := recover(); p != nil {
			toks, err = Tokens{}, fmt.Errorf("tokenizer failed on %.40q: %v", text, p)
		}
	}()
	enc, err := t.tk.EncodeSingle(text, false)
	if err != nil {
		return Tokens{}, fmt.Errorf("tokenizer failed on %.40q: %w", text, err)
	}
	toks = Tokens{IDs: enc.Ids, Offsets: make([][2]int, len(enc.Offsets)), enc: enc}
	for i, o := range enc.Offsets {
		if len(o) != 2 || o[0] < 0 || o[1] < o[0] || o[1] > len(text) {
			return Tokens{}, fmt.Errorf("tokenizer gave token %d the range %v outside the text (%d bytes)", i, o, len(text))
		}
		toks.Offsets[i] = [2]int{o[0], o[1]}
	}
	return toks, nil
}

// Pair joins premise tokens [a, b) and the first h hypothesis tokens with
// the model's special tokens, returning input ids and token type ids.
func (t *Tokenizer) Pair(premise Tokens, a, b int, hypothesis Tokens, h int) (ids, typeIDs []int) {
	first := slice(premise.enc, a, b, 0)
	second := slice(hypothesis.enc, 0, h, 1)
	enc := t.tk.PostProcess(first, second, true)
	return enc.Ids, enc.TypeIds
}

// Specials returns the number of special tokens in a pair.
func (t *Tokenizer) Specials() int { return t.specials }

// slice returns tokens [a, b) of e as an encoding of sequence typeID.
func slice(e *tokenizer.Encoding, a, b, typeID int) *tokenizer.Encoding {
	n := b - a
	types := make([]int, n)
	special := make([]int, n)
	attn := make([]int, n)
	offsets := make([][]int, n)
	for i := range types {
		types[i] = typeID
		attn[i] = 1
		offsets[i] = e.Offsets[a+i]
	}
	return tokenizer.NewEncoding(e.Ids[a:b:b], types, e.Tokens[a:b:b], offsets, special, attn, nil)
}

// Chunk plan: premises longer than the window are cut into chunks of at
// most budget tokens. A chunk ends at a sentence boundary when one falls
// inside the window, else between words, else at the budget; the cuts are
// greedy (each chunk is as long as it can be). Boundaries are found from
// the text and the token offsets alone, so that the plan is the same
// whether or not a tokenizer counts leading spaces in its offsets.

// isSpaceByte reports ASCII whitespace.
func isSpaceByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	}
	return false
}

// sentenceCuts marks the token indices before which a sentence starts: the
// first token at or after a whitespace byte that follows '.', '!' or '?'
// (closing quotes and brackets allowed between).
func sentenceCuts(text string, offsets [][2]int) []bool {
	cuts := make([]bool, len(offsets)+1)
	next := 0 // first token not yet passed
	for q := 1; q < len(text); q++ {
		if !isSpaceByte(text[q]) {
			continue
		}
		p := q - 1
		for p >= 0 && (text[p] == '"' || text[p] == '\'' || text[p] == ')' || text[p] == ']') {
			p--
		}
		if p < 0 || (text[p] != '.' && text[p] != '!' && text[p] != '?') {
			continue
		}
		for next < len(offsets) && offsets[next][0] < q {
			next++
		}
		if next > 0 && next < len(offsets) {
			cuts[next] = true
		}
	}
	return cuts
}

// wordCuts marks the token indices that start a word: a gap between the
// token and the one before, or a token that starts with whitespace.
func wordCuts(text string, offsets [][2]int) []bool {
	cuts := make([]bool, len(offsets)+1)
	for i := 1; i < len(offsets); i++ {
		s := offsets[i][0]
		if s > offsets[i-1][1] || (s < len(text) && isSpaceByte(text[s])) {
			cuts[i] = true
		}
	}
	return cuts
}

// Span is a range [Start, End) of tokens.
type Span struct{ Start, End int }

// chunkPremise cuts n premise tokens into spans of at most budget tokens.
func chunkPremise(text string, offsets [][2]int, budget int) []Span {
	n := len(offsets)
	if n <= budget {
		return []Span{{0, n}}
	}
	sent, word := sentenceCuts(text, offsets), wordCuts(text, offsets)
	var out []Span
	for a := 0; a < n; {
		if n-a <= budget {
			out = append(out, Span{a, n})
			break
		}
		lim := a + budget
		b := lastCut(sent, a, lim)
		if b < 0 {
			if b = lastCut(word, a, lim); b < 0 {
				b = lim
			}
		}
		out = append(out, Span{a, b})
		a = b
	}
	return out
}

// lastCut returns the largest c in (a, lim] with cuts[c], or -1.
func lastCut(cuts []bool, a, lim int) int {
	for c := lim; c > a; c-- {
		if cuts[c] {
			return c
		}
	}
	return -1
}

// Plan says how one pair is put to the model: the premise chunks and the
// number of hypothesis tokens kept.
type Plan struct {
	Chunks []Span
	// HypothesisTokens is how many of the hypothesis's tokens are used: all
	// of them unless the hypothesis alone takes more than half the window,
	// when it is cut to half (its beginning kept) so that the premise keeps
	// room.
	HypothesisTokens int
	// HypothesisCut reports that the hypothesis was cut.
	HypothesisCut bool
}

// planPair plans a premise/hypothesis pair for a window of maxLen tokens of
// which specials are the model's special tokens.
func planPair(premiseText string, premise, hypothesis Tokens, maxLen, specials int) Plan {
	room := maxLen - specials
	h := hypothesis.Len()
	if premise.Len()+h <= room {
		return Plan{Chunks: []Span{{0, premise.Len()}}, HypothesisTokens: h}
	}
	cut := false
	if h > room/2 {
		h, cut = room/2, true
	}
	return Plan{
		Chunks:           chunkPremise(premiseText, premise.Offsets, room-h),
		HypothesisTokens: h,
		HypothesisCut:    cut,
	}
}
