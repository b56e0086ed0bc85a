// Package evidence finds the sentences of a context that an NLI relation
// most likely rests on: the sentence or two of the premise that best match
// the hypothesis. An NLI model reads a whole passage and answers with one
// label; the sentences that share the hypothesis's rarest words are where a
// reader should look to check that answer (fr inspect prints them; fr report
// leads each relation with them and marks them in the context's text).
//
// Matching is lexical, with the words prune ranks contexts by (lower-cased
// runs of letters and digits, prune.Tokens): each sentence of the premise is
// a document of a BM25 index (Lucene's idf, never negative; k1 = 1.5), the
// hypothesis's distinct words the query. It is a reading aid, not a second
// NLI model: it says where the words are, not what they mean.
package evidence

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/internal/sentence"
	"github.com/factreasoner/factreasoner-go/prune"
)

// Span is a part of a text: text[Start:End], byte offsets that fall on
// UTF-8 boundaries, without white space at either end.
type Span struct {
	Start, End int
}

// Text is the part of text the span covers.
func (s Span) Text(text string) string { return text[s.Start:s.End] }

// SecondShare is how much a neighbour of the best sentence must add to it
// to be shown with it: a share of the weight (the summed idf) of the
// hypothesis's words that the premise holds. A fact is often stated over
// two sentences ("... appeared as jack crow in cold in july. other film
// appearances include ... while television roles include ..."), or in one
// that a long list cut in two; a neighbour that only adds the hypothesis's
// common words is noise. Sentences farther away are not shown: the further
// a sentence, the less likely it speaks of the same thing.
const SecondShare = 0.25

// lengthNorm is BM25's b, how much a sentence's length discounts its
// score. Documents' usual 0.75 ranks a four-word line that holds the
// subject's name ("lanny flaherty at imdb") above the sentence that states
// the fact; at 0.3 the best sentence is one a person chose as the evidence
// for each of the 10 (atom, article) pairs of the Flaherty atoms that have
// hand-chosen evidence sentences, against 6 of 10 at 0.75.
const lengthNorm = 0.3

// MaxSentenceRunes bounds a sentence: a longer run of text without a
// sentence end (a list, a table, a page without punctuation) is cut at
// word boundaries into parts of at most this many characters, so that what
// is shown as the matching sentence stays readable.
const MaxSentenceRunes = 320

// k1 is BM25's term-frequency saturation, as in rank_bm25 and Lucene.
const k1 = 1.5

// Index is a premise split into sentences, for asking about several
// hypotheses (the atoms a context bears on).
type Index struct {
	text      string
	sentences []Span
	words     [][]string // the words of each sentence
	avgLen    float64    // their mean number
}

// NewIndex splits premise into sentences and their words.
func NewIndex(premise string) *Index {
	x := &Index{text: premise, sentences: Sentences(premise)}
	x.words = make([][]string, len(x.sentences))
	total := 0
	for i, s := range x.sentences {
		x.words[i] = prune.Tokens(s.Text(premise))
		total += len(x.words[i])
	}
	if total > 0 {
		x.avgLen = float64(total) / float64(len(x.sentences))
	}
	return x
}

// Text is the premise.
func (x *Index) Text() string { return x.text }

// Sentences are the premise's sentences, in text order.
func (x *Index) Sentences() []Span { return x.sentences }

// Best returns the sentence or two of the premise that best match
// hypothesis, in text order: the sentence with the highest BM25 score (the
// first of equals), and the one before or after it that adds the most
// weight of the hypothesis's words the best one lacks, when that is at
// least SecondShare of the weight of the hypothesis's words the premise
// holds (the one before on equal weight). It returns nil when no sentence
// shares a word with the hypothesis. The same premise and hypothesis always
// give the same spans.
//
// The scores are those of bm25.NewLucene(sentences' words, 1.5,
// 0.3) for the hypothesis's distinct words, computed for those words alone:
// a premise serves few hypotheses, and indexing every word of it would
// cost more than the questions.
func (x *Index) Best(hypothesis string) []Span {
	query := distinct(prune.Tokens(hypothesis))
	if x.avgLen == 0 || len(query) == 0 {
		return nil
	}
	slot := make(map[string]int, len(query))
	for j, w := range query {
		slot[w] = j
	}
	// tf[i*len(query)+j] is the count of query word j in sentence i; df[j]
	// the number of sentences that hold it.
	q := len(query)
	tf := make([]float64, len(x.sentences)*q)
	df := make([]float64, q)
	for i, words := range x.words {
		row := tf[i*q : (i+1)*q]
		for _, w := range words {
			if j, ok := slot[w]; ok {
				if row[j] == 0 {
					df[j]++
				}
				row[j]++
			}
		}
	}
	n := float64(len(x.sentences))
	idf := make([]float64, q)
	var total float64 // the weight of the hypothesis's words the premise holds
	for j := range idf {
		if df[j] > 0 {
			idf[j] = math.Log(1 + (n-df[j]+0.5)/(df[j]+0.5))
			total += idf[j]
		}
	}
	best, top := -1, 0.0
	for i, words := range x.words {
		norm := k1 * (1 - lengthNorm + lengthNorm*float64(len(words))/x.avgLen)
		var score float64
		for j, f := range tf[i*q : (i+1)*q] {
			if f > 0 {
				score += idf[j] * (f * (k1 + 1) / (f + norm))
			}
		}
		if score > top {
			best, top = i, score
		}
	}
	if best < 0 {
		return nil
	}
	// The neighbour that adds the most weight of the words best lacks.
	second, gain := -1, 0.0
	for _, i := range []int{best - 1, best + 1} {
		if i < 0 || i >= len(x.sentences) {
			continue
		}
		var g float64
		for j := range q {
			if tf[i*q+j] > 0 && tf[best*q+j] == 0 {
				g += idf[j]
			}
		}
		if g > gain {
			second, gain = i, g
		}
	}
	out := []Span{x.sentences[best]}
	if second >= 0 && gain >= SecondShare*total {
		out = append(out, x.sentences[second])
		if second < best {
			out[0], out[1] = out[1], out[0]
		}
	}
	return out
}

// Best returns the sentence or two of premise that best match hypothesis,
// as (*Index).Best does.
func Best(premise, hypothesis string) []Span {
	return NewIndex(premise).Best(hypothesis)
}

func distinct(words []string) []string {
	slices.Sort(words)
	return slices.Compact(words)
}

// Sentences splits text into sentences, in text order.
//
// Where a sentence ends within a line is package internal/sentence's rule,
// the one the sentence atomizer and retrieval's passages use: at a run of
// terminators (. ! ? …) and closing quotes or brackets followed by white
// space, except after titles, initials, dotted acronyms and abbreviations
// that the next word shows go on ("Dr. Smith", "John F. Kennedy", "the
// U.S. Army", "No. 5"), and in a paragraph that has capital letters never
// before a lower-case word. Some corpora are lower-cased (the Wikipedia
// passages of FactReasoner's reference data are: "he was born in crofton,
// maryland. he is a graduate of ucla"); a paragraph without capitals is
// read as such text (sentence.CaselessEnds), where a period does not end a
// sentence before a comma, a semicolon, a colon or a closing bracket
// ("robert downey jr. , tommy").
//
// What lines and markers mean is decided here: a sentence also ends at a
// blank line, and at a line break before a line that does not go on in
// lower case (in a paragraph without capitals, at every line break).
// Wikipedia's section headings ("= = early life = =") end sentences and
// are not sentences themselves. A sentence longer than MaxSentenceRunes is
// cut at word boundaries.
func Sentences(text string) []Span {
	var out []Span
	for _, p := range paragraphs(text) {
		out = splitParagraph(text, p, out)
	}
	return out
}

// paragraphs are the runs of text between blank lines.
func paragraphs(text string) []Span {
	var out []Span
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' {
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
			j++
		}
		if j < len(text) && text[j] == '\n' {
			out = append(out, Span{start, i})
			start = j
			i = j
		}
	}
	return append(out, Span{start, len(text)})
}

// maxHeadingWords is the most words between two heading markers that are
// taken for a heading; more are a section's text without a period (a cast
// list, a filmography).
const maxHeadingWords = 8

// splitParagraph appends the sentences of text[p.Start:p.End] to out. The
// line breaks that end sentences and the heading markers cut the paragraph
// into runs; package sentence finds the sentence ends within each run.
func splitParagraph(text string, p Span, out []Span) []Span {
	caseless := strings.IndexFunc(text[p.Start:p.End], unicode.IsUpper) < 0
	ends := sentence.Ends
	if caseless {
		ends = sentence.CaselessEnds
	}
	add := func(s Span) {
		if s = trim(text, s); s.End > s.Start && hasLetterOrDigit(s.Text(text)) {
			out = cut(text, s, out)
		}
	}
	start := p.Start
	afterHeading := false // the run starts after a heading marker
	// run adds the sentences of text[start:at]; atHeading: a heading
	// marker follows it. A run between two markers that holds no sentence
	// end and few words is a heading.
	run := func(at int, atHeading bool) {
		from := start
		for _, e := range ends(text[start:at]) {
			add(Span{from, start + e})
			from = start + e
		}
		if from == start && atHeading && afterHeading && len(strings.Fields(text[start:at])) <= maxHeadingWords {
			return
		}
		add(Span{from, at})
	}
	for i := p.Start; i < p.End; i++ {
		switch text[i] {
		case '\n':
			next, _ := utf8.DecodeRuneInString(strings.TrimLeft(text[i+1:p.End], " \t\r"))
			if caseless || !unicode.IsLower(next) {
				run(i, false)
				start, afterHeading = i+1, false
			}
		case '=':
			if j, ok := headingMarker(text, p, i); ok {
				run(i, true)
				start, afterHeading = j, true
				i = j - 1
			}
		}
	}
	run(p.End, false)
	return out
}

// headingMarker reports whether a run of at least two '=' (spaces between
// them allowed: "= =", "==") starts at i, with white space or the
// paragraph's ends on both sides, and where it ends.
func headingMarker(text string, p Span, i int) (int, bool) {
	if i > p.Start && !isSpaceByte(text[i-1]) {
		return 0, false
	}
	j, n, last := i, 0, i
	for j < p.End && (text[j] == '=' || text[j] == ' ') {
		if text[j] == '=' {
			n++
			last = j + 1
		}
		j++
	}
	if n < 2 || (last < p.End && !isSpaceByte(text[last])) {
		return 0, false
	}
	return last, true
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// trim shrinks s to exclude white space at either end.
func trim(text string, s Span) Span {
	t := text[s.Start:s.End]
	lead := len(t) - len(strings.TrimLeftFunc(t, unicode.IsSpace))
	t = strings.TrimRightFunc(t[lead:], unicode.IsSpace)
	return Span{s.Start + lead, s.Start + lead + len(t)}
}

func hasLetterOrDigit(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// cut appends s to out, cut at word boundaries into parts of at most
// MaxSentenceRunes characters.
func cut(text string, s Span, out []Span) []Span {
	for {
		limit, n := s.End, 0 // limit: the offset just past the first MaxSentenceRunes characters
		for i := range text[s.Start:s.End] {
			if n == MaxSentenceRunes {
				limit = s.Start + i
				break
			}
			n++
		}
		if limit == s.End {
			return append(out, s)
		}
		at := limit
		if k := strings.LastIndexFunc(text[s.Start:limit], unicode.IsSpace); k > 0 {
			at = s.Start + k
		}
		out = append(out, trim(text, Span{s.Start, at}))
		s = trim(text, Span{at, s.End})
		if s.End == s.Start {
			return out
		}
	}
}
