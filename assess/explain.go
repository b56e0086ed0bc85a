package assess

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/factreasoner/factreasoner-go/evidence"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/natural"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/result"
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
	// Premise is the text of the relation's source, the context the NLI
	// model read as the premise, and Sentences the sentence or two of it
	// that best match the target's text (evidence.Best): where a reader
	// should look for what the relation rests on. Sentences is empty when
	// no sentence shares a word with the target.
	Premise   string
	Sentences []evidence.Span
}

// Explain explains the atoms of an assessment, in natural id order (a2
// before a10), or, when only is not empty, only the atom or context it names (an id of
// a dropped duplicate names the variable kept for it). An atom is moved by
// the relations whose target it is; a context by every relation it is an
// end of.
func (a *Assessment) Explain(only string) []Explanation {
	return a.explain(only, false)
}

// ExplainContexts explains the contexts of an assessment, in natural id
// order, as Explain does.
func (a *Assessment) ExplainContexts() []Explanation {
	return a.explain("", true)
}

func (a *Assessment) explain(only string, ofContexts bool) []Explanation {
	if a.Abstained {
		return nil // nothing was scored
	}
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
	// A context is the premise of many relations: split it once.
	premises := make(map[string]*evidence.Index)
	why := func(rel graph.Relation) (string, []evidence.Span) {
		x, ok := premises[rel.Source]
		if !ok {
			_, text := describe(rel.Source)
			x = evidence.NewIndex(text)
			premises[rel.Source] = x
		}
		_, hypothesis := describe(rel.Target)
		return x.Text(), x.Best(hypothesis)
	}
	// People read the ids: a2 before a10 (the network sorts them by
	// bytes, as the output's marginals are).
	vars := slices.Clone(a.Network.Variables)
	slices.SortStableFunc(vars, func(x, y graph.Variable) int { return natural.Compare(x.Name, y.Name) })
	var out []Explanation
	for _, v := range vars {
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
			ev.Premise, ev.Sentences = why(rel)
			e.Evidence = append(e.Evidence, ev)
		}
		sort.SliceStable(e.Evidence, func(i, j int) bool {
			ri, rj := e.Evidence[i], e.Evidence[j]
			if ri.Probability != rj.Probability {
				return ri.Probability > rj.Probability
			}
			return natural.Compare(ri.Other, rj.Other) < 0
		})
		out = append(out, e)
	}
	return out
}

// WriteExplanations writes explanations of an assessment (from Explain or
// ExplainContexts) as text, as fr inspect shows them: a header line with the
// record's scores, then each variable with its P(true) and the relations
// that move it, strongest first, with the NLI model's whole answer where
// the backend gives one, and under each relation the sentences of its
// premise that best match its hypothesis.
func WriteExplanations(w io.Writer, a *Assessment, ex []Explanation) error {
	var b bytes.Buffer
	writeExplanations(&b, a, ex)
	_, err := w.Write(b.Bytes())
	return err
}

func writeExplanations(w io.Writer, a *Assessment, ex []Explanation) {
	if !writeHeader(w, a) {
		return
	}
	for _, e := range ex {
		if e.Kind == graph.AtomVariable {
			gold := e.Gold
			if gold == "" {
				gold = "-"
			}
			fmt.Fprintf(w, "\n%s  P(true) = %.6f  predicted %s  gold %s\n    %s\n", e.ID, e.PTrue, e.Predicted, gold, e.Text)
		} else {
			fmt.Fprintf(w, "\n%s  P(true) = %.6f  (context) %q\n    %s\n", e.ID, e.PTrue, e.Title, result.OneLine(e.Text, 200))
		}
		if len(e.Evidence) == 0 {
			fmt.Fprintf(w, "    no relation: nothing moves it from its prior\n")
		}
		for _, ev := range e.Evidence {
			name := ev.OtherTitle
			if name == "" {
				name = result.OneLine(ev.OtherText, 60)
			}
			dir := "from"
			if ev.Source == e.ID {
				dir = "to"
			}
			fmt.Fprintf(w, "    %-13s %.6f  %s %s %q (P(true) = %.6f)", ev.Type, ev.Probability, dir, ev.Other, name, ev.OtherPTrue)
			if d := ev.Distribution; d != nil {
				fmt.Fprintf(w, "  [entailment %.4f, neutral %.4f, contradiction %.4f]", d[nli.Entailment], d[nli.Neutral], d[nli.Contradiction])
			}
			fmt.Fprintln(w)
			for _, s := range ev.Sentences {
				fmt.Fprintf(w, "        > %s\n", result.OneLine(s.Text(ev.Premise), 2*evidence.MaxSentenceRunes))
			}
		}
	}
	fmt.Fprintln(w)
}

// writeHeader writes the header of an assessment's explanations: its
// record, version, NLI and solver, and its scores; for a response that
// abstained, that it did, and false.
func writeHeader(w io.Writer, a *Assessment) bool {
	in := a.Instance
	if a.Abstained {
		fmt.Fprintf(w, "== line %d · %s · %s · abstained: the response declines to answer; nothing was scored\n    %s\n\n", in.Line, result.OneLine(in.Input, 80), a.Version, result.OneLine(in.Output, 200))
		return false
	}
	r := a.Solution.Report
	fmt.Fprintf(w, "== line %d · %s · %s · nli %s · solver %s/%s\n", in.Line, result.OneLine(in.Input, 80), a.Version, a.NLI, r.Solver, r.Method)
	s := a.Scores
	fmt.Fprintf(w, "   precision %.4f (%d of %d atoms true, %d false, %d undecided), F1@%g %.4f, E %.6f\n",
		s.Precision, s.NumTrueAtoms, s.NumAtoms, s.NumFalseAtoms, s.NumUniformAtoms, s.K, s.F1K, s.AvgEntropy)
	return true
}

// WriteBrief writes an assessment in a few lines, as fr score --response
// shows one answer: the header of WriteExplanations, then one line per
// atom (natural id order) with its P(true), predicted label and text, the
// evidence left out.
func WriteBrief(w io.Writer, a *Assessment) error {
	var b bytes.Buffer
	if writeHeader(&b, a) {
		for _, e := range a.Explain("") {
			fmt.Fprintf(&b, "   %-4s P(true) %.4f %-2s %s\n", e.ID, e.PTrue, e.Predicted, result.OneLine(e.Text, 120))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteDOT writes the assessment's network as Graphviz DOT, each variable
// shaded by its P(true).
func (a *Assessment) WriteDOT(w io.Writer) error {
	if a.Abstained {
		return fmt.Errorf("line %d: the response abstained: it has no network", a.Instance.Line)
	}
	p := make([]float64, len(a.Network.Variables))
	for i := range p {
		p[i] = a.Solution.Marginals[i][1]
	}
	return a.Network.WriteDOT(w, p)
}
