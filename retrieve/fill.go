package retrieve

import (
	"context"
	"fmt"
	"strings"

	"github.com/factreasoner/factreasoner-go/instance"
)

// MaxContextChars caps a context's text, in characters, as FactReasoner
// caps Wikipedia pages (LangChain's doc_content_chars_max = 4000).
const MaxContextChars = 4000

// Fill retrieves up to k passages for every atom of in that lists no
// contexts, and adds them to in as contexts with ids c_<atom id>_<rank>
// (rank from 0, best first) listed in the atom's contexts. Atoms that
// already list contexts are left alone. Passages with no text are dropped;
// texts longer than MaxContextChars characters are cut there. It returns
// the number of atoms it retrieved for.
//
// On an error (which names the atom) in is left as it was.
func Fill(ctx context.Context, r Retriever, in *instance.Instance, k int) (int, error) {
	taken := make(map[string]bool, len(in.Contexts)+len(in.Atoms))
	for _, c := range in.Contexts {
		taken[c.ID] = true
	}
	for _, a := range in.Atoms {
		taken[a.ID] = true
	}
	type addition struct {
		atom int
		ctxs []instance.Context
	}
	var adds []addition
	for i, a := range in.Atoms {
		if len(a.Contexts) > 0 {
			continue
		}
		ps, err := r.Retrieve(ctx, in.Topic, a.Text, k)
		if err != nil {
			return 0, fmt.Errorf("atom %s: %w", a.ID, err)
		}
		add := addition{atom: i}
		for _, p := range ps {
			if empty(p) {
				continue
			}
			id := fmt.Sprintf("c_%s_%d", a.ID, len(add.ctxs))
			if taken[id] {
				return 0, fmt.Errorf("atom %s: cannot add context %q: the record already has that id", a.ID, id)
			}
			taken[id] = true
			add.ctxs = append(add.ctxs, contextOf(id, p))
		}
		adds = append(adds, add)
	}
	for _, add := range adds {
		for _, c := range add.ctxs {
			in.Contexts = append(in.Contexts, c)
			in.Atoms[add.atom].Contexts = append(in.Atoms[add.atom].Contexts, c.ID)
		}
	}
	return len(adds), nil
}

// FillQuery retrieves up to k passages for the record's question (its
// input) and adds them as contexts with ids c_q_<rank> (rank from 0, best
// first), as FactReasoner's pipeline does (src/fact_reasoner/core/utils.py,
// build_contexts: "c_q_" + str(j) over the retriever's answer for the
// query; its retriever returns the same top_k for the question as for
// each atom). No atom lists them: every atom's pairs take them as its own
// (graph.Nodes.Own). A record without a question, or that has query
// contexts already, is left alone. Passages are kept as Fill keeps them.
// It returns the number of contexts added; on an error in is left as it
// was.
func FillQuery(ctx context.Context, r Retriever, in *instance.Instance, k int) (int, error) {
	if k <= 0 || strings.TrimSpace(in.Input) == "" {
		return 0, nil
	}
	taken := make(map[string]bool, len(in.Contexts))
	for _, c := range in.Contexts {
		if strings.HasPrefix(c.ID, "c_q_") {
			return 0, nil
		}
		taken[c.ID] = true
	}
	ps, err := r.Retrieve(ctx, in.Topic, in.Input, k)
	if err != nil {
		return 0, fmt.Errorf("the question: %w", err)
	}
	var add []instance.Context
	for _, p := range ps {
		if empty(p) {
			continue
		}
		id := fmt.Sprintf("c_q_%d", len(add))
		if taken[id] {
			return 0, fmt.Errorf("the question: cannot add context %q: the record already has that id", id)
		}
		add = append(add, contextOf(id, p))
	}
	in.Contexts = append(in.Contexts, add...)
	return len(add), nil
}

// empty reports whether a passage has neither text nor snippet: it is not
// made a context.
func empty(p Passage) bool {
	return strings.TrimSpace(p.Text) == "" && strings.TrimSpace(p.Snippet) == ""
}

// contextOf is the context a retrieved passage becomes, its text cut at
// MaxContextChars characters.
func contextOf(id string, p Passage) instance.Context {
	return instance.Context{ID: id, Title: p.Title, Text: truncateChars(p.Text, MaxContextChars), Snippet: p.Snippet, Link: p.Link, Source: p.Source, Probability: p.Prior}
}

// truncateChars cuts s to at most n characters (code points, as Python's
// slicing counts them).
func truncateChars(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}
