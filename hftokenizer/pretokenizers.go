package hftokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// behavior says what a split does with the pieces its pattern matched
// (Rust's SplitDelimiterBehavior).
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

var behaviorNames = [...]string{"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"}

// split cuts n at the pieces p finds, as Rust's NormalizedString::split.
func (n *normalized) split(p pattern, b behavior) []*normalized {
	ms := p.findMatches(n.norm)
	type piece struct {
		a, b   int
		remove bool
	}
	var ps []piece
	switch b {
	case isolated:
		ps = make([]piece, len(ms))
		for i, m := range ms {
			ps[i] = piece{m.a, m.b, false}
		}
	case removed:
		ps = make([]piece, len(ms))
		for i, m := range ms {
			ps[i] = piece{m.a, m.b, m.match}
		}
	case contiguous:
		prev := false
		for _, m := range ms {
			if m.match == prev && len(ps) > 0 {
				ps[len(ps)-1].b = m.b
			} else {
				ps = append(ps, piece{m.a, m.b, false})
			}
			prev = m.match
		}
	case mergedWithPrevious:
		prev := false
		for _, m := range ms {
			if m.match && !prev && len(ps) > 0 {
				ps[len(ps)-1].b = m.b
			} else {
				ps = append(ps, piece{m.a, m.b, false})
			}
			prev = m.match
		}
	case mergedWithNext:
		prev := false
		for i := len(ms) - 1; i >= 0; i-- {
			m := ms[i]
			if m.match && !prev && len(ps) > 0 {
				ps[len(ps)-1].a = m.a
			} else {
				ps = append(ps, piece{m.a, m.b, false})
			}
			prev = m.match
		}
		for i, j := 0, len(ps)-1; i < j; i, j = i+1, j-1 {
			ps[i], ps[j] = ps[j], ps[i]
		}
	}
	out := make([]*normalized, 0, len(ps))
	for _, x := range ps {
		if !x.remove {
			out = append(out, n.slice(x.a, x.b))
		}
	}
	return out
}

// token is a model's token: its id, its string and its byte range in the
// normalized piece it came from.
type token struct {
	id    int
	value string
	a, b  int
}

// piece is a part of the text on its way through the pipeline: a
// normalized string and, once a model (or the added vocabulary) has read
// it, its tokens.
type piece struct {
	n      *normalized
	tokens []token
	done   bool
}

// preTokenized is the text cut into pieces (Rust's PreTokenizedString).
type preTokenized struct {
	pieces []piece
}

// split replaces every piece not yet tokenized by the pieces f cuts it
// into, dropping empty ones.
func (p *preTokenized) split(f func(i int, n *normalized) ([]*normalized, error)) error {
	out := make([]piece, 0, len(p.pieces))
	for i, pc := range p.pieces {
		if pc.done {
			out = append(out, pc)
			continue
		}
		ns, err := f(i, pc.n)
		if err != nil {
			return err
		}
		for _, n := range ns {
			if n.norm != "" {
				out = append(out, piece{n: n})
			}
		}
	}
	p.pieces = out
	return nil
}

// preTokenizer cuts the normalized text into words (Rust's PreTokenizer).
type preTokenizer interface {
	preTokenize(p *preTokenized) error
}

func splitter(p pattern, b behavior) func(int, *normalized) ([]*normalized, error) {
	return func(_ int, n *normalized) ([]*normalized, error) { return n.split(p, b), nil }
}

type sequencePreTokenizer []preTokenizer

func (s sequencePreTokenizer) preTokenize(p *preTokenized) error {
	for _, x := range s {
		if err := x.preTokenize(p); err != nil {
			return err
		}
	}
	return nil
}

type bertPreTokenizer struct{}

func (bertPreTokenizer) preTokenize(p *preTokenized) error {
	if err := p.split(splitter(runeClass(isWhitespace), removed)); err != nil {
		return err
	}
	return p.split(splitter(runeClass(isBertPunc), isolated))
}

type splitPreTokenizer struct {
	p pattern
	b behavior
}

func (s splitPreTokenizer) preTokenize(p *preTokenized) error { return p.split(splitter(s.p, s.b)) }

// bytesChar is GPT-2's map from bytes to printable characters.
var bytesChar = func() (m [256]rune) {
	n := 0
	for b := range 256 {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			m[b] = rune(b)
		} else {
			m[b] = rune(256 + n)
			n++
		}
	}
	return m
}()

// byteLevel is the ByteLevel pre-tokenizer: an optional prefix space, GPT-2's
// pattern, then every byte as its printable character.
type byteLevel struct {
	addPrefixSpace, useRegex bool
}

func (b byteLevel) preTokenize(p *preTokenized) error {
	if err := p.split(func(_ int, n *normalized) ([]*normalized, error) {
		if b.addPrefixSpace && (n.norm == "" || n.norm[0] != ' ') {
			if err := n.prepend(" "); err != nil {
				return nil, err
			}
		}
		if b.useRegex {
			return n.split(gpt2Pattern{}, isolated), nil
		}
		return []*normalized{n}, nil
	}); err != nil {
		return err
	}
	for _, pc := range p.pieces {
		if pc.done {
			continue
		}
		if err := byteLevelMap(pc.n); err != nil {
			return err
		}
	}
	return nil
}

// byteLevelMap replaces every byte of n by its printable character. The
// Rust crate's transform gives every new character the range of the
// character it comes from; that is done here directly, without the list
// of changes, when the transform covers the whole piece (always, but for
// pieces that start with an inserted character).
func byteLevelMap(n *normalized) error {
	s := n.norm
	if a, b, ok := n.fullRange(); !ok || a != 0 || b != len(s) {
		dest := make([]change, 0, len(s))
		for i := 0; i < len(s); {
			_, w := utf8.DecodeRuneInString(s[i:])
			for k := range w {
				c := 0
				if k > 0 {
					c = 1
				}
				dest = append(dest, change{bytesChar[s[i+k]], c})
			}
			i += w
		}
		return n.transform(dest, 0)
	}
	buf := make([]byte, 0, 2*len(s))
	align := make([]span, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		r := bytesChar[s[i]]
		buf = utf8.AppendRune(buf, r)
		al := n.align[i]
		align = append(align, al)
		if r >= 0x80 {
			align = append(align, al)
		}
	}
	n.norm = string(buf)
	n.align = align
	return nil
}

// replaceSpaces is replace(' ', rep) in one pass: each new character
// takes the range of the space it replaces (see replace).
func (n *normalized) replaceSpaces(rep string) {
	s := n.norm
	k := strings.IndexByte(s, ' ')
	if k < 0 {
		return
	}
	buf := make([]byte, 0, len(s)+len(s)/4*(len(rep)-1)+len(rep))
	align := make([]span, 0, cap(buf))
	last := 0
	for ; k >= 0; k = strings.IndexByte(s[last:], ' ') {
		k += last
		buf = append(buf, s[last:k]...)
		align = append(align, n.align[last:k]...)
		buf = append(buf, rep...)
		for range len(rep) {
			align = append(align, n.align[k])
		}
		last = k + 1
	}
	buf = append(buf, s[last:]...)
	align = append(align, n.align[last:]...)
	n.norm, n.align = string(buf), align
}

type prependScheme int

const (
	prependAlways prependScheme = iota
	prependNever
	prependFirst
)

type metaspace struct {
	replacement rune
	scheme      prependScheme
	split       bool
}

func (m metaspace) preTokenize(p *preTokenized) error {
	rep := string(m.replacement)
	return p.split(func(_ int, n *normalized) ([]*normalized, error) {
		n.replaceSpaces(rep)
		first, _ := utf8.DecodeRuneInString(n.norm)
		if n.norm == "" {
			first = -1
		}
		switch m.scheme {
		case prependAlways:
			if first != m.replacement {
				if err := n.prepend(rep); err != nil {
					return nil, err
				}
			}
		case prependFirst:
			if first != m.replacement && n.orig.start == 0 {
				if err := n.prepend(rep); err != nil {
					return nil, err
				}
			}
		}
		if m.split {
			return n.split(runeClass(func(r rune) bool { return r == m.replacement }), mergedWithNext), nil
		}
		return []*normalized{n}, nil
	})
}

func loadPreTokenizer(path string, raw json.RawMessage) (preTokenizer, error) {
	o, t, ok, err := component(path, raw)
	if err != nil || !ok {
		return nil, err
	}
	switch t {
	case "Sequence":
		seq, err := sequence(o, "pretokenizers", loadPreTokenizer)
		return sequencePreTokenizer(seq), err
	case "BertPreTokenizer":
		return bertPreTokenizer{}, o.only()
	case "Whitespace":
		return splitPreTokenizer{invert{wordsPattern{}}, removed}, o.only()
	case "WhitespaceSplit":
		return splitPreTokenizer{runeClass(isWhitespace), removed}, o.only()
	case "Punctuation":
		if err := o.only("behavior"); err != nil {
			return nil, err
		}
		b, err := o.behavior("behavior", "Isolated")
		if err != nil {
			return nil, err
		}
		return splitPreTokenizer{runeClass(isBertPunc), b}, nil
	case "Digits":
		if err := o.only("individual_digits"); err != nil {
			return nil, err
		}
		each, err := o.boolean("individual_digits", false)
		if err != nil {
			return nil, err
		}
		if each {
			return splitPreTokenizer{runeClass(isNumeric), isolated}, nil
		}
		return splitPreTokenizer{runeClass(isNumeric), contiguous}, nil
	case "CharDelimiterSplit":
		if err := o.only("delimiter"); err != nil {
			return nil, err
		}
		var d string
		if err := o.need("delimiter", &d); err != nil {
			return nil, err
		}
		if utf8.RuneCountInString(d) != 1 {
			return nil, o.errorf("delimiter %q: want one character", d)
		}
		c, _ := utf8.DecodeRuneInString(d)
		return splitPreTokenizer{runeClass(func(r rune) bool { return r == c }), removed}, nil
	case "Split":
		if err := o.only("pattern", "behavior", "invert"); err != nil {
			return nil, err
		}
		p, err := o.pattern("pattern")
		if err != nil {
			return nil, err
		}
		b, err := o.behavior("behavior", "")
		if err != nil {
			return nil, err
		}
		inv, err := o.boolean("invert", false)
		if err != nil {
			return nil, err
		}
		if inv {
			p = invert{p}
		}
		return splitPreTokenizer{p, b}, nil
	case "ByteLevel":
		if err := o.only("add_prefix_space", "trim_offsets", "use_regex"); err != nil {
			return nil, err
		}
		var b byteLevel
		if b.addPrefixSpace, err = o.boolean("add_prefix_space", true); err != nil {
			return nil, err
		}
		if b.useRegex, err = o.boolean("use_regex", true); err != nil {
			return nil, err
		}
		return b, nil
	case "Metaspace":
		if err := o.only("replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"); err != nil {
			return nil, err
		}
		m := metaspace{replacement: '▁', split: true}
		var rep string
		if ok, err := o.get("replacement", &rep); err != nil {
			return nil, err
		} else if ok {
			if utf8.RuneCountInString(rep) != 1 {
				return nil, o.errorf("replacement %q: want one character", rep)
			}
			m.replacement, _ = utf8.DecodeRuneInString(rep)
		}
		if m.split, err = o.boolean("split", true); err != nil {
			return nil, err
		}
		// The Rust crate takes prepend_scheme (default always); the older
		// add_prefix_space may stand beside it, but false only with never.
		var scheme string
		if ok, err := o.get("prepend_scheme", &scheme); err != nil {
			return nil, err
		} else if ok {
			switch scheme {
			case "always":
				m.scheme = prependAlways
			case "never":
				m.scheme = prependNever
			case "first":
				m.scheme = prependFirst
			default:
				return nil, o.errorf("prepend_scheme %q: want always, never or first", scheme)
			}
		}
		if add, err := o.boolean("add_prefix_space", true); err != nil {
			return nil, err
		} else if !add && m.scheme != prependNever {
			return nil, o.errorf("add_prefix_space false does not match prepend_scheme (give \"prepend_scheme\": \"never\"), as the Rust crate refuses it")
		}
		return m, nil
	}
	return nil, fmt.Errorf("%s: pre-tokenizer type %q is not supported (supported: Sequence, BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Digits, CharDelimiterSplit, Split, ByteLevel, Metaspace)", path, t)
}
