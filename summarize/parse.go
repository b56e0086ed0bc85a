package summarize

import (
	"errors"
	"regexp"
	"strings"
	"unicode"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
)

// Reading is what one summarizer answer says.
type Reading struct {
	// None reports an answer that says the context holds nothing about
	// the atom: "None", as the prompt asks, or its equivalents (below).
	None bool
	// Text is the summary; "" when None.
	Text string
	// Start and End delimit Text, in bytes, in the answer: the tokens
	// that spell it give the summary's probability.
	Start, End int
}

// ReadSummary reads a summarizer's answer. It accepts the shapes chat
// models write (the corpus in testdata/llm-answers/summarizer has one of
// each): the summary alone; after a label ("Summary:", "**SUMMARY:**",
// "Summarized context:") or a preamble line ("Here is the summary of the
// context with respect to the atom:", "Sure!"); in a code fence, as IBM's
// older prompt asked for (the first fence wins, as IBM reads it); in
// quotes or bold; before a closing line ("Let me know if…"). Reasoning in
// <think> blocks and end-of-turn tokens are set aside.
//
// An answer whose first line is "None" (any case, with quotes, emphasis
// or a full stop, alone or followed by an explanation) says the context
// holds nothing about the atom; so do "N/A", "Irrelevant", "Not relevant"
// and "No relevant information" in its place. IBM's code takes only the
// exact answer "None" so, and keeps "None. The context is about
// rainforests." as a summary; that is a model saying None and explaining
// it, and is read as None here.
//
// An empty answer, one that is only reasoning (a <think> block never
// closed, or nothing after it) or only a label, and an answer too long to
// be one are errors: the pipeline asks again, and never takes them as
// None. IBM's code drops such a context as irrelevant.
func ReadSummary(answer string) (Reading, error) {
	if err := llmanswer.CheckSize(answer); err != nil {
		return Reading{}, err
	}
	t, err := llmanswer.MaskThink(answer)
	if err != nil {
		return Reading{}, err
	}
	lo, hi := trim(t, 0, len(t))
	if lo == hi {
		return Reading{}, errors.New("the answer is empty")
	}
	lo, hi = fenced(t, lo, hi)
	for changed := true; changed && lo < hi; {
		changed = false
		if l, ok := afterPreamble(t, lo, hi); ok {
			lo, changed = l, true
		}
		if m := label.FindStringIndex(t[lo:hi]); m != nil && m[1] > 0 {
			lo, changed = lo+m[1], true
		}
		if h, ok := beforeClosing(t, lo, hi); ok {
			hi, changed = h, true
		}
		if l, h, ok := unwrap(t, lo, hi); ok {
			lo, hi, changed = l, h, true
		}
		lo, hi = trim(t, lo, hi)
	}
	if lo == hi {
		return Reading{}, errors.New("the answer holds no summary, only a label or preamble")
	}
	if saysNone(t[lo:hi]) {
		return Reading{None: true, Start: lo, End: hi}, nil
	}
	return Reading{Text: t[lo:hi], Start: lo, End: hi}, nil
}

// trim narrows [lo, hi) to leave out surrounding space (any Unicode
// space, as strings.TrimSpace).
func trim(t string, lo, hi int) (int, int) {
	span := t[lo:hi]
	lo += len(span) - len(strings.TrimLeftFunc(span, unicode.IsSpace))
	return lo, lo + len(strings.TrimSpace(span))
}

// fenced narrows [lo, hi) to the inside of its first code fence, if it
// has one: after the opening ``` and a language word on its line, up to
// the closing ``` (or the end, when the fence is never closed).
func fenced(t string, lo, hi int) (int, int) {
	i := strings.Index(t[lo:hi], "```")
	if i < 0 {
		return lo, hi
	}
	body := lo + i + 3
	if c := strings.Index(t[body:hi], "```"); c >= 0 && !strings.Contains(t[body:body+c], "\n") {
		return trim(t, body, body+c) // ```inline```
	}
	if nl := strings.IndexByte(t[body:hi], '\n'); nl >= 0 && langTag.MatchString(t[body:body+nl]) {
		body += nl + 1
	}
	end := hi
	if c := strings.Index(t[body:hi], "```"); c >= 0 {
		end = body + c
	}
	return trim(t, body, end)
}

var langTag = regexp.MustCompile(`^[ \t]*[\w+-]*[ \t]*\r?$`)

// label matches a label that opens the summary: "Summary:", "**SUMMARY:**",
// "Summarized context:", "## Summary:" (IBM's prompts end in "SUMMARY:"
// and "SUMMARIZED CONTEXT:", which models repeat).
var label = regexp.MustCompile(`(?i)^[*_#\s]*(?:synthetic\s+summary|summari[sz]ed\s+context|context\s+summary|summary)[*_\s]*[:：][*_]*[ \t]*`)

// preamble matches a line that announces the summary rather than being
// it: "Here is the summary of the context with respect to the atom:",
// "Sure!", "Sure, here's a summary:".
var preamble = regexp.MustCompile(`(?i)^[*_\s]*(?:(?:sure|certainly|of course|okay)[!.,]*(?:[ \t][^\n]*:)?|here(?:'s| is| are)\b[^\n]*:|[^\n]*\bsummar(?:y|ies|i[sz]ed?)\b[^\n]*:)[*_\s]*$`)

// afterPreamble is where the summary starts after a preamble line that
// opens [lo, hi), when it has one: hi when the preamble is all there is.
func afterPreamble(t string, lo, hi int) (int, bool) {
	end := hi
	if nl := strings.IndexByte(t[lo:hi], '\n'); nl >= 0 {
		end = lo + nl
	}
	line := t[lo:end]
	if !preamble.MatchString(line) || len(strings.Fields(line)) > 20 {
		return lo, false
	}
	return min(end+1, hi), true
}

// closing matches a last line that offers more help instead of
// summarizing.
var closing = regexp.MustCompile(`(?i)^[*_\s]*(?:let me know|please let me know|i hope this helps|hope this helps|feel free to|is there anything else)\b`)

// beforeClosing is where the summary ends before a closing line that ends
// [lo, hi), when it has one and something comes before it.
func beforeClosing(t string, lo, hi int) (int, bool) {
	nl := strings.LastIndexByte(t[lo:hi], '\n')
	if nl < 0 || !closing.MatchString(t[lo+nl+1:hi]) {
		return hi, false
	}
	return lo + nl, true
}

// unwrap takes away quotes or bold around the whole of [lo, hi), when
// they wrap it and nothing inside closes them.
func unwrap(t string, lo, hi int) (int, int, bool) {
	s := t[lo:hi]
	for _, w := range [][2]string{{`"`, `"`}, {"“", "”"}, {"**", "**"}, {"__", "__"}, {"`", "`"}} {
		if len(s) > len(w[0])+len(w[1]) && strings.HasPrefix(s, w[0]) && strings.HasSuffix(s, w[1]) {
			inner := s[len(w[0]) : len(s)-len(w[1])]
			if !strings.Contains(inner, w[0]) && !strings.Contains(inner, w[1]) {
				return lo + len(w[0]), hi - len(w[1]), true
			}
		}
	}
	return lo, hi, false
}

// none matches an answer that opens with "None" or its equivalents.
var none = regexp.MustCompile("(?i)^[\\s*_\"'`“”]*(?:none|n/a|irrelevant|not relevant|no relevant information)\\b[*_\"'`“”]*")

// saysNone reports a summary that is None, alone or followed by an
// explanation on its line after a punctuation mark, or on the next lines.
func saysNone(s string) bool {
	m := none.FindStringIndex(s)
	if m == nil {
		return false
	}
	rest := strings.TrimLeft(s[m[1]:], " \t")
	if rest == "" || rest[0] == '\n' || rest[0] == '\r' {
		return true
	}
	for _, p := range []string{".", "!", ";", ":", ",", "—", "–", "-", "("} {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}

// noInformation are phrases that make a summary irrelevant wherever they
// appear (any case): it says the context holds nothing about the atom,
// states belief rather than the context, talks about the atom instead of
// summarizing, or summarizes an error page. The first groups are IBM
// FactReasoner's (is_relevant_context in src/fact_reasoner/core/utils.py);
// the last holds this project's additions, marked there.
var noInformation = []string{
	// IBM: the context says nothing about the atom.
	"not provide information about the atom",
	"not provide any information about the atom",
	"not provide specific information about the atom",
	"not contain information about the atom",
	"not provide any information related to the atom",
	"not provide specific information related to the atom",
	"not provide information related to the atom",
	"not contain any information about the atom",
	"not contain specific information about the atom",
	"not provide information on the atom",
	"not provide any information on the atom",
	"not provide specific information on the atom",
	"insufficient to make a conclusion about the atom",
	"not provide enough information to make a conclusion about the atom",
	"not contain enough information to make a conclusion about the atom",
	"not provide any relevant information about the atom",
	"information about the atom cannot be found",
	"information is not about the atom",
	"information is not related to the atom",
	// IBM: belief, not the context.
	"is known that",
	"is generally known that",
	"is believed that",
	// IBM: an error page.
	"don't have permission to view this page",
	"due to a 403 forbidden error",
	"shows a 403 forbidden error",
	"is a 403 forbidden error",
	"not have permission to view",
	"not have permission to access",
	"access to the page is forbidden",
	"context is not available",
	"context is not accessible",
	// IBM: no summary, or one about the atom rather than the context.
	"not possible to summarize the context",
	"verify the given atom",
	"atom statement",
	"atom states",
	// This project: more ways models say the same, and error pages other
	// than 403 (a 404, a bot check, a page that needs JavaScript).
	"no information about the atom",
	"no information related to the atom",
	"no relevant information",
	"404 error",
	"404 not found",
	"403 forbidden",
	"page not found",
	"page cannot be found",
	"page could not be found",
	"access denied",
	"enable javascript",
	"javascript is disabled",
	"verify you are human",
	"are you a robot",
}

// Relevant reports whether a summary says something about its atom, by
// IBM FactReasoner's rule (is_relevant_context): it is not empty, holds
// none of the noInformation phrases, and is not a single sentence of the
// form "The context does not …" (one with no comma or semicolon outside
// quotes, which would join a second clause that does say something: "The
// context does not give the season, but it was published in 1811." is
// relevant). Decisions: sentences are split as atomize.SplitSentences
// splits them (IBM: NLTK's punkt); only double quotes (straight or
// curly) count as quotes, since IBM's single quotes pair up apostrophes
// ("Curie's … didn't"); and "context doesn't", "context did not",
// "passage does not" and "text does not" count beside IBM's "the context
// does not".
func Relevant(summary string) bool {
	s := strings.TrimSpace(summary)
	if s == "" || saysNone(s) {
		return false
	}
	lower := strings.ToLower(s)
	for _, p := range noInformation {
		if strings.Contains(lower, p) {
			return false
		}
	}
	sentences := atomize.SplitSentences(s)
	if len(sentences) == 1 && !punctuationOutsideQuotes(sentences[0]) && lacks.MatchString(sentences[0]) {
		return false
	}
	return true
}

// lacks matches a sentence saying that the context lacks something.
var lacks = regexp.MustCompile(`(?i)\b(?:context|passage|text)\s+(?:does\s+not|doesn't|doesn’t|did\s+not|didn't)\b`)

// punctuationOutsideQuotes reports a comma or semicolon outside double
// quotes.
func punctuationOutsideQuotes(s string) bool {
	quoted := false
	for _, r := range s {
		switch r {
		case '"':
			quoted = !quoted
		case '“':
			quoted = true
		case '”':
			quoted = false
		case ',', ';':
			if !quoted {
				return true
			}
		}
	}
	return false
}
