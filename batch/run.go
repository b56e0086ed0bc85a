// Package batch runs a pipeline (package assess) over a file of records:
// ScoreFile writes an output line per record, in input order, up to Jobs
// records at once, into an output that an interrupted run resumes
// (OpenOutput), for the whole input or one shard of it (Shard), whose
// outputs PlanMerge joins; CompareFile and CompareRecorded make the rows
// of a comparison (package comparison) of versions run here or of runs
// recorded in files; FActScoreFile, AtomizeFile and RetrieveFile are the
// runs of fr factscore, fr atomize and fr retrieve. A run reports its
// progress as it goes (Progress), and skips invalid and failed records or
// stops at them, as FileOptions say.
package batch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/comparison"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/score"
)

// FileOptions configure the runs over a whole input file.
type FileOptions struct {
	// Invalid, when set, is told about each invalid record, and the run
	// goes on with the next; when nil an invalid record stops the run.
	Invalid func(*instance.Error)
	// Progress, when set, is told how far the run has come: after each
	// record, after each round of NLI pairs inside a record, and when the
	// input has been counted. Calls come one at a time, from the run's
	// goroutines; each should return quickly.
	Progress func(Progress)
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
	// Jobs is the most records scored at once (1 when zero; package
	// assemble's Pipeline.AutoJobs is the measured choice). Records are
	// still written in input order, and
	// the output is byte for byte that of one at a time; at most 2×Jobs
	// records are held in memory (those being scored, and those done that
	// wait for an earlier one to be written). The pipeline's parts must be
	// safe for concurrent use, as package assemble's are.
	Jobs int
	// Shard, when Count > 1, scores only the records of one shard (see
	// Shard).
	Shard Shard
	// Scored, when set, is given the scores of each record ScoreFile
	// writes, in input order: for the run's summary (score.Summarize, as
	// a row of CompareFile).
	Scored func(score.Scores)
	// Warn, when set, is told in a line of what may make a result
	// misleading: CompareRecorded's runs that answer different questions.
	Warn func(string)
}

// MaxJobs bounds Jobs: the records in flight (up to 2×Jobs) are held in
// memory, and their queue is allocated up front.
const MaxJobs = 4096

// Shard selects the records of one of Count shards of an input file: those
// whose input line modulo Count is Index (0 ≤ Index < Count), as Kubernetes
// Indexed Jobs and Slurm array tasks number their tasks. The shards of a
// file are disjoint and together hold every record; PlanMerge joins
// their outputs into that of a single run.
type Shard struct {
	Index, Count int
}

// ParseShard reads a shard as I/N.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 0 || index >= count {
		return Shard{}, fmt.Errorf("%q: want I/N, a shard index I from 0 to N-1 and the number of shards N", s)
	}
	return Shard{Index: index, Count: count}, nil
}

// Has reports whether the record at an input line belongs to the shard.
// Every line belongs to the zero Shard (and to 0/1).
func (s Shard) Has(line int) bool { return s.Count <= 1 || line%s.Count == s.Index }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, max(s.Count, 1)) }

// Progress is how far a run over a file has come.
type Progress struct {
	// Records done (written, for ScoreFile), and the input line of the
	// last one.
	Records int
	Line    int
	// Pairs is the number of NLI pairs the classifier has answered.
	Pairs int
	// Pages is the number of web pages fetched so far (--fetch-pages),
	// PagesInFlight those being fetched now.
	Pages, PagesInFlight int
	// RecordsTotal is the number of records the run has to do, valid or
	// not, less those it has found invalid: counted by the pass over the
	// input that the reader makes anyway, before the first record, to
	// tell its layout (Counted is false until then, and for an input
	// larger than a document may be, until a count beside the run is
	// done). No record is decoded to count it.
	RecordsTotal int
	Counted      bool
	// PairsTotal is the number of NLI pairs of the Planned records, those
	// whose pairs are known: a record's are known once it is read,
	// atomized and retrieved for, and planned (a record scored from its
	// own relations, or abstaining, has none). So until the last record
	// is planned, the run's pairs are known only as an estimate: the
	// mean of the planned records' for each record yet to plan
	// (progress.Status.PairsExpected).
	PairsTotal int
	Planned    int
}

// tracker keeps a run's Progress and reports each change, one call at a
// time. A nil tracker does nothing.
type tracker struct {
	mu  sync.Mutex
	p   Progress
	fn  func(Progress)
	off bool // the run is over: a count beside it reports nothing more
	// invalid counts the records the run has found invalid, which the
	// count of records includes.
	invalid int
}

func newTracker(fn func(Progress)) *tracker {
	if fn == nil {
		return nil
	}
	return &tracker{fn: fn}
}

func (t *tracker) update(f func(*Progress)) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.off {
		return
	}
	f(&t.p)
	t.fn(t.p)
}

// withPages returns ctx with the page fetches of the run reported to the
// tracker.
func (t *tracker) withPages(ctx context.Context) context.Context {
	if t == nil {
		return ctx
	}
	return retrieve.WithPageEvents(ctx, func(e retrieve.PageEvent) {
		t.update(func(p *Progress) {
			if e.Done {
				p.PagesInFlight--
				p.Pages++
			} else {
				p.PagesInFlight++
			}
		})
	})
}

// stop ends the reports.
func (t *tracker) stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.off = true
	t.mu.Unlock()
}

// hooks report a record's NLI pairs to the tracker.
func (t *tracker) hooks() *assess.NLIProgress {
	if t == nil {
		return nil
	}
	return &assess.NLIProgress{
		Planned:  func(n int) { t.update(func(p *Progress) { p.PairsTotal += n; p.Planned++ }) },
		Answered: func(n int) { t.update(func(p *Progress) { p.Pairs += n }) },
		More:     func(n int) { t.update(func(p *Progress) { p.PairsTotal += n }) },
	}
}

// counted reports the count of the records to do (instance.ScanOptions'
// Counted), less the invalid ones the run has found already.
func (t *tracker) counted(records int) {
	t.update(func(pr *Progress) {
		pr.RecordsTotal, pr.Counted = records-t.invalid, true
	})
}

// invalidRecord notes a record of the run's that its decoding found
// invalid: the count included it, but it is not to do.
func (t *tracker) invalidRecord() {
	t.update(func(pr *Progress) {
		t.invalid++
		if pr.Counted {
			pr.RecordsTotal--
		}
	})
}

// done sets the totals of a run that has ended well to what it did.
func (t *tracker) done() {
	t.update(func(p *Progress) {
		p.RecordsTotal, p.PairsTotal, p.Planned, p.Counted = p.Records, p.Pairs, p.Records, true
	})
}

// ScoreStats count what a run over a file did.
type ScoreStats struct {
	Scored      int // records scored (and written)
	Invalid     int // invalid records skipped
	Failed      int // records that failed (RecordFailure) and were skipped
	Done        int // records skipped because the output already held them
	OtherShards int // records left to the other shards
	// NLI pairs put to the classifier for the records written (ScoreFile):
	// Own of them own pairs, Other added by similarity (or every other
	// pair); and those pruning left out.
	Pairs, Own, Other, Pruned int
	// EmptyContexts counts the contexts with neither text nor snippet
	// that were dropped from the records scored (each one is also
	// reported through assess.Pipeline.Warn).
	EmptyContexts int
}

// dropped counts and reports the empty contexts dropped from the record at
// file:line.
func dropped(p *assess.Pipeline, file string, line int, ids []string, st *ScoreStats) {
	st.EmptyContexts += len(ids)
	if p.Warn == nil {
		return
	}
	for _, id := range ids {
		p.Warn(fmt.Sprintf("%s:%d: context %q has neither text nor snippet: dropped (it relates to nothing; its atoms keep their other contexts)", file, line, id))
	}
}

// selection is what a run over a file scores: the records of its shard
// that are not done.
type selection struct {
	shard Shard
	done  jsonl.Done
}

// scan is the scan of forEach's input: the records, with the count of
// those to do told to rs's tracker before the first. The count is of the
// records of the shard (counting them numbers the lines: a pass at the
// speed of memory, only for a shard), less those done, which are records
// of the shard (OpenOutput has checked it).
func (s selection) scan(ctx context.Context, input string, rs records, skip func(*instance.Error), fn func(instance.Raw) error) error {
	o := instance.ScanOptions{Skip: skip}
	if rs.tracker != nil {
		done := 0
		for line := range s.done {
			if s.shard.Has(line) {
				done++
			}
		}
		o.Counted = func(n int) { rs.tracker.counted(n - done) }
		if s.shard.Count > 1 {
			o.Keep = s.shard.Has
		}
	}
	return instance.ScanRawWith(ctx, input, o, fn)
}

// ScoreFile scores every valid record of the input file with version v
// (those of one shard, with o.Shard) and writes one output line per record
// to w, in input order, each with a single call to w.Write. Records whose
// input line is in done (OpenOutput's answer for a resumed output) are
// skipped.
func ScoreFile(ctx context.Context, p *assess.Pipeline, input string, v graph.Version, w io.Writer, done jsonl.Done, o FileOptions) (ScoreStats, error) {
	st := ScoreStats{Done: len(done)}
	sel := selection{shard: o.Shard, done: done}
	tr := newTracker(o.Progress)
	ctx = tr.withPages(ctx)
	defer tr.stop()
	hooks := tr.hooks()
	skip := o.skip(&st.Invalid)
	// A record is scored and its output line encoded by a worker; emit,
	// which takes the results one at a time in input order, only writes
	// the line. A record's own failure travels with its result, so that
	// emit decides what it means for the run.
	type scored struct {
		line                      []byte
		pairs, own, other, pruned int
		scores                    score.Scores
		empty                     []string
		err                       error
	}
	run := p.RunIdentity() // the same on every line
	work := func(ctx context.Context, in *instance.Instance) (scored, error) {
		start := time.Now()
		as, _, err := p.CompareTracked(ctx, in, []graph.Version{v}, nil, hooks)
		if err != nil {
			return scored{err: err}, nil
		}
		rec := as[0].Record()
		rec.Run = p.LineRun(run, in)
		if o.OmitInputs {
			rec = rec.WithoutInputs()
		}
		if o.Timings {
			secs := time.Since(start).Seconds()
			rec.ElapsedTime = &secs
		}
		var buf bytes.Buffer
		if err := jsonl.NewWriter(&buf).Write(rec); err != nil {
			return scored{}, fmt.Errorf("writing output: %w", err)
		}
		return scored{line: buf.Bytes(), pairs: rec.NLIPairs, own: rec.NLIPairsOwn, other: rec.NLIPairsOther, pruned: rec.NLIPairsPruned,
			scores: as[0].Scores, empty: as[0].EmptyContexts}, nil
	}
	emit := func(in *instance.Instance, r scored) error {
		if r.err != nil {
			return o.fail(input, in.Line, r.err, &st, skip)
		}
		dropped(p, input, in.Line, r.empty, &st)
		if _, err := w.Write(r.line); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		st.Scored++
		if o.Scored != nil {
			o.Scored(r.scores)
		}
		st.Pairs += r.pairs
		st.Own += r.own
		st.Other += r.other
		st.Pruned += r.pruned
		tr.update(func(p *Progress) { p.Records, p.Line = st.Scored, in.Line })
		return nil
	}
	err := forEach(ctx, input, o.Jobs, sel, records{skip: skip, tracker: tr, otherShards: &st.OtherShards}, work, emit)
	if err == nil {
		tr.done()
	}
	return st, err
}

// records says what forEach does with the records that are not scored:
// skip is the run's callback for invalid records (nil: one stops the
// run), tracker learns of them; the valid records of other shards are
// counted in otherShards.
type records struct {
	skip        func(*instance.Error)
	tracker     *tracker
	otherShards *int
}

// forEach runs work on every record of input that sel selects, up to jobs
// at a time, and gives each result to emit in input order. The reading
// goroutine only splits the input into records (instance.Raw); each
// record is decoded, and worked on, by one of jobs workers, so that a run
// of cheap records is not held to the speed of one core decoding them. At
// most 2×jobs records are between the input and emit, so memory does not
// grow with the file.
//
// Records in sel's done are not decoded (OpenOutput has found them
// records of this run). The others are, those of other shards too, so that
// an invalid record is reported, or stops the run, wherever it is, in
// input order. forEach stops at the first error, of the input, of work or
// of emit, once every record before the one that failed has been
// emitted, so that a run stopped by an error has written what one at a
// time would have.
func forEach[T any](ctx context.Context, input string, jobs int, sel selection, rs records,
	work func(context.Context, *instance.Instance) (T, error), emit func(*instance.Instance, T) error) error {
	if jobs > MaxJobs {
		return fmt.Errorf("%d records at once (Jobs): at most %d", jobs, MaxJobs)
	}
	// A record the reader cannot even split off (a line over the limit)
	// is a job that is bad from the start, in order with the others
	// (without rs.skip it stops the scan).
	var skip func(*instance.Error)
	if jobs <= 1 {
		if rs.skip != nil {
			skip = func(e *instance.Error) { (&job[T]{bad: e}).finish(sel, rs, emit) } // skips it: never an error
		}
		return sel.scan(ctx, input, rs, skip, func(raw instance.Raw) error {
			if _, ok := sel.done[raw.Line]; ok {
				return nil
			}
			j := &job[T]{raw: raw}
			j.run(ctx, sel, work)
			return j.finish(sel, rs, emit)
		})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Records are worked on by jobs workers in input order, and twice as
	// many are let in between the input and emit: a record that takes long
	// holds up the writing of those after it, but not, until they are
	// jobs more, the work on them.
	window := 2 * jobs
	slots := make(chan struct{}, window) // one per record between the input and emit
	queue := make(chan *job[T], window)  // in input order, for emit
	todo := make(chan *job[T], window)   // in input order, for the workers
	for range jobs {
		go func() {
			for j := range todo {
				j.run(ctx, sel, work)
				close(j.done)
			}
		}()
	}
	var scanErr error
	go func() {
		defer close(queue)
		defer close(todo)
		add := func(j *job[T]) error {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			j.done = make(chan struct{})
			todo <- j  // never blocks: it holds no more jobs than slots
			queue <- j // nor does this
			return nil
		}
		if rs.skip != nil {
			skip = func(e *instance.Error) { add(&job[T]{bad: e}) } // an error only when the run has stopped: the next record sees it
		}
		scanErr = sel.scan(ctx, input, rs, skip, func(raw instance.Raw) error {
			if err := ctx.Err(); err != nil {
				return err // the run has stopped
			}
			if _, ok := sel.done[raw.Line]; ok {
				return nil
			}
			return add(&job[T]{raw: raw})
		})
	}()
	var err error
	for j := range queue {
		<-j.done
		if err == nil {
			if err = j.finish(sel, rs, emit); err != nil {
				cancel() // the records after it are not written: stop them
			}
		}
		<-slots
	}
	if err != nil {
		return err
	}
	return scanErr
}

// job is a record between the input and emit.
type job[T any] struct {
	raw  instance.Raw
	in   *instance.Instance // decoded; nil for an invalid record
	bad  *instance.Error    // why the record is invalid
	res  T
	err  error         // work's
	done chan struct{} // closed when run has returned
}

// run decodes the record and, when it is valid and of the run's shard,
// works on it.
func (j *job[T]) run(ctx context.Context, sel selection, work func(context.Context, *instance.Instance) (T, error)) {
	if j.bad != nil {
		return
	}
	if err := ctx.Err(); err != nil {
		j.err = err // the run has stopped: emit will not get this far
		return
	}
	in, err := j.raw.Decode()
	if err != nil {
		if !errors.As(err, &j.bad) {
			j.err = err
		}
		return
	}
	j.in = in
	if sel.shard.Has(in.Line) {
		j.res, j.err = work(ctx, in)
	}
}

// finish does what the record means for the run, in input order: an
// invalid record is skipped (reported, and counted when it is of the
// shard) or stops the run; a record of another shard is counted; the
// result of a record of the shard goes to emit.
func (j *job[T]) finish(sel selection, rs records, emit func(*instance.Instance, T) error) error {
	switch {
	case j.bad != nil:
		if rs.skip == nil {
			return j.bad
		}
		if j.bad.Line > 0 && sel.shard.Has(j.bad.Line) {
			rs.tracker.invalidRecord() // a record the count took for one
		}
		rs.skip(j.bad)
		return nil
	case j.err != nil:
		return j.err
	case !sel.shard.Has(j.in.Line):
		*rs.otherShards++
		return nil
	}
	return emit(j.in, j.res)
}

// skip is the Scan callback of the options: nil (stop at an invalid
// record) or one that counts and reports the invalid records of the
// run's shard. It is also called for records that turn out invalid while
// they are scored (fail), from another goroutine than the input's: the
// count and the reports are serialized.
func (o FileOptions) skip(n *int) func(*instance.Error) {
	if o.Invalid == nil {
		return nil
	}
	var mu sync.Mutex
	return func(e *instance.Error) {
		if e.Line > 0 && !o.Shard.Has(e.Line) {
			return // another shard's
		}
		mu.Lock()
		defer mu.Unlock()
		*n++
		o.Invalid(e)
	}
}

// RecordFailure reports whether err is the failure of one record that does
// not keep the others from being scored: an LLM answer that could not be
// read (after re-asking), or a text the NLI model's tokenizer cannot take.
// Other errors (an endpoint that is down, a full disk) stop a run.
func RecordFailure(err error) bool {
	var u *llm.UnreadableAnswerError
	var t *nli.TextError
	return errors.As(err, &u) || errors.As(err, &t)
}

// fail handles the error of scoring the record at file:line: a record that
// turned out invalid (one without atoms, say) is handled as an invalid
// input record (by skip, the run's Scan callback: nil stops the run), a
// record failure is counted and reported when o says so, and the run goes
// on (nil); anything else is returned.
func (o FileOptions) fail(file string, line int, err error, st *ScoreStats, skip func(*instance.Error)) error {
	var fe *instance.FieldError
	if errors.As(err, &fe) {
		e := &instance.Error{File: file, Line: line, Field: fe.Field, Err: errors.New(fe.Msg)}
		if skip == nil {
			return e
		}
		skip(e)
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

// CompareFile runs several versions, and the baselines, on every valid
// record of the input file (of one shard, with o.Shard), and summarizes
// each over the file: one row per version, then one per baseline. Each
// distinct NLI pair of a record is classified once.
func CompareFile(ctx context.Context, p *assess.Pipeline, input string, versions []graph.Version, bs []assess.Baseline, o FileOptions) ([]comparison.Row, ScoreStats, error) {
	names := make([]string, 0, len(versions)+len(bs))
	for _, v := range versions {
		names = append(names, v.String())
	}
	for _, b := range bs {
		names = append(names, b.RowName())
	}
	perVersion := make([][]score.Scores, len(names))
	var lines []int // of the records, for every row
	reports := make([][]inference.Report, len(versions))
	var st ScoreStats
	tr := newTracker(o.Progress)
	ctx = tr.withPages(ctx)
	defer tr.stop()
	hooks := tr.hooks()
	skip := o.skip(&st.Invalid)
	type result struct {
		as  []*assess.Assessment
		fs  []score.Scores // per baseline
		err error          // the record's own failure
	}
	work := func(ctx context.Context, in *instance.Instance) (result, error) {
		as, fs, err := p.CompareTracked(ctx, in, versions, bs, hooks)
		return result{as, fs, err}, nil
	}
	emit := func(in *instance.Instance, r result) error {
		if r.err != nil {
			return o.fail(input, in.Line, r.err, &st, skip)
		}
		if len(r.as) > 0 {
			dropped(p, input, in.Line, r.as[0].EmptyContexts, &st)
		}
		lines = append(lines, in.Line)
		for i, a := range r.as {
			perVersion[i] = append(perVersion[i], a.Scores)
			if !a.Abstained {
				reports[i] = append(reports[i], a.Solution.Report)
			}
		}
		for i, s := range r.fs {
			perVersion[len(r.as)+i] = append(perVersion[len(r.as)+i], s)
		}
		st.Scored++
		tr.update(func(p *Progress) { p.Records, p.Line = st.Scored, in.Line })
		return nil
	}
	rs := records{skip: skip, tracker: tr, otherShards: &st.OtherShards}
	if err := forEach(ctx, input, o.Jobs, selection{shard: o.Shard}, rs, work, emit); err != nil {
		return nil, st, err
	}
	tr.done()
	rows := make([]comparison.Row, len(names))
	for i, name := range names {
		rows[i] = comparison.Summarize(name, perVersion[i], lines, i >= len(versions))
		if i < len(reports) {
			sum := comparison.InferenceSummary(reports[i])
			rows[i].Inference = &sum
		} else if b := bs[i-len(versions)]; b.Recorded != nil {
			rows[i].Recorded = b.Recorded(perVersion[i])
		}
	}
	return rows, st, nil
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
