package hftokenizer

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// addedToken is an entry of added_tokens: a string matched in the text
// before the model sees it and given its id whole.
type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// matchSet finds added tokens in a string, leftmost first and the longest
// at a position (Aho-Corasick's LeftmostLongest, as the Rust crate).
type matchSet struct {
	patterns []string // longest first
	tokens   []*addedToken
	byFirst  [256][]int // indices into patterns by first byte
}

func newMatchSet(patterns []string, tokens []*addedToken) *matchSet {
	m := &matchSet{}
	order := make([]int, len(patterns))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(patterns[order[a]]) > len(patterns[order[b]]) })
	for _, i := range order {
		if patterns[i] == "" {
			continue
		}
		k := len(m.patterns)
		m.patterns = append(m.patterns, patterns[i])
		m.tokens = append(m.tokens, tokens[i])
		m.byFirst[patterns[i][0]] = append(m.byFirst[patterns[i][0]], k)
	}
	return m
}

// next returns the first match at or after from: its range and token.
func (m *matchSet) next(s string, from int) (a, b int, t *addedToken) {
	for i := from; i < len(s); i++ {
		for _, k := range m.byFirst[s[i]] {
			if strings.HasPrefix(s[i:], m.patterns[k]) {
				return i, i + len(m.patterns[k]), m.tokens[k]
			}
		}
	}
	return -1, -1, nil
}

func (m *matchSet) empty() bool { return len(m.patterns) == 0 }

// endsWithWord and startsWithWord are the Rust regexes \w$ and ^\w.
func endsWithWord(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isRegexWord(r)
}

func startsWithWord(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isRegexWord(r)
}

// splitAdded cuts n at the added tokens of set: the tokens' pieces come
// back done, with their one token.
func (m *matchSet) split(n *normalized) []piece {
	s := n.norm
	if m.empty() || s == "" {
		return []piece{{n: n}}
	}
	type found struct {
		a, b int
		t    *addedToken
	}
	var splits []found
	start := 0 // Rust's start_offset
	for pos := 0; pos < len(s); {
		a, b, t := m.next(s, pos)
		if t == nil {
			break
		}
		pos = b
		if t.SingleWord {
			startSpace := a == 0 || !endsWithWord(s[:a])
			stopSpace := b == len(s) || !startsWithWord(s[b:])
			if !startSpace || !stopSpace {
				continue
			}
		}
		if t.LStrip {
			ns := len(strings.TrimRightFunc(s[:a], isWhitespace))
			a = max(ns, start)
		}
		if t.RStrip {
			// The search goes on from the match's own end, as the Rust
			// crate's iterator does.
			b += len(s[b:]) - len(strings.TrimLeftFunc(s[b:], isWhitespace))
		}
		if start < a {
			splits = append(splits, found{start, a, nil})
		}
		splits = append(splits, found{a, b, t})
		start = b
	}
	if start != len(s) {
		splits = append(splits, found{start, len(s), nil})
	}
	out := make([]piece, 0, len(splits))
	for _, f := range splits {
		sl := n.slice(f.a, f.b)
		if f.t == nil {
			out = append(out, piece{n: sl})
			continue
		}
		out = append(out, piece{n: sl, tokens: []token{{f.t.ID, sl.norm, 0, len(sl.norm)}}, done: true})
	}
	return out
}
