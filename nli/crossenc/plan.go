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

// chunkTokens cuts n tokens into spans of at most budget tokens.
func chunkTokens(text string, offsets [][2]int, budget int) []Span {
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

// Plan says how one pair is put to the model: every premise chunk with
// every hypothesis chunk, one sequence each, hypothesis chunk by
// hypothesis chunk (see Sequence).
type Plan struct {
	// Chunks are the premise's chunks.
	Chunks []Span
	// Hypotheses are the hypothesis's chunks: the whole hypothesis, unless
	// it takes more than half the window by itself (an FR3 context–context
	// pair, whose hypothesis is a passage), when it is cut at sentence
	// ends into chunks of at most half the window, so that no part of it
	// goes unread (see aggregate for how their answers combine).
	Hypotheses []Span
}

// Len returns the number of sequences of the plan.
func (p Plan) Len() int { return len(p.Chunks) * len(p.Hypotheses) }

// Sequence returns the premise and hypothesis chunks of sequence k: the
// sequences go through the premise chunks for each hypothesis chunk.
func (p Plan) Sequence(k int) (premise, hypothesis Span) {
	return p.Chunks[k%len(p.Chunks)], p.Hypotheses[k/len(p.Chunks)]
}

// planPair plans a premise/hypothesis pair for a window of maxLen tokens of
// which specials are the model's special tokens.
func planPair(premiseText string, premise hftokenizer.Tokens, hypothesisText string, hypothesis hftokenizer.Tokens, maxLen, specials int) Plan {
	room := maxLen - specials
	h := hypothesis.Len()
	whole := []Span{{0, h}}
	if premise.Len()+h <= room {
		return Plan{Chunks: []Span{{0, premise.Len()}}, Hypotheses: whole}
	}
	if h <= room/2 {
		return Plan{Chunks: chunkTokens(premiseText, premise.Offsets, room-h), Hypotheses: whole}
	}
	hyps := chunkTokens(hypothesisText, hypothesis.Offsets, room/2)
	longest := 0
	for _, c := range hyps {
		longest = max(longest, c.End-c.Start)
	}
	return Plan{Chunks: chunkTokens(premiseText, premise.Offsets, room-longest), Hypotheses: hyps}
}
