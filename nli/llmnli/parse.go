package llmnli

import (
	"errors"
	"regexp"
	"strings"
	"unicode"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
)

// Answer is what one model answer says.
type Answer struct {
	Label nli.Label
	// Probability is exp of the mean log probability of the answer's label
	// tokens (see ParseV1 and ParseV2). It is NaN when the answer came
	// without log probabilities for those tokens.
	Probability float64
	// Tokens is how many tokens the probability averages over.
	Tokens int
}

// Reading is where an answer names its label.
type Reading struct {
	Label nli.Label
	// Start and End delimit, in bytes, the text the label was read from:
	// the label word, the text inside its brackets, or, for an answer that
	// is the label alone, the whole answer but its surrounding space.
	Start, End int
	// Alone reports an answer that is the label and nothing else, with at
	// most quotes, brackets, emphasis and punctuation around it: prompt
	// v1's shape.
	Alone bool
}

// ReadLabel finds the label an answer names. It accepts the shapes of the
// reference's prompts and of the chat models people use (the corpus in
// testdata/llm-answers/nli has one of each), by these rules, the first
// that applies deciding:
//
//  1. the answer is a label alone ("entailment", "Contradiction.",
//     "**Neutral**", "[entailment]", "`neutral`"), in any case;
//  2. the last label in square brackets ("[entailment]", "[ Neutral. ]",
//     "**[Contradiction]**"), as the reference reads it; other brackets,
//     such as a citation "[1]" after the label, do not count;
//  3. the last label right after "Answer:", "Final answer:", "Label:",
//     "Relationship:", "Verdict:", "Classification:", "Prediction:" or
//     "Output:", or after "the answer is", "the label is" and the like,
//     bold or not;
//  4. a label that opens the answer's first line, alone or followed by
//     punctuation and an explanation ("Neutral. The premise…");
//  5. the last bold label ("is **contradiction**");
//  6. the last label word in the answer, as the reference falls back to,
//     leaving out negated ones ("not entailment", "neither … nor …",
//     "rather than", "than").
//
// Labels inside <think> blocks are not read. An answer that names no label
// by these rules is an error: it is never taken as neutral.
func ReadLabel(answer string) (Reading, error) {
	if err := llmanswer.CheckSize(answer); err != nil {
		return Reading{}, err
	}
	text, err := llmanswer.MaskThink(answer)
	if err != nil {
		return Reading{}, err
	}
	if strings.TrimSpace(text) == "" {
		return Reading{}, errors.New("the answer is empty")
	}
	if unfinishedLabel(text) {
		return Reading{}, errors.New("the answer ends in an unfinished [label]: it was cut off")
	}
	// 1. The label alone.
	lo, hi := trimmedSpan(text)
	if l, ok := exactLabel(text[lo:hi]); ok {
		return Reading{Label: l, Start: lo, End: hi, Alone: true}, nil
	}
	// 2. The last bracketed label: the text inside the brackets.
	if m := bracketed.FindAllStringSubmatchIndex(text, -1); m != nil {
		last := m[len(m)-1]
		in0, in1 := last[2], last[3]
		return reading(text, last[4], last[5], in0, in1), nil
	}
	// 3. The last label after a marker.
	if m := marked.FindAllStringSubmatchIndex(text, -1); m != nil {
		last := m[len(m)-1]
		return reading(text, last[2], last[3], last[2], last[3]), nil
	}
	// 4. A label opening the first line.
	if m := firstLine.FindStringSubmatchIndex(text); m != nil {
		return reading(text, m[2], m[3], m[2], m[3]), nil
	}
	// 5. The last bold label.
	if m := bold.FindAllStringSubmatchIndex(text, -1); m != nil {
		last := m[len(m)-1]
		return reading(text, last[2], last[3], last[2], last[3]), nil
	}
	// 6. The last label word not negated.
	words := labelWord.FindAllStringIndex(text, -1)
	for i := len(words) - 1; i >= 0; i-- {
		w := words[i]
		if negated.MatchString(text[max(0, w[0]-40):w[0]]) {
			continue
		}
		return reading(text, w[0], w[1], w[0], w[1]), nil
	}
	if len(words) > 0 {
		return Reading{}, errors.New("the answer names labels only to negate them")
	}
	return Reading{}, errors.New("the answer names no label (entailment, contradiction or neutral)")
}

// unfinishedLabel reports an answer that ends in a '[' never closed,
// followed by nothing but the start of a label ("[entail"): an answer cut
// off where it gave its label, which must not be read from an earlier one.
func unfinishedLabel(text string) bool {
	i := strings.LastIndexByte(text, '[')
	if i < 0 || strings.IndexByte(text[i:], ']') >= 0 {
		return false
	}
	rest := strings.ToLower(strings.Trim(text[i+1:], " \t\r\n*_"))
	for _, l := range []string{"entailment", "contradiction", "neutral"} {
		if strings.HasPrefix(l, rest) {
			return true
		}
	}
	return false
}

// reading is the Reading of the label word text[w0:w1], read from the
// span [s0, s1) trimmed of spaces.
func reading(text string, w0, w1, s0, s1 int) Reading {
	l, _ := nli.ParseLabel(strings.ToLower(text[w0:w1]))
	for s0 < s1 && isSpace(text[s0]) {
		s0++
	}
	for s1 > s0 && isSpace(text[s1-1]) {
		s1--
	}
	return Reading{Label: l, Start: s0, End: s1}
}

const labels = `(entailment|contradiction|neutral)`

// quote is the characters that may wrap a label: quotes, a backtick, a
// parenthesis.
const quote = `"'` + "`" + `(`

var (
	labelWord = regexp.MustCompile(`(?i)\b(?:entailment|contradiction|neutral)\b`)
	// bracketed captures the inside of the brackets and the label word.
	bracketed = regexp.MustCompile(`(?i)\[(\s*(?:\*\*|__)?\s*` + labels + `\s*(?:\*\*|__)?\s*[.!?]?\s*)\]`)
	marked    = regexp.MustCompile(`(?i)\b(?:final\s+answer|answer|label|relationship|relation|verdict|classification|prediction|output)\s*(?:\*\*|__)?\s*(?:[:：]|\s+is\b\s*:?)\s*(?:\*\*|__|[` + quote + `])*\s*\b` + labels + `\b`)
	firstLine = regexp.MustCompile(`(?i)^[\s*_` + quote + `]*` + labels + `\b[*_)` + quote + `]*\s*(?:$|\n|[.:;,!—–-])`)
	bold      = regexp.MustCompile(`(?i)(?:\*\*|__)\s*` + labels + `\s*[.!]?\s*(?:\*\*|__)`)
	negated   = regexp.MustCompile(`(?i)\b(?:not|no|neither|nor|isn't|aren't|wasn't|rather than|instead of|than)\s+(?:an?\s+|the\s+)?(?:\*\*|__)?$`)
)

// trimmedSpan is the span of text without its surrounding space.
func trimmedSpan(text string) (int, int) {
	lo, hi := 0, len(text)
	for lo < hi && isSpace(text[lo]) {
		lo++
	}
	for hi > lo && isSpace(text[hi-1]) {
		hi--
	}
	return lo, hi
}

// ParseV1 reads an answer to prompt v1, which asks for the bare label: its
// label by ReadLabel. When the answer is the label alone, the probability
// is exp(mean log probability of the answer's tokens) (docs/nli.md): the
// tokens that make up the text of the answer, so that an end-of-turn token
// the server lists after it is left out. Otherwise it is that of the
// tokens of the label ReadLabel found.
func ParseV1(content string, tokens []llm.Token) (Answer, error) {
	r, err := ReadLabel(content)
	if err != nil {
		return Answer{}, err
	}
	return answer(content, tokens, r), nil
}

// ParseV2 reads an answer to prompt v2, which asks for reasoning and then
// the label in square brackets: its label by ReadLabel. The probability is
// exp(mean log probability of the tokens that overlap the text inside the
// brackets, spaces not counted) (docs/nli.md); a token that holds a bracket and
// part of the label (" [ent") counts, one that holds only a bracket (and
// spaces) does not. When the label is not in brackets, the tokens are
// those of the label ReadLabel found.
func ParseV2(content string, tokens []llm.Token) (Answer, error) {
	r, err := ReadLabel(content)
	if err != nil {
		return Answer{}, err
	}
	if r.Alone {
		// "[neutral]" alone: the tokens inside the brackets, as for any
		// bracketed label.
		if m := bracketed.FindStringSubmatchIndex(content[r.Start:r.End]); m != nil {
			r = reading(content, r.Start+m[4], r.Start+m[5], r.Start+m[2], r.Start+m[3])
		}
	}
	return answer(content, tokens, r), nil
}

// answer is the Answer of a reading: the label and the probability of the
// tokens over the span it was read from.
func answer(content string, tokens []llm.Token, r Reading) Answer {
	p, n := llmanswer.SpanProbability(content, tokens, r.Start, r.End)
	return Answer{Label: r.Label, Probability: p, Tokens: n}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// exactLabel parses a label name alone, in any case, with surrounding
// space, quotes, brackets, emphasis and punctuation removed.
func exactLabel(s string) (nli.Label, bool) {
	s = strings.ToLower(strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)
	}))
	l, err := nli.ParseLabel(s)
	return l, err == nil
}
