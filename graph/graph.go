// Package graph turns an instance and its NLI relations into FactReasoner's
// Markov network: one binary variable per atom and per context, unary priors,
// and a pairwise factor per entailment, contradiction or equivalence
// relation. It implements the three graph versions of the paper:
//
//	FR1: each atom with the contexts retrieved for it
//	FR2: every atom with every (deduplicated) context
//	FR3: FR2 plus context–context relations
//
// Data flows one way: SelectNodes → Pairs → (NLI) → Relations → Build.
package graph

import (
	"fmt"
	"strings"

	"github.com/factreasoner/factreasoner-go/instance"
)

// Version is a FactReasoner graph version.
type Version int

// The graph versions.
const (
	FR1 Version = 1
	FR2 Version = 2
	FR3 Version = 3
)

func (v Version) String() string { return fmt.Sprintf("FR%d", int(v)) }

// ParseVersion accepts "1", "2", "3" and "FR1", "fr2", ...
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "FR")
	switch t {
	case "1":
		return FR1, nil
	case "2":
		return FR2, nil
	case "3":
		return FR3, nil
	}
	return 0, fmt.Errorf("unknown FactReasoner version %q (want 1, 2 or 3)", s)
}

// Nodes are the atoms and contexts that become variables of a network.
type Nodes struct {
	Version  Version
	Atoms    []instance.Atom    // in file order, duplicates removed
	Contexts []instance.Context // in file order; deduplicated for FR2 and FR3
	// Alias maps the id of a dropped duplicate atom or context to the id of
	// the one that was kept.
	Alias map[string]string

	contextIndex map[string]int // id -> index in Contexts
	own          [][]int        // see Own
}

// SelectNodes picks the variables a version uses. Atoms with identical text
// are merged in every version (the first wins); FR2 and FR3 also merge
// contexts whose NLI text is identical (the first in file order wins).
func SelectNodes(in *instance.Instance, v Version) Nodes {
	n := Nodes{Version: v, Alias: make(map[string]string)}
	seenAtom := make(map[string]string)
	for _, a := range in.Atoms {
		if kept, ok := seenAtom[a.Text]; ok {
			n.Alias[a.ID] = kept
			continue
		}
		seenAtom[a.Text] = a.ID
		a.Contexts = append([]string(nil), a.Contexts...)
		n.Atoms = append(n.Atoms, a)
	}
	seenText := make(map[string]string)
	for _, c := range in.Contexts {
		if v != FR1 {
			t := c.NLIText()
			if kept, ok := seenText[t]; ok {
				n.Alias[c.ID] = kept
				continue
			}
			seenText[t] = c.ID
		}
		n.Contexts = append(n.Contexts, c)
	}
	n.index()
	atoms := make([]atomContexts, len(in.Atoms))
	for i, a := range in.Atoms {
		atoms[i] = atomContexts{a.ID, a.Contexts}
	}
	ids := make([]string, len(in.Contexts))
	for i, c := range in.Contexts {
		ids[i] = c.ID
	}
	n.selectOwn(atoms, ids)
	return n
}

func (n *Nodes) index() {
	n.contextIndex = make(map[string]int, len(n.Contexts))
	for i, c := range n.Contexts {
		n.contextIndex[c.ID] = i
	}
}

// Resolve maps a possibly dropped id to the id of the variable that stands
// for it.
func (n Nodes) Resolve(id string) string {
	if k, ok := n.Alias[id]; ok {
		return k
	}
	return id
}

// Context returns the kept context with the given id.
func (n Nodes) Context(id string) (instance.Context, bool) {
	if n.contextIndex == nil {
		n.index()
	}
	i, ok := n.contextIndex[id]
	if !ok {
		return instance.Context{}, false
	}
	return n.Contexts[i], true
}

// ContextIndex returns the index in Contexts of the kept context with the
// given id.
func (n Nodes) ContextIndex(id string) (int, bool) {
	if n.contextIndex == nil {
		n.index()
	}
	i, ok := n.contextIndex[id]
	return i, ok
}

// IsContext reports whether id names a kept context.
func (n Nodes) IsContext(id string) bool {
	_, ok := n.Context(id)
	return ok
}

// TextAlias maps the id of every atom and context whose text repeats an
// earlier one (NLI text for contexts) to the id of the first. Relations
// stated by id hold for every copy of the same text, whatever the version.
func TextAlias(in *instance.Instance) map[string]string {
	return SelectNodes(in, FR2).Alias
}
