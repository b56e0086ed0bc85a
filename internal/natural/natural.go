// Package natural orders identifiers as a person reads them: runs of
// digits compare by their value, so that a2 comes before a10 and c_a3_1
// before c_a10_0.
//
// It is for what people read (tables, lists, explanations). Output
// formats that are ordered by bytes, as FactReasoner's "predictions"
// string and the marginals of an output line are, keep byte order.
package natural

import (
	"slices"
	"strings"
)

// Compare returns -1, 0 or +1 as a sorts before, with or after b. Runs of
// ASCII digits compare by value, everything else by bytes; of two strings
// equal so (a01 and a1), the one whose first differing run has fewer
// leading zeros comes first, so that only equal strings compare equal.
func Compare(a, b string) int {
	zeros := 0 // the first difference in leading zeros, for a tie
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			da, db := digits(a), digits(b)
			va, vb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := compareNumbers(va, vb); c != 0 {
				return c
			}
			if zeros == 0 && da != db {
				zeros = cmpInt(da, db)
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmpInt(int(a[0]), int(b[0]))
		}
		a, b = a[1:], b[1:]
	}
	switch {
	case a != "" || b != "":
		return cmpInt(len(a), len(b))
	case zeros != 0:
		return zeros
	}
	return 0
}

// Sort sorts ids in natural order.
func Sort(ids []string) { slices.SortFunc(ids, Compare) }

// compareNumbers compares two runs of digits without leading zeros by
// value: the longer is larger, else the first differing digit decides.
func compareNumbers(a, b string) int {
	if len(a) != len(b) {
		return cmpInt(len(a), len(b))
	}
	return strings.Compare(a, b)
}

// digits is the length of the run of digits that s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
