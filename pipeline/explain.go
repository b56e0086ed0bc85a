package pipeline

import (
	"sort"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
)

// Explanation says why a variable of an assessment came out as it did:
// its marginal and the relations that move it, strongest first.
type Explanation struct {
	ID        string
	Kind      graph.Kind
	PTrue     float64
	Predicted string // S or NS
	Gold      string // the atom's gold label, "" when unknown (and for contexts)
	Text      string // the atom's text, or the context's NLI text
	Title     string // the context's title
	Evidence  []Evidence
}

// Evidence is one relation that moves a variable.
type Evidence struct {
	graph.Relation
	// Other is the variable at the relation's other end, with its title
	// (contexts), text and own marginal.
	Other      string
	OtherTitle string
	OtherText  string
	OtherPTrue float64
	// Distribution is the NLI model's whole answer for the pair, indexed
	// by nli.Label, when the backend gives one.
	Distribution []float64
}

// Explain explains the atoms of an assessment, in byte-sorted id order,
// or, when only is not empty, only the atom or context it names (an id of
// a dropped duplicate names the variable kept for it). An atom is moved by
// the relations whose target it is; a context by every relation it is an
// end of.
func (a *Assessment) Explain(only string) []Explanation {
	return a.explain(only, false)
}

// ExplainContexts explains the contexts of an assessment, in byte-sorted
// id order, as Explain does.
func (a *Assessment) ExplainContexts() []Explanation {
	return a.explain("", true)
}

func (a *Assessment) explain(only string, ofContexts bool) []Explanation {
	if only != "" {
		only = a.Nodes.Resolve(only)
	}
	contexts := make(map[string]instance.Context, len(a.Nodes.Contexts))
	for _, c := range a.Nodes.Contexts {
		contexts[c.ID] = c
	}
	atoms := make(map[string]instance.Atom, len(a.Nodes.Atoms))
	for _, at := range a.Nodes.Atoms {
		atoms[at.ID] = at
	}
	// The model's full answer for a pair, when the backend gives one (onnx,
	// lexical): how sure it was of the other labels too.
	dist := make(map[[2]string][]float64)
	for i, p := range a.Pairs {
		if i < len(a.Results) && len(a.Results[i].Distribution) == 3 {
			dist[[2]string{p.PremiseID, p.HypothesisID}] = a.Results[i].Distribution
		}
	}
	describe := func(id string) (title, text string) {
		if c, ok := contexts[id]; ok {
			return c.Title, c.NLIText()
		}
		return "", atoms[id].Text
	}
	var out []Explanation
	for _, v := range a.Network.Variables { // sorted by name
		isAtom := v.Kind == graph.AtomVariable
		if (only == "" && isAtom == ofContexts) || (only != "" && v.Name != only) {
			continue
		}
		e := Explanation{ID: v.Name, Kind: v.Kind, Predicted: "NS"}
		e.PTrue, _ = a.PTrue(v.Name)
		if e.PTrue > 1-e.PTrue {
			e.Predicted = "S"
		}
		e.Title, e.Text = describe(v.Name)
		if isAtom {
			e.Gold = atoms[v.Name].Label
		}
		for _, rel := range a.Relations {
			other := ""
			switch {
			case rel.Target == v.Name:
				other = rel.Source
			case rel.Source == v.Name && !isAtom:
				other = rel.Target
			default:
				continue
			}
			ev := Evidence{Relation: rel, Other: other, Distribution: dist[[2]string{rel.Source, rel.Target}]}
			ev.OtherTitle, ev.OtherText = describe(other)
			ev.OtherPTrue, _ = a.PTrue(other)
			e.Evidence = append(e.Evidence, ev)
		}
		sort.SliceStable(e.Evidence, func(i, j int) bool {
			ri, rj := e.Evidence[i], e.Evidence[j]
			if ri.Probability != rj.Probability {
				return ri.Probability > rj.Probability
			}
			return ri.Other < rj.Other
		})
		out = append(out, e)
	}
	return out
}
