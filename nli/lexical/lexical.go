// Package lexical is a rough NLI fallback that needs no model: word overlap
// with negation and number/date mismatch checks.
package lexical

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/nli"
)

// Model names the version of the lexical method. It changes whenever
// the method's answers change, so that caches keyed on it stay valid.
const Model = "overlap-v1"

// Classifier is a rough, zero-setup NLI fallback built on word overlap, with
// negation and number/date mismatch checks. It needs no model and is always
// available, but it only sees words, not meaning: use a real NLI model
// (onnx or llm backends) or precomputed relations for results that matter.
// Its answers are deterministic.
//
// # Words
//
// Texts are lowercased and cut into tokens at anything that is not a letter
// or digit; an apostrophe splits a word, so possessive 's falls away as the
// token "s" and n't becomes the negation "not". Numbers keep their
// thousands commas and decimal points ("1,000", "3.5"); "two" to "twelve"
// and the tens are numbers too. Dates are recognised as one unit: month day
// year, day month year, month year, month day, a year (1000–2099) or a
// decade ("1970s"). Sentences end at . ! ? ; a line break, or "=" (the
// section markers of Wikipedia dumps); the markers NLIText puts around a
// snippet are removed. A Wikipedia lifespan "(July 27, 1942 – February 18,
// 2024)" is read as "born July 27, 1942, died February 18, 2024".
//
// A content word is a token that is not a stopword (articles, pronouns,
// prepositions, conjunctions, auxiliaries, and vague quantities such as
// "many", "numerous" or "several", which premises rarely repeat and words
// cannot check), not a negation, and at least two characters long. Words
// are compared after a light stemming: a few canonical forms (birth → born,
// death/dead/died → die, theatre → theater, and the irregular past tenses
// of verbs common in biographies: won → win, began → begin, wrote → write,
// ...), then plural endings, -ing, -ed, a final -e and y/i are stripped, so
// "appeared"/"appears", "films"/"film" and "studies"/"studied" match. There
// are no synonyms: "actor" does not match "starred", nor "worked" "appeared".
//
// # The hypothesis
//
// The hypothesis is cut into units:
//   - names: maximal runs of capitalised words (inner "of", "the", "and",
//     "de", ... allowed, a leading "the" dropped), e.g. "Lanny Flaherty",
//     "King of New York", "Law & Order". The name that opens the hypothesis
//     is its subject;
//   - every other content word;
//   - every number and date, with an anchor: for a date the content word
//     before it ("born" in "born on December 18, 1949"), for a number the
//     content word after it ("3 children").
//
// A unit the hypothesis repeats counts as often as it occurs.
//
// # Windows
//
// Premises may be long (Wikipedia passages of thousands of characters), so
// support is looked for within a window, never over the whole bag of
// words: a window is two consecutive pieces of the premise, where a piece
// is a sentence, and a sentence of more than 40 tokens (a cast list) is cut
// into pieces of 40 tokens overlapping by 20. A hypothesis longer than a
// piece (a whole passage, as in FR3's context pairs) is compared with the
// whole premise as one window. In a window:
//   - a content word is matched if a token with the same stem is there;
//   - a name is matched if its words occur there in order, consecutively;
//   - the subject is matched by its full name; by its last word (a
//     surname) once the full name has been mentioned, here or earlier in
//     the premise; or by a pronoun (he, she, it, they, ...) when the
//     premise is about the subject (its full name is in the first sentence,
//     at most 30 tokens);
//   - a date is supported if a date next to the anchor (within the 8 tokens
//     after it) agrees with it (fields present in both are equal, a year
//     lies in a decade), and conflicts if the anchor has dates next to it
//     but none agrees; with no date next to an anchor, any agreeing date in
//     the window supports it. Numbers likewise (within 3 tokens of the
//     anchor, equal values). A word capitalised in the middle of a premise
//     sentence is part of a name and anchors nothing for a lowercase
//     hypothesis word: "Born" in "Natural Born Killers (1994)" is no birth;
//   - the window's polarity is negated when some content word or name of
//     the hypothesis is negated at each of its occurrences there: a
//     negation (not, no, never, n't, without, ...) stands before it in the
//     same sentence, within 8 tokens.
//
// The coverage c of a window is the share of the hypothesis's units matched
// there. The window's verdict is entailment if c ≥ 3/4, every name and the
// subject are matched, every number and date is supported and the polarity
// agrees; contradiction if every name is matched, a date or number
// conflicts or the polarity differs, and the coverage counting the
// conflicting units as matched is ≥ 3/4; neutral otherwise. The pair's
// label is entailment if some window entails, else contradiction if some
// window contradicts, else neutral.
//
// # Probabilities
//
// The distribution over (neutral, entailment, contradiction), in the
// Distribution field indexed by Label, is a fixed function of the best
// window's coverage c, with every value strictly between 0 and 1 and the
// label its largest value:
//
//	entailment:     P(e) = 0.55 + 0.35·(c − 3/4)/(1/4) ∈ [0.55, 0.90], P(c) = 0.02
//	contradiction:  P(c) = 0.50 + 0.30·(c − 3/4)/(1/4) ∈ [0.50, 0.80], P(e) = 0.02
//	neutral:        P(e) = 0.05 + 0.30·c ∈ [0.05, 0.35],                 P(c) = 0.03
//
// and P(n) the rest. The caps (0.9 and 0.8) keep a word-overlap verdict
// from ever being near-certain.
//
// On IBM's Flaherty run (546 context–atom pairs labelled by an LLM) the
// method agrees on all 531 neutral pairs, 9 of the 14 entailments and the
// one contradiction, but that is in-sample (the method was designed with
// those pairs in view), and it misses entailments that need paraphrase or
// world knowledge; see docs/lexical-agreement.md.
type Classifier struct{}

// NewLexical returns the lexical backend.
func New() *Classifier { return &Classifier{} }

// Identity reports backend "lexical" with the method's version.
func (*Classifier) Identity() nli.Identity { return nli.Identity{Backend: "lexical", Model: Model} }

// Classify labels each pair from its texts. Texts shared by several pairs
// are analysed once per call.
func (l *Classifier) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	premises := make(map[string]*premiseIndex)
	hypotheses := make(map[string]*hypothesis)
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		pi, ok := premises[p.Premise]
		if !ok {
			pi = indexPremise(p.Premise)
			premises[p.Premise] = pi
		}
		h, ok := hypotheses[p.Hypothesis]
		if !ok {
			h = analyseHypothesis(p.Hypothesis)
			hypotheses[p.Hypothesis] = h
		}
		out[i] = judge(pi, h).result()
	}
	return out, nil
}

// Tuning constants of the method; changing one changes LexicalModel.
const (
	coverageNeeded = 0.75 // share of hypothesis units a window must match
	pieceTokens    = 40   // longest piece of a premise sentence
	pieceStride    = 20   // overlap of the pieces of a long sentence
	leadTokens     = 30   // the part of the premise that says what it is about
	dateReach      = 8    // tokens after a date's anchor searched for dates
	numberReach    = 3    // tokens around a number's anchor searched for numbers
	negationReach  = 8    // tokens before a matched word searched for a negation
)

// verdict is the outcome of comparing a hypothesis with a premise.
type verdict struct {
	label    nli.Label
	coverage float64 // of the deciding window (for neutral, the best window)
}

func (v verdict) result() nli.Result {
	var pe, pc float64
	switch v.label {
	case nli.Entailment:
		pe, pc = 0.55+0.35*(v.coverage-coverageNeeded)/(1-coverageNeeded), 0.02
	case nli.Contradiction:
		pe, pc = 0.02, 0.50+0.30*(v.coverage-coverageNeeded)/(1-coverageNeeded)
	default:
		pe, pc = 0.05+0.30*v.coverage, 0.03
	}
	dist := make([]float64, 3)
	dist[nli.Neutral], dist[nli.Entailment], dist[nli.Contradiction] = 1-pe-pc, pe, pc
	return nli.Result{Label: v.label, Probability: dist[v.label], Distribution: dist}
}

// ---- tokens ----

type tokenKind uint8

const (
	kindWord tokenKind = iota
	kindNumber
	kindDate
	kindOpen  // ( or [
	kindClose // ) or ]
	kindDash  // - – —
)

type token struct {
	kind   tokenKind
	text   string // lowercased surface form (words, numbers)
	stem   string // comparison form of a word
	upper  bool   // the surface form began with an upper-case letter
	midCap bool   // upper, and not the first token of its sentence
	plain  bool   // a number written with digits only (no comma, point or letters)
	number float64
	date   date
}

// date is a possibly partial calendar date; zero fields are absent.
type date struct {
	year, month, day int
	decade           bool // year is the first year of a decade ("1970s")
}

// agrees reports whether two partial dates can denote the same day: every
// field present in both is equal (a year lies in a decade).
func (d date) agrees(e date) bool {
	if d.year != 0 && e.year != 0 {
		switch {
		case d.decade && e.decade:
			if d.year != e.year {
				return false
			}
		case d.decade:
			if e.year < d.year || e.year > d.year+9 {
				return false
			}
		case e.decade:
			if d.year < e.year || d.year > e.year+9 {
				return false
			}
		default:
			if d.year != e.year {
				return false
			}
		}
	}
	if d.month != 0 && e.month != 0 && d.month != e.month {
		return false
	}
	if d.day != 0 && e.day != 0 && d.day != e.day {
		return false
	}
	return true
}

// nliMarkers are the headings Context.NLIText puts around a snippet; they
// are not part of the evidence.
var nliMarkers = strings.NewReplacer("Snippet/Summary of Text:", "\n", "\n\nText:\n\n", "\n")

// scan cuts text into sentences of raw tokens (words, numbers as words,
// brackets and dashes).
func scan(text string) [][]token {
	text = nliMarkers.Replace(text)
	var sentences [][]token
	var cur []token
	end := func() {
		if len(cur) > 0 {
			sentences = append(sentences, cur)
			cur = nil
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isWordRune(r):
			j := i
			for j < len(text) {
				r, n := utf8.DecodeRuneInString(text[j:])
				if isWordRune(r) {
					j += n
					continue
				}
				// Keep 1,000 and 3.5 whole.
				if (r == ',' || r == '.') && j > i && isDigit(text[j-1]) && j+1 < len(text) && isDigit(text[j+1]) &&
					(r == '.' || groupOfThree(text[j+1:])) {
					j++
					continue
				}
				break
			}
			w := text[i:j]
			first, _ := utf8.DecodeRuneInString(w)
			up := unicode.IsUpper(first)
			cur = append(cur, token{kind: kindWord, text: strings.ToLower(w), upper: up, midCap: up && len(cur) > 0})
			i = j
			continue
		case r == '(' || r == '[':
			cur = append(cur, token{kind: kindOpen})
		case r == ')' || r == ']':
			cur = append(cur, token{kind: kindClose})
		case r == '-' || r == '–' || r == '—':
			cur = append(cur, token{kind: kindDash})
		case r == '\n' || r == ';' || r == '=':
			end()
		case r == '.' || r == '!' || r == '?':
			next, _ := utf8.DecodeRuneInString(text[i+size:])
			atEnd := i+size >= len(text) || unicode.IsSpace(next) || next == '"' || next == '\''
			if atEnd && !(r == '.' && len(cur) > 0 && abbreviation(cur[len(cur)-1])) {
				end()
			}
		}
		i += size
	}
	end()
	return sentences
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// groupOfThree reports whether s starts with exactly three digits.
func groupOfThree(s string) bool {
	return len(s) >= 3 && isDigit(s[0]) && isDigit(s[1]) && isDigit(s[2]) && (len(s) == 3 || !isDigit(s[3]))
}

// abbreviation reports whether a word before a full stop is an initial or
// a common abbreviation, so that the stop does not end the sentence.
func abbreviation(t token) bool {
	if t.kind != kindWord {
		return false
	}
	if utf8.RuneCountInString(t.text) == 1 && !isDigit(t.text[0]) {
		return true
	}
	switch t.text {
	case "mr", "mrs", "ms", "dr", "jr", "sr", "st", "vs", "prof", "gen", "col", "lt", "sgt", "rev", "mt", "ft", "inc", "ltd", "co", "corp", "no":
		return true
	}
	return false
}

// analyse turns a sentence of raw tokens into comparison tokens: negations,
// numbers and dates recognised, lifespans rewritten, brackets and dashes
// dropped.
func analyse(raw []token) []token {
	// Words: negation, numbers, stems.
	toks := make([]token, 0, len(raw))
	for i, t := range raw {
		if t.kind != kindWord {
			toks = append(toks, t)
			continue
		}
		switch {
		case t.text == "t" && i > 0 && raw[i-1].kind == kindWord && contraction[raw[i-1].text]:
			t.text = "not"
		case isNumeral(t.text):
			if v, plain, ok := parseNumber(t.text); ok {
				t.kind, t.number, t.plain = kindNumber, v, plain
			}
		case strings.HasSuffix(t.text, "s") && len(t.text) == 5 && isNumeral(t.text[:4]) && strings.HasSuffix(t.text, "0s") && t.text[0] >= '1' && t.text[0] <= '2':
			y, _ := strconv.Atoi(t.text[:4])
			t.kind, t.date = kindDate, date{year: y, decade: true}
		default:
			if v, ok := numberWords[t.text]; ok {
				t.kind, t.number = kindNumber, v
			}
		}
		if t.kind == kindWord {
			t.stem = stem(t.text)
		}
		toks = append(toks, t)
	}
	// Scale words multiply the number before them: "110 million".
	scaled := toks[:0]
	for _, t := range toks {
		if n := len(scaled); n > 0 && scaled[n-1].kind == kindNumber && t.kind == kindWord {
			if s, ok := scaleWords[t.text]; ok {
				scaled[n-1].number *= s
				scaled[n-1].plain = false
				continue
			}
		}
		scaled = append(scaled, t)
	}
	toks = dates(scaled)
	toks = lifespans(toks)
	out := toks[:0]
	for _, t := range toks {
		if t.kind == kindWord || t.kind == kindNumber || t.kind == kindDate {
			out = append(out, t)
		}
	}
	return out
}

func isNumeral(s string) bool {
	if s == "" || !isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && s[i] != ',' && s[i] != '.' {
			return false
		}
	}
	return true
}

func parseNumber(s string) (v float64, plain, ok bool) {
	plain = !strings.ContainsAny(s, ",.")
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	return v, plain, err == nil
}

func year(t token) (int, bool) {
	if t.kind == kindNumber && t.plain && len(t.text) == 4 && t.number >= 1000 && t.number <= 2099 {
		return int(t.number), true
	}
	return 0, false
}

func day(t token) (int, bool) {
	if t.kind == kindNumber && t.plain && len(t.text) <= 2 && t.number >= 1 && t.number <= 31 {
		return int(t.number), true
	}
	return 0, false
}

// month returns the month a word names; ambiguous reports words that only
// name a month next to a number ("may", "march", abbreviations).
func month(t token) (m int, ambiguous bool) {
	if t.kind != kindWord {
		return 0, false
	}
	if m, ok := months[t.text]; ok {
		return m, false
	}
	if m, ok := monthsNextToNumber[t.text]; ok {
		return m, true
	}
	return 0, false
}

// dates merges the tokens of each date into one kindDate token.
func dates(toks []token) []token {
	out := toks[:0:0]
	for i := 0; i < len(toks); {
		at := func(k int) token {
			if i+k < len(toks) {
				return toks[i+k]
			}
			return token{kind: kindOpen} // matches nothing below
		}
		m, ambiguous := month(at(0))
		if m != 0 {
			if d, ok := day(at(1)); ok {
				if y, ok := year(at(2)); ok {
					out, i = append(out, token{kind: kindDate, date: date{year: y, month: m, day: d}}), i+3
					continue
				}
				out, i = append(out, token{kind: kindDate, date: date{month: m, day: d}}), i+2
				continue
			}
			if y, ok := year(at(1)); ok {
				out, i = append(out, token{kind: kindDate, date: date{year: y, month: m}}), i+2
				continue
			}
			if !ambiguous {
				out, i = append(out, token{kind: kindDate, date: date{month: m}}), i+1
				continue
			}
		}
		if d, ok := day(at(0)); ok {
			if m, _ := month(at(1)); m != 0 {
				if y, ok := year(at(2)); ok {
					out, i = append(out, token{kind: kindDate, date: date{year: y, month: m, day: d}}), i+3
					continue
				}
				out, i = append(out, token{kind: kindDate, date: date{month: m, day: d}}), i+2
				continue
			}
		}
		if y, ok := year(at(0)); ok {
			out, i = append(out, token{kind: kindDate, date: date{year: y}}), i+1
			continue
		}
		out, i = append(out, toks[i]), i+1
	}
	return out
}

// lifespans rewrites "( date – date )" as "born date die date", the way
// Wikipedia's first sentences give birth and death.
func lifespans(toks []token) []token {
	born, die := token{kind: kindWord, text: "born", stem: "born"}, token{kind: kindWord, text: "died", stem: "die"}
	out := make([]token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		if toks[i].kind == kindOpen {
			j := i + 1
			if j < len(toks) && toks[j].kind == kindWord && toks[j].stem == "born" {
				j++
			}
			if j+3 < len(toks) && toks[j].kind == kindDate && toks[j].date.year != 0 && toks[j+1].kind == kindDash &&
				toks[j+2].kind == kindDate && toks[j+2].date.year != 0 && toks[j+3].kind == kindClose {
				out = append(out, born, toks[j], die, toks[j+2])
				i = j + 3
				continue
			}
		}
		out = append(out, toks[i])
	}
	return out
}

// stem reduces a lowercased word to the form words are compared in.
func stem(w string) string {
	if c, ok := canonical[w]; ok {
		w = c
	}
	if len(w) <= 3 || keepAsIs[w] || !isLetters(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied"):
		w = w[:len(w)-3] + "i"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	stripped := false
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w, stripped = w[:len(w)-3], true
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w, stripped = w[:len(w)-2], true
	}
	if stripped && len(w) >= 4 && w[len(w)-1] == w[len(w)-2] && !strings.ContainsRune("aeiouls", rune(w[len(w)-1])) {
		w = w[:len(w)-1] // starr(ed) → star
	}
	if len(w) >= 4 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	if len(w) >= 4 && w[len(w)-1] == 'y' && !strings.ContainsRune("aeiou", rune(w[len(w)-2])) {
		w = w[:len(w)-1] + "i"
	}
	return w
}

func isLetters(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// isContent reports whether a word token carries content.
func isContent(t token) bool {
	return t.kind == kindWord && !stopwords[t.text] && !negations[t.text] && utf8.RuneCountInString(t.text) >= 2
}

// ---- the premise ----

// premiseIndex is a premise analysed for fast lookups.
type premiseIndex struct {
	toks     []token
	windows  [][2]int         // [lo, hi) token ranges
	at       map[string][]int // word stem → ascending positions
	dates    []int            // positions of dates
	numbers  []int            // positions of numbers
	negs     []int            // positions of negations
	sentence []int            // token position → sentence number
	pronouns []int            // positions of third-person pronouns
	leadEnd  int              // end of the first sentence (capped)
}

func indexPremise(text string) *premiseIndex {
	pi := &premiseIndex{at: make(map[string][]int)}
	var pieces [][2]int
	for si, raw := range scan(text) {
		s := analyse(raw)
		lo := len(pi.toks)
		pi.toks = append(pi.toks, s...)
		for range s {
			pi.sentence = append(pi.sentence, si)
		}
		if si == 0 {
			pi.leadEnd = lo + min(len(s), leadTokens)
		}
		for start := 0; ; start += pieceStride {
			stop := min(start+pieceTokens, len(s))
			if stop > start {
				pieces = append(pieces, [2]int{lo + start, lo + stop})
			}
			if stop == len(s) {
				break
			}
		}
	}
	for i, t := range pi.toks {
		switch {
		case t.kind == kindDate:
			pi.dates = append(pi.dates, i)
		case t.kind == kindNumber:
			pi.numbers = append(pi.numbers, i)
		case negations[t.text]:
			pi.negs = append(pi.negs, i)
		case pronouns[t.text]:
			pi.pronouns = append(pi.pronouns, i)
		}
		if t.kind == kindWord {
			pi.at[t.stem] = append(pi.at[t.stem], i)
		}
	}
	switch len(pieces) {
	case 0:
	case 1:
		pi.windows = pieces
	default:
		for i := 0; i+1 < len(pieces); i++ {
			pi.windows = append(pi.windows, [2]int{pieces[i][0], max(pieces[i][1], pieces[i+1][1])})
		}
	}
	return pi
}

// negatedAt reports whether a negation stands before position p, in its
// sentence, within negationReach tokens and not before lo.
func (pi *premiseIndex) negatedAt(p, lo int) bool {
	for _, q := range inRange(pi.negs, max(lo, p-negationReach), p) {
		if pi.sentence[q] == pi.sentence[p] {
			return true
		}
	}
	return false
}

// inRange returns the positions of pos (ascending) within [lo, hi).
func inRange(pos []int, lo, hi int) []int {
	if hi <= lo {
		return nil
	}
	a := sort.SearchInts(pos, lo)
	b := sort.SearchInts(pos, hi)
	return pos[a:b]
}

// phrase reports whether the stems occur consecutively in [lo, hi).
func (pi *premiseIndex) phrase(stems []string, lo, hi int) bool {
	return pi.findPhrase(stems, lo, hi) >= 0
}

// firstPhrase returns the first position of the stems in the premise, or
// len(pi.toks) when they do not occur.
func (pi *premiseIndex) firstPhrase(stems []string) int {
	if p := pi.findPhrase(stems, 0, len(pi.toks)); p >= 0 {
		return p
	}
	return len(pi.toks)
}

// findPhrase returns the first position in [lo, hi) where the stems occur
// consecutively, or -1.
func (pi *premiseIndex) findPhrase(stems []string, lo, hi int) int {
	if len(stems) == 0 {
		return -1
	}
	for _, p := range inRange(pi.at[stems[0]], lo, hi-len(stems)+1) {
		ok := true
		for k := 1; k < len(stems); k++ {
			if t := pi.toks[p+k]; t.kind != kindWord || t.stem != stems[k] {
				ok = false
				break
			}
		}
		if ok {
			return p
		}
	}
	return -1
}

// ---- the hypothesis ----

type unitKind uint8

const (
	unitWord unitKind = iota
	unitName
	unitSubject
	unitDate
	unitNumber
)

type unit struct {
	kind   unitKind
	stems  []string // word: one stem; names: the name's stems in order
	anchor string   // dates and numbers: the stem of the anchoring word
	capped bool     // the anchoring word is capitalised (part of a name)
	after  bool     // numbers: the anchor follows the number
	value  token    // dates and numbers
	weight int      // how many times the hypothesis has the unit
}

type hypothesis struct {
	units   []unit
	negated bool
	tokens  int // length in tokens
}

// nameInner are the lowercase words allowed inside a name.
var nameInner = map[string]bool{"of": true, "the": true, "and": true, "de": true, "du": true, "da": true, "del": true, "la": true, "le": true, "von": true, "van": true, "der": true}

func analyseHypothesis(text string) *hypothesis {
	var toks []token
	for _, raw := range scan(text) {
		toks = append(toks, analyse(raw)...)
	}
	h := &hypothesis{tokens: len(toks)}
	inName := make([]bool, len(toks))
	for i := 0; i < len(toks); {
		if toks[i].kind != kindWord || !toks[i].upper {
			i++
			continue
		}
		j := i + 1
		for j < len(toks) && toks[j].kind == kindWord {
			if toks[j].upper {
				j++
				continue
			}
			if nameInner[toks[j].text] && j+1 < len(toks) && toks[j+1].kind == kindWord && toks[j+1].upper {
				j += 2
				continue
			}
			break
		}
		lo, hi := i, j
		for lo < hi && !isContent(toks[lo]) {
			lo++
		}
		for hi > lo && !isContent(toks[hi-1]) {
			hi--
		}
		if lo < hi {
			u := unit{kind: unitName}
			if i == 0 {
				u.kind = unitSubject
			}
			for k := lo; k < hi; k++ {
				u.stems = append(u.stems, toks[k].stem)
				inName[k] = true
			}
			h.units = append(h.units, u)
		}
		i = j
	}
	for i, t := range toks {
		switch {
		case negations[t.text]:
			h.negated = true
		case inName[i]:
		case t.kind == kindDate:
			u := unit{kind: unitDate, value: t}
			for k := i - 1; k >= 0; k-- {
				if isContent(toks[k]) {
					u.anchor, u.capped = toks[k].stem, toks[k].upper
					break
				}
			}
			h.units = append(h.units, u)
		case t.kind == kindNumber:
			u := unit{kind: unitNumber, value: t}
			if i+1 < len(toks) && isContent(toks[i+1]) {
				u.anchor, u.capped, u.after = toks[i+1].stem, toks[i+1].upper, true
			} else {
				for k := i - 1; k >= 0; k-- {
					if isContent(toks[k]) {
						u.anchor, u.capped = toks[k].stem, toks[k].upper
						break
					}
				}
			}
			h.units = append(h.units, u)
		case isContent(t):
			h.units = append(h.units, unit{kind: unitWord, stems: []string{t.stem}})
		}
	}
	h.units = mergeUnits(h.units)
	return h
}

// mergeUnits merges repeated units into one with a weight, in order of
// first occurrence; a word said twice counts twice but is looked up once.
func mergeUnits(units []unit) []unit {
	type key struct {
		kind          unitKind
		stems, anchor string
		after, capped bool
		number        float64
		date          date
	}
	at := make(map[key]int)
	var out []unit
	for _, u := range units {
		k := key{u.kind, strings.Join(u.stems, " "), u.anchor, u.after, u.capped, u.value.number, u.value.date}
		if i, ok := at[k]; ok {
			out[i].weight++
			continue
		}
		at[k] = len(out)
		u.weight = 1
		out = append(out, u)
	}
	return out
}

// ---- judging ----

type match uint8

const (
	missing match = iota
	matched
	conflict
)

// judge compares the hypothesis with every window of the premise.
func judge(pi *premiseIndex, h *hypothesis) verdict {
	if len(h.units) == 0 {
		return verdict{label: nli.Neutral}
	}
	// The premise is about the subject if it names it in its lead; a
	// surname refers to the subject once the full name has been mentioned.
	about, mentioned := false, len(pi.toks)
	for _, u := range h.units {
		if u.kind == unitSubject {
			about = pi.phrase(u.stems, 0, pi.leadEnd)
			mentioned = pi.firstPhrase(u.stems)
		}
	}
	var best [3]verdict // by label; coverage -1 when no window gives it
	for l := range best {
		best[l] = verdict{label: nli.Label(l), coverage: -1}
	}
	windows := pi.windows
	if h.tokens > pieceTokens && len(pi.toks) > 0 {
		// A window must be able to hold the hypothesis: a passage
		// (FR3's context pairs) is compared with the whole premise.
		windows = [][2]int{{0, len(pi.toks)}}
	}
	for _, w := range windows {
		v := judgeWindow(pi, h, w[0], w[1], about, mentioned)
		if v.coverage > best[v.label].coverage {
			best[v.label] = v
		}
	}
	switch {
	case best[nli.Entailment].coverage >= 0:
		return best[nli.Entailment]
	case best[nli.Contradiction].coverage >= 0:
		return best[nli.Contradiction]
	}
	v := best[nli.Neutral]
	v.coverage = max(v.coverage, 0)
	return v
}

func judgeWindow(pi *premiseIndex, h *hypothesis, lo, hi int, about bool, mentioned int) verdict {
	var nMatched, nConflict, n int
	namesOK, valuesOK := true, true
	negated := false
	for _, u := range h.units {
		var m match
		switch u.kind {
		case unitWord, unitName:
			// A unit is negated when each of its occurrences in the
			// window is.
			all := true
			for p := pi.findPhrase(u.stems, lo, hi); p >= 0; p = pi.findPhrase(u.stems, p+1, hi) {
				m = matched
				all = all && pi.negatedAt(p, lo)
			}
			if m == matched && all {
				negated = true
			}
		case unitSubject:
			last := u.stems[len(u.stems)-1:]
			if pi.phrase(u.stems, lo, hi) ||
				(len(u.stems) > 1 && mentioned < hi && pi.phrase(last, lo, hi)) ||
				(about && len(inRange(pi.pronouns, lo, hi)) > 0) {
				m = matched
			}
		case unitDate, unitNumber:
			m = pi.value(u, lo, hi)
		}
		n += u.weight
		switch m {
		case matched:
			nMatched += u.weight
		case conflict:
			nConflict += u.weight
		}
		switch {
		case (u.kind == unitName || u.kind == unitSubject) && m != matched:
			namesOK = false
		case (u.kind == unitDate || u.kind == unitNumber) && m != matched:
			valuesOK = false
		}
	}
	c := float64(nMatched) / float64(n)
	withConflicts := float64(nMatched+nConflict) / float64(n)
	polarityDiffers := negated != h.negated
	switch {
	case namesOK && valuesOK && !polarityDiffers && c >= coverageNeeded:
		return verdict{nli.Entailment, c}
	case namesOK && (nConflict > 0 || polarityDiffers) && withConflicts >= coverageNeeded:
		return verdict{nli.Contradiction, withConflicts}
	}
	return verdict{nli.Neutral, c}
}

// value judges a date or number unit in the window [lo, hi).
func (pi *premiseIndex) value(u unit, lo, hi int) match {
	isDate := u.kind == unitDate
	candidates, reachBefore, reachAfter := pi.numbers, 0, numberReach
	if isDate {
		candidates, reachAfter = pi.dates, dateReach
	} else if u.after {
		reachBefore, reachAfter = numberReach, 0
	}
	agrees := func(p int) bool {
		t := pi.toks[p]
		if isDate {
			return u.value.date.agrees(t.date)
		}
		return t.number == u.value.number
	}
	// Values next to the anchor decide: for a date the first date after
	// each occurrence of the anchor, for a number every number within reach.
	near := false
	if u.anchor != "" {
		for _, a := range inRange(pi.at[u.anchor], lo, hi) {
			if pi.toks[a].midCap && !u.capped {
				continue // "Born" in "Natural Born Killers" is no birth
			}
			cands := inRange(candidates, max(lo, a-reachBefore), min(hi, a+reachAfter+1))
			if isDate && len(cands) > 1 {
				cands = cands[:1]
			}
			for _, p := range cands {
				near = true
				if agrees(p) {
					return matched
				}
			}
		}
	}
	if near {
		return conflict
	}
	for _, p := range inRange(candidates, lo, hi) {
		if agrees(p) {
			return matched
		}
	}
	return missing
}

// ---- word lists ----

var months = map[string]int{
	"january": 1, "february": 2, "april": 4, "june": 6, "july": 7, "august": 8,
	"september": 9, "october": 10, "november": 11, "december": 12,
}

var monthsNextToNumber = map[string]int{
	"march": 3, "may": 5, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
	"aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

var numberWords = map[string]float64{
	"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30,
	"forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

var scaleWords = map[string]float64{"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9}

// canonical maps words to a shared form where spelling or suffixes differ:
// birth and death, British spellings, and the irregular past tenses of
// verbs common in biographies.
var canonical = map[string]string{
	"birth": "born", "died": "die", "dies": "die", "dying": "die", "death": "die", "dead": "die",
	"theatre": "theater", "theatres": "theater", "centre": "center",
	"won": "win", "began": "begin", "begun": "begin", "wrote": "write", "written": "write",
	"became": "become", "made": "make", "gave": "give", "given": "give", "took": "take", "taken": "take",
	"led": "lead", "held": "hold", "taught": "teach", "sang": "sing", "sung": "sing", "drew": "draw",
	"drawn": "draw", "grew": "grow", "grown": "grow", "spent": "spend", "met": "meet", "knew": "know",
	"known": "know", "fought": "fight", "brought": "bring", "bought": "buy", "sold": "sell", "told": "tell",
	"thought": "think", "ran": "run", "chose": "choose", "chosen": "choose", "flew": "fly", "flown": "fly",
}

// keepAsIs are words the suffix rules would damage.
var keepAsIs = map[string]bool{"news": true, "series": true, "species": true, "always": true, "perhaps": true, "during": true}

var contraction = map[string]bool{
	"don": true, "doesn": true, "didn": true, "isn": true, "wasn": true, "aren": true, "weren": true,
	"hasn": true, "haven": true, "hadn": true, "couldn": true, "wouldn": true, "shouldn": true,
	"won": true, "can": true, "ain": true, "mustn": true, "needn": true,
}

var negations = map[string]bool{"not": true, "no": true, "never": true, "neither": true, "nor": true, "without": true, "none": true, "cannot": true}

var pronouns = map[string]bool{"he": true, "she": true, "his": true, "her": true, "him": true, "hers": true, "they": true, "their": true, "them": true, "it": true, "its": true}

var stopwords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`
		a an the this that these those some any each every all both either other another such
		i me my mine we us our ours you your yours he him his she her hers it its they them their theirs
		who whom whose which what where when why how whoever whatever
		is am are was were be been being has have had having do does did doing done
		will would shall should can could may might must ought
		of in on at by for with from to into onto upon about above below over under between among
		through during before after since until till against within along across around behind
		beyond near off out up down than as like via per
		and or but if then else so yet because while although though whether
		also too very just only even still already again ever here there
		s t d ll m re ve o
		don doesn didn isn wasn aren weren hasn haven hadn couldn wouldn shouldn ain mustn needn
		many much more most numerous several various multiple
		one ones own same`) {
		m[w] = true
	}
	return m
}()
