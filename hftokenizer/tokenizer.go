// Package hftokenizer reads Hugging Face tokenizer.json files with
// github.com/sugarme/tokenizer and encodes texts and text pairs as the
// model's own tokenizer does. It replaces sugarme's byte-level
// pre-tokenizer, which splits whitespace differently from Hugging Face's
// (see byteLevel), and keeps truncation and padding to the caller.
package hftokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// Tokenizer encodes premise/hypothesis pairs as a Hugging Face
// tokenizer.json describes, with github.com/sugarme/tokenizer.
type Tokenizer struct {
	tk *tokenizer.Tokenizer
	// specials is the number of tokens the post-processor adds to a pair
	// (4 for RoBERTa's <s> A </s></s> B </s>, 3 for BERT's).
	specials int
	// pairs reports a post-processor: the file says how to join two texts.
	pairs bool
	// maxID is the largest token id the file names.
	maxID int
}

// MaxBytes bounds a tokenizer.json: the largest vocabularies (XLM-R's
// 250,000 pieces) take about 20 MB.
const MaxBytes = 256 << 20

// Load reads a tokenizer.json: a regular file of at most MaxBytes whose
// token ids (vocabulary, added tokens, the post-processor's special
// tokens) are not negative.
func Load(path string) (t *Tokenizer, err error) {
	data, err := safefile.ReadFile(path, "tokenizer", MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	var head struct {
		PreTokenizer *struct {
			Type           string `json:"type"`
			AddPrefixSpace bool   `json:"add_prefix_space"`
			UseRegex       *bool  `json:"use_regex"`
		} `json:"pre_tokenizer"`
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
		} `json:"added_tokens"`
		Model struct {
			Vocab json.RawMessage `json:"vocab"`
		} `json:"model"`
		PostProcessor json.RawMessage `json:"post_processor"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("tokenizer %s: not a tokenizer.json: %w", path, err)
	}
	ids := map[string]int{}
	for _, a := range head.AddedTokens {
		ids["added token "+strconv.Quote(a.Content)] = a.ID
	}
	if v := bytes.TrimSpace(head.Model.Vocab); len(v) > 0 && v[0] == '{' {
		var vocab map[string]int
		if err := json.Unmarshal(v, &vocab); err != nil {
			return nil, fmt.Errorf("tokenizer %s: model.vocab: %w", path, err)
		}
		for tok, id := range vocab {
			ids["token "+strconv.Quote(tok)] = id
		}
	} else if len(v) > 0 && v[0] == '[' {
		var pieces []json.RawMessage // a Unigram list: the ids are the places
		if err := json.Unmarshal(v, &pieces); err != nil {
			return nil, fmt.Errorf("tokenizer %s: model.vocab: %w", path, err)
		}
		ids["the last piece of model.vocab"] = len(pieces) - 1
	}
	specialIDs(head.PostProcessor, "post_processor", ids)
	maxID := -1
	for what, id := range ids {
		if id < 0 {
			return nil, fmt.Errorf("tokenizer %s: %s has id %d: token ids are not negative", path, what, id)
		}
		maxID = max(maxID, id)
	}
	// sugarme asserts the types of the file's fields and panics on a
	// malformed file; that must be an error here.
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("tokenizer %s: malformed tokenizer.json: %v", path, p)
		}
	}()
	tk, err := pretrained.FromReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	// Truncation and padding are the caller's job: sugarme's truncation
	// exits the process when a sequence is too short to cut.
	tk.WithTruncation(nil)
	tk.WithPadding(nil)
	if pt := head.PreTokenizer; pt != nil && pt.Type == "ByteLevel" && (pt.UseRegex == nil || *pt.UseRegex) {
		tk.WithPreTokenizer(byteLevel{addPrefixSpace: pt.AddPrefixSpace})
	}
	t = &Tokenizer{tk: tk, maxID: maxID}
	if pp := tk.GetPostProcessor(); pp != nil {
		t.pairs = true
		t.specials = pp.AddedTokens(true)
	}
	return t, nil
}

// specialIDs adds to ids the ids a post-processor names: RoBERTa's and
// BERT's ["</s>", 2] pairs, a template's "ids" lists, in any nesting.
func specialIDs(raw json.RawMessage, at string, ids map[string]int) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(x, at+"."+k)
			}
		case []any:
			pair := len(v) == 2
			if pair {
				_, s := v[0].(string)
				_, n := v[1].(float64)
				pair = s && n
			}
			for i, x := range v {
				if n, ok := x.(float64); ok && (pair || strings.HasSuffix(at, ".ids")) {
					ids[fmt.Sprintf("%s[%d]", at, i)] = int(n)
					continue
				}
				walk(x, fmt.Sprintf("%s[%d]", at, i))
			}
		}
	}
	walk(v, at)
}

// MaxID is the largest token id the tokenizer's file names: the model's
// vocabulary must hold at least MaxID+1 tokens.
func (t *Tokenizer) MaxID() int { return t.maxID }

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

// JoinsPairs reports whether the file has a post_processor, which says how
// two texts are joined (and Pair needs).
func (t *Tokenizer) JoinsPairs() bool { return t.pairs }

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
