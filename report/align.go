package report

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/instance"
)

// sentences splits text into pieces that, joined, give the text back: each
// sentence with the space that follows it. A sentence ends at . ! or ?
// (and any closing quotes or brackets) before white space and a capital
// letter, digit or quote, or at a line break; a period after a single
// capital letter or a common abbreviation ends none.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if r == '\n' {
			j := skipSpace(text, i)
			out = append(out, text[start:j])
			start, i = j, j
			continue
		}
		if r != '.' && r != '!' && r != '?' {
			continue
		}
		end := i
		for end < len(text) && strings.ContainsRune(`"'”’)]`, rune(text[end])) {
			end++
		}
		j := skipSpace(text, end)
		if j == end || j >= len(text) {
			continue
		}
		next, _ := utf8.DecodeRuneInString(text[j:])
		if !unicode.IsUpper(next) && !unicode.IsDigit(next) && !strings.ContainsRune(`"'“‘(`, next) {
			continue
		}
		if r == '.' && abbreviation(text[start:i-1]) {
			continue
		}
		out = append(out, text[start:j])
		start, i = j, j
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// abbreviation reports whether the text before a period ends with a word
// after which a period does not end a sentence.
func abbreviation(before string) bool {
	f := strings.Fields(before)
	if len(f) == 0 {
		return false
	}
	w := strings.TrimLeft(f[len(f)-1], `"'(“‘`)
	if utf8.RuneCountInString(w) == 1 && unicode.IsUpper([]rune(w)[0]) {
		return true // an initial: "John F. Kennedy", "U.S."
	}
	switch strings.ToLower(w) {
	case "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "e.g", "i.e", "etc", "no", "co", "inc", "ltd", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec":
		return true
	}
	return strings.Contains(w, ".") // "U.S", "Ph.D"
}

// stopwords carry no evidence of where an atom came from.
var stopwords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`a an the and or of in on at to for from by with as is was were are be been
		being has have had he she it its his her they them their this that these those who which what
		also not but into over under than then there here i we you`) {
		m[w] = true
	}
	return m
}()

func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		if !stopwords[w] {
			out = append(out, w)
		}
	}
	return out
}

// alignAtoms gives the index of the sentence each atom was most likely
// drawn from. An atom's words (of its original text when it has one,
// before the reviser made it stand alone) are matched against each
// sentence's, each word weighted by how rare it is among the sentences;
// the sentence indices are chosen non-decreasing in atom order (atomizers
// go through a response in order) to maximize the total match.
func alignAtoms(sents []string, atoms []instance.Atom) []int {
	out := make([]int, len(atoms))
	if len(atoms) == 0 {
		return out
	}
	if len(sents) == 0 {
		for i := range out {
			out[i] = -1
		}
		return out
	}
	sentWords := make([]map[string]bool, len(sents))
	df := make(map[string]int)
	for i, s := range sents {
		sentWords[i] = make(map[string]bool)
		for _, w := range words(s) {
			if !sentWords[i][w] {
				sentWords[i][w] = true
				df[w]++
			}
		}
	}
	n, m := len(atoms), len(sents)
	match := make([][]float64, n) // match[i][s]: weighted share of atom i's words in sentence s
	for i, a := range atoms {
		match[i] = make([]float64, m)
		text := a.Original
		if text == "" {
			text = a.Text
		}
		ws := words(text)
		if len(ws) == 0 {
			ws = words(a.Text)
		}
		var total float64
		for _, w := range ws {
			total += idf(df[w], m)
		}
		for s := range sents {
			var got float64
			for _, w := range ws {
				if sentWords[s][w] {
					got += idf(df[w], m)
				}
			}
			if total > 0 {
				match[i][s] = got / total
			}
		}
	}
	// best[i][s]: the largest total for atoms 0..i with atom i in sentence
	// s; ties keep the earliest sentence.
	best := make([][]float64, n)
	from := make([][]int, n)
	for i := range atoms {
		best[i], from[i] = make([]float64, m), make([]int, m)
		for s := 0; s < m; s++ {
			prev, arg := 0.0, -1
			if i > 0 {
				prev, arg = math.Inf(-1), 0
				for t := 0; t <= s; t++ {
					if best[i-1][t] > prev {
						prev, arg = best[i-1][t], t
					}
				}
			}
			best[i][s], from[i][s] = prev+match[i][s], arg
		}
	}
	s := 0
	for t := 1; t < m; t++ {
		if best[n-1][t] > best[n-1][s] {
			s = t
		}
	}
	for i := n - 1; i >= 0; i-- {
		out[i] = s
		s = from[i][s]
	}
	return out
}

// idf weights a word found in df of n sentences: rare words say more.
func idf(df, n int) float64 { return math.Log(1 + float64(n)/float64(max(df, 1))) }
