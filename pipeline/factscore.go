package pipeline

import (
	"context"
	"encoding/json"
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
		return nil, errors.New("pipeline: no FActScore verifier and no NLI classifier configured")
	}
	return &factscore.NLIVerifier{Classifier: p.Classifier, Threshold: p.Threshold}, nil
}

// FActScoreFile runs FActScore on every record of a file, FactReasoner
// jsonl or FActScore's labeled format (told apart by DetectFormat), and
// calls emit with each record's result in input order. With gold the
// human labels decide instead of the verifier: S / (S + NS + IR) for the
// labeled format, S / (S + NS) for FactReasoner records (every atom must
// be labeled); the paper's human scores carry no length penalty, so a
// caller reproducing them passes gamma 0. In the labeled format a response
// responds unless it abstained (null annotations), as the paper's "%
// responding"; one without S or NS facts is reported with 0 facts and left
// out of the means. Invalid and failed records are handled as o says (see
// FileOptions); they are left out of the summary, which it returns with
// the counts.
func (p *Pipeline) FActScoreFile(ctx context.Context, input string, gamma int, gold bool, o FileOptions, emit func(factscore.Record) error) (factscore.Summary, ScoreStats, error) {
	agg := factscore.NewAggregate(gamma)
	var st ScoreStats
	tr := newTracker(o.Progress)
	ctx = tr.withPages(ctx)
	add := func(rec factscore.Record) error {
		agg.Add(rec.Result)
		st.Scored++
		tr.update(func(p *Progress) { p.Records, p.Line = st.Scored, rec.Line })
		return emit(rec)
	}
	skip := o.skip(&st.Invalid)
	format, err := instance.DetectFormat(input)
	if err != nil {
		return agg.Summary(), st, err
	}
	if format == instance.FActScoreLabeled {
		err = instance.ReadLabeled(input, func(line int, r *instance.LabeledRecord) error {
			if gold {
				return add(goldLabeled(line, r, gamma))
			}
			if r.Abstained() {
				return add(factscore.Record{Line: line, Topic: r.Topic, Input: r.Input, Decisions: []factscore.Decision{}})
			}
			in := r.Instance()
			in.Line = line
			if len(in.Atoms) == 0 { // every fact irrelevant: responded, no facts
				return add(factscore.Record{Line: line, Topic: r.Topic, Input: r.Input, Result: factscore.NewResult(0, 0, gamma), Decisions: []factscore.Decision{}})
			}
			rec, err := p.FActScoreOf(ctx, in, gamma)
			if err != nil {
				return o.fail(input, line, err, &st, skip)
			}
			return add(rec)
		})
		return agg.Summary(), st, err
	}
	err = instance.Scan(input, skip, func(in *instance.Instance) error {
		var rec factscore.Record
		var err error
		if gold {
			rec, err = goldInstance(in, gamma)
		} else {
			rec, err = p.FActScoreOf(ctx, in, gamma)
		}
		if err != nil {
			return o.fail(input, in.Line, err, &st, skip)
		}
		return add(rec)
	})
	return agg.Summary(), st, err
}

// goldLabeled is the human FActScore of a labeled record.
func goldLabeled(line int, r *instance.LabeledRecord, gamma int) factscore.Record {
	rec := factscore.Record{Line: line, Topic: r.Topic, Input: r.Input, Decisions: []factscore.Decision{}}
	if r.Abstained() {
		return rec
	}
	for _, a := range r.Annotations {
		for _, f := range a.HumanAtomicFacts {
			rec.Decisions = append(rec.Decisions, factscore.Decision{
				ID: fmt.Sprintf("f%d", len(rec.Decisions)), Atom: f.Text,
				Supported: f.Label == instance.Supported, Label: f.Label,
			})
		}
	}
	s, n := factscore.GoldLabeled(r)
	rec.Result = factscore.NewResult(s, n, gamma)
	return rec
}

// goldInstance is the gold FActScore of a FactReasoner record.
func goldInstance(in *instance.Instance, gamma int) (factscore.Record, error) {
	s, n, err := factscore.GoldInstance(in)
	if err != nil {
		return factscore.Record{}, err
	}
	rec := factscore.Record{Line: in.Line, Topic: in.Topic, Input: in.Input, Result: factscore.NewResult(s, n, gamma), Decisions: []factscore.Decision{}}
	for _, a := range in.Atoms {
		rec.Decisions = append(rec.Decisions, factscore.Decision{ID: a.ID, Atom: a.Text, Supported: a.Label == instance.Supported, Label: a.Label})
	}
	return rec, nil
}

// FActScoreSummary is the summary of a FActScore run with the verifier
// that made its decisions ("gold" for human labels): the last line of fr
// factscore's output, and of fr veriscore's and fr factverify's, which
// name their assessor and, for VeriScore, give its score and K.
type FActScoreSummary struct {
	factscore.Summary
	Verifier string
	// Assessor is "veriscore" or "factverify"; "" for FActScore.
	Assessor string
	// VeriScore is the mean F1@K over the responding responses, K
	// VeriScore's (veriscore.Score); nil for the other assessors, and
	// without a responding response.
	VeriScore *float64
	K         *int
}

// MarshalJSON writes the summary's fields, then "verifier" and, when set,
// "assessor", "veriscore" and "k".
func (s FActScoreSummary) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(s.Summary)
	if err != nil {
		return nil, err
	}
	// Append to the summary's object, keeping its field order.
	b = b[:len(b)-1]
	add := func(name string, v any) {
		enc, _ := json.Marshal(v)
		b = append(append(append(b, ',', '"'), name...), append([]byte(`":`), enc...)...)
	}
	add("verifier", s.Verifier)
	if s.Assessor != "" {
		add("assessor", s.Assessor)
		if s.VeriScore != nil {
			add("veriscore", *s.VeriScore)
			add("k", *s.K)
		}
	}
	return append(b, '}'), nil
}
