// Package hftokenizer reads Hugging Face tokenizer.json files and encodes
// texts and text pairs exactly as Hugging Face's Rust tokenizers crate
// (what Python's fast tokenizers run) does: the same token ids, type ids,
// attention masks and offsets, for every component that the
// text-classification models of the hub use.
//
// The text goes through the crate's pipeline: added tokens are cut out of
// the raw text, the rest is normalized (tracking, for every byte, the range
// of the original text it stands for), cut into words by the
// pre-tokenizer, the words are tokenized by the model (BPE, WordPiece,
// Unigram, WordLevel), and the post-processor adds the special tokens of a
// sequence or a pair. Offsets are byte offsets into the original text,
// through every normalizer.
//
// A component, option value or regular expression that this package does
// not implement is refused by Load with its path in the file: a tokenizer
// is never approximated. Parity with the Rust crate is tested against
// fixtures that scripts/tokenizer-fixtures generates with it (see
// docs/nli.md, "Tokenizers").
package hftokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// MaxBytes bounds a tokenizer.json: the largest vocabularies (XLM-R's
// 250,000 pieces) take about 20 MB.
const MaxBytes = 256 << 20

// Tokenizer is a loaded tokenizer.json. It is safe for concurrent use.
type Tokenizer struct {
	rawSet, normSet *matchSet // added tokens matched before / after normalizing
	norm            normalizer
	pre             preTokenizer
	model           model
	post            processor
	maxID           int
	cache           wordCache
	layout          []layoutItem // where a pair's tokens and special tokens go
}

// layoutItem is a place in a pair's ids: a special token (id, type), or
// the tokens of the first or second sequence with a type id. Every
// post-processor lays out a pair whatever its tokens are, so the layout is
// found once, from a pair of one-token sequences.
type layoutItem struct {
	seq    int // 0: a special token; 1, 2: the first or second sequence
	id     int
	typeID int
}

// Load reads a tokenizer.json: a regular file of at most MaxBytes.
func Load(path string) (*Tokenizer, error) {
	data, err := safefile.ReadFile(path, "tokenizer", MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

// Parse reads a tokenizer.json's contents.
func Parse(data []byte) (*Tokenizer, error) {
	top, err := parseObj("tokenizer.json", data)
	if err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	top.path = ""
	for k := range top.m {
		switch k {
		case "version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer", "model", "post_processor", "decoder":
		default:
			return nil, fmt.Errorf("unknown top-level key %q", k)
		}
	}
	t := &Tokenizer{}
	if t.norm, err = loadNormalizer("normalizer", top.m["normalizer"]); err != nil {
		return nil, err
	}
	if t.pre, err = loadPreTokenizer("pre_tokenizer", top.m["pre_tokenizer"]); err != nil {
		return nil, err
	}
	if t.post, err = loadProcessor("post_processor", top.m["post_processor"]); err != nil {
		return nil, err
	}
	if t.model, err = loadModel(top.m["model"]); err != nil {
		return nil, err
	}
	t.maxID = t.model.maxID()
	var added []addedToken
	if _, err := top.get("added_tokens", &added); err != nil {
		return nil, err
	}
	if err := t.addTokens(added); err != nil {
		return nil, err
	}
	if t.post != nil {
		t.maxID = max(t.maxID, processorMaxID(t.post))
	}
	t.layout = t.pairLayout()
	return t, nil
}

// pairLayout runs the post-processor on two one-token sequences marked -1
// and -2.
func (t *Tokenizer) pairLayout() []layoutItem {
	one := func(id, typeID int) seq {
		return seq{e: Encoding{IDs: []int{id}, TypeIDs: []int{typeID}, Tokens: []string{"x"}, Offsets: [][2]int{{0, 1}},
			SpecialTokensMask: []int{0}, AttentionMask: []int{1}}, text: "x"}
	}
	seqs := []seq{one(-1, 0), one(-2, 1)}
	if t.post != nil {
		seqs = t.post.process(seqs, true)
	}
	e := merge(seqs)
	out := make([]layoutItem, len(e.IDs))
	for i, id := range e.IDs {
		switch id {
		case -1:
			out[i] = layoutItem{seq: 1, typeID: e.TypeIDs[i]}
		case -2:
			out[i] = layoutItem{seq: 2, typeID: e.TypeIDs[i]}
		default:
			out[i] = layoutItem{id: id, typeID: e.TypeIDs[i]}
		}
	}
	return out
}

// PairIDs returns the ids and type ids of Pair(a, a0, a1, b, b0, b1)
// without building the rest of the encoding: what a model is fed.
func (t *Tokenizer) PairIDs(a Tokens, a0, a1 int, b Tokens, b0, b1 int) (ids, typeIDs []int) {
	n := 0
	for _, l := range t.layout {
		switch l.seq {
		case 0:
			n++
		case 1:
			n += a1 - a0
		case 2:
			n += b1 - b0
		}
	}
	ids, typeIDs = make([]int, 0, n), make([]int, 0, n)
	for _, l := range t.layout {
		var src []int
		switch l.seq {
		case 0:
			ids, typeIDs = append(ids, l.id), append(typeIDs, l.typeID)
			continue
		case 1:
			src = a.raw.IDs[a0:a1]
		case 2:
			src = b.raw.IDs[b0:b1]
		}
		ids = append(ids, src...)
		for range src {
			typeIDs = append(typeIDs, l.typeID)
		}
	}
	return ids, typeIDs
}

func loadModel(raw json.RawMessage) (model, error) {
	if isNull(raw) {
		return nil, errors.New("model: missing")
	}
	o, err := parseObj("model", raw)
	if err != nil {
		return nil, err
	}
	t, err := o.typ()
	if err != nil {
		// Older files leave out the type: the fields say which model.
		switch {
		case o.m["merges"] != nil:
			t = "BPE"
		case o.m["max_input_chars_per_word"] != nil:
			t = "WordPiece"
		default:
			return nil, err
		}
	}
	switch t {
	case "BPE":
		return loadBPE(o)
	case "WordPiece":
		return loadWordPiece(o)
	case "WordLevel":
		return loadWordLevel(o)
	case "Unigram":
		return loadUnigram(o)
	}
	return nil, fmt.Errorf("model: type %q is not supported (supported: BPE, WordPiece, WordLevel, Unigram)", t)
}

// addTokens registers the added tokens as the Rust crate does on loading:
// a token's id is the model's id for its content when the vocabulary has
// it, else the next id after the vocabulary.
func (t *Tokenizer) addTokens(list []addedToken) error {
	byContent := map[string]int{}
	var specials, others []*addedToken
	var maxAdded = -1
	for i := range list {
		a := list[i]
		if a.ID < 0 {
			return fmt.Errorf("added_tokens[%d] %q has id %d: ids are not negative", i, a.Content, a.ID)
		}
		if a.Content == "" {
			continue
		}
		id, ok := byContent[a.Content]
		if !ok {
			id, ok = t.model.tokenID(a.Content)
		}
		if !ok {
			n := t.model.vocabSize()
			id = n
			if maxAdded >= 0 && (maxAdded >= n || n == 0) {
				id = maxAdded + 1
			}
		}
		// The file's id is not used: the Rust crate takes the id above
		// (and only warns when they differ), and so does this package.
		a.ID = id
		byContent[a.Content] = id
		maxAdded = max(maxAdded, id)
		t.maxID = max(t.maxID, id)
		tok := a
		if tok.Special {
			specials = append(specials, &tok)
		} else {
			others = append(others, &tok)
		}
	}
	var rawP, normP []string
	var rawT, normT []*addedToken
	for _, a := range append(specials, others...) {
		if !a.Normalized {
			rawP, rawT = append(rawP, a.Content), append(rawT, a)
			continue
		}
		content := a.Content
		if t.norm != nil {
			n := newNormalized(content)
			if err := t.norm.normalize(n); err != nil {
				return fmt.Errorf("added token %q: %w", a.Content, err)
			}
			content = n.norm
		}
		normP, normT = append(normP, content), append(normT, a)
	}
	t.rawSet = newMatchSet(rawP, rawT)
	t.normSet = newMatchSet(normP, normT)
	return nil
}

// processorMaxID is the largest id a post-processor adds.
func processorMaxID(p processor) int {
	m := -1
	switch p := p.(type) {
	case robertaProcessing:
		m = max(p.sep.id, p.cls.id)
	case bertProcessing:
		m = max(p.sep.id, p.cls.id)
	case templateProcessing:
		for _, s := range p.specials {
			for _, id := range s.ids {
				m = max(m, id)
			}
		}
	case sequenceProcessing:
		for _, x := range p {
			m = max(m, processorMaxID(x))
		}
	}
	return m
}

// MaxID is the largest token id the tokenizer can give: the model's
// vocabulary must hold at least MaxID+1 tokens.
func (t *Tokenizer) MaxID() int { return t.maxID }

// Specials returns the number of special tokens the post-processor adds
// to a pair.
func (t *Tokenizer) Specials() int {
	if t.post == nil {
		return 0
	}
	return t.post.added(true)
}

// JoinsPairs reports whether the file has a post_processor, which says how
// two texts are joined for a model.
func (t *Tokenizer) JoinsPairs() bool { return t.post != nil }

// Tokens is a text tokenized without special tokens: its Encoding is
// Hugging Face's encode(text, add_special_tokens=False). It keeps what
// Pair needs to join slices of it with another text.
type Tokens struct {
	Encoding
	raw  Encoding // before the post-processor
	text string
}

// Text returns the text that was tokenized.
func (t Tokens) Text() string { return t.text }

// ErrInvalidUTF8 marks a text that is not valid UTF-8, which no Hugging
// Face tokenizer accepts (Python and Rust strings cannot hold it).
var ErrInvalidUTF8 = errors.New("text is not valid UTF-8")

// Encode tokenizes text without special tokens.
func (t *Tokenizer) Encode(text string) (Tokens, error) {
	raw, err := t.encodeRaw(text, 0)
	if err != nil {
		return Tokens{}, err
	}
	toks := Tokens{raw: raw, text: text}
	if t.post == nil {
		toks.Encoding = raw
		return toks, nil
	}
	// The post-processors change type ids (in place) and offsets (in a
	// copy), nothing else: the rest is shared with raw.
	e := raw
	e.TypeIDs = append([]int(nil), raw.TypeIDs...)
	toks.Encoding = merge(t.post.process([]seq{{e: e, text: text}}, false))
	return toks, nil
}

// EncodePair is Hugging Face's encode(a, b): the pair with its special
// tokens, nothing truncated.
func (t *Tokenizer) EncodePair(a, b string) (Encoding, error) {
	ta, err := t.Encode(a)
	if err != nil {
		return Encoding{}, err
	}
	tb, err := t.Encode(b)
	if err != nil {
		return Encoding{}, err
	}
	return t.Pair(ta, 0, ta.Len(), tb, 0, tb.Len()), nil
}

// Pair joins tokens [a0, a1) of a and [b0, b1) of b with the special
// tokens of a pair, as the post-processor joins two encodings (type ids,
// attention mask and special-tokens mask included). With the whole of both
// it is EncodePair.
func (t *Tokenizer) Pair(a Tokens, a0, a1 int, b Tokens, b0, b1 int) Encoding {
	sa := seq{e: sliceEncoding(a.raw, a0, a1, 0), text: a.text}
	sb := seq{e: sliceEncoding(b.raw, b0, b1, 1), text: b.text}
	if t.post == nil {
		return merge([]seq{sa, sb})
	}
	return merge(t.post.process([]seq{sa, sb}, true))
}

// sliceEncoding copies tokens [i, j) of e, with type id typeID (-1 keeps
// e's).
func sliceEncoding(e Encoding, i, j, typeID int) Encoding {
	n := j - i
	out := Encoding{
		IDs:               append([]int(nil), e.IDs[i:j]...),
		TypeIDs:           append([]int(nil), e.TypeIDs[i:j]...),
		Tokens:            append([]string(nil), e.Tokens[i:j]...),
		Offsets:           append([][2]int(nil), e.Offsets[i:j]...),
		SpecialTokensMask: append([]int(nil), e.SpecialTokensMask[i:j]...),
		AttentionMask:     append([]int(nil), e.AttentionMask[i:j]...),
	}
	if typeID >= 0 {
		for k := range n {
			out.TypeIDs[k] = typeID
		}
	}
	return out
}

// encodeRaw runs the pipeline up to the post-processor.
func (t *Tokenizer) encodeRaw(text string, typeID int) (Encoding, error) {
	if !utf8.ValidString(text) {
		for i, r := range text {
			if r == utf8.RuneError {
				if _, n := utf8.DecodeRuneInString(text[i:]); n == 1 {
					return Encoding{}, fmt.Errorf("%w (byte %d)", ErrInvalidUTF8, i)
				}
			}
		}
	}
	pt := &preTokenized{pieces: t.rawSet.split(newNormalized(text))}
	var out []piece
	for _, pc := range pt.pieces {
		if pc.done {
			out = append(out, pc)
			continue
		}
		if t.norm != nil {
			if err := t.norm.normalize(pc.n); err != nil {
				return Encoding{}, err
			}
		}
		for _, x := range t.normSet.split(pc.n) {
			if x.done || x.n.norm != "" {
				out = append(out, x)
			}
		}
	}
	pt.pieces = out
	if t.pre != nil {
		if err := t.pre.preTokenize(pt); err != nil {
			return Encoding{}, err
		}
	}
	var e Encoding
	for i := range pt.pieces {
		pc := &pt.pieces[i]
		if !pc.done {
			toks, err := t.cache.tokenize(t.model, pc.n.norm)
			if err != nil {
				return Encoding{}, err
			}
			pc.tokens = toks
		}
		for _, tok := range pc.tokens {
			o, ok := pc.n.originalRange(tok.a, tok.b)
			if !ok {
				o = span{tok.a, tok.b}
			}
			e.IDs = append(e.IDs, tok.id)
			e.Tokens = append(e.Tokens, tok.value)
			e.Offsets = append(e.Offsets, [2]int{o.start, o.end})
		}
	}
	n := len(e.IDs)
	e.TypeIDs = make([]int, n)
	e.SpecialTokensMask = make([]int, n)
	e.AttentionMask = make([]int, n)
	for i := range n {
		e.TypeIDs[i] = typeID
		e.AttentionMask[i] = 1
	}
	return e, nil
}

// wordCache remembers the tokens of words, as the Rust crate's models do:
// words recur (a biography says its subject's name in every sentence),
// and a model's answer for a word depends on the word alone. Like the
// crate's, it stops growing at wordCacheSize words and skips long words.
type wordCache struct {
	mu    sync.RWMutex
	words map[string][]token
}

const (
	wordCacheSize = 10000
	wordCacheMax  = 256 // bytes
)

func (c *wordCache) tokenize(m model, w string) ([]token, error) {
	if len(w) >= wordCacheMax {
		return m.tokenize(w)
	}
	c.mu.RLock()
	toks, ok := c.words[w]
	c.mu.RUnlock()
	if ok {
		return toks, nil
	}
	toks, err := m.tokenize(w)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.words == nil {
		c.words = make(map[string][]token)
	}
	if len(c.words) < wordCacheSize {
		c.words[strings.Clone(w)] = toks
	}
	c.mu.Unlock()
	return toks, nil
}
