package crossenc

import "github.com/factreasoner/factreasoner-go/hftokenizer"

// Chunk plan: premises longer than the window are cut into chunks of at
// most budget tokens. A chunk ends at a sentence boundary when one falls
// inside the window, else between words, else at the budget; the cuts are
// greedy (each chunk is as long as it can be). Boundaries are found from
// the text and the token offsets alone, so that the plan is the same
// whether or not a tokenizer counts leading spaces in its offsets.

// isSpaceByte reports ASCII whitespace.
func isSpaceByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	}
	return false
}

// sentenceCuts marks the token indices before which a sentence starts: the
// first token at or after a whitespace byte that follows '.', '!' or '?'
// (closing quotes and brackets allowed between).
func sentenceCuts(text string, offsets [][2]int) []bool {
	cuts := make([]bool, len(offsets)+1)
	next := 0 // first token not yet passed
	for q := 1; q < len(text); q++ {
		if !isSpaceByte(text[q]) {
			continue
		}
		p := q - 1
		for p >= 0 && (text[p] == '"' || text[p] == '\'' || text[p] == ')' || text[p] == ']') {
			p--
		}
		if p < 0 || (text[p] != '.' && text[p] != '!' && text[p] != '?') {
			continue
		}
		for next < len(offsets) && offsets[next][0] < q {
			next++
		}
		if next > 0 && next < len(offsets) {
			cuts[next] = true
		}
	}
	return cuts
}

// wordCuts marks the token indices that start a word: a gap between the
// token and the one before, or a token that starts with whitespace.
func wordCuts(text string, offsets [][2]int) []bool {
	cuts := make([]bool, len(offsets)+1)
	for i := 1; i < len(offsets); i++ {
		s := offsets[i][0]
		if s > offsets[i-1][1] || (s < len(text) && isSpaceByte(text[s])) {
			cuts[i] = true
		}
	}
	return cuts
}

// Span is a range [Start, End) of tokens.
type Span struct{ Start, End int }

// chunkPremise cuts n premise tokens into spans of at most budget tokens.
func chunkPremise(text string, offsets [][2]int, budget int) []Span {
	n := len(offsets)
	if n <= budget {
		return []Span{{0, n}}
	}
	sent, word := sentenceCuts(text, offsets), wordCuts(text, offsets)
	var out []Span
	for a := 0; a < n; {
		if n-a <= budget {
			out = append(out, Span{a, n})
			break
		}
		lim := a + budget
		b := lastCut(sent, a, lim)
		if b < 0 {
			if b = lastCut(word, a, lim); b < 0 {
				b = lim
			}
		}
		out = append(out, Span{a, b})
		a = b
	}
	return out
}

// lastCut returns the largest c in (a, lim] with cuts[c], or -1.
func lastCut(cuts []bool, a, lim int) int {
	for c := lim; c > a; c-- {
		if cuts[c] {
			return c
		}
	}
	return -1
}

// Plan says how one pair is put to the model: the premise chunks and the
// number of hypothesis tokens kept.
type Plan struct {
	Chunks []Span
	// HypothesisTokens is how many of the hypothesis's tokens are used: all
	// of them unless the hypothesis alone takes more than half the window,
	// when it is cut to half (its beginning kept) so that the premise keeps
	// room.
	HypothesisTokens int
	// HypothesisCut reports that the hypothesis was cut.
	HypothesisCut bool
}

// planPair plans a premise/hypothesis pair for a window of maxLen tokens of
// which specials are the model's special tokens.
func planPair(premiseText string, premise, hypothesis hftokenizer.Tokens, maxLen, specials int) Plan {
	room := maxLen - specials
	h := hypothesis.Len()
	if premise.Len()+h <= room {
		return Plan{Chunks: []Span{{0, premise.Len()}}, HypothesisTokens: h}
	}
	cut := false
	if h > room/2 {
		h, cut = room/2, true
	}
	return Plan{
		Chunks:           chunkPremise(premiseText, premise.Offsets, room-h),
		HypothesisTokens: h,
		HypothesisCut:    cut,
	}
}
