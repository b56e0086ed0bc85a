// Package summarize is FactReasoner's context summarizer (docs/llm.md): before
// NLI, an LLM writes, for each context and the atom it was retrieved for
// (for a query context, c_q_<j>, the question), a summary of what the
// context says about the atom, or "None" when it says nothing about it.
//
//   - A context whose summaries say nothing about any of its atoms leaves
//     the record; an atom's list loses the contexts that say nothing about
//     it.
//   - A kept context's prior becomes p_summary times its prior (its own
//     "probability", else the network's context prior: 0.9 · p_summary by
//     default), p_summary being exp(mean log probability of the summary's
//     tokens).
//   - The summary is written into the context's synthetic_summary, and NLI
//     reads it instead of the context's text (Premises); FR2 and FR3, which
//     merge contexts with the same NLI text, so merge contexts with the same
//     summary.
//
// This is what IBM FactReasoner's pipeline does with summarize_contexts
// (src/fact_reasoner/assessor.py, FactReasoner.build; the summarizer in
// src/fact_reasoner/core/summarizer.py). Where its code is buggy or
// silent, this package decides, and says so beside the rule: the
// probability's tokens (ReadSummary, Summary), what None and irrelevant
// mean (ReadSummary, Relevant), and which atom a context is summarized
// against (LLM.Record).
package summarize

import (
	"context"
	"fmt"
	"strings"

	"github.com/factreasoner/factreasoner-go/instance"
)

// QueryPrefix opens the ids of the contexts retrieved for the question
// rather than for an atom (c_q_0, c_q_1, ...): they are summarized with
// respect to the question.
const QueryPrefix = "c_q_"

// questionRef names the question as a pair's reference in messages.
const questionRef = "question"

// Report says what the summarizer did to one record.
type Report struct {
	// Asked is the number of pairs summarized (distinct context and
	// reference texts).
	Asked int
	// Kept counts the contexts kept, with their summaries.
	Kept int
	// Irrelevant lists the contexts dropped: their summaries said nothing
	// about any of their atoms (or the question), or they had no text.
	Irrelevant []string
	// Unsummarized lists the contexts kept as they are, unsummarized:
	// retrieved for no atom, in a record with neither question nor topic
	// to summarize them against. NLI reads their text.
	Unsummarized []string
}

// reference is what a context is summarized against: an atom (by index)
// or, atom < 0, the question.
type reference struct {
	atom     int
	id, text string
}

// Record runs the summarizer on a record's contexts and returns the record
// as the rest of the pipeline scores it; in is not modified. contextPrior
// is the network's context prior, the prior of contexts without their own
// probability.
//
// Each context is summarized against the atoms whose "contexts" list
// names it, in atom order; a context no atom lists, against the atom its
// id names (c_<atom>_<rank>), else against the question; a query context
// (QueryPrefix), against the question (the record's input, else its
// topic), whoever lists it. Decisions where IBM's code is silent or
// buggy: IBM summarizes a context once per atom that holds it, each time
// overwriting its summary and multiplying its prior again, and fails
// when an earlier atom had dropped it; here a context listed by several
// atoms is kept when its summary is relevant for at least one of them,
// takes the summary and p_summary of the first such atom, and leaves the
// lists of the atoms it says nothing about. IBM never summarizes a
// context that no atom lists and that is not a query context (its empty
// summary then becomes the NLI premise); here it is summarized against
// the question, or kept as it is when the record has no question
// (Report.Unsummarized).
//
// A record whose contexts already carry synthetic_summary is refused (its
// priors would be scaled twice: score it with Premises instead), as is a
// context probability outside [0, 1]. Relations the record states for a
// dropped context are dropped with it.
func (s *LLM) Record(ctx context.Context, in *instance.Instance, contextPrior float64) (*instance.Instance, Report, error) {
	var rep Report
	for i, c := range in.Contexts {
		if c.SyntheticSummary != "" {
			return nil, rep, &instance.FieldError{Field: fmt.Sprintf("contexts[%d].synthetic_summary", i),
				Msg: fmt.Sprintf("context %q is summarized already, and its probability scaled: score the record with its summaries as they are, or remove them to summarize it again", c.ID)}
		}
		if p := c.Probability; p != nil && !(*p >= 0 && *p <= 1) {
			return nil, rep, &instance.FieldError{Field: fmt.Sprintf("contexts[%d].probability", i), Msg: fmt.Sprintf("probability %v is not in [0, 1]", *p)}
		}
	}
	refs := references(in)
	var pairs []Pair
	index := make(map[[2]string]int) // context text, reference text -> pair
	slot := make([][]int, len(in.Contexts))
	for ci, c := range in.Contexts {
		text := c.NLIText()
		for _, r := range refs[ci] {
			k := [2]string{text, r.text}
			j, ok := index[k]
			if !ok {
				j = len(pairs)
				index[k] = j
				pairs = append(pairs, Pair{ContextID: c.ID, RefID: r.id, Context: text, Reference: r.text})
			}
			slot[ci] = append(slot[ci], j)
		}
	}
	rep.Asked = len(pairs)
	sums, err := s.Summarize(ctx, pairs)
	if err != nil {
		return nil, rep, err
	}

	out := *in
	out.Contexts = make([]instance.Context, 0, len(in.Contexts))
	dropped := make(map[string]bool)        // contexts that left the record
	silent := make(map[int]map[string]bool) // atom -> contexts that say nothing about it
	for ci, c := range in.Contexts {
		rs := refs[ci]
		if len(rs) == 0 && strings.TrimSpace(c.NLIText()) != "" {
			rep.Unsummarized = append(rep.Unsummarized, c.ID)
			out.Contexts = append(out.Contexts, c)
			continue
		}
		var first *Summary
		for k := range rs {
			sum := sums[slot[ci][k]]
			if sum.Relevant {
				if first == nil {
					first = &sum
				}
				continue
			}
			if a := rs[k].atom; a >= 0 {
				if silent[a] == nil {
					silent[a] = make(map[string]bool)
				}
				silent[a][c.ID] = true
			}
		}
		if first == nil {
			dropped[c.ID] = true
			rep.Irrelevant = append(rep.Irrelevant, c.ID)
			continue
		}
		prior := contextPrior
		if c.Probability != nil {
			prior = *c.Probability
		}
		p := first.Probability * prior
		c.Probability = &p
		c.SyntheticSummary = first.Text
		out.Contexts = append(out.Contexts, c)
		rep.Kept++
	}

	out.Atoms = make([]instance.Atom, len(in.Atoms))
	for ai, a := range in.Atoms {
		ids := a.Contexts
		a.Contexts = nil
		for _, id := range ids {
			if !dropped[id] && !silent[ai][id] {
				a.Contexts = append(a.Contexts, id)
			}
		}
		out.Atoms[ai] = a
	}
	if len(dropped) > 0 && len(in.Relations) > 0 {
		out.Relations = nil
		for _, r := range in.Relations {
			if !dropped[r.Source] && !dropped[r.Target] {
				out.Relations = append(out.Relations, r)
			}
		}
	}
	return &out, rep, nil
}

// references lists, for each context of in, what it is summarized
// against (see LLM.Record): none for a context with no text (it says
// nothing) or with nothing to summarize it against.
func references(in *instance.Instance) [][]reference {
	atomIndex := make(map[string]int, len(in.Atoms))
	for i, a := range in.Atoms {
		atomIndex[a.ID] = i
	}
	listedBy := make(map[string][]int)
	for ai, a := range in.Atoms {
		for _, id := range a.Contexts {
			if l := listedBy[id]; len(l) == 0 || l[len(l)-1] != ai {
				listedBy[id] = append(l, ai)
			}
		}
	}
	question := strings.TrimSpace(in.Input)
	if question == "" {
		question = strings.TrimSpace(in.Topic)
	}
	atomRef := func(ai int) reference {
		return reference{atom: ai, id: "atom " + in.Atoms[ai].ID, text: in.Atoms[ai].Text}
	}
	out := make([][]reference, len(in.Contexts))
	for ci, c := range in.Contexts {
		if strings.TrimSpace(c.NLIText()) == "" {
			continue
		}
		var rs []reference
		switch {
		case strings.HasPrefix(c.ID, QueryPrefix):
		case len(listedBy[c.ID]) > 0:
			for _, ai := range listedBy[c.ID] {
				rs = append(rs, atomRef(ai))
			}
		default:
			if ai, ok := atomIndex[namedAtom(c.ID)]; ok {
				rs = append(rs, atomRef(ai))
			}
		}
		if len(rs) == 0 && question != "" {
			rs = append(rs, reference{atom: -1, id: questionRef, text: question})
		}
		out[ci] = rs
	}
	return out
}

// namedAtom is the atom id a context id c_<atom>_<rank> names, or "".
func namedAtom(id string) string {
	rest, ok := strings.CutPrefix(id, "c_")
	if !ok {
		return ""
	}
	i := strings.LastIndexByte(rest, '_')
	if i <= 0 || i == len(rest)-1 {
		return ""
	}
	for _, r := range rest[i+1:] {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return rest[:i]
}

// Premises returns the record as NLI reads it when summaries are on: each
// context that carries a synthetic_summary has it as its text, and no
// snippet, so that its NLI text, the premise of its pairs (and, in FR3,
// their hypothesis) and what FR2 and FR3 merge contexts on, is its
// summary. Other contexts keep their text, as IBM's code compares them
// when it merges contexts by summary; missing counts them. The contexts'
// probabilities are kept; in is not modified.
func Premises(in *instance.Instance) (out *instance.Instance, missing int) {
	cp := *in
	cp.Contexts = make([]instance.Context, len(in.Contexts))
	for i, c := range in.Contexts {
		if c.SyntheticSummary == "" {
			missing++
		} else {
			c.Text, c.Snippet = c.SyntheticSummary, ""
		}
		cp.Contexts[i] = c
	}
	return &cp, missing
}
