package pipeline

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultPairsPerAtom is the pruning of Open's pipelines: each atom is
// asked about its 5 best-matching contexts. On IBM's recorded Flaherty run
// every non-neutral relation is among its atom's best 4 (README, "Pair
// pruning"); 5 keeps one rank to spare, and asks 130 of FR2's 546 pairs.
const DefaultPairsPerAtom = 5

// AllPairs, as Options.PairsPerAtom, asks about every pair: the
// reference's behaviour.
const AllPairs = -1

// PairsPerAtomName writes a pruning setting as records and flags do: the
// number, or "all" for none (k <= 0).
func PairsPerAtomName(k int) string {
	if k <= 0 {
		return "all"
	}
	return strconv.Itoa(k)
}

// ParsePairsPerAtom reads a pruning setting: a number of contexts per atom
// (at least 1), or "all" (AllPairs).
func ParsePairsPerAtom(s string) (int, error) {
	if strings.TrimSpace(s) == "all" {
		return AllPairs, nil
	}
	k, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || k < 1 {
		return 0, fmt.Errorf("%q: want a number of contexts per atom (1 or more) or all", s)
	}
	return k, nil
}
