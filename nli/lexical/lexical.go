// Package lexical is a rough NLI fallback that needs no model: content-word
// coverage for entailment, and number, date and negation mismatches on
// covered content for contradiction. It is for trying the tool, not for
// results: words are not meaning.
package lexical

import (
	"context"
	"strconv"
	"strings"
	"unicode"

	"github.com/factreasoner/factreasoner-go/nli"
)

// Model names the version of the method. It changes whenever the method's
// answers change, so that caches keyed on it stay valid.
const Model = "coverage-v1"

// Classifier is the lexical NLI fallback. Its rules were fixed from first
// principles, not fitted to any labelled pairs:
//
// Words. Texts are cut into tokens at anything that is not a letter or a
// digit (a number keeps its inner "," and "."). A content word is a word
// of two or more letters that is not an English function word (articles,
// pronouns, prepositions, conjunctions, auxiliaries, quantifiers such as
// "many" or "several"). Words are compared by a light stem: a possessive
// or plural s, -ed and -ing are removed, and a final e or y, so that
// "appeared", "appears" and "appear" are one word. "n't" is the negation
// "not"; the negations are not, no, never, none, nothing, nobody, neither,
// nor, without and cannot.
//
// Numbers and dates. A number (digits, or "two" to "twenty" and the tens
// in words), a year (1000–2099), a decade ("1970s") and a capitalised month
// name are quantities. Two quantities are comparable when they are of the
// same kind (a year and a decade are comparable: they agree when the year
// lies in the decade).
//
// Coverage. The premise is read in windows of two consecutive sentences
// (sentences end at . ! ? ; or a line break); a hypothesis of several
// sentences is compared with the whole premise. The hypothesis's subject,
// the capitalised words it opens with ("Marie Curie" in "Marie Curie was
// born in Warsaw"), may be named anywhere in the premise, since a passage
// names what it is about once; every other content word must occur in the
// window. The coverage c of a window is the share of the hypothesis's
// content words found so.
//
// Verdict. In a window with c ≥ 3/4:
//   - entailment when every quantity of the hypothesis agrees with a
//     comparable quantity of the window, and the polarities agree;
//   - contradiction when a quantity of the hypothesis has comparable
//     quantities in the window but agrees with none of them, or the
//     polarities differ.
//
// A negation negates the words after it up to the end of its clause (the
// next punctuation mark or the end of the sentence), the usual scope rule
// of lexical sentiment and negation detection (Pang, Lee and
// Vaithyanathan 2002). The polarity of a one-sentence hypothesis is
// negative when it holds a negation; a window's, when some word of the
// hypothesis found there is negated at each of its occurrences in the
// window. A hypothesis of several sentences has no polarity. The pair is an entailment if some window entails, else
// a contradiction if some window contradicts, else neutral.
//
// Probabilities. The distribution over (neutral, entailment, contradiction)
// is a fixed function of the coverage c of the deciding window (for
// neutral, the best window), the label its largest value:
//
//	entailment:     P(e) = 0.55 + 0.35·(c − 3/4)/(1/4) ∈ [0.55, 0.90], P(c) = 0.02
//	contradiction:  P(c) = 0.50 + 0.30·(c − 3/4)/(1/4) ∈ [0.50, 0.80], P(e) = 0.02
//	neutral:        P(e) = 0.05 + 0.30·c,                              P(c) = 0.03
//
// and P(n) the rest. They are not calibrated; the caps keep a verdict made
// of word overlap from ever being near-certain. See docs/lexical-agreement.md
// for what the method gets right and wrong.
type Classifier struct{}

// New returns the lexical backend.
func New() *Classifier { return &Classifier{} }

// Identity reports backend "lexical" with the method's version.
func (*Classifier) Identity() nli.Identity { return nli.Identity{Backend: "lexical", Model: Model} }

// Classify labels each pair from its texts. Texts shared by several pairs
// are analysed once per call. Answers are deterministic.
func (*Classifier) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	premises := make(map[string]*premise)
	hypotheses := make(map[string]*hypothesis)
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		pr, ok := premises[p.Premise]
		if !ok {
			pr = newPremise(p.Premise)
			premises[p.Premise] = pr
		}
		h, ok := hypotheses[p.Hypothesis]
		if !ok {
			h = newHypothesis(p.Hypothesis)
			hypotheses[p.Hypothesis] = h
		}
		out[i] = judge(pr, h)
	}
	return out, nil
}

// The method's constants, fixed a priori (changing one changes Model).
const (
	coverageNeeded = 0.75 // share of the hypothesis's content words
	windowLength   = 2    // sentences per premise window
)

type kind uint8

const (
	content  kind = iota + 1 // a content word
	function                 // a function word
	negation
	number
	year
	decade
	month
)

type token struct {
	kind    kind
	stem    string  // content words
	value   float64 // quantities
	capital bool    // written with a capital letter
	negated bool    // a negation stands before it in its clause
}

// tokenize cuts text into sentences of tokens.
func tokenize(text string) [][]token {
	var sentences [][]token
	var cur []token
	negated := false // a negation came earlier in the clause
	end := func() {
		if len(cur) > 0 {
			sentences = append(sentences, cur)
			cur = nil
		}
	}
	add := func(t token) {
		t.negated = negated
		cur = append(cur, t)
		negated = negated || t.kind == negation
	}
	rs := []rune(text)
	for i := 0; i < len(rs); {
		r := rs[i]
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if strings.ContainsRune(".!?;\n", r) {
				end()
			}
			if unicode.IsPunct(r) || r == '\n' {
				negated = false // a clause ends
			}
			i++
			continue
		}
		j := i
		for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) ||
			(rs[j] == ',' || rs[j] == '.') && unicode.IsDigit(rs[j-1]) && j+1 < len(rs) && unicode.IsDigit(rs[j+1])) {
			j++
		}
		word := string(rs[i:j])
		// An apostrophe joins a clitic: n't is a negation; 's, 're, 'll,
		// 've, 'd and 'm are function words and fall away.
		if j+1 < len(rs) && (rs[j] == '\'' || rs[j] == '’') && unicode.IsLetter(rs[j+1]) {
			k := j + 1
			for k < len(rs) && unicode.IsLetter(rs[k]) {
				k++
			}
			if tail := strings.ToLower(string(rs[j+1 : k])); tail == "t" && strings.HasSuffix(strings.ToLower(word), "n") {
				if stem := word[:len(word)-1]; stem != "" { // a bare "n't" is the negation alone
					add(classify(stem))
				}
				add(token{kind: negation})
				i = k
				continue
			}
			j = k
		}
		add(classify(word))
		i = j
	}
	end()
	return sentences
}

// classify makes a token of one word as written.
func classify(word string) token {
	lower := strings.ToLower(word)
	capital := unicode.IsUpper([]rune(word)[0])
	t := token{capital: capital}
	switch {
	case negations[lower]:
		t.kind = negation
	case capital && months[lower] > 0:
		t.kind, t.value = month, float64(months[lower])
	case numberWords[lower] > 0:
		t.kind, t.value = number, float64(numberWords[lower])
	case unicode.IsDigit([]rune(word)[0]):
		digits := strings.ReplaceAll(lower, ",", "")
		if v, err := strconv.ParseFloat(digits, 64); err == nil {
			t.kind, t.value = number, v
			if len(digits) == 4 && v >= 1000 && v < 2100 && !strings.Contains(digits, ".") {
				t.kind = year
			}
		} else if d, err := strconv.Atoi(strings.TrimSuffix(digits, "s")); err == nil && len(digits) == 5 && d%10 == 0 && strings.HasSuffix(digits, "s") {
			t.kind, t.value = decade, float64(d)
		} else {
			t.kind, t.stem = content, lower // "3d", "covid19"
		}
	case functionWords[lower] || len([]rune(lower)) < 2:
		t.kind = function
	default:
		t.kind, t.stem = content, stem(lower)
	}
	return t
}

// stem removes the commonest English inflections: a plural s (-ies and
// -ied become y), -ed, -ing, then a final e or y. It is deliberately light: it joins
// forms of one word and rarely joins two words.
func stem(w string) string {
	switch {
	case (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")) && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") && len(w) > 3:
		w = w[:len(w)-1]
	}
	for _, suffix := range []string{"ing", "ed"} {
		if strings.HasSuffix(w, suffix) && len(w)-len(suffix) >= 3 {
			w = w[:len(w)-len(suffix)]
			if n := len(w); n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
				w = w[:n-1] // stopped → stop
			}
			break
		}
	}
	if n := len(w); n > 3 && (w[n-1] == 'e' || w[n-1] == 'y') {
		w = w[:n-1]
	}
	return w
}

// premise is a premise as a whole and in windows, with every stem it
// holds.
type premise struct {
	all     []token
	windows [][]token
	stems   map[string]bool
}

func newPremise(text string) *premise {
	sentences := tokenize(text)
	p := &premise{stems: make(map[string]bool)}
	for _, s := range sentences {
		p.all = append(p.all, s...)
	}
	for i := 0; i+windowLength <= len(sentences); i++ {
		var w []token
		for _, s := range sentences[i : i+windowLength] {
			w = append(w, s...)
		}
		p.windows = append(p.windows, w)
	}
	if len(p.windows) == 0 {
		p.windows = [][]token{p.all}
	}
	for _, t := range p.all {
		if t.kind == content {
			p.stems[t.stem] = true
		}
	}
	return p
}

// hypothesis is what the verdict needs of a hypothesis.
type hypothesis struct {
	subject    map[string]bool // stems of the words it opens with, capitalised
	words      map[string]bool // its other content words' stems
	quantities []token
	negative   bool
	multi      bool // several sentences: compared with the whole premise, no polarity
}

func newHypothesis(text string) *hypothesis {
	sentences := tokenize(text)
	h := &hypothesis{subject: make(map[string]bool), words: make(map[string]bool), multi: len(sentences) > 1}
	opening := true
	for _, s := range sentences {
		for _, t := range s {
			switch {
			case t.kind == content && opening && t.capital:
				h.subject[t.stem] = true
				continue
			case t.kind == function && opening && len(h.subject) == 0:
				continue // "The", "In", ... before the subject
			}
			opening = false
			switch t.kind {
			case content:
				if !h.subject[t.stem] {
					h.words[t.stem] = true
				}
			case negation:
				h.negative = true
			case number, year, decade, month:
				h.quantities = append(h.quantities, t)
			}
		}
	}
	return h
}

// judge compares a hypothesis with every window of a premise.
func judge(p *premise, h *hypothesis) nli.Result {
	total := len(h.subject) + len(h.words)
	if total == 0 {
		return result(nli.Neutral, 0)
	}
	subject := 0
	for s := range h.subject {
		if p.stems[s] {
			subject++
		}
	}
	windows := p.windows
	if h.multi {
		windows = [][]token{p.all}
	}
	var best, entails, contradicts float64
	for _, w := range windows {
		found := make(map[string]bool) // word -> asserted (not negated) somewhere
		for _, t := range w {
			if t.kind == content && h.words[t.stem] {
				found[t.stem] = found[t.stem] || !t.negated
			}
		}
		negative := false
		for _, asserted := range found {
			negative = negative || !asserted
		}
		c := float64(subject+len(found)) / float64(total)
		best = max(best, c)
		if c < coverageNeeded {
			continue
		}
		agree, conflict := quantities(h.quantities, w)
		polarity := h.multi || negative == h.negative
		switch {
		case agree && polarity:
			entails = max(entails, c)
		case conflict || !polarity:
			contradicts = max(contradicts, c)
		}
	}
	switch {
	case entails > 0:
		return result(nli.Entailment, entails)
	case contradicts > 0:
		return result(nli.Contradiction, contradicts)
	}
	return result(nli.Neutral, best)
}

// quantities compares the hypothesis's quantities with a window's: agree
// when each agrees with a comparable one there, conflict when one has
// comparable ones there but agrees with none.
func quantities(hq []token, w []token) (agree, conflict bool) {
	agree = true
	for _, q := range hq {
		comparable, matched := false, false
		for _, t := range w {
			if ok, same := compare(q, t); ok {
				comparable, matched = true, matched || same
			}
		}
		agree = agree && matched
		conflict = conflict || comparable && !matched
	}
	return agree, conflict
}

// compare reports whether two tokens are comparable quantities, and if so
// whether they agree.
func compare(a, b token) (comparable, agree bool) {
	inDecade := func(y, d float64) bool { return y >= d && y < d+10 }
	switch {
	case a.kind == year && b.kind == decade:
		return true, inDecade(a.value, b.value)
	case a.kind == decade && b.kind == year:
		return true, inDecade(b.value, a.value)
	case a.kind == b.kind && a.kind >= number:
		return true, a.value == b.value
	}
	return false, false
}

// result is the verdict's distribution for the deciding coverage c.
func result(l nli.Label, c float64) nli.Result {
	var pe, pc float64
	switch l {
	case nli.Entailment:
		pe, pc = 0.55+0.35*(c-coverageNeeded)/(1-coverageNeeded), 0.02
	case nli.Contradiction:
		pe, pc = 0.02, 0.50+0.30*(c-coverageNeeded)/(1-coverageNeeded)
	default:
		pe, pc = 0.05+0.30*c, 0.03
	}
	dist := make([]float64, 3)
	dist[nli.Neutral], dist[nli.Entailment], dist[nli.Contradiction] = 1-pe-pc, pe, pc
	return nli.Result{Label: l, Probability: dist[l], Distribution: dist}
}

var negations = set("not no never none nothing nobody neither nor without cannot")

// functionWords are English function words: articles, pronouns,
// prepositions, conjunctions, auxiliaries and quantifiers (the negations
// are apart). Quantifiers such as "many" or "several" are here because
// words cannot check them.
var functionWords = set(`a an the this that these those there here it its itself he him his himself she her hers herself
they them their theirs themselves we us our ours ourselves you your yours yourself yourselves i me my mine myself
who whom whose which what whatever when where why how whether if then than so as such
and or but yet also either both only just too very even ever still already again once
of in on at by for with about against between into through during before after above below to from up down
out off over under within without upon via among amongst across along around behind beyond near toward towards
is am are was were be been being have has had having do does did doing done will would shall should
can could may might must ca wo sha
all any each every few many much more most other others another some several numerous various
one ones own same s t d ll m re ve`)

var months = map[string]int{"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}

var numberWords = map[string]int{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}

func set(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
