package hftokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// precompiled is SentencePiece's normalizer as a tokenizer.json carries it
// (precompiled_charsmap, base64): a Darts-clone double-array trie over
// UTF-8 byte strings whose values are offsets into a blob of
// NUL-terminated replacement strings. Hugging Face's Precompiled (the
// spm_precompiled crate) applies it grapheme by grapheme: a grapheme
// cluster of fewer than 6 bytes is replaced whole when a prefix of it is in
// the trie (the shortest such prefix gives the replacement), else each of
// its characters is replaced on its own when it is in the trie.
type precompiled struct {
	trie []uint32
	blob string
}

func parsePrecompiled(b64 string) (*precompiled, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("precompiled_charsmap is not base64: %w", err)
	}
	if len(raw) < 4 {
		return nil, errors.New("precompiled_charsmap is too short")
	}
	size := binary.LittleEndian.Uint32(raw)
	if uint64(size) > uint64(len(raw)-4) || size%4 != 0 {
		return nil, fmt.Errorf("precompiled_charsmap: trie of %d bytes in %d", size, len(raw)-4)
	}
	p := &precompiled{trie: make([]uint32, size/4)}
	for i := range p.trie {
		p.trie[i] = binary.LittleEndian.Uint32(raw[4+4*i:])
	}
	blob := raw[4+size:]
	if !utf8.Valid(blob) {
		return nil, errors.New("precompiled_charsmap: the normalized strings are not UTF-8")
	}
	if len(p.trie) == 0 {
		return nil, errors.New("precompiled_charsmap: empty trie")
	}
	p.blob = string(blob)
	return p, nil
}

// Darts-clone unit fields.
func unitHasLeaf(u uint32) bool  { return (u>>8)&1 == 1 }
func unitValue(u uint32) uint32  { return u & (1<<31 - 1) }
func unitLabel(u uint32) uint32  { return u & (1<<31 | 0xFF) }
func unitOffset(u uint32) uint32 { return (u >> 10) << ((u & (1 << 9)) >> 6) }

// firstMatch returns the value of the shortest prefix of key in the trie
// (spm_precompiled's transform takes the first of common_prefix_search's
// results). A key stops at a NUL byte. Indices outside the array end the
// search (the Rust code would panic on them; a valid trie never has them).
func (p *precompiled) firstMatch(key string) (uint32, bool) {
	pos := uint32(0)
	unit := p.trie[0]
	pos ^= unitOffset(unit)
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == 0 {
			break
		}
		pos ^= uint32(c)
		if int(pos) >= len(p.trie) {
			return 0, false
		}
		unit = p.trie[pos]
		if unitLabel(unit) != uint32(c) {
			return 0, false
		}
		pos ^= unitOffset(unit)
		if unitHasLeaf(unit) {
			if int(pos) >= len(p.trie) {
				return 0, false
			}
			return unitValue(p.trie[pos]), true
		}
	}
	return 0, false
}

// transform returns the replacement of chunk, if a prefix of it is in the
// trie.
func (p *precompiled) transform(chunk string) (string, bool) {
	v, ok := p.firstMatch(chunk)
	if !ok {
		return "", false
	}
	if int(v) > len(p.blob) {
		return "", false
	}
	end := int(v)
	for end < len(p.blob) && p.blob[end] != 0 {
		end++
	}
	s := p.blob[v:end]
	if !utf8.ValidString(s) {
		// A slice off a character boundary: Rust would panic.
		return "", false
	}
	return s, true
}

// appendReplacement appends the changes that replace old characters by
// norm, as the Rust crate's replace: every new character replaces one
// (0); when there are more new characters, the last extra ones are
// inserted (1); when fewer, the last one removes the rest.
func appendReplacement(dest []change, norm string, old int) []change {
	first := len(dest)
	for _, r := range norm {
		dest = append(dest, change{r, 0})
	}
	diff := (len(dest) - first) - old
	switch {
	case diff > 0:
		for i := len(dest) - diff; i < len(dest); i++ {
			if i >= 0 {
				dest[i].c = 1
			}
		}
	case diff < 0 && len(dest) > 0:
		dest[len(dest)-1].c += diff
	}
	return dest
}

func (p *precompiled) normalize(n *normalized) error {
	s := n.norm
	dest := make([]change, 0, len(s))
	modified := false
	state := -1
	for rest := s; rest != ""; {
		var g string
		if rest[0] < 0x80 && (len(rest) == 1 || rest[1] < 0x80) && rest[0] != '\r' {
			// An ASCII character followed by ASCII (not CR LF) is a
			// grapheme of its own.
			g, rest, state = rest[:1], rest[1:], -1
		} else {
			g, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		}
		if len(g) < 6 {
			if norm, ok := p.transform(g); ok {
				modified = true
				dest = appendReplacement(dest, norm, utf8.RuneCountInString(g))
				continue
			}
		}
		for i, r := range g {
			_, w := utf8.DecodeRuneInString(g[i:])
			if norm, ok := p.transform(g[i : i+w]); ok {
				modified = true
				dest = appendReplacement(dest, norm, 1)
			} else {
				dest = append(dest, change{r, 0})
			}
		}
	}
	if !modified {
		return nil
	}
	return n.transform(dest, 0)
}
