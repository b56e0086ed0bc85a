package hftokenizer

import (
	"slices"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Unicode normalization with alignments, as the unicode-normalization-
// alignments crate that Hugging Face's NormalizedString uses: each source
// character's decomposition (first character 0, the others inserted),
// canonical reordering of combining marks (a stable sort, so marks carry
// their change values along), then for NFC/NFKC the canonical composition
// algorithm, where a composed pair keeps the change k.c + c - 1. The
// decomposition and composition data are golang.org/x/text's (Unicode 15).

type ucc struct {
	r   rune
	c   int
	ccc uint8
}

func ccc(r rune) uint8 {
	if r < 0x300 {
		return 0
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	return norm.NFD.Properties(buf[:n]).CCC()
}

// Hangul syllable constants (Unicode 3.12).
const (
	hangulSBase  = 0xAC00
	hangulLBase  = 0x1100
	hangulVBase  = 0x1161
	hangulTBase  = 0x11A7
	hangulLCount = 19
	hangulVCount = 21
	hangulTCount = 28
	hangulNCount = hangulVCount * hangulTCount
	hangulSCount = hangulLCount * hangulNCount
)

// decompose appends the decomposition of s with change values.
func decompose(s string, compat bool) []ucc {
	f := norm.NFD
	if compat {
		f = norm.NFKD
	}
	out := make([]ucc, 0, len(s))
	for i, r := range s {
		switch {
		case r < 0xC0:
			if compat && r >= 0xA0 {
				break
			}
			out = append(out, ucc{r, 0, 0})
			continue
		case r >= hangulSBase && r < hangulSBase+hangulSCount:
			si := r - hangulSBase
			out = append(out, ucc{hangulLBase + si/hangulNCount, 0, 0}, ucc{hangulVBase + (si%hangulNCount)/hangulTCount, 1, 0})
			if t := si % hangulTCount; t != 0 {
				out = append(out, ucc{hangulTBase + t, 1, 0})
			}
			continue
		}
		w := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, w = utf8.DecodeRuneInString(s[i:])
		}
		d := f.PropertiesString(s[i : i+w]).Decomposition()
		if d == nil {
			out = append(out, ucc{r, 0, ccc(r)})
			continue
		}
		first := true
		for _, dr := range string(d) {
			c := 1
			if first {
				c, first = 0, false
			}
			out = append(out, ucc{dr, c, ccc(dr)})
		}
	}
	// Canonical ordering: each run of non-starters sorted by class, stably.
	for i := 0; i < len(out); {
		if out[i].ccc == 0 {
			i++
			continue
		}
		j := i
		for j < len(out) && out[j].ccc != 0 {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(out[i:j], func(a, b ucc) int { return int(a.ccc) - int(b.ccc) })
		}
		i = j
	}
	return out
}

// compositions maps a pair of characters to their primary composite:
// every character whose canonical decomposition is a character and a mark
// (or two characters) and that NFC keeps. It is built once, read only.
var compositions = sync.OnceValue(func() map[[2]rune]rune {
	m := make(map[[2]rune]rune, 1024)
	var buf [utf8.UTFMax]byte
	for r := rune(0xC0); r < 0x30000; r++ {
		if r >= hangulSBase && r < hangulSBase+hangulSCount || r >= 0xD800 && r < 0xE000 {
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		d := norm.NFD.Properties(buf[:n]).Decomposition()
		if d == nil || !norm.NFC.IsNormal(buf[:n]) {
			continue
		}
		rs := []rune(string(d))
		if len(rs) < 2 {
			continue
		}
		// The canonical mapping is (a, b): b the last character, a what
		// the rest composes to, when that is one character.
		b := rs[len(rs)-1]
		a := []rune(norm.NFC.String(string(rs[:len(rs)-1])))
		if len(a) != 1 {
			continue
		}
		if norm.NFD.String(string(a[0]))+string(b) != string(d) {
			continue
		}
		m[[2]rune{a[0], b}] = r
	}
	return m
})

// compose is the primary composite of a and b, Hangul included.
func compose(a, b rune) (rune, bool) {
	if a >= hangulLBase && a < hangulLBase+hangulLCount && b >= hangulVBase && b < hangulVBase+hangulVCount {
		return hangulSBase + ((a-hangulLBase)*hangulVCount+(b-hangulVBase))*hangulTCount, true
	}
	if a >= hangulSBase && a < hangulSBase+hangulSCount && (a-hangulSBase)%hangulTCount == 0 &&
		b > hangulTBase && b < hangulTBase+hangulTCount {
		return a + (b - hangulTBase), true
	}
	if b < 0x300 {
		return 0, false
	}
	r, ok := compositions()[[2]rune{a, b}]
	return r, ok
}

// recompose runs the canonical composition algorithm over a decomposed
// sequence, as the alignments crate's Recompositions iterator.
func recompose(in []ucc) []change {
	out := make([]change, 0, len(in))
	var (
		composee    *ucc
		k           ucc
		lastCCC     = -1
		buffer      []change
		flushBuffer = func() {
			out = append(out, buffer...)
			buffer = buffer[:0]
		}
	)
	for _, ch := range in {
		if composee == nil {
			if ch.ccc != 0 {
				out = append(out, change{ch.r, ch.c})
				continue
			}
			k = ch
			composee = &k
			continue
		}
		if lastCCC < 0 {
			if r, ok := compose(k.r, ch.r); ok {
				k = ucc{r, k.c + ch.c - 1, 0}
				continue
			}
			if ch.ccc == 0 {
				out = append(out, change{k.r, k.c})
				k = ch
				continue
			}
			buffer = append(buffer, change{ch.r, ch.c})
			lastCCC = int(ch.ccc)
			continue
		}
		if lastCCC >= int(ch.ccc) {
			// ch is blocked from the composee.
			if ch.ccc == 0 {
				out = append(out, change{k.r, k.c})
				flushBuffer()
				k = ch
				lastCCC = -1
				continue
			}
			buffer = append(buffer, change{ch.r, ch.c})
			lastCCC = int(ch.ccc)
			continue
		}
		if r, ok := compose(k.r, ch.r); ok {
			k = ucc{r, k.c + ch.c - 1, 0}
			continue
		}
		buffer = append(buffer, change{ch.r, ch.c})
		lastCCC = int(ch.ccc)
	}
	if composee != nil {
		// Rust's Finished state: the composee, then the marks it blocked.
		out = append(out, change{k.r, k.c})
	}
	flushBuffer()
	return out
}

// unicodeNormalize applies NFD, NFKD, NFC or NFKC to n.
func (n *normalized) unicodeNormalize(compat, composed bool) error {
	f := map[[2]bool]norm.Form{{false, false}: norm.NFD, {true, false}: norm.NFKD, {false, true}: norm.NFC, {true, true}: norm.NFKC}[[2]bool{compat, composed}]
	if f.IsNormalString(n.norm) {
		// Nothing changes: the Rust code's transform would give every
		// character change 0, which keeps every alignment.
		return nil
	}
	d := decompose(n.norm, compat)
	var dest []change
	if composed {
		dest = recompose(d)
	} else {
		dest = make([]change, len(d))
		for i, u := range d {
			dest[i] = change{u.r, u.c}
		}
	}
	return n.transform(dest, 0)
}
