package batch

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
)

// AtomizeStats count what AtomizeFile did.
type AtomizeStats struct {
	// Records read: those written, those that failed, and the one that
	// stopped the run, if one did.
	Records  int
	Atomized int // records given atoms
	NoAtoms  int // records whose output had no atoms to find, written without
	Invalid  int // invalid records skipped (FileOptions.Invalid)
	Failed   int // records that failed (FileOptions.Failed) and were not written
}

// AtomizeFile writes every valid record of the input file to w as
// FactReasoner jsonl, in input order, a record without atoms given atoms
// by the pipeline's Atomizer (and Reviser) first; records that have atoms
// are written as they are. A record whose output has no atoms to find
// (atomize.ErrNoAtoms) is written without atoms, and noAtoms, when not
// nil, is told why (the error names the file and line). o's Invalid,
// Failed and Progress apply as in ScoreFile; its other fields do not.
func AtomizeFile(ctx context.Context, p *assess.Pipeline, input string, w io.Writer, o FileOptions, noAtoms func(error)) (AtomizeStats, error) {
	var st AtomizeStats
	out := jsonl.NewWriter(w)
	tr := newTracker(o.Progress)
	err := instance.Scan(input, o.skip(&st.Invalid), func(in *instance.Instance) error {
		st.Records++
		if len(in.Atoms) == 0 {
			if p.Atomizer == nil {
				return fmt.Errorf("%s:%d: the record has no atoms and no atomizer is configured (Options.Atomizer)", input, in.Line)
			}
			atoms, err := atomize.AtomsFor(ctx, p.Atomizer, p.Reviser, in.Input, in.Output)
			switch {
			case errors.Is(err, atomize.ErrNoAtoms):
				if noAtoms != nil {
					noAtoms(fmt.Errorf("%s:%d: %w", input, in.Line, err))
				}
				st.NoAtoms++
			case err != nil && o.Failed != nil && RecordFailure(err):
				st.Failed++
				o.Failed(fmt.Errorf("%s:%d: %w", input, in.Line, err))
				return nil
			case err != nil:
				return fmt.Errorf("%s:%d: %w", input, in.Line, err)
			default:
				in.Atoms = atoms
				st.Atomized++
			}
		}
		if err := out.Write(in); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		tr.update(func(pr *Progress) { pr.Records, pr.Line = st.Records, in.Line })
		return nil
	})
	return st, err
}

// RetrieveStats count what RetrieveFile did.
type RetrieveStats struct {
	// Records read: those written and the one that stopped the run, if
	// one did.
	Records int
	Atoms   int // atoms contexts were retrieved for
	NoAtoms int // records without atoms, passed through as they are
	// MissingTopics counts the records whose topic the knowledge source
	// lacks, left without contexts (RetrievalOptions.SkipMissingTopics).
	MissingTopics int
	Invalid       int // invalid records skipped (FileOptions.Invalid)
}

// RetrieveFile writes every record of the input file to w as FactReasoner
// jsonl, in input order, after retrieving contexts for its atoms that list
// none (see Retrieve). An invalid record stops the run unless o.Invalid is
// set; o.Progress is told after each record written.
func RetrieveFile(ctx context.Context, p *assess.Pipeline, input string, w io.Writer, o FileOptions) (RetrieveStats, error) {
	var st RetrieveStats
	if p.Retriever == nil {
		return st, errors.New("no knowledge source is configured (Options.Retrieval)")
	}
	out := jsonl.NewWriter(w)
	tr := newTracker(o.Progress)
	ctx = tr.withPages(ctx)
	err := instance.Scan(input, o.skip(&st.Invalid), func(in *instance.Instance) error {
		st.Records++
		if len(in.Atoms) == 0 {
			st.NoAtoms++
		}
		n, skipped, err := p.Retrieve(ctx, in)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", input, in.Line, err)
		}
		st.Atoms += n
		if skipped {
			st.MissingTopics++
		}
		if err := out.Write(in); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		tr.update(func(pr *Progress) { pr.Records, pr.Line = st.Records, in.Line })
		return nil
	})
	return st, err
}
