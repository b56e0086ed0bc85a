package hftokenizer

import (
	"encoding/json"
	"fmt"
)

// normalizer changes the text before it is split (Rust's Normalizer).
type normalizer interface {
	normalize(n *normalized) error
}

type sequenceNormalizer []normalizer

func (s sequenceNormalizer) normalize(n *normalized) error {
	for _, x := range s {
		if err := x.normalize(n); err != nil {
			return err
		}
	}
	return nil
}

// bertNormalizer is BertNormalizer. stripAccents follows lowercase when
// the file gives null (Hugging Face's rule).
type bertNormalizer struct {
	cleanText, chineseChars, stripAccents, lowercase bool
}

func (b bertNormalizer) normalize(n *normalized) error {
	if b.cleanText {
		if err := n.filter(func(r rune) bool {
			return !(r == 0 || r == 0xfffd || (r != '\t' && r != '\n' && r != '\r' && isOther(r)))
		}); err != nil {
			return err
		}
		if err := n.mapRunes(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' || isWhitespace(r) {
				return ' '
			}
			return r
		}); err != nil {
			return err
		}
	}
	if b.chineseChars {
		has := false
		for _, r := range n.norm {
			if isChineseChar(r) {
				has = true
				break
			}
		}
		if has {
			dest := make([]change, 0, len(n.norm))
			for _, r := range n.norm {
				if isChineseChar(r) {
					dest = append(dest, change{' ', 0}, change{r, 1}, change{' ', 1})
				} else {
					dest = append(dest, change{r, 0})
				}
			}
			if err := n.transform(dest, 0); err != nil {
				return err
			}
		}
	}
	if b.stripAccents {
		if err := n.unicodeNormalize(false, false); err != nil {
			return err
		}
		if err := n.filter(func(r rune) bool { return !isMarkNonspacing(r) }); err != nil {
			return err
		}
	}
	if b.lowercase {
		return lowercase{}.normalize(n)
	}
	return nil
}

type lowercase struct{}

func (lowercase) normalize(n *normalized) error {
	ascii := true
	upper := false
	for i := 0; i < len(n.norm); i++ {
		c := n.norm[i]
		if c >= 0x80 {
			ascii = false
			break
		}
		upper = upper || (c >= 'A' && c <= 'Z')
	}
	if ascii && !upper {
		return nil
	}
	dest := make([]change, 0, len(n.norm))
	var buf []rune
	for _, r := range n.norm {
		buf = toLower(r, buf[:0])
		for i, l := range buf {
			c := 0
			if i > 0 {
				c = 1
			}
			dest = append(dest, change{l, c})
		}
	}
	return n.transform(dest, 0)
}

type unicodeForm struct{ compat, composed bool }

func (u unicodeForm) normalize(n *normalized) error { return n.unicodeNormalize(u.compat, u.composed) }

type stripAccents struct{}

func (stripAccents) normalize(n *normalized) error {
	return n.filter(func(r rune) bool { return !isMark(r) })
}

type strip struct{ left, right bool }

func (s strip) normalize(n *normalized) error { return n.strip(s.left, s.right) }

type replaceNormalizer struct {
	p       pattern
	content string
}

func (r replaceNormalizer) normalize(n *normalized) error { return n.replace(r.p, r.content) }

type prependNormalizer string

func (p prependNormalizer) normalize(n *normalized) error {
	if n.norm == "" {
		return nil
	}
	return n.prepend(string(p))
}

type appendNormalizer string

func (p appendNormalizer) normalize(n *normalized) error {
	if n.norm == "" {
		return nil
	}
	return n.appendString(string(p))
}

// loadNormalizer reads a normalizer; null gives nil.
func loadNormalizer(path string, raw json.RawMessage) (normalizer, error) {
	o, t, ok, err := component(path, raw)
	if err != nil || !ok {
		return nil, err
	}
	switch t {
	case "Sequence":
		seq, err := sequence(o, "normalizers", loadNormalizer)
		return sequenceNormalizer(seq), err
	case "BertNormalizer":
		if err := o.only("clean_text", "handle_chinese_chars", "strip_accents", "lowercase"); err != nil {
			return nil, err
		}
		var b bertNormalizer
		var sa *bool
		if b.cleanText, err = o.boolean("clean_text", true); err != nil {
			return nil, err
		}
		if b.chineseChars, err = o.boolean("handle_chinese_chars", true); err != nil {
			return nil, err
		}
		if b.lowercase, err = o.boolean("lowercase", true); err != nil {
			return nil, err
		}
		if _, err = o.get("strip_accents", &sa); err != nil {
			return nil, err
		}
		b.stripAccents = b.lowercase
		if sa != nil {
			b.stripAccents = *sa
		}
		return b, nil
	case "Lowercase":
		return lowercase{}, o.only()
	case "NFD":
		return unicodeForm{false, false}, o.only()
	case "NFKD":
		return unicodeForm{true, false}, o.only()
	case "NFC":
		return unicodeForm{false, true}, o.only()
	case "NFKC":
		return unicodeForm{true, true}, o.only()
	case "StripAccents":
		return stripAccents{}, o.only()
	case "Strip":
		if err := o.only("strip_left", "strip_right"); err != nil {
			return nil, err
		}
		var s strip
		if s.left, err = o.boolean("strip_left", true); err != nil {
			return nil, err
		}
		if s.right, err = o.boolean("strip_right", true); err != nil {
			return nil, err
		}
		return s, nil
	case "Replace":
		if err := o.only("pattern", "content"); err != nil {
			return nil, err
		}
		var r replaceNormalizer
		if r.p, err = o.pattern("pattern"); err != nil {
			return nil, err
		}
		if err := o.need("content", &r.content); err != nil {
			return nil, err
		}
		return r, nil
	case "Prepend":
		if err := o.only("prepend"); err != nil {
			return nil, err
		}
		var s string
		if err := o.need("prepend", &s); err != nil {
			return nil, err
		}
		return prependNormalizer(s), nil
	case "Append":
		if err := o.only("append"); err != nil {
			return nil, err
		}
		var s string
		if err := o.need("append", &s); err != nil {
			return nil, err
		}
		return appendNormalizer(s), nil
	case "Precompiled":
		if err := o.only("precompiled_charsmap"); err != nil {
			return nil, err
		}
		var s string
		if err := o.need("precompiled_charsmap", &s); err != nil {
			return nil, err
		}
		p, err := parsePrecompiled(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return p, nil
	}
	return nil, fmt.Errorf("%s: normalizer type %q is not supported (supported: Sequence, BertNormalizer, Lowercase, NFD, NFKD, NFC, NFKC, StripAccents, Strip, Replace, Prepend, Append, Precompiled)", path, t)
}
