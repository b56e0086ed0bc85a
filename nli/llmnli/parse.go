package llmnli

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
)

// Answer is what one model answer says.
type Answer struct {
	// Valid reports whether the answer names a label. An answer that does
	// not is counted as neutral by the classifier.
	Valid bool
	Label nli.Label
	// Probability is exp of the mean log probability of the answer's label
	// tokens (see ParseV1 and ParseV2). It is NaN when the answer came
	// without log probabilities for those tokens, and 0 when the answer is
	// not valid.
	Probability float64
	// Tokens is how many tokens the probability averages over.
	Tokens int
}

// ParseV1 reads an answer to prompt v1, which asks for the bare label.
//
// The label is the answer text with surrounding space, quotes, brackets and
// punctuation removed, in any case; failing that, the one label word that
// occurs in the answer (an answer naming two different labels names none).
// The probability is exp(mean log probability of the answer's tokens): the
// tokens that make up the text of the answer, so that an end-of-turn token
// the server lists after it is left out.
func ParseV1(content string, tokens []llm.Token) Answer {
	label, ok := v1Label(content)
	if !ok {
		return Answer{}
	}
	a := Answer{Valid: true, Label: label, Probability: math.NaN()}
	ts := newTokenText(tokens)
	if ts == nil {
		return a
	}
	lo, hi, found := ts.locate(content)
	if !found {
		return a
	}
	a.Probability, a.Tokens = ts.meanProb(lo, hi)
	return a
}

// ParseV2 reads an answer to prompt v2, which asks for reasoning and then
// the label in square brackets.
//
// The label is the text between the last '[' of the answer and the first
// ']' after it, trimmed and in any case; the probability is exp(mean log
// probability of the tokens that overlap that text, spaces inside the
// brackets not counted). A token that holds a bracket and part of the label
// (" [ent") counts; one that holds only a bracket (and spaces) does not.
func ParseV2(content string, tokens []llm.Token) Answer {
	lb, rb, ok := lastBracket([]byte(content))
	if !ok {
		return Answer{}
	}
	label, ok := exactLabel(content[lb+1 : rb])
	if !ok {
		return Answer{}
	}
	a := Answer{Valid: true, Label: label, Probability: math.NaN()}
	ts := newTokenText(tokens)
	if ts == nil {
		return a
	}
	lo, _, found := ts.locate(content)
	if !found {
		return a
	}
	// The label's own text: spaces inside the brackets do not make a
	// token that holds only them and a bracket part of the label.
	from, to := lb+1, rb
	for from < to && isSpace(content[from]) {
		from++
	}
	for to > from && isSpace(content[to-1]) {
		to--
	}
	a.Probability, a.Tokens = ts.meanProb(lo+from, lo+to)
	return a
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// lastBracket finds the last '[' and the first ']' after it.
func lastBracket(b []byte) (lb, rb int, ok bool) {
	lb = bytes.LastIndexByte(b, '[')
	if lb < 0 {
		return 0, 0, false
	}
	r := bytes.IndexByte(b[lb+1:], ']')
	if r < 0 {
		return 0, 0, false
	}
	return lb, lb + 1 + r, true
}

var labelWord = regexp.MustCompile(`(?i)\b(entailment|contradiction|neutral)\b`)

// exactLabel parses a label name alone, in any case, with surrounding
// space, quotes, brackets and punctuation removed.
func exactLabel(s string) (nli.Label, bool) {
	s = strings.ToLower(strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)
	}))
	l, err := nli.ParseLabel(s)
	return l, err == nil
}

func v1Label(s string) (nli.Label, bool) {
	if l, ok := exactLabel(s); ok {
		return l, true
	}
	var found []nli.Label
	for _, m := range labelWord.FindAllString(s, -1) {
		l, _ := nli.ParseLabel(strings.ToLower(m))
		if len(found) > 0 && found[0] != l {
			return nli.Neutral, false
		}
		found = append(found, l)
	}
	if len(found) == 0 {
		return nli.Neutral, false
	}
	return found[0], true
}

// tokenText is the text of an answer's tokens laid end to end, with each
// token's byte range in it.
type tokenText struct {
	text   []byte
	start  []int // start[i] is token i's offset; start[len] = len(text)
	tokens []llm.Token
}

func newTokenText(tokens []llm.Token) *tokenText {
	if len(tokens) == 0 {
		return nil
	}
	t := &tokenText{tokens: tokens, start: make([]int, len(tokens)+1)}
	for i, tok := range tokens {
		t.start[i] = len(t.text)
		t.text = append(t.text, tok.Bytes...)
	}
	t.start[len(tokens)] = len(t.text)
	return t
}

// locate finds the answer text in the token text. Usually they are equal,
// or the tokens go on with an end-of-turn marker; some servers also keep
// hidden reasoning tokens before the answer, or trim the answer's
// surrounding space. It fails when the tokens do not spell the answer, in
// which case their probabilities cannot be attributed to its parts.
func (t *tokenText) locate(content string) (lo, hi int, ok bool) {
	for _, c := range []string{content, strings.TrimSpace(content)} {
		if c == "" {
			continue
		}
		if i := bytes.LastIndex(t.text, []byte(c)); i >= 0 {
			return i, i + len(c), true
		}
	}
	return 0, 0, false
}

// meanProb is exp(mean log probability) of the tokens that overlap the
// byte range [lo, hi) of the text, with the number of such tokens. Tokens
// with no text (end markers some servers list) are not part of any range.
// The result is NaN when no token overlaps the range or one of those that
// do has no log probability.
func (t *tokenText) meanProb(lo, hi int) (float64, int) {
	sum, n := 0.0, 0
	for i, tok := range t.tokens {
		s, e := t.start[i], t.start[i+1]
		if s == e || e <= lo || s >= hi {
			continue
		}
		if math.IsNaN(tok.Logprob) {
			return math.NaN(), 0
		}
		sum += tok.Logprob
		n++
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return math.Exp(sum / float64(n)), n
}
