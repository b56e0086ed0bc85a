package hftokenizer

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"
)

// wordPiece is BERT's model: the longest vocabulary prefix of the word,
// then the longest continuing piece (with "##") of the rest, and so on; a
// word with a part no piece covers is one unknown token.
type wordPiece struct {
	vocab    map[string]int
	vocabR   map[int]string
	unk      string
	prefix   string
	maxChars int
	max      int
}

func (m *wordPiece) vocabSize() int { return len(m.vocab) }
func (m *wordPiece) maxID() int     { return m.max }
func (m *wordPiece) tokenID(s string) (int, bool) {
	id, ok := m.vocab[s]
	return id, ok
}

func (m *wordPiece) unkToken(w string) ([]token, error) {
	id, ok := m.vocab[m.unk]
	if !ok {
		return nil, fmt.Errorf("WordPiece: the unknown token %q is not in the vocabulary", m.unk)
	}
	return []token{{id, m.unk, 0, len(w)}}, nil
}

func (m *wordPiece) tokenize(w string) ([]token, error) {
	if utf8.RuneCountInString(w) > m.maxChars {
		return m.unkToken(w)
	}
	var out []token
	buf := make([]byte, 0, len(m.prefix)+len(w))
	for start := 0; start < len(w); {
		end := len(w)
		found := false
		for start < end {
			sub := w[start:end]
			if start > 0 {
				buf = append(append(buf[:0], m.prefix...), sub...)
				sub = string(buf)
			}
			if id, ok := m.vocab[sub]; ok {
				out = append(out, token{id, m.vocabR[id], start, end})
				found = true
				break
			}
			_, n := utf8.DecodeLastRuneInString(w[start:end])
			end -= n
		}
		if !found {
			return m.unkToken(w)
		}
		start = end
	}
	return out, nil
}

func loadWordPiece(o obj) (*wordPiece, error) {
	if err := o.only("unk_token", "continuing_subword_prefix", "max_input_chars_per_word", "vocab"); err != nil {
		return nil, err
	}
	m := &wordPiece{}
	var err error
	if m.unk, err = o.str("unk_token", "[UNK]"); err != nil {
		return nil, err
	}
	if m.prefix, err = o.str("continuing_subword_prefix", "##"); err != nil {
		return nil, err
	}
	m.maxChars = 100
	if _, err := o.get("max_input_chars_per_word", &m.maxChars); err != nil {
		return nil, err
	}
	if m.vocab, m.max, err = loadVocab(o); err != nil {
		return nil, err
	}
	if err := checkUnk(o, m.vocab, m.unk); err != nil {
		return nil, err
	}
	m.vocabR = reverseVocab(m.vocab)
	return m, nil
}

func reverseVocab(v map[string]int) map[int]string {
	r := make(map[int]string, len(v))
	for s, id := range v {
		if old, ok := r[id]; !ok || s < old {
			r[id] = s
		}
	}
	return r
}

// wordLevel maps each word to its id, or to the unknown token.
type wordLevel struct {
	vocab map[string]int
	unk   string
	max   int
}

func (m *wordLevel) vocabSize() int { return len(m.vocab) }
func (m *wordLevel) maxID() int     { return m.max }
func (m *wordLevel) tokenID(s string) (int, bool) {
	id, ok := m.vocab[s]
	return id, ok
}

func (m *wordLevel) tokenize(w string) ([]token, error) {
	if id, ok := m.vocab[w]; ok {
		return []token{{id, w, 0, len(w)}}, nil
	}
	id, ok := m.vocab[m.unk]
	if !ok {
		return nil, fmt.Errorf("WordLevel: the unknown token %q is not in the vocabulary", m.unk)
	}
	return []token{{id, m.unk, 0, len(w)}}, nil
}

func loadWordLevel(o obj) (*wordLevel, error) {
	if err := o.only("unk_token", "vocab"); err != nil {
		return nil, err
	}
	m := &wordLevel{}
	var err error
	if m.unk, err = o.str("unk_token", "<unk>"); err != nil {
		return nil, err
	}
	if m.vocab, m.max, err = loadVocab(o); err != nil {
		return nil, err
	}
	if err := checkUnk(o, m.vocab, m.unk); err != nil {
		return nil, err
	}
	return m, nil
}

// unigram is SentencePiece's Unigram model: the segmentation of the word
// into vocabulary pieces with the highest total score (Viterbi), a
// character no piece starts with scoring as the unknown piece at the
// lowest score less 10; consecutive unknown characters make one token, and
// with byte_fallback an unknown piece becomes its bytes' <0xXX> tokens.
type unigram struct {
	pieces       []string
	scores       []float64
	ids          map[string]int
	trie         *byteTrie
	unkID        int // -1: none
	byteFallback bool
	minScore     float64
}

func (m *unigram) vocabSize() int { return len(m.pieces) }
func (m *unigram) maxID() int     { return len(m.pieces) - 1 }
func (m *unigram) tokenID(s string) (int, bool) {
	id, ok := m.ids[s]
	return id, ok
}

const unkPenalty = 10.0

func (m *unigram) tokenize(s string) ([]token, error) {
	if s == "" {
		return nil, nil
	}
	type node struct {
		id    int
		score float64
		start int // -1: not reached
	}
	best := make([]node, len(s)+1)
	for i := range best {
		best[i].start = -1
	}
	unkScore := m.minScore - unkPenalty
	for start := 0; start < len(s); {
		here := best[start].score
		_, mb := utf8.DecodeRuneInString(s[start:])
		single := false
		err := m.trie.prefixes(s, start, func(end, id int) {
			t := &best[end]
			cand := m.scores[id] + here
			if t.start < 0 || cand > t.score {
				t.score, t.start, t.id = cand, start, id
			}
			if end-start == mb {
				single = true
			}
		})
		if err != nil {
			return nil, err
		}
		if !single {
			t := &best[start+mb]
			cand := unkScore + here
			if t.start < 0 || cand > t.score {
				if m.unkID < 0 {
					return nil, fmt.Errorf("Unigram: %q is unknown and the model has no unk_id", s[start:start+mb])
				}
				t.score, t.start, t.id = cand, start, m.unkID
			}
		}
		start += mb
	}
	// Backtrack, fusing runs of unknown pieces.
	var rev []span
	var revID []int
	unkEnd := -1
	for end := len(s); end > 0; {
		nd := best[end]
		if nd.start < 0 {
			return nil, fmt.Errorf("Unigram: no segmentation of %.40q", s)
		}
		if m.unkID >= 0 && nd.id == m.unkID {
			if unkEnd < 0 {
				unkEnd = end
			}
		} else {
			if unkEnd >= 0 {
				rev, revID = append(rev, span{end, unkEnd}), append(revID, m.unkID)
				unkEnd = -1
			}
			rev, revID = append(rev, span{nd.start, end}), append(revID, nd.id)
		}
		end = nd.start
	}
	if unkEnd >= 0 {
		rev, revID = append(rev, span{0, unkEnd}), append(revID, m.unkID)
	}
	out := make([]token, 0, len(rev))
	for i := len(rev) - 1; i >= 0; i-- {
		sp := rev[i]
		str := s[sp.start:sp.end]
		if revID[i] != m.unkID || m.unkID < 0 {
			out = append(out, token{revID[i], m.pieces[revID[i]], sp.start, sp.end})
			continue
		}
		// A fused unknown run: the piece it spells, if any, else bytes
		// or the unknown token (Rust looks the string up again).
		if id, ok := m.ids[str]; ok {
			out = append(out, token{id, str, sp.start, sp.end})
			continue
		}
		if m.byteFallback {
			bytes := make([]token, 0, len(str))
			for k := 0; k < len(str); k++ {
				p := fmt.Sprintf("<0x%02X>", str[k])
				id, ok := m.ids[p]
				if !ok {
					bytes = nil
					break
				}
				bytes = append(bytes, token{id, p, sp.start, sp.end})
			}
			if bytes != nil {
				out = append(out, bytes...)
				continue
			}
		}
		out = append(out, token{m.unkID, str, sp.start, sp.end})
	}
	return out, nil
}

func loadUnigram(o obj) (*unigram, error) {
	if err := o.only("unk_id", "vocab", "byte_fallback"); err != nil {
		return nil, err
	}
	m := &unigram{unkID: -1}
	var unk *int
	if _, err := o.get("unk_id", &unk); err != nil {
		return nil, err
	}
	var err error
	if m.byteFallback, err = o.boolean("byte_fallback", false); err != nil {
		return nil, err
	}
	var vocab []json.RawMessage
	if err := o.need("vocab", &vocab); err != nil {
		return nil, err
	}
	if len(vocab) == 0 {
		return nil, o.errorf("vocab is empty")
	}
	m.pieces = make([]string, len(vocab))
	m.scores = make([]float64, len(vocab))
	m.ids = make(map[string]int, len(vocab))
	m.minScore = math.Inf(1)
	m.trie = newByteTrie()
	for i, raw := range vocab {
		var pair []any
		if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("%s.vocab[%d]: want [piece, score]", o.path, i)
		}
		p, ok1 := pair[0].(string)
		sc, ok2 := pair[1].(float64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s.vocab[%d]: want [piece, score]", o.path, i)
		}
		m.pieces[i], m.scores[i] = p, sc
		m.ids[p] = i
		m.trie.insert(p)
		m.minScore = math.Min(m.minScore, sc)
	}
	for _, p := range m.pieces {
		m.trie.setID(p, m.ids[p])
	}
	m.trie.freeze()
	if unk != nil {
		if *unk < 0 || *unk >= len(vocab) {
			return nil, o.errorf("unk_id %d is outside the vocabulary of %d pieces", *unk, len(vocab))
		}
		m.unkID = *unk
	}
	return m, nil
}

// byteTrie is a trie over the bytes of the pieces, for the prefixes of a
// string that are pieces. It is built with maps, then frozen into flat
// arrays: the root's children in a table of 256, every other node's
// sorted by byte.
type byteTrie struct {
	nodes []trieNode
	// Frozen form.
	root   [256]int32 // child of the root by byte, -1 for none
	first  []int32    // node -> index of its first child in labels/kids
	count  []uint16   // node -> number of children
	labels []byte
	kids   []int32
	ids    []int32 // node -> piece id, -1 for none
	frozen bool
}

type trieNode struct {
	next map[byte]int32
	id   int32 // -1: no piece ends here
}

func newByteTrie() *byteTrie { return &byteTrie{nodes: []trieNode{{id: -1}}} }

func (t *byteTrie) insert(p string) {
	cur := 0
	for i := 0; i < len(p); i++ {
		nx, ok := t.nodes[cur].next[p[i]]
		if !ok {
			if t.nodes[cur].next == nil {
				t.nodes[cur].next = map[byte]int32{}
			}
			nx = int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{id: -1})
			t.nodes[cur].next[p[i]] = nx
		}
		cur = int(nx)
	}
}

func (t *byteTrie) setID(p string, id int) {
	cur := 0
	for i := 0; i < len(p); i++ {
		cur = int(t.nodes[cur].next[p[i]])
	}
	if cur != 0 {
		t.nodes[cur].id = int32(id)
	}
}

// freeze builds the flat arrays and drops the maps.
func (t *byteTrie) freeze() {
	n := len(t.nodes)
	t.first, t.count, t.ids = make([]int32, n), make([]uint16, n), make([]int32, n)
	for i := range t.root {
		t.root[i] = -1
	}
	for b, c := range t.nodes[0].next {
		t.root[b] = c
	}
	for i, nd := range t.nodes {
		t.ids[i] = nd.id
		t.first[i] = int32(len(t.labels))
		t.count[i] = uint16(len(nd.next))
		for b := 0; b < 256; b++ {
			if c, ok := nd.next[byte(b)]; ok {
				t.labels = append(t.labels, byte(b))
				t.kids = append(t.kids, c)
			}
		}
	}
	t.nodes, t.frozen = nil, true
}

// child returns the child of node by byte c, or -1.
func (t *byteTrie) child(node int32, c byte) int32 {
	if node == 0 {
		return t.root[c]
	}
	lo, hi := int(t.first[node]), int(t.first[node])+int(t.count[node])
	for lo < hi {
		m := (lo + hi) / 2
		switch l := t.labels[m]; {
		case l == c:
			return t.kids[m]
		case l < c:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

// prefixes calls f with the end and id of every piece that s[start:]
// starts with, shortest first.
func (t *byteTrie) prefixes(s string, start int, f func(end, id int)) error {
	cur := int32(0)
	for i := start; i < len(s); i++ {
		cur = t.child(cur, s[i])
		if cur < 0 {
			return nil
		}
		if id := t.ids[cur]; id >= 0 {
			f(i+1, int(id))
		}
	}
	return nil
}
