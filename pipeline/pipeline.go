// Package pipeline runs FactReasoner on one instance at a time: it fills in
// what a record lacks (atoms, contexts), asks the NLI model about the pairs
// a graph version needs, builds the network, computes the marginals and the
// scores. Data flows one way: instance → pairs → relations → network →
// marginals → scores.
package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/score"
)

// GivenMode says when an instance's own "relations" are used instead of a
// classifier.
type GivenMode int

const (
	// GivenNever always asks the Classifier.
	GivenNever GivenMode = iota
	// GivenAlways uses only the instance's relations; every other pair is
	// neutral.
	GivenAlways
	// GivenWhenPresent uses the relations of instances that have them and
	// the Classifier for the others.
	GivenWhenPresent
)

// Config is a FactReasoner pipeline.
type Config struct {
	Graph graph.Options
	K     score.K

	// Classifier labels text pairs. It may be nil with GivenAlways.
	Classifier nli.Classifier
	Given      GivenMode

	Solver inference.Solver

	// Atomizer makes atoms for records that have none; Reviser, when set,
	// rewrites them to stand alone.
	Atomizer atomize.Atomizer
	Reviser  atomize.Reviser
	// Retriever finds contexts for records that have none; TopK passages
	// per atom (default DefaultTopK). With SkipMissingTopics a record whose
	// topic the knowledge source does not know is scored without contexts
	// (its atoms stay undecided) instead of failing.
	Retriever         retrieve.Retriever
	TopK              int
	SkipMissingTopics bool

	// Warn, when set, receives warnings about single records.
	Warn func(msg string)
}

// DefaultTopK is FactReasoner's number of Wikipedia passages per atom.
const DefaultTopK = 3

// Assessment is everything computed for one instance and version.
type Assessment struct {
	Instance  *instance.Instance // as scored, with atoms and contexts filled in
	Version   graph.Version
	Nodes     graph.Nodes
	Pairs     []nli.Pair
	Results   []nli.Result // Results[i] answers Pairs[i]
	Relations []graph.Relation
	Network   *graph.Network
	Solution  *inference.Result // Marginals indexed like Network.Variables
	Scores    score.Scores
	NLI       nli.Identity
}

// PTrue returns the marginal probability that the named variable is true.
func (a *Assessment) PTrue(id string) (float64, bool) {
	i, ok := a.Network.Index(id)
	if !ok {
		return 0, false
	}
	return a.Solution.Marginals[i][1], true
}

// Assess runs one version on an instance.
func (c *Config) Assess(ctx context.Context, in *instance.Instance, v graph.Version) (*Assessment, error) {
	as, err := c.AssessVersions(ctx, in, []graph.Version{v})
	if err != nil {
		return nil, err
	}
	return as[0], nil
}

// AssessVersions runs several versions on the same instance. Each distinct
// NLI pair is classified once, in one batch, and shared by the versions.
func (c *Config) AssessVersions(ctx context.Context, in *instance.Instance, versions []graph.Version) ([]*Assessment, error) {
	as, _, err := c.Compare(ctx, in, versions, nil)
	return as, err
}

// Baseline is classic FActScore with an NLI verifier, scored beside the
// FactReasoner versions: each atom is checked against the contexts
// retrieved for it and is supported iff one of them entails it with
// probability above Threshold.
type Baseline struct {
	Threshold float64
}

// Compare runs several versions, and the FActScore baseline when b is not
// nil, on the same instance. Each distinct NLI pair is classified once, in
// one batch, and shared by all of them.
func (c *Config) Compare(ctx context.Context, in *instance.Instance, versions []graph.Version, b *Baseline) ([]*Assessment, *score.Scores, error) {
	if c.Solver == nil {
		return nil, nil, errors.New("pipeline: no solver configured")
	}
	in, err := c.Prepare(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	cl, err := c.ClassifierFor(in)
	if err != nil {
		return nil, nil, err
	}
	shared := newMemo(cl)
	out := make([]*Assessment, len(versions))
	var all []nli.Pair
	for i, v := range versions {
		nodes := graph.SelectNodes(in, v)
		out[i] = &Assessment{Instance: in, Version: v, Nodes: nodes, Pairs: graph.Pairs(nodes), NLI: cl.Identity()}
		all = append(all, out[i].Pairs...)
	}
	if b != nil {
		// FActScore asks about each atom and its own contexts: FR1's pairs.
		all = append(all, graph.Pairs(graph.SelectNodes(in, graph.FR1))...)
	}
	if _, err := shared.Classify(ctx, all); err != nil {
		return nil, nil, fmt.Errorf("nli (%s): %w", cl.Identity(), err)
	}
	for _, a := range out {
		if err := c.solve(ctx, shared, a); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", a.Version, err)
		}
	}
	if b == nil {
		return out, nil, nil
	}
	v := &factscore.NLIVerifier{Classifier: shared, Threshold: b.Threshold}
	_, ds, err := factscore.Score(ctx, v, in, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("FActScore: %w", err)
	}
	atoms := make([]score.Atom, len(ds))
	for i, d := range ds {
		atoms[i] = score.Atom{ID: in.Atoms[i].ID, Gold: in.Atoms[i].Label}
		if d.Supported {
			atoms[i].PTrue = 1
		}
	}
	s := score.Compute(atoms, c.K)
	return out, &s, nil
}

func (c *Config) solve(ctx context.Context, cl nli.Classifier, a *Assessment) error {
	var err error
	if a.Results, err = cl.Classify(ctx, a.Pairs); err != nil {
		return err
	}
	if a.Relations, err = graph.Relations(a.Nodes, a.Pairs, a.Results); err != nil {
		return err
	}
	if a.Network, err = graph.Build(a.Nodes, a.Relations, c.Graph); err != nil {
		return err
	}
	if a.Solution, err = c.Solver.Solve(ctx, a.Network.Model()); err != nil {
		return fmt.Errorf("inference: %w", err)
	}
	atoms := make([]score.Atom, len(a.Nodes.Atoms))
	for i, at := range a.Nodes.Atoms {
		p, _ := a.PTrue(at.ID)
		atoms[i] = score.Atom{ID: at.ID, PTrue: p, Gold: at.Label}
	}
	a.Scores = score.Compute(atoms, c.K)
	return nil
}

// ClassifierFor returns the classifier used for an instance: its own
// relations or the Classifier, as Given says.
func (c *Config) ClassifierFor(in *instance.Instance) (nli.Classifier, error) {
	if c.Given == GivenAlways || (c.Given == GivenWhenPresent && len(in.Relations) > 0) {
		return newGiven(in), nil
	}
	if c.Classifier == nil {
		return nil, errors.New("pipeline: no NLI classifier configured")
	}
	return c.Classifier, nil
}

// Prepare returns the instance with atoms and contexts filled in where it
// lacks them; the input is not modified.
func (c *Config) Prepare(ctx context.Context, in *instance.Instance) (*instance.Instance, error) {
	if len(in.Atoms) > 0 && len(in.Contexts) > 0 {
		return in, nil
	}
	out := *in
	if len(out.Atoms) == 0 {
		if c.Atomizer == nil {
			return nil, errors.New("the record has no atoms and no atomizer is configured (see --atomizer)")
		}
		atoms, err := atomize.Atoms(ctx, c.Atomizer, c.Reviser, in.Output)
		if err != nil {
			return nil, err
		}
		out.Atoms = atoms
	}
	if len(out.Contexts) == 0 {
		if c.Retriever == nil {
			return nil, errors.New("the record has no contexts and no knowledge source is configured (see --db, --source)")
		}
		k := c.TopK
		if k <= 0 {
			k = DefaultTopK
		}
		out.Atoms = append([]instance.Atom(nil), out.Atoms...)
		for i := range out.Atoms {
			out.Atoms[i].Contexts = nil
		}
		if _, err := retrieve.Fill(ctx, c.Retriever, &out, k); err != nil {
			missing := errors.Is(err, retrieve.ErrTopicNotFound) || errors.Is(err, retrieve.ErrNoTopic)
			if !missing || !c.SkipMissingTopics {
				return nil, fmt.Errorf("retrieval: %w", err)
			}
			if c.Warn != nil {
				c.Warn(fmt.Sprintf("line %d: %v; its atoms get no contexts", in.Line, err))
			}
		}
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return &out, nil
}
