package graph

import "strings"

// This file decides which contexts are an atom's own: those retrieved for
// it. They are FR1's pairs, and the pairs pruning always asks (docs/retrieval.md).

// IsQueryContext reports whether a context id is one FactReasoner gives
// the contexts retrieved for the question: c_q_<rank>.
func IsQueryContext(id string) bool {
	rest, ok := strings.CutPrefix(id, "c_q_")
	return ok && isRank(rest)
}

// NamedAtom returns the atom a context id names, c_<atom id>_<rank>, the
// ids FactReasoner (and retrieve.Fill) give the contexts retrieved for an
// atom; ok is false for other ids and for query contexts.
func NamedAtom(id string) (atom string, ok bool) {
	rest, ok := strings.CutPrefix(id, "c_")
	if !ok || IsQueryContext(id) {
		return "", false
	}
	i := strings.LastIndexByte(rest, '_')
	if i <= 0 || !isRank(rest[i+1:]) {
		return "", false
	}
	return rest[:i], true
}

func isRank(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// selectOwn sets n.own from the atoms of the record (duplicates included):
// an atom's own contexts are, as variables of n and without repeats, those
// its "contexts" list names, then those whose id names it, then the query
// contexts; an atom that repeats a kept atom's text adds its own to that
// atom's. In FR2 and FR3 a dropped duplicate context stands for the
// context kept for its text.
func (n *Nodes) selectOwn(atoms []atomContexts, contextIDs []string) {
	n.own = make([][]int, len(n.Atoms))
	atomIndex := make(map[string]int, len(n.Atoms))
	for i, a := range n.Atoms {
		atomIndex[a.ID] = i
	}
	seen := make([]map[int]bool, len(n.Atoms))
	add := func(atom string, context string) {
		i, ok := atomIndex[n.Resolve(atom)]
		if !ok {
			return
		}
		c, ok := n.contextIndex[n.Resolve(context)]
		if !ok {
			return
		}
		if seen[i] == nil {
			seen[i] = make(map[int]bool)
		}
		if !seen[i][c] {
			seen[i][c] = true
			n.own[i] = append(n.own[i], c)
		}
	}
	for _, a := range atoms {
		for _, c := range a.contexts {
			add(a.id, c)
		}
	}
	var query []string
	for _, id := range contextIDs { // file order
		if atom, ok := NamedAtom(id); ok {
			add(atom, id)
		} else if IsQueryContext(id) {
			query = append(query, id)
		}
	}
	for _, a := range n.Atoms {
		for _, id := range query {
			add(a.ID, id)
		}
	}
}

// atomContexts is an atom's id and the contexts it lists.
type atomContexts struct {
	id       string
	contexts []string
}

// Own returns, for each atom of n.Atoms, the indexes in n.Contexts of its
// own contexts, those retrieved for it: the contexts its "contexts" list
// names, then those whose id names it (c_<atom id>_<rank>), then the
// contexts retrieved for the question (c_q_<rank>), which are every atom's
// own (docs/retrieval.md). They are FR1's pairs, and the pairs that pruning always
// asks; two contexts that are own contexts of one atom (retrieved for the
// same atom, or one of them for the question) are an own pair of FR3. The
// slices must not be modified.
func (n Nodes) Own() [][]int { return n.own }
