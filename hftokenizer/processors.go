package hftokenizer

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Encoding is a tokenized text or pair, as Hugging Face's Encoding: token
// ids, token type ids, token strings, byte offsets into the text each
// token came from ([0, 0] for special tokens), the special-tokens mask and
// the attention mask.
type Encoding struct {
	IDs               []int
	TypeIDs           []int
	Tokens            []string
	Offsets           [][2]int
	SpecialTokensMask []int
	AttentionMask     []int
}

// Len returns the number of tokens.
func (e *Encoding) Len() int { return len(e.IDs) }

// seq is one sequence on its way through a post-processor: an encoding and
// the text its offsets point into (ByteLevel's offset trimming counts
// characters in it).
type seq struct {
	e    Encoding
	text string
}

func (s *seq) setTypes(t int) {
	for i := range s.e.TypeIDs {
		s.e.TypeIDs[i] = t
	}
}

// specialSeq is an encoding of special tokens.
func specialSeq(ids []int, tokens []string, typeID int) seq {
	n := len(ids)
	e := Encoding{IDs: ids, Tokens: tokens, TypeIDs: make([]int, n), Offsets: make([][2]int, n),
		SpecialTokensMask: make([]int, n), AttentionMask: make([]int, n)}
	for i := range n {
		e.TypeIDs[i], e.SpecialTokensMask[i], e.AttentionMask[i] = typeID, 1, 1
	}
	return seq{e: e}
}

func merge(seqs []seq) Encoding {
	if len(seqs) == 1 {
		return seqs[0].e
	}
	var out Encoding
	for _, s := range seqs {
		out.IDs = append(out.IDs, s.e.IDs...)
		out.TypeIDs = append(out.TypeIDs, s.e.TypeIDs...)
		out.Tokens = append(out.Tokens, s.e.Tokens...)
		out.Offsets = append(out.Offsets, s.e.Offsets...)
		out.SpecialTokensMask = append(out.SpecialTokensMask, s.e.SpecialTokensMask...)
		out.AttentionMask = append(out.AttentionMask, s.e.AttentionMask...)
	}
	return out
}

// processor adds special tokens and fixes offsets and type ids (Rust's
// PostProcessor.process_encodings).
type processor interface {
	process(seqs []seq, addSpecial bool) []seq
	// added is the number of special tokens added to one sequence or a
	// pair.
	added(pair bool) int
}

type tokenPair struct {
	token string
	id    int
}

type robertaProcessing struct {
	sep, cls             tokenPair
	trim, addPrefixSpace bool
}

func (r robertaProcessing) added(pair bool) int {
	if pair {
		return 4
	}
	return 2
}

func (r robertaProcessing) process(seqs []seq, addSpecial bool) []seq {
	if r.trim {
		for i := range seqs {
			trimOffsets(&seqs[i], r.addPrefixSpace)
		}
	}
	for i := range seqs {
		seqs[i].setTypes(0)
	}
	if !addSpecial {
		return seqs
	}
	var out []seq
	for i, s := range seqs {
		if i == 0 {
			out = append(out, specialSeq([]int{r.cls.id}, []string{r.cls.token}, 0), s)
		} else {
			out = append(out, specialSeq([]int{r.sep.id}, []string{r.sep.token}, 0), s)
		}
		out = append(out, specialSeq([]int{r.sep.id}, []string{r.sep.token}, 0))
	}
	return out
}

type bertProcessing struct{ sep, cls tokenPair }

func (b bertProcessing) added(pair bool) int {
	if pair {
		return 3
	}
	return 2
}

func (b bertProcessing) process(seqs []seq, addSpecial bool) []seq {
	if !addSpecial {
		return seqs
	}
	var out []seq
	for i, s := range seqs {
		if i == 0 {
			out = append(out, specialSeq([]int{b.cls.id}, []string{b.cls.token}, 0), s,
				specialSeq([]int{b.sep.id}, []string{b.sep.token}, 0))
		} else {
			out = append(out, s, specialSeq([]int{b.sep.id}, []string{b.sep.token}, 1))
		}
	}
	return out
}

type byteLevelProcessing struct{ trim, addPrefixSpace bool }

func (byteLevelProcessing) added(bool) int { return 0 }

func (b byteLevelProcessing) process(seqs []seq, _ bool) []seq {
	if b.trim {
		for i := range seqs {
			trimOffsets(&seqs[i], b.addPrefixSpace)
		}
	}
	return seqs
}

type templatePiece struct {
	special string // the special token's name, or "" for a sequence
	second  bool   // sequence B
	typeID  int
}

type specialToken struct {
	ids    []int
	tokens []string
}

type templateProcessing struct {
	single, pair []templatePiece
	specials     map[string]specialToken
}

func (t templateProcessing) added(pair bool) int {
	tpl := t.single
	if pair {
		tpl = t.pair
	}
	n := 0
	for _, p := range tpl {
		if p.special != "" {
			n += len(t.specials[p.special].ids)
		}
	}
	return n
}

func (t templateProcessing) process(seqs []seq, addSpecial bool) []seq {
	tpl := t.single
	if len(seqs) == 2 {
		tpl = t.pair
	}
	var out []seq
	for _, p := range tpl {
		if p.special == "" {
			i := 0
			if p.second {
				i = 1
			}
			s := seqs[i]
			s.e.TypeIDs = make([]int, len(s.e.IDs))
			s.setTypes(p.typeID)
			out = append(out, s)
			continue
		}
		if addSpecial {
			sp := t.specials[p.special]
			out = append(out, specialSeq(sp.ids, sp.tokens, p.typeID))
		}
	}
	return out
}

type sequenceProcessing []processor

func (s sequenceProcessing) added(pair bool) int {
	n := 0
	for _, p := range s {
		n += p.added(pair)
	}
	return n
}

func (s sequenceProcessing) process(seqs []seq, addSpecial bool) []seq {
	for _, p := range s {
		seqs = p.process(seqs, addSpecial)
	}
	return seqs
}

// trimOffsets is ByteLevel's process_offsets: a token's offsets lose its
// leading and trailing spaces ('Ġ' or whitespace in its string), counted
// in characters as the Python and JavaScript bindings (which see character
// offsets) count them. A single leading space of the first token is kept
// when the pre-tokenizer added it.
func trimOffsets(s *seq, addPrefixSpace bool) {
	text := s.text
	offs := make([][2]int, len(s.e.Offsets))
	copy(offs, s.e.Offsets)
	s.e.Offsets = offs
	for i, tok := range s.e.Tokens {
		lead, trail := 0, 0
		for _, r := range tok {
			if r != 'Ġ' && !isWhitespace(r) {
				break
			}
			lead++
		}
		if lead == 0 {
			// No leading space; count the trailing ones.
		}
		for k := len(tok); k > 0; {
			r, n := utf8.DecodeLastRuneInString(tok[:k])
			if r != 'Ġ' && !isWhitespace(r) {
				break
			}
			trail++
			k -= n
		}
		if lead == 0 && trail == 0 {
			continue
		}
		o := &offs[i]
		if lead > 0 {
			first := i == 0 || o[0] == 0
			if first && addPrefixSpace && lead == 1 {
				lead = 0
			}
			o[0] = min(advanceChars(text, o[0], lead), o[1])
		}
		if trail > 0 {
			if p, ok := retreatChars(text, o[1], trail); ok {
				o[1] = max(p, o[0])
			}
		}
	}
}

// advanceChars moves k characters forward from byte p of text (past its
// end, one byte a character, as the character offsets would count).
func advanceChars(text string, p, k int) int {
	for ; k > 0; k-- {
		if p >= len(text) {
			return p + k
		}
		_, n := utf8.DecodeRuneInString(text[p:])
		p += n
	}
	return p
}

// retreatChars moves k characters back from byte p; ok is false when fewer
// than k characters lie before p.
func retreatChars(text string, p, k int) (int, bool) {
	if p > len(text) {
		return 0, false
	}
	for ; k > 0; k-- {
		if p <= 0 {
			return 0, false
		}
		_, n := utf8.DecodeLastRuneInString(text[:p])
		p -= n
	}
	return p, true
}

func loadTokenPair(o obj, key string) (tokenPair, error) {
	var raw []json.RawMessage
	if err := o.need(key, &raw); err != nil {
		return tokenPair{}, err
	}
	var p tokenPair
	if len(raw) != 2 || json.Unmarshal(raw[0], &p.token) != nil || json.Unmarshal(raw[1], &p.id) != nil {
		return tokenPair{}, o.errorf("%s: want [token, id]", key)
	}
	if p.id < 0 {
		return tokenPair{}, o.errorf("%s: %q has id %d: ids are not negative", key, p.token, p.id)
	}
	return p, nil
}

func loadProcessor(path string, raw json.RawMessage) (processor, error) {
	o, t, ok, err := component(path, raw)
	if err != nil || !ok {
		return nil, err
	}
	switch t {
	case "Sequence":
		seq, err := sequence(o, "processors", loadProcessor)
		return sequenceProcessing(seq), err
	case "RobertaProcessing":
		if err := o.only("sep", "cls", "trim_offsets", "add_prefix_space"); err != nil {
			return nil, err
		}
		var r robertaProcessing
		if r.sep, err = loadTokenPair(o, "sep"); err != nil {
			return nil, err
		}
		if r.cls, err = loadTokenPair(o, "cls"); err != nil {
			return nil, err
		}
		if r.trim, err = o.boolean("trim_offsets", true); err != nil {
			return nil, err
		}
		if r.addPrefixSpace, err = o.boolean("add_prefix_space", true); err != nil {
			return nil, err
		}
		return r, nil
	case "BertProcessing":
		if err := o.only("sep", "cls"); err != nil {
			return nil, err
		}
		var b bertProcessing
		if b.sep, err = loadTokenPair(o, "sep"); err != nil {
			return nil, err
		}
		if b.cls, err = loadTokenPair(o, "cls"); err != nil {
			return nil, err
		}
		return b, nil
	case "ByteLevel":
		if err := o.only("add_prefix_space", "trim_offsets", "use_regex"); err != nil {
			return nil, err
		}
		var b byteLevelProcessing
		if b.trim, err = o.boolean("trim_offsets", true); err != nil {
			return nil, err
		}
		if b.addPrefixSpace, err = o.boolean("add_prefix_space", true); err != nil {
			return nil, err
		}
		return b, nil
	case "TemplateProcessing":
		return loadTemplate(o)
	}
	return nil, fmt.Errorf("%s: post-processor type %q is not supported (supported: Sequence, RobertaProcessing, BertProcessing, ByteLevel, TemplateProcessing)", path, t)
}

func loadTemplate(o obj) (processor, error) {
	if err := o.only("single", "pair", "special_tokens"); err != nil {
		return nil, err
	}
	t := templateProcessing{specials: map[string]specialToken{}}
	var specials map[string]struct {
		ID     string   `json:"id"`
		IDs    []int    `json:"ids"`
		Tokens []string `json:"tokens"`
	}
	if _, err := o.get("special_tokens", &specials); err != nil {
		return nil, err
	}
	for name, s := range specials {
		if len(s.IDs) != len(s.Tokens) {
			return nil, o.errorf("special_tokens[%q]: %d ids for %d tokens", name, len(s.IDs), len(s.Tokens))
		}
		for _, id := range s.IDs {
			if id < 0 {
				return nil, o.errorf("special_tokens[%q] has id %d: ids are not negative", name, id)
			}
		}
		t.specials[name] = specialToken{s.IDs, s.Tokens}
	}
	for _, key := range []string{"single", "pair"} {
		var raws []map[string]struct {
			ID     string `json:"id"`
			TypeID int    `json:"type_id"`
		}
		if err := o.need(key, &raws); err != nil {
			return nil, err
		}
		var tpl []templatePiece
		seqs := map[string]bool{}
		for i, r := range raws {
			at := fmt.Sprintf("%s.%s[%d]", o.path, key, i)
			if len(r) != 1 {
				return nil, fmt.Errorf("%s: want {\"Sequence\": ...} or {\"SpecialToken\": ...}", at)
			}
			for kind, v := range r {
				switch kind {
				case "Sequence":
					if v.ID != "A" && v.ID != "B" {
						return nil, fmt.Errorf("%s: sequence %q: want A or B", at, v.ID)
					}
					seqs[v.ID] = true
					tpl = append(tpl, templatePiece{second: v.ID == "B", typeID: v.TypeID})
				case "SpecialToken":
					if _, ok := t.specials[v.ID]; !ok {
						return nil, fmt.Errorf("%s: special token %q is not in special_tokens", at, v.ID)
					}
					tpl = append(tpl, templatePiece{special: v.ID, typeID: v.TypeID})
				default:
					return nil, fmt.Errorf("%s: %q: want Sequence or SpecialToken", at, kind)
				}
			}
		}
		want := map[string]bool{"A": true}
		if key == "pair" {
			want["B"] = true
		}
		if len(seqs) != len(want) || !seqs["A"] || (key == "pair" && !seqs["B"]) {
			return nil, o.errorf("%s: the template must use %s exactly", key, map[bool]string{false: "$A", true: "$A and $B"}[key == "pair"])
		}
		if key == "single" {
			t.single = tpl
		} else {
			t.pair = tpl
		}
	}
	return t, nil
}
