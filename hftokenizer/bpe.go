package hftokenizer

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// model turns a pre-tokenized word into tokens (Rust's Model).
type model interface {
	tokenize(word string) ([]token, error)
	vocabSize() int
	tokenID(s string) (int, bool)
	maxID() int
}

// bpe is a byte-pair-encoding model: a word starts as its characters (with
// the continuing-subword prefix on all but the first and the end-of-word
// suffix on the last), and the pair of adjacent symbols with the lowest
// merge rank is merged, the leftmost first among equal ranks, until no
// pair has a merge.
type bpe struct {
	vocab        map[string]int
	vocabR       map[int]string
	merges       map[uint64]mergeRule // pairKey(a, b)
	unk          string
	hasUnk       bool
	prefix       string
	suffix       string
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	byteIDs      [256]int // <0xXX> token ids, -1 where missing
	max          int
}

type mergeRule struct{ rank, id int }

func pairKey(a, b int) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func (m *bpe) vocabSize() int { return len(m.vocab) }
func (m *bpe) maxID() int     { return m.max }
func (m *bpe) tokenID(s string) (int, bool) {
	id, ok := m.vocab[s]
	return id, ok
}

type symbol struct {
	id         int
	prev, next int
	len        int
}

// bpeMerge is a candidate merge in the queue: lowest rank first, then
// leftmost.
type bpeMerge struct{ pos, rank, id int }

func (a bpeMerge) less(b bpeMerge) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.pos < b.pos
}

// mergeQueue is a binary min-heap of candidate merges.
type mergeQueue []bpeMerge

func (q *mergeQueue) push(x bpeMerge) {
	*q = append(*q, x)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *mergeQueue) pop() bpeMerge {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h[l].less(h[m]) {
			m = l
		}
		if r < n && h[r].less(h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

func (m *bpe) tokenize(w string) ([]token, error) {
	if w == "" {
		return nil, nil
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[w]; ok {
			return []token{{id, w, 0, len(w)}}, nil
		}
	}
	syms := make([]symbol, 0, len(w))
	add := func(id, n int) {
		prev := -1
		if len(syms) > 0 {
			prev = len(syms) - 1
			syms[prev].next = len(syms)
		}
		syms = append(syms, symbol{id, prev, -1, n})
	}
	unkID, unkLen, pending := 0, 0, false
	var sb strings.Builder
	for i := 0; i < len(w); {
		_, n := utf8.DecodeRuneInString(w[i:])
		s := w[i : i+n]
		first, last := i == 0, i+n == len(w)
		if (!first && m.prefix != "") || (last && m.suffix != "") {
			sb.Reset()
			if !first {
				sb.WriteString(m.prefix)
			}
			sb.WriteString(s)
			if last {
				sb.WriteString(m.suffix)
			}
			s = sb.String()
		}
		i += n
		if id, ok := m.vocab[s]; ok {
			if pending {
				add(unkID, unkLen)
				pending = false
			}
			add(id, n)
			continue
		}
		if m.byteFallback {
			all := true
			for k := 0; k < len(s); k++ {
				if m.byteIDs[s[k]] < 0 {
					all = false
					break
				}
			}
			if all {
				// Rust adds no pending unknown run before these.
				for k := 0; k < len(s); k++ {
					add(m.byteIDs[s[k]], 1)
				}
				continue
			}
		}
		if !m.hasUnk {
			continue
		}
		id, ok := m.vocab[m.unk]
		if !ok {
			return nil, fmt.Errorf("BPE: the unknown token %q is not in the vocabulary", m.unk)
		}
		switch {
		case pending && m.fuseUnk:
			unkLen += n
		case pending:
			add(unkID, unkLen)
			unkID, unkLen = id, n
		default:
			unkID, unkLen, pending = id, n, true
		}
	}
	if pending {
		add(unkID, unkLen)
	}
	m.mergeAll(syms)
	out := make([]token, 0, len(syms))
	pos := 0
	for _, s := range syms {
		if s.len == 0 {
			continue
		}
		out = append(out, token{s.id, m.vocabR[s.id], pos, pos + s.len})
		pos += s.len
	}
	return out, nil
}

func (m *bpe) mergeAll(syms []symbol) {
	if len(syms) < 2 {
		return
	}
	q := make(mergeQueue, 0, len(syms))
	for i := 0; i+1 < len(syms); i++ {
		if r, ok := m.merges[pairKey(syms[i].id, syms[i+1].id)]; ok {
			q.push(bpeMerge{i, r.rank, r.id})
		}
	}
	for len(q) > 0 {
		top := q.pop()
		cur := &syms[top.pos]
		if cur.len == 0 || cur.next == -1 {
			continue
		}
		nextPos := cur.next
		right := syms[nextPos]
		if r, ok := m.merges[pairKey(cur.id, right.id)]; !ok || r.id != top.id {
			continue // an expired entry
		}
		cur.id = top.id
		cur.len += right.len
		cur.next = right.next
		syms[nextPos].len = 0
		if right.next > -1 && right.next < len(syms) {
			syms[right.next].prev = top.pos
		}
		if cur.prev >= 0 {
			if r, ok := m.merges[pairKey(syms[cur.prev].id, cur.id)]; ok {
				q.push(bpeMerge{cur.prev, r.rank, r.id})
			}
		}
		if cur.next >= 0 && cur.next < len(syms) {
			if r, ok := m.merges[pairKey(cur.id, syms[cur.next].id)]; ok {
				q.push(bpeMerge{top.pos, r.rank, r.id})
			}
		}
	}
}

func loadBPE(o obj) (*bpe, error) {
	if err := o.only("dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk", "byte_fallback", "ignore_merges", "vocab", "merges"); err != nil {
		return nil, err
	}
	var dropout *float64
	if _, err := o.get("dropout", &dropout); err != nil {
		return nil, err
	}
	if dropout != nil && *dropout != 0 {
		return nil, o.errorf("dropout %v: BPE dropout makes tokens random; only null or 0 is supported", *dropout)
	}
	m := &bpe{}
	var err error
	var unk *string
	if _, err = o.get("unk_token", &unk); err != nil {
		return nil, err
	}
	if unk != nil {
		m.unk, m.hasUnk = *unk, true
	}
	if m.prefix, err = o.str("continuing_subword_prefix", ""); err != nil {
		return nil, err
	}
	if m.suffix, err = o.str("end_of_word_suffix", ""); err != nil {
		return nil, err
	}
	if m.fuseUnk, err = o.boolean("fuse_unk", false); err != nil {
		return nil, err
	}
	if m.byteFallback, err = o.boolean("byte_fallback", false); err != nil {
		return nil, err
	}
	if m.ignoreMerges, err = o.boolean("ignore_merges", false); err != nil {
		return nil, err
	}
	if m.vocab, m.max, err = loadVocab(o); err != nil {
		return nil, err
	}
	if m.hasUnk {
		if err := checkUnk(o, m.vocab, m.unk); err != nil {
			return nil, err
		}
	}
	m.vocabR = make(map[int]string, len(m.vocab))
	for s, id := range m.vocab {
		if old, ok := m.vocabR[id]; !ok || s < old {
			m.vocabR[id] = s
		}
	}
	for b := range m.byteIDs {
		m.byteIDs[b] = -1
		if id, ok := m.vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
			m.byteIDs[b] = id
		}
	}
	var merges []json.RawMessage
	if _, err := o.get("merges", &merges); err != nil {
		return nil, err
	}
	m.merges = make(map[uint64]mergeRule, len(merges))
	for rank, raw := range merges {
		var a, b string
		var pair []string
		var line string
		if err := json.Unmarshal(raw, &line); err == nil {
			var ok bool
			if a, b, ok = strings.Cut(line, " "); !ok || strings.Contains(b, " ") {
				return nil, fmt.Errorf("%s.merges[%d] %q: want two tokens separated by a space", o.path, rank, line)
			}
		} else if err := json.Unmarshal(raw, &pair); err == nil && len(pair) == 2 {
			a, b = pair[0], pair[1]
		} else {
			return nil, fmt.Errorf("%s.merges[%d]: want \"A B\" or [\"A\", \"B\"]", o.path, rank)
		}
		ia, oka := m.vocab[a]
		ib, okb := m.vocab[b]
		id, okn := m.vocab[a+b]
		if !oka || !okb || !okn {
			return nil, fmt.Errorf("%s.merges[%d]: %q, %q or %q is not in the vocabulary", o.path, rank, a, b, a+b)
		}
		m.merges[pairKey(ia, ib)] = mergeRule{rank, id}
	}
	return m, nil
}

// loadVocab reads a {token: id} vocabulary. Two tokens of one id are
// refused, naming both: the id could be decoded to either, and the crate
// keeps whichever its hash map gives last, so that no tokenizer behaves as
// such a file would in Python.
func loadVocab(o obj) (map[string]int, int, error) {
	var vocab map[string]int
	if err := o.need("vocab", &vocab); err != nil {
		return nil, 0, err
	}
	max := -1
	for s, id := range vocab {
		if id < 0 {
			return nil, 0, fmt.Errorf("%s.vocab: token %q has id %d: ids are not negative", o.path, s, id)
		}
		max = maxInt(max, id)
	}
	// The tokens in order, so that the error names the same pair each
	// time.
	tokens := make([]string, 0, len(vocab))
	for s := range vocab {
		tokens = append(tokens, s)
	}
	sort.Strings(tokens)
	byID := make(map[int]string, len(vocab))
	for _, s := range tokens {
		id := vocab[s]
		if other, dup := byID[id]; dup {
			return nil, 0, fmt.Errorf("%s.vocab: tokens %q and %q both have id %d", o.path, other, s, id)
		}
		byID[id] = s
	}
	return vocab, max, nil
}

// checkUnk refuses an unknown token (unk_token, or the model's default)
// that is not in the vocabulary: a word outside it would have no token,
// an error met only at the first such word, deep in a run.
func checkUnk(o obj, vocab map[string]int, unk string) error {
	if _, ok := vocab[unk]; !ok {
		return o.errorf("unk_token %q is not a token of the vocabulary: words outside it could not be encoded", unk)
	}
	return nil
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
