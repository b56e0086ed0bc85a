package graph

import (
	"fmt"
	"math"
	"sort"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
)

// Options set the priors and factor tables of a network.
type Options struct {
	// UsePriors selects the factor tables that fold the target's prior into
	// the rows where the source is false (the reference library's default);
	// false gives the paper's Table 1.
	UsePriors    bool    `json:"use_priors"`
	AtomPrior    float64 `json:"atom_prior"`    // prior probability that an atom is true
	ContextPrior float64 `json:"context_prior"` // prior probability that a context is true
}

// DefaultOptions are the reference's settings: priors in the factors, atom
// prior 0.5, context prior 0.9.
func DefaultOptions() Options {
	return Options{UsePriors: true, AtomPrior: 0.5, ContextPrior: 0.9}
}

// Validate checks that the priors are probabilities strictly inside (0, 1).
func (o Options) Validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"atom prior", o.AtomPrior}, {"context prior", o.ContextPrior}} {
		if !(p.v > 0 && p.v < 1) {
			return fmt.Errorf("%s %v is not in (0, 1)", p.name, p.v)
		}
	}
	return nil
}

// Kind says whether a variable stands for an atom or a context.
type Kind uint8

// Variable kinds.
const (
	AtomVariable Kind = iota
	ContextVariable
)

func (k Kind) String() string {
	if k == AtomVariable {
		return "atom"
	}
	return "context"
}

// Variable is a binary variable of the network; value 1 means true.
type Variable struct {
	Name  string
	Kind  Kind
	Prior float64
	// Text is for display: the atom's text, or the context's title (its
	// text when it has no title).
	Text string
}

// Factor is the pairwise factor of one relation over (Source, Target),
// listed as [f(¬s,¬t), f(¬s,t), f(s,¬t), f(s,t)].
type Factor struct {
	Relation
	Table [4]float64
}

// Network is a FactReasoner Markov network.
type Network struct {
	// Variables are sorted by name as byte strings (a0, a1, a10, ..., c_...),
	// the order merlin and the reference use.
	Variables []Variable
	Factors   []Factor
	Options   Options
	index     map[string]int
}

// MinProbability bounds NLI probabilities away from 0 and 1 so that no
// factor table holds an exact zero.
const MinProbability = 1e-6

// Build makes the network of the given nodes and relations. A context's
// prior is ContextPrior.
func Build(n Nodes, rels []Relation, o Options) (*Network, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	g := &Network{Options: o, index: make(map[string]int)}
	for _, a := range n.Atoms {
		g.Variables = append(g.Variables, Variable{Name: a.ID, Kind: AtomVariable, Prior: o.AtomPrior, Text: a.Text})
	}
	for _, c := range n.Contexts {
		text := c.Title
		if text == "" {
			text = c.NLIText()
		}
		g.Variables = append(g.Variables, Variable{Name: c.ID, Kind: ContextVariable, Prior: ContextPrior(c, o), Text: text})
	}
	sort.Slice(g.Variables, func(i, j int) bool { return g.Variables[i].Name < g.Variables[j].Name })
	for i, v := range g.Variables {
		if _, dup := g.index[v.Name]; dup {
			return nil, fmt.Errorf("graph: duplicate variable %q", v.Name)
		}
		g.index[v.Name] = i
	}
	for i, r := range rels {
		si, ok := g.index[r.Source]
		if !ok || g.Variables[si].Kind != ContextVariable {
			return nil, fmt.Errorf("graph: relation %d: source %q is not a context of the network", i, r.Source)
		}
		ti, ok := g.index[r.Target]
		if !ok {
			return nil, fmt.Errorf("graph: relation %d: target %q is not a variable of the network", i, r.Target)
		}
		if si == ti {
			return nil, fmt.Errorf("graph: relation %d links %q to itself", i, r.Source)
		}
		if math.IsNaN(r.Probability) || r.Probability < 0 || r.Probability > 1 {
			return nil, fmt.Errorf("graph: relation %d (%s → %s): probability %v is not in [0, 1]", i, r.Source, r.Target, r.Probability)
		}
		t, err := table(r.Type, r.Probability, g.Variables[ti].Prior, o.UsePriors)
		if err != nil {
			return nil, fmt.Errorf("graph: relation %d: %w", i, err)
		}
		g.Factors = append(g.Factors, Factor{Relation: r, Table: t})
	}
	return g, nil
}

// ContextPrior is a context's prior: its own probability when it has one
// (OwnPrior), else the options' context prior. The prior is the context
// variable's unary factor and, with UsePriors, π_T of every factor that
// targets the context.
func ContextPrior(c instance.Context, o Options) float64 {
	if p, ok := OwnPrior(c); ok {
		return p
	}
	return o.ContextPrior
}

// OwnPrior is the prior a context carries itself, its probability
// (FactReasoner's Context.probability: docs/formats.md), kept inside
// [MinProbability, 1 − MinProbability] as NLI probabilities are, so that
// no table holds an exact zero; ok is false when it carries none.
func OwnPrior(c instance.Context) (p float64, ok bool) {
	if c.Probability == nil {
		return 0, false
	}
	return min(max(*c.Probability, MinProbability), 1-MinProbability), true
}

// table returns the factor table of a relation (docs/inference.md). prior is the
// target's prior.
func table(t RelationType, p, prior float64, usePriors bool) ([4]float64, error) {
	p = min(max(p, MinProbability), 1-MinProbability)
	switch t {
	case Entailment:
		if usePriors {
			return [4]float64{1 - prior, prior, 1 - p, p}, nil
		}
		return [4]float64{p, p, 1 - p, p}, nil
	case Contradiction:
		if usePriors {
			return [4]float64{1 - prior, prior, p, 1 - p}, nil
		}
		return [4]float64{p, p, p, 1 - p}, nil
	case Equivalence:
		return [4]float64{p, 1 - p, 1 - p, p}, nil
	}
	return [4]float64{}, fmt.Errorf("unknown relation type %v", t)
}

// Index returns the position of the named variable.
func (g *Network) Index(name string) (int, bool) {
	i, ok := g.index[name]
	return i, ok
}

// Model returns the network as a discrete model: variable i of the model is
// Variables[i]; the factors are every unary prior, in variable order, then
// one pairwise factor per relation with scope (source, target).
func (g *Network) Model() *inference.Model {
	m := &inference.Model{Cards: make([]int, len(g.Variables))}
	m.Factors = make([]inference.Factor, 0, len(g.Variables)+len(g.Factors))
	for i, v := range g.Variables {
		m.Cards[i] = 2
		m.Factors = append(m.Factors, inference.Factor{Scope: []int{i}, Table: []float64{1 - v.Prior, v.Prior}})
	}
	for _, f := range g.Factors {
		t := f.Table
		m.Factors = append(m.Factors, inference.Factor{
			Scope: []int{g.index[f.Source], g.index[f.Target]},
			Table: t[:],
		})
	}
	return m
}
