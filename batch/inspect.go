package batch

import (
	"context"
	"fmt"
	"io"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
)

// InspectOptions choose what InspectFile explains.
type InspectOptions struct {
	// Line, when above 0, is the input line of the one record to explain.
	Line int
	// Atom, when set, is the one atom, or context, of each record to
	// explain (assess.Assessment.Explain's only).
	Atom string
	// Contexts explains every context after the atoms
	// (assess.Assessment.ExplainContexts); not with Atom.
	Contexts bool
}

// InspectFile writes why each atom of the records of input came out as
// it did (assess.WriteExplanations), as fr inspect shows them: an output
// line of ScoreFile as it was scored (assess.AssessmentOf), any other
// record assessed by p with version v. It returns the last assessment
// explained, for its network; a Line that starts no record, and an Atom
// that names no variable of any record, are errors.
func InspectFile(ctx context.Context, p *assess.Pipeline, input string, v graph.Version, o InspectOptions, w io.Writer) (*assess.Assessment, error) {
	var last *assess.Assessment
	found := false
	err := instance.Scan(input, nil, func(in *instance.Instance) error {
		if o.Line > 0 && in.Line != o.Line {
			return nil
		}
		var a *assess.Assessment
		var err error
		if assess.IsRecorded(in) {
			a, err = assess.AssessmentOf(in) // an output line: as it was scored
		} else {
			a, err = p.Assess(ctx, in, v)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", input, in.Line, err)
		}
		last = a
		ex := a.Explain(o.Atom)
		found = found || len(ex) > 0
		if o.Atom == "" && o.Contexts {
			ex = append(ex, a.ExplainContexts()...)
		}
		return assess.WriteExplanations(w, a, ex)
	})
	switch {
	case err != nil:
		return nil, err
	case o.Line > 0 && last == nil:
		return nil, fmt.Errorf("%s: no record starts on line %d", input, o.Line)
	case o.Atom != "" && !found:
		return nil, fmt.Errorf("%s: no atom %q, nor a context of that id", input, o.Atom)
	}
	return last, nil
}
