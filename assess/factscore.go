package assess

import (
	"context"
	"errors"
	"fmt"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
)

// FActScoreOf verifies the atoms of a record and scores the response with
// length-penalty γ = gamma. A record without atoms is a raw response: one
// that abstains (by the Abstention rule) did not respond, the others are
// atomized (one in which the atomizer finds nothing did not respond, as in
// FActScore's pipeline), and every context the record has is evidence for
// each atom. A
// record without contexts gets them from the Retriever (TopK
// per atom); one with contexts is taken as it is (an atom without any is
// not supported).
func (p *Pipeline) FActScoreOf(ctx context.Context, in *instance.Instance, gamma int) (factscore.Record, error) {
	rec := factscore.Record{Line: in.Line, Topic: in.Topic, Input: in.Input, Decisions: []factscore.Decision{}}
	if len(in.Atoms) == 0 {
		if p.Abstention.Abstained(in.Output) {
			rec.Abstained = true
			return rec, nil
		}
		if p.Atomizer == nil {
			return rec, errors.New("the record has no atoms and no atomizer is configured (Options.Atomizer)")
		}
		atoms, err := atomize.AtomsFor(ctx, p.Atomizer, p.Reviser, in.Input, in.Output)
		if errors.Is(err, atomize.ErrNoAtoms) {
			if p.Warn != nil {
				p.Warn(fmt.Sprintf("line %d: %v; it did not respond", in.Line, err))
			}
			return rec, nil
		}
		if err != nil {
			return rec, err
		}
		// Contexts given with the raw response are evidence for each of
		// its atoms.
		for i := range atoms {
			for _, c := range in.Contexts {
				atoms[i].Contexts = append(atoms[i].Contexts, c.ID)
			}
		}
		cp := *in
		cp.Atoms = atoms
		in = &cp
	}
	if len(in.Contexts) == 0 {
		if p.Retriever == nil {
			return rec, errors.New("the record has no contexts and no knowledge source is configured (Options.Retrieval)")
		}
		cp := *in
		cp.Atoms = append([]instance.Atom(nil), in.Atoms...)
		if _, _, err := p.retrieve(ctx, &cp, false); err != nil {
			return rec, err
		}
		in = &cp
	}
	in, dropped := in.WithoutEmptyContexts()
	if p.Warn != nil {
		for _, id := range dropped {
			p.Warn(fmt.Sprintf("line %d: context %q has neither text nor snippet: dropped", in.Line, id))
		}
	}
	v, err := p.verifier(in)
	if err != nil {
		return rec, err
	}
	res, ds, err := factscore.Score(ctx, v, in, gamma)
	if err != nil {
		return rec, err
	}
	rec.Result, rec.Decisions = res, ds
	return rec, nil
}

// verifier is FActScore's verifier for a record: the Verifier, else the NLI
// verifier on the record's relations or on the Classifier, as Given says.
func (p *Pipeline) verifier(in *instance.Instance) (factscore.Verifier, error) {
	switch {
	case p.Verifier != nil:
		return p.Verifier, nil
	case p.usesGiven(in):
		return &factscore.RelationVerifier{Relation: graph.NewStated(in).Relation, Threshold: p.Threshold}, nil
	case p.Classifier == nil:
		return nil, errors.New("assess: no FActScore verifier and no NLI classifier configured")
	}
	return &factscore.NLIVerifier{Classifier: p.Classifier, Threshold: p.Threshold}, nil
}
