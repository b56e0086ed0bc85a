package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/score"
)

// FileOptions configure the runs over a whole input file.
type FileOptions struct {
	// Invalid, when set, is told about each invalid record, and the run
	// goes on with the next; when nil an invalid record stops the run.
	Invalid func(*instance.Error)
	// Progress, when set, is called after each record with the number of
	// records done so far and the input line of the last.
	Progress func(records, line int)
	// Failed, when set, is told about each record that failed for a
	// reason of its own (RecordFailure: an LLM answer that could not be
	// read, after re-asking), and the run goes on; such a record is not
	// written, so a resumed run tries it again. When nil such a record
	// stops the run.
	Failed func(err error)
	// OmitInputs leaves the scored record's atoms, contexts and relations
	// out of ScoreFile's output lines.
	OmitInputs bool
	// Timings adds to each output record of ScoreFile the seconds it took
	// (elapsed_time). Off by default: it makes equal runs differ.
	Timings bool
}

// ScoreStats count what a run over a file did.
type ScoreStats struct {
	Scored  int // records scored (and written)
	Invalid int // invalid records skipped
	Failed  int // records that failed (RecordFailure) and were skipped
	Done    int // records skipped because the output already held them
}

// RecordFailure reports whether err is the failure of one record that does
// not keep the others from being scored: an LLM answer that could not be
// read (after re-asking). Other errors (an endpoint that is down, a full
// disk) stop a run.
func RecordFailure(err error) bool {
	var u *llm.UnreadableAnswerError
	return errors.As(err, &u)
}

// fail handles the error of scoring the record at file:line: a record that
// turned out invalid (one without atoms, say) is handled as an invalid
// input record, a record failure is counted and reported when o says so,
// and the run goes on (nil); anything else is returned.
func (o FileOptions) fail(file string, line int, err error, st *ScoreStats) error {
	var fe *instance.FieldError
	if errors.As(err, &fe) {
		e := &instance.Error{File: file, Line: line, Field: fe.Field, Err: errors.New(fe.Msg)}
		if o.Invalid == nil {
			return e
		}
		st.Invalid++
		o.Invalid(e)
		return nil
	}
	err = fmt.Errorf("%s:%d: %w", file, line, err)
	if o.Failed == nil || !RecordFailure(err) {
		return err
	}
	st.Failed++
	o.Failed(err)
	return nil
}

// ScoreFile scores every valid record of the input file with version v
// and writes one output line per record to w, in input order. Records
// whose input line is in done (OpenOutput's answer for a resumed output)
// are skipped.
func (p *Pipeline) ScoreFile(ctx context.Context, input string, v graph.Version, w io.Writer, done jsonl.Done, o FileOptions) (ScoreStats, error) {
	out := jsonl.NewWriter(w)
	st := ScoreStats{Done: len(done)}
	err := instance.Scan(input, o.skip(&st.Invalid), func(in *instance.Instance) error {
		if _, ok := done[in.Line]; ok {
			return nil
		}
		start := time.Now()
		a, err := p.Assess(ctx, in, v)
		if err != nil {
			return o.fail(input, in.Line, err, &st)
		}
		rec := a.Record()
		if o.OmitInputs {
			rec = rec.WithoutInputs()
		}
		if o.Timings {
			secs := time.Since(start).Seconds()
			rec.ElapsedTime = &secs
		}
		if err := out.Write(rec); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		st.Scored++
		if o.Progress != nil {
			o.Progress(st.Scored, in.Line)
		}
		return nil
	})
	return st, err
}

// skip is the Scan callback of the options: nil (stop at an invalid
// record) or one that counts and reports it.
func (o FileOptions) skip(n *int) func(*instance.Error) {
	if o.Invalid == nil {
		return nil
	}
	return func(e *instance.Error) {
		*n++
		o.Invalid(e)
	}
}

// Comparison is one row of a comparison of versions over a file.
type Comparison struct {
	Version string `json:"version"`
	score.Summary
	// NaN is not JSON: correlations that do not exist, and measures that
	// do not apply (the entropy and undecided atoms of FActScore's row),
	// are null.
	Pearson  *float64 `json:"pearson"`
	Spearman *float64 `json:"spearman"`
	MeanE    *float64 `json:"mean_avg_entropy"`
	MeanU    *float64 `json:"mean_uniform_atoms"`
}

// FActScoreBaselineName names the FActScore baseline's row.
const FActScoreBaselineName = "FActScore-NLI"

// CompareFile runs several versions, and the FActScore baseline when b is
// not nil, on every valid record of the input file, and summarizes each
// over the file: one row per version, then the baseline's. Each distinct
// NLI pair of a record is classified once.
func (p *Pipeline) CompareFile(ctx context.Context, input string, versions []graph.Version, b *Baseline, o FileOptions) ([]Comparison, ScoreStats, error) {
	names := make([]string, 0, len(versions)+1)
	for _, v := range versions {
		names = append(names, v.String())
	}
	if b != nil {
		names = append(names, FActScoreBaselineName)
	}
	perVersion := make([][]score.Scores, len(names))
	var st ScoreStats
	err := instance.Scan(input, o.skip(&st.Invalid), func(in *instance.Instance) error {
		as, fs, err := p.Compare(ctx, in, versions, b)
		if err != nil {
			return o.fail(input, in.Line, err, &st)
		}
		for i, a := range as {
			perVersion[i] = append(perVersion[i], a.Scores)
		}
		if fs != nil {
			perVersion[len(as)] = append(perVersion[len(as)], *fs)
		}
		st.Scored++
		if o.Progress != nil {
			o.Progress(st.Scored, in.Line)
		}
		return nil
	})
	if err != nil {
		return nil, st, err
	}
	rows := make([]Comparison, len(names))
	for i, name := range names {
		rows[i] = summarize(name, perVersion[i])
	}
	return rows, st, nil
}

// summarize is the comparison row of one run's scores.
func summarize(name string, all []score.Scores) Comparison {
	c := Comparison{Version: name, Summary: score.Summarize(all)}
	if name == FActScoreBaselineName {
		// FActScore decides each atom, true or false: the entropy measure
		// and undecided atoms do not apply (its E would be that of P = 0
		// or 1, a meaningless 0.0000).
		c.MeanEntropy, c.MeanUniform = math.NaN(), math.NaN()
	}
	s := c.Summary
	c.Pearson, c.Spearman = finite(s.Pearson), finite(s.Spearman)
	c.MeanE, c.MeanU = finite(s.MeanEntropy), finite(s.MeanUniform)
	return c
}

// finite is x, or nil (JSON null) when x is not a number.
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// MedianAtoms is the median atom count of the records of a file, the
// paper's K for F1@K. Every record must have atoms; with o.Invalid set,
// invalid records are left out.
func MedianAtoms(path string, o FileOptions) (float64, error) {
	var counts []int
	// Invalid records are left out quietly: the run reports them.
	var skip func(*instance.Error)
	if o.Invalid != nil {
		skip = func(*instance.Error) {}
	}
	err := instance.Scan(path, skip, func(in *instance.Instance) error {
		if len(in.Atoms) == 0 {
			return fmt.Errorf("%s:%d: the record has no atoms; the median needs every record's atoms (run fr atomize first)", path, in.Line)
		}
		counts = append(counts, len(in.Atoms))
		return nil
	})
	if err != nil {
		return 0, err
	}
	return score.Median(counts), nil
}
