package report

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/factreasoner/factreasoner-go/foreign"
	"github.com/factreasoner/factreasoner-go/score"
)

// readOther reads the run of another system (package foreign). Its records
// are matched with the other runs' by their line, as fr score's are: a
// FactReasoner result file's by the line each record starts on (the line
// of its dataset, for a file written one record per line in the dataset's
// order), fr factscore's by the input line each record names. What a
// record does not hold comes from inputs where given: the atoms' texts of
// FactReasoner's results alone (required), the response (and contexts)
// of either.
func readOther(ctx context.Context, path string, inputs *Inputs) (*Run, error) {
	other, err := foreign.Read(path, nil)
	if err != nil {
		return nil, err
	}
	run := &Run{Path: path, Other: other, Decided: other.Decided, byLine: make(map[int]*Result)}
	k := other.K(score.K{Half: true, Name: "half"})
	for _, rec := range other.Records {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := &Result{Line: rec.Line, OutLine: rec.At, Input: rec.Input, Output: rec.Output, Topic: rec.Topic,
			Atoms: rec.Atoms, Contexts: rec.Contexts, PTrue: maps.Clone(rec.PTrue), Supported: rec.Supported,
			Recorded: rec.Recorded, NoOutput: !rec.HasOutput}
		if r.PTrue == nil {
			r.PTrue = make(map[string]float64)
		}
		if err := r.complete(rec, inputs); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, rec.At, err)
		}
		scored := *rec
		scored.Atoms = r.Atoms // with the input's gold labels, where it gave them
		r.Scores = scored.Scores(k)
		if prev, dup := run.byLine[r.Line]; dup {
			return nil, fmt.Errorf("%s:%d: line: the record of input line %d is also on line %d", path, rec.At, r.Line, prev.OutLine)
		}
		run.byLine[r.Line] = r
		run.Results = append(run.Results, r)
	}
	sort.Slice(run.Results, func(i, j int) bool { return run.Results[i].Line < run.Results[j].Line })
	return run, nil
}

// complete fills in from the input record what the run's record does not
// hold: the atoms' texts (and gold labels the results do not give), the
// response and the contexts.
func (r *Result) complete(rec *foreign.Record, inputs *Inputs) error {
	if inputs == nil {
		if !rec.HasAtomText {
			return errors.New("atoms: missing: FactReasoner's results alone do not record the atoms' texts; " +
				"give the input file it was scored from (report.Inputs)")
		}
		return nil
	}
	in, err := inputs.at(rec.Line, rec.Input, "*")
	if err != nil {
		return err
	}
	if !rec.HasOutput {
		r.Output, r.NoOutput = in.Output, false
	}
	if len(r.Contexts) == 0 && !rec.HasAtomText {
		r.Contexts = in.Contexts
	}
	if rec.HasAtomText {
		return nil
	}
	// The atoms in the input's order, as the other runs have them; the
	// gold labels of the results, else the input's.
	label := make(map[string]string, len(rec.Atoms))
	for _, a := range rec.Atoms {
		label[a.ID] = a.Label
	}
	r.Atoms = nil
	for _, a := range in.Atoms {
		l, ok := label[a.ID]
		if !ok {
			continue // FactReasoner dropped it as a duplicate
		}
		delete(label, a.ID)
		if l != "" {
			a.Label = l
		}
		r.Atoms = append(r.Atoms, a)
	}
	if len(label) > 0 {
		ids := slices.Sorted(maps.Keys(label))
		return fmt.Errorf("atoms: %q is in the results but no atom of %s:%d (is it the file that was scored?)", ids[0], inputs.Path, in.Line)
	}
	return nil
}
