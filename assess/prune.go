package assess

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/prune"
)

// DefaultPairsPerAtom is the pruning of package assemble's pipelines: each atom is
// asked about its own contexts and its DefaultPairsPerAtom best-matching other
// contexts (see BENCHMARKS.md, "Pair pruning: accuracy and pairs asked",
// for the measurements that chose it).
const DefaultPairsPerAtom = 3

// Pruning settings of Pipeline.PairsPerAtom besides a number of other
// contexts per atom.
const (
	// AllPairs asks about every pair: the reference's behaviour (as does
	// the zero value).
	AllPairs = -1
	// OwnPairsOnly asks about the own pairs only: each atom with its own
	// contexts, and FR3's own context pairs.
	OwnPairsOnly = -2
)

// PairsPerAtomName writes a pruning setting as records and flags do: "all"
// for every pair, "own" for the own pairs only, "own+K" for the own pairs
// and K others per atom.
func PairsPerAtomName(k int) string {
	switch {
	case k == OwnPairsOnly:
		return "own"
	case k <= 0:
		return "all"
	}
	return "own+" + strconv.Itoa(k)
}

// ParsePairsPerAtom reads a pruning setting: all (AllPairs); own or 0
// (OwnPairsOnly); a number K of other contexts per atom, 1 or more, also
// written own+K.
func ParsePairsPerAtom(s string) (int, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "all":
		return AllPairs, nil
	case "own", "0", "own+0":
		return OwnPairsOnly, nil
	}
	k, err := strconv.Atoi(strings.TrimPrefix(s, "own+"))
	if err != nil || k < 1 {
		return 0, fmt.Errorf("%q: want all, own (or 0: each atom's own contexts only), or the number of other contexts per atom beside its own (own+K, or K)", s)
	}
	return k, nil
}

// pruneK is the k of prune.Select for a pruning setting.
func pruneK(setting int) int {
	switch {
	case setting == OwnPairsOnly:
		return 0
	case setting <= 0:
		return prune.All
	}
	return setting
}
