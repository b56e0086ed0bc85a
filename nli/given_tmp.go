package nli

import (
	"context"

	"github.com/factreasoner/factreasoner-go/instance"
)

// Temporary stand-ins for the given, lexical and cache backends, replaced
// when the nlibase branch lands. Not for use.
type Given struct{ m map[[2]string]Result }

func NewGiven(rels []instance.Relation) *Given {
	g := &Given{m: map[[2]string]Result{}}
	for _, r := range rels {
		var l Label
		switch r.Type {
		case "entailment", "equivalence":
			l = Entailment
		case "contradiction":
			l = Contradiction
		}
		k := [2]string{r.Source, r.Target}
		if _, ok := g.m[k]; !ok {
			g.m[k] = Result{Label: l, Probability: r.Probability}
		}
		if r.Type == "equivalence" {
			k2 := [2]string{r.Target, r.Source}
			if _, ok := g.m[k2]; !ok {
				g.m[k2] = Result{Label: l, Probability: r.Probability}
			}
		}
	}
	return g
}
func (g *Given) Identity() Identity { return Identity{Backend: "given"} }
func (g *Given) Classify(ctx context.Context, pairs []Pair) ([]Result, error) {
	out := make([]Result, len(pairs))
	for i, p := range pairs {
		r, ok := g.m[[2]string{p.PremiseID, p.HypothesisID}]
		if !ok {
			r = Result{Label: Neutral, Probability: 1}
		}
		out[i] = r
	}
	return out, nil
}

// TEMPORARY stand-ins.
type Lexical struct{}

func NewLexical() *Lexical          { return &Lexical{} }
func (*Lexical) Identity() Identity { return Identity{Backend: "lexical", Model: "tmp"} }
func (*Lexical) Classify(ctx context.Context, pairs []Pair) ([]Result, error) {
	out := make([]Result, len(pairs))
	for i := range out {
		out[i] = Result{Label: Neutral, Probability: 1}
	}
	return out, nil
}

type Cache struct{ Classifier }

func OpenCache(path string, c Classifier) (*Cache, error) { return &Cache{c}, nil }
func (*Cache) Close() error                               { return nil }
