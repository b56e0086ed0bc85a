package batch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/safefile"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/result"
)

// MergeOptions configure PlanMerge.
type MergeOptions struct {
	// Input, when set, is the input file the outputs were scored from.
	// Every valid record of it must then have a result in the outputs
	// (one that has none is an error naming its line), and every result
	// a record there, with the same "input".
	Input string
}

// mergeLine is where one output line is, and what run wrote it.
type mergeLine struct {
	file   int
	offset int64
	size   int
	at     int // line number in its file
	line   int // input line
	input  string
	run    result.Identity
	// contextPriors are the per-context priors the line records.
	contextPriors map[string]float64
}

// Merge joins the outputs of the shards of a run (ScoreFile with
// FileOptions.Shard) into exactly what a single run writes: every line as
// it is, in input order. PlanMerge checks the outputs; WriteTo writes the
// merged output.
type Merge struct {
	paths []string
	lines []mergeLine // sorted by input line
}

// PlanMerge reads and checks the outputs to merge. It refuses outputs of
// different runs (version, solver, NLI backend or model, pruning), an input
// line with results in two places, a line that is not an output line, and
// an output whose last line is cut short (an interrupted shard: resume it
// first); with o.Input, a record of the input without a result and a
// result without a record.
func PlanMerge(paths []string, o MergeOptions) (*Merge, error) {
	if len(paths) == 0 {
		return nil, errors.New("no outputs to merge")
	}
	var lines []mergeLine
	for i, path := range paths {
		ls, err := indexOutput(path, i)
		if err != nil {
			return nil, err
		}
		lines = append(lines, ls...)
	}
	if err := sameRuns(paths, lines); err != nil {
		return nil, err
	}
	slices.SortStableFunc(lines, func(a, b mergeLine) int { return a.line - b.line })
	for i := 1; i < len(lines); i++ {
		if a, b := lines[i-1], lines[i]; a.line == b.line {
			return nil, fmt.Errorf("%s:%d and %s:%d both hold the result of input line %d: outputs of overlapping shards, or one given twice",
				paths[a.file], a.at, paths[b.file], b.at, a.line)
		}
	}
	if o.Input != "" {
		if err := checkInput(o.Input, paths, lines); err != nil {
			return nil, err
		}
	}
	return &Merge{paths: paths, lines: lines}, nil
}

// Lines is the number of lines the merged output has.
func (m *Merge) Lines() int { return len(m.lines) }

// WriteTo writes the merged output to w.
func (m *Merge) WriteTo(w io.Writer) (int64, error) {
	files := make([]*os.File, len(m.paths))
	for i, path := range m.paths {
		f, err := safefile.OpenInput(path)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		files[i] = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var (
		buf     []byte
		written int64
	)
	for _, l := range m.lines {
		buf = slices.Grow(buf[:0], l.size)[:l.size]
		if _, err := files[l.file].ReadAt(buf, l.offset); err != nil {
			return written, fmt.Errorf("%s:%d: %w", m.paths[l.file], l.at, err)
		}
		n, err := bw.Write(buf)
		written += int64(n)
		if err != nil {
			return written, err
		}
	}
	return written, bw.Flush()
}

// indexOutput reads where each line of an output file is and what it
// records.
func indexOutput(path string, file int) ([]mergeLine, error) {
	f, err := safefile.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lr := jsonl.NewLineReader(f, jsonl.MaxOutputLineBytes)
	var (
		out    []mergeLine
		offset int64
	)
	for n := 1; ; n++ {
		raw, tooLong, err := lr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if tooLong {
			return nil, fmt.Errorf("%s:%d: the line is longer than %d bytes, the most an output line may take: not an output line of fr score", path, n, jsonl.MaxOutputLineBytes)
		}
		if !bytes.HasSuffix(raw, []byte{'\n'}) { // a torn last line
			return nil, fmt.Errorf("%s:%d: the last line is cut short (an interrupted run): run the shard again with the same -o to complete it, then merge", path, n)
		}
		rec, err := result.Decode(raw)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: not an output line of fr score (%w)", path, n, err)
		}
		var recorded map[string]float64
		if rec.Priors != nil {
			recorded = rec.Priors.ContextPriors
		}
		if len(rec.Contexts) > 0 {
			// The line's own contexts say which priors its network had:
			// those of its context variables that carry a probability.
			variable := make(map[string]bool, len(rec.ContextMarginals))
			for _, m := range rec.ContextMarginals {
				variable[m.Variable] = true
			}
			var want map[string]float64
			for _, c := range rec.Contexts {
				if c.Probability != nil && variable[c.ID] {
					if want == nil {
						want = make(map[string]float64)
					}
					want[c.ID], _ = graph.OwnPrior(instance.Context{Probability: c.Probability})
				}
			}
			if err := result.SameContextPriors(recorded, want); err != nil {
				return nil, fmt.Errorf("%s:%d: %w by its own contexts' \"probability\": written by a run that did not take them as the contexts' priors; score it again", path, n, err)
			}
		}
		out = append(out, mergeLine{file: file, offset: offset, size: len(raw), at: n, line: rec.Line, input: rec.Input, run: rec.Identity(), contextPriors: recorded})
		offset += int64(len(raw))
	}
}

// sameRuns refuses lines written by different runs (result.Agreement:
// a setting that a line does not depend on, "", matches any, so each line
// is compared with the first line that names each setting).
func sameRuns(paths []string, lines []mergeLine) error {
	var runs result.Agreement
	for i := range lines {
		l := &lines[i]
		if d, at := runs.Add(l.run); d != nil {
			o := lines[at]
			return fmt.Errorf("%s:%d: field %q is %s, but %s at %s:%d: outputs of different runs cannot be merged",
				paths[l.file], l.at, d.Field, strconv.Quote(d.B), strconv.Quote(d.A), paths[o.file], o.at)
		}
	}
	return nil
}

// checkInput checks the merged lines (sorted by input line) against the
// input file: a result for every valid record, a record for every result.
func checkInput(input string, paths []string, lines []mergeLine) error {
	i := 0
	var missing []int
	err := instance.Scan(input, func(*instance.Error) {} /* an invalid record has no result */, func(in *instance.Instance) error {
		if i < len(lines) && lines[i].line < in.Line {
			l := lines[i]
			return fmt.Errorf("%s:%d: holds the result of line %d of %s, which has no valid record there", paths[l.file], l.at, l.line, input)
		}
		if i == len(lines) || lines[i].line != in.Line {
			missing = append(missing, in.Line)
			return nil
		}
		l := lines[i]
		if l.input != in.Input {
			return fmt.Errorf("%s:%d: field \"input\" is %s there but %s at %s:%d: the outputs were not scored from this input",
				paths[l.file], l.at, result.ShortQuote(l.input), result.ShortQuote(in.Input), input, in.Line)
		}
		if v, err := graph.ParseVersion(l.run.Version); err == nil && len(in.Atoms) > 0 && len(in.Contexts) > 0 {
			// The record's contexts are known: so are their own priors.
			in, _ := in.WithoutEmptyContexts()
			in, _ = graph.NearDuplicates(in, result.NearDuplicates(l.run.Fast))
			if err := result.SameContextPriors(l.contextPriors, result.ContextPriors(graph.SelectNodes(in, v))); err != nil {
				return fmt.Errorf("%s:%d: %w by the contexts' \"probability\" of the record at %s:%d: the outputs were not scored from this input, or by a run that did not take them as the contexts' priors",
					paths[l.file], l.at, err, input, in.Line)
			}
		}
		i++
		return nil
	})
	if err != nil {
		return err
	}
	if i < len(lines) {
		l := lines[i]
		return fmt.Errorf("%s:%d: holds the result of line %d of %s, which has no valid record there", paths[l.file], l.at, l.line, input)
	}
	if len(missing) > 0 {
		list := fmt.Sprint(missing[:min(len(missing), 10)])
		if len(missing) > 10 {
			list = list[:len(list)-1] + " …]"
		}
		return fmt.Errorf("%d records of %s have no result in the outputs, at lines %s: a shard is missing or unfinished (resume it with the same -o)", len(missing), input, list)
	}
	return nil
}
