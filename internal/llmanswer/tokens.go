package llmanswer

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/llm"
)

// SpanProbability is exp(mean log probability) of the answer's tokens that
// spell the bytes [start, end) of content, with the number of those
// tokens: the probability the stages give what they read from that part of
// an answer (an NLI label, a summary). A token counts when it overlaps the
// span; tokens with no text (end markers some servers list) and tokens
// past the answer's text (an end-of-turn token) never do. The result is
// NaN when the tokens do not spell the answer, when no token overlaps the
// span, or when one that does came without a log probability: then the
// probability cannot be told from the tokens.
func SpanProbability(content string, tokens []llm.Token, start, end int) (p float64, n int) {
	ts := newTokenText(tokens)
	if ts == nil {
		return math.NaN(), 0
	}
	lo, shift, found := ts.locate(content)
	if !found {
		return math.NaN(), 0
	}
	return ts.meanProb(lo+start-shift, lo+end-shift)
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
// surrounding space. It returns where the answer's text starts in the
// token text, and how many bytes of the answer's leading space the tokens
// left out: byte i of the answer is byte lo+i-shift of the token text. It
// fails when the tokens do not spell the answer, in which case their
// probabilities cannot be attributed to its parts.
func (t *tokenText) locate(content string) (lo, shift int, ok bool) {
	if content == "" {
		return 0, 0, false
	}
	if i := bytes.LastIndex(t.text, []byte(content)); i >= 0 {
		return i, 0, true
	}
	trimmed := strings.TrimSpace(content)
	if trimmed == "" {
		return 0, 0, false
	}
	if i := bytes.LastIndex(t.text, []byte(trimmed)); i >= 0 {
		return i, strings.Index(content, trimmed), true
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

// Probability is the probability a stage gives what it read from an
// answer: p, from the tokens' log probabilities, when they gave one
// (fromTokens); else, p being NaN, the stage's fixed probability. A
// negative fixed makes such an answer an error naming the model and its
// endpoint, and what the tokens failed to cover (part: "the label", "the
// summary").
func Probability(p, fixed float64, c *llm.Client, r *llm.Response, part string) (_ float64, fromTokens bool, _ error) {
	if !math.IsNaN(p) {
		return p, true, nil
	}
	if fixed < 0 {
		what := "no token log probabilities"
		if r.Tokens != nil {
			what = "token log probabilities that do not cover " + part
		}
		return 0, false, fmt.Errorf("model %s at %s answered %q with %s, and this run requires them: no fixed probability is allowed for answers without them (see docs/llm.md for servers that return them)",
			c.Model(), c.Endpoint(), Clip(r.Content, 80), what)
	}
	return fixed, false, nil
}

// CountUnreadable counts an *llm.UnreadableAnswerError in a stage's
// counters: the re-asks it took and the answer that stayed unreadable. It
// reports whether err is one.
func CountUnreadable(err error, reasks, unreadable *atomic.Int64) bool {
	var ue *llm.UnreadableAnswerError
	if !errors.As(err, &ue) {
		return false
	}
	reasks.Add(int64(ue.Attempts - 1))
	unreadable.Add(1)
	return true
}
