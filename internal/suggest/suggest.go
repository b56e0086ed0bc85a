// Package suggest says which of some names a mistyped name probably meant
// (a command, a flag), by the edit distance between them: "did you mean
// "score"?".
package suggest

import (
	"slices"
	"strconv"
	"strings"
)

// DidYouMean says which of candidates (command names, or flags with
// their dashes) the mistyped name probably meant: those nearest to it in
// edit distance, if near enough to be a typo, or else those it begins
// (--fetch for --fetch-pages); "" when none is. The answer is ready to be
// appended to a message: `: did you mean "score"?`.
func DidYouMean(name string, candidates []string) string {
	flag := strings.HasPrefix(name, "-")
	key := func(s string) string { return strings.TrimLeft(s, "-") }
	typed := key(name)
	// A typo changes a few characters: one in a short name, a third of
	// a longer one, at most three.
	limit := min(max(1, len([]rune(typed))/3), 3)
	best, nearest := limit+1, []string(nil)
	for _, c := range candidates {
		switch d := Distance(typed, key(c)); {
		case d < best:
			best, nearest = d, []string{c}
		case d == best && !slices.Contains(nearest, c):
			nearest = append(nearest, c)
		}
	}
	if len(nearest) == 0 && len(typed) >= 3 {
		for _, c := range candidates {
			if strings.HasPrefix(key(c), typed) && !slices.Contains(nearest, c) {
				nearest = append(nearest, c)
			}
		}
	}
	if len(nearest) == 0 {
		return ""
	}
	slices.Sort(nearest)
	if len(nearest) > 3 {
		nearest = nearest[:3]
	}
	quoted := make([]string, len(nearest))
	for i, n := range nearest {
		if flag {
			quoted[i] = n
		} else {
			quoted[i] = strconv.Quote(n)
		}
	}
	if len(quoted) > 1 {
		quoted = []string{strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]}
	}
	return ": did you mean " + quoted[0] + "?"
}

// Distance is the optimal string alignment distance between a and b:
// the fewest insertions, deletions, substitutions and transpositions of
// two neighbouring characters that turn one into the other (each
// character edited once), counted in runes.
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
