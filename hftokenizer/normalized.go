package hftokenizer

import (
	"errors"
	"unicode/utf8"
)

// span is a byte range [start, end) of the original text.
type span struct{ start, end int }

// normalized is a piece of the original text and what the normalizers and
// pre-tokenizers made of it, as Hugging Face's NormalizedString: every byte
// of norm carries the range of the original text (absolute byte offsets)
// that it stands for, so that token offsets always point into the original
// text, whatever the normalizers did.
//
// Every method follows the Rust code's arithmetic step by step, quirks
// included (an inserted character shares the range of the byte before it;
// an empty range converts to itself), since the offsets it gives are what
// the parity tests compare.
type normalized struct {
	norm  string
	align []span // len(norm) entries; never modified in place (slices share it)
	// orig is the range of the original text this piece was cut from
	// (Rust's original_shift and the length of its original).
	orig span
}

func newNormalized(text string) *normalized {
	n := &normalized{norm: text, align: make([]span, len(text)), orig: span{0, len(text)}}
	for i, r := range text {
		w := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, w = utf8.DecodeRuneInString(text[i:])
		}
		for k := range w {
			n.align[i+k] = span{i, i + w}
		}
	}
	return n
}

// change is one character of a transformation and what it does (Rust's
// (char, isize)): 0 replaces the next original character, a positive value
// inserts the character, -k replaces the next character and removes the k
// after it.
type change struct {
	r rune
	c int
}

// errTransform reports a transformation that runs past the text, where the
// Rust code would panic: it fails the text, it is not guessed at.
var errTransform = errors.New("normalizer: a transformation ran past the end of the text")

// fullRange is the normalized range that Rust's Range::Original(..) converts
// to: from the first byte whose range is not empty to the last byte
// covered; ok is false where the conversion gives None (nothing to
// transform).
func (n *normalized) fullRange() (a, b int, ok bool) {
	olen := n.orig.end - n.orig.start
	if olen == 0 {
		return 0, 0, true
	}
	start, end := -1, -1
	for i, al := range n.align {
		if olen < al.end-n.orig.start {
			break
		}
		if start < 0 && al.start-n.orig.start >= 0 && al.start != al.end {
			start = i
		}
		end = i + 1
	}
	switch {
	case start >= 0:
		return start, end, true
	case end >= 0:
		return end, end, true
	}
	return 0, 0, false
}

// transform applies dest to the whole text (Rust's transform).
func (n *normalized) transform(dest []change, initialOffset int) error {
	a, b, ok := n.fullRange()
	if !ok {
		return nil
	}
	return n.transformRange(a, b, dest, initialOffset)
}

// transformRange replaces normalized bytes [a, b) by dest, computing the
// alignment of each new character from the characters it replaces (Rust's
// transform_range).
func (n *normalized) transformRange(a, b int, dest []change, initialOffset int) error {
	old := n.norm[a:b]
	pos := 0 // bytes of old consumed
	next := func() int {
		if pos >= len(old) {
			return 0
		}
		_, w := utf8.DecodeRuneInString(old[pos:])
		pos += w
		return w
	}
	initialRemoved := 0
	for range initialOffset {
		initialRemoved += next()
	}
	offset := a + initialRemoved
	size := 0
	for _, d := range dest {
		size += utf8.RuneLen(d.r)
	}
	buf := make([]byte, 0, len(n.norm)-(b-a)+size)
	buf = append(buf, n.norm[:a]...)
	align := make([]span, 0, cap(buf))
	align = append(align, n.align[:a]...)
	for _, d := range dest {
		var al span
		if d.c > 0 {
			if offset >= 1 {
				if offset-1 >= len(n.align) {
					return errTransform
				}
				al = n.align[offset-1]
			} else {
				al = span{0, 0}
			}
		} else {
			if offset >= len(n.align) {
				return errTransform
			}
			al = n.align[offset]
		}
		replaced := 0
		if d.c <= 0 {
			replaced = next()
		}
		removed := 0
		for k := 0; k < -d.c; k++ {
			removed += next()
		}
		offset += replaced + removed
		w := utf8.RuneLen(d.r)
		if w < 0 {
			return errTransform
		}
		buf = utf8.AppendRune(buf, d.r)
		for range w {
			align = append(align, al)
		}
	}
	buf = append(buf, n.norm[b:]...)
	align = append(align, n.align[b:]...)
	n.norm = string(buf)
	n.align = align
	return nil
}

// originalRange converts a normalized range to the original text (absolute
// offsets), as Rust's convert_offsets(Range::Normalized) followed by the
// shift into_encoding adds. An empty range converts to itself (plus the
// shift); a range past the end gives ok false.
func (n *normalized) originalRange(a, b int) (span, bool) {
	if a == b {
		return span{n.orig.start + a, n.orig.start + b}, true
	}
	if a > b || b > len(n.align) {
		return span{}, false
	}
	return span{n.align[a].start, n.align[b-1].end}, true
}

// slice returns normalized bytes [a, b) as a piece of its own.
func (n *normalized) slice(a, b int) *normalized {
	s := &normalized{norm: n.norm[a:b], align: n.align[a:b:b]}
	if a == b {
		s.orig = span{n.orig.start + a, n.orig.start + b}
	} else {
		s.orig = span{n.align[a].start, n.align[b-1].end}
	}
	return s
}

// mapRunes replaces every character by f's (Rust's map).
func (n *normalized) mapRunes(f func(rune) rune) error {
	dest := make([]change, 0, len(n.norm))
	changed := false
	for _, r := range n.norm {
		m := f(r)
		changed = changed || m != r
		dest = append(dest, change{m, 0})
	}
	if !changed {
		return nil
	}
	return n.transform(dest, 0)
}

// filter keeps the characters keep accepts (Rust's filter: a kept
// character carries the removal of the characters after it).
func (n *normalized) filter(keep func(rune) bool) error {
	drop := false
	for _, r := range n.norm {
		if !keep(r) {
			drop = true
			break
		}
	}
	if !drop {
		return nil
	}
	rs := []rune(n.norm)
	dest := make([]change, 0, len(rs))
	removed := 0
	for i := len(rs) - 1; i >= 0; i-- {
		if keep(rs[i]) {
			dest = append(dest, change{rs[i], -removed})
			removed = 0
		} else {
			removed++
		}
	}
	for i, j := 0, len(dest)-1; i < j; i, j = i+1, j-1 {
		dest[i], dest[j] = dest[j], dest[i]
	}
	return n.transform(dest, removed)
}

// prepend puts s before the text (Rust's prepend: the new characters
// share the first character's range).
func (n *normalized) prepend(s string) error {
	first, w := utf8.DecodeRuneInString(n.norm)
	if w == 0 {
		return nil
	}
	dest := make([]change, 0, utf8.RuneCountInString(s)+1)
	i := 0
	for _, r := range s {
		c := 1
		if i == 0 {
			c = 0
		}
		dest = append(dest, change{r, c})
		i++
	}
	dest = append(dest, change{first, 1})
	return n.transformRange(0, w, dest, 0)
}

// appendString puts s after the text (Rust's append).
func (n *normalized) appendString(s string) error {
	last, w := utf8.DecodeLastRuneInString(n.norm)
	if w == 0 {
		return nil
	}
	dest := []change{{last, 0}}
	for _, r := range s {
		dest = append(dest, change{r, 1})
	}
	return n.transformRange(len(n.norm)-w, len(n.norm), dest, 0)
}

// replace replaces every match of p by content (Rust's replace). Rust
// applies one transform_range per match, each inserting content after
// removing the match, so every new character takes the range of the
// match's last byte; this does the same in one pass.
func (n *normalized) replace(p pattern, content string) error {
	matches := p.findMatches(n.norm)
	any := false
	for _, m := range matches {
		if m.match {
			any = true
			break
		}
	}
	if !any {
		return nil
	}
	buf := make([]byte, 0, len(n.norm)+len(content)*4)
	align := make([]span, 0, cap(buf))
	last := 0
	for _, m := range matches {
		if !m.match {
			continue
		}
		buf = append(buf, n.norm[last:m.a]...)
		align = append(align, n.align[last:m.a]...)
		al := span{0, 0}
		if m.b >= 1 {
			al = n.align[m.b-1]
		}
		buf = append(buf, content...)
		for range len(content) {
			align = append(align, al)
		}
		last = m.b
	}
	buf = append(buf, n.norm[last:]...)
	align = append(align, n.align[last:]...)
	n.norm = string(buf)
	n.align = align
	return nil
}

// strip removes leading and/or trailing whitespace (Rust's lrstrip, with
// Rust's char::is_whitespace).
func (n *normalized) strip(left, right bool) error {
	rs := []rune(n.norm)
	lead, trail := 0, 0
	if left {
		for lead < len(rs) && isWhitespace(rs[lead]) {
			lead++
		}
	}
	if right {
		for trail < len(rs) && isWhitespace(rs[len(rs)-1-trail]) {
			trail++
		}
	}
	if lead == 0 && trail == 0 {
		return nil
	}
	count := len(rs)
	dest := make([]change, 0, len(rs))
	for i, r := range rs {
		switch {
		case i < lead || i >= count-trail:
		case i == count-trail-1:
			dest = append(dest, change{r, -trail})
		default:
			dest = append(dest, change{r, 0})
		}
	}
	return n.transform(dest, lead)
}
