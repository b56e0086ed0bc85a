package retrieve

import (
	"fmt"
	"strings"
)

// QueryMode says how a search source forms its query from a record's
// topic and an atom.
type QueryMode int

const (
	// QueryAtom searches for the atom's text alone, as FactReasoner does:
	// its atoms are revised to stand alone, so the atom names its subject.
	QueryAtom QueryMode = iota
	// QueryTopic searches for the topic, a space and the atom, as
	// FActScore's retrieval does (Query); a record without a topic is
	// searched for the atom alone.
	QueryTopic
)

// ParseQueryMode reads "atom" or "topic".
func ParseQueryMode(s string) (QueryMode, error) {
	switch s {
	case "atom", "":
		return QueryAtom, nil
	case "topic":
		return QueryTopic, nil
	}
	return 0, fmt.Errorf("%q is not atom or topic", s)
}

func (m QueryMode) String() string {
	if m == QueryTopic {
		return "topic"
	}
	return "atom"
}

// query is the search query for an atom about a topic, cut to maxChars
// characters.
func (m QueryMode) query(topic, atom string, maxChars int) string {
	q := strings.TrimSpace(atom)
	if t := strings.TrimSpace(topic); m == QueryTopic && t != "" && q != "" {
		q = t + " " + q
	}
	return truncateChars(q, maxChars)
}
