package batch

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/comparison"
	"github.com/factreasoner/factreasoner-go/foreign"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/result"
	"github.com/factreasoner/factreasoner-go/score"
)

// IsOutputFile reports whether the first record of a file is an output
// line of ScoreFile. With skipInvalid, invalid records before it are
// passed over (the run that reads the file reports them), as
// --skip-invalid passes over them everywhere; else the first one is the
// error.
func IsOutputFile(path string, skipInvalid bool) (bool, error) {
	first := false
	errStop := errors.New("stop")
	var skip func(*instance.Error)
	if skipInvalid {
		skip = func(*instance.Error) {}
	}
	err := instance.Scan(path, skip, func(in *instance.Instance) error {
		first = assess.IsRecorded(in)
		return errStop
	})
	if err != nil && err != errStop {
		return false, err
	}
	return first, nil
}

// Format is a kind of file the tool reads, as DetectFormat tells it.
type Format int

// The formats DetectFormat tells apart.
const (
	FormatUnknown      Format = iota // none of them, or unreadable
	FormatInput                      // FactReasoner records (package instance)
	FormatScored                     // an output of ScoreFile (package result)
	FormatLabeled                    // FActScore's human-labeled format (instance.FActScoreLabeled)
	FormatFActScoreRun               // an output of FActScoreFile (foreign.FActScore)
	FormatResults                    // a FactReasoner result file (foreign.FactReasoner)
)

// DetectFormat tells the format of the file at path from its first
// record; FormatUnknown when it cannot be told. Invalid records before the
// first valid one are passed over.
func DetectFormat(path string) Format {
	switch kind, err := foreign.Detect(path); {
	case err != nil:
		return FormatUnknown
	case kind == foreign.FActScore:
		return FormatFActScoreRun
	case kind == foreign.FactReasoner:
		return FormatResults
	}
	if f, err := instance.DetectFormat(path); err == nil && f == instance.FActScoreLabeled {
		return FormatLabeled
	}
	switch scored, err := IsOutputFile(path, true); {
	case err != nil:
		return FormatUnknown
	case scored:
		return FormatScored
	}
	return FormatInput
}

// CompareRecorded summarizes the runs recorded in files, scoring nothing
// again: output files of ScoreFile, one row per run (version and NLI
// backend) found in them, and the runs of other systems that package
// foreign reads (a FactReasoner result file, an output of fr factscore),
// one row per file, in the order they first appear. fr score's rows are
// named by version, and by NLI backend, then file, where that is needed to
// tell them apart; its lines keep the K they record. Another system's row
// is named by where it came from (foreign.Run.Label) and the K of its
// F1@K, k (its median rule takes the median atom count of the file): its
// measures are computed here from its marginals, or from its decisions
// (without the measures of a probability), and the values its file records
// under names this project defines otherwise are its row's Recorded.
func CompareRecorded(paths []string, k score.K, o FileOptions) ([]comparison.Row, ScoreStats, error) {
	type run struct {
		version, nli, file string
		scores             []score.Scores
		lines              []int // the input line of each
		reports            []inference.Report
		other              *foreign.Run // a run of another system
		k                  score.K      // its K
		records            map[int]asked
	}
	var runs []*run
	index := make(map[[3]string]*run)
	var st ScoreStats
	for _, path := range paths {
		kind, err := foreign.Detect(path)
		if err != nil {
			return nil, st, err
		}
		if kind != 0 {
			fr, err := foreign.Read(path, o.skip(&st.Invalid))
			if err != nil {
				return nil, st, err
			}
			ru := &run{file: path, other: fr, k: fr.K(k), records: make(map[int]asked)}
			for _, rec := range fr.Records {
				ru.records[rec.Line] = asked{at: rec.At, input: rec.Input, output: rec.Output}
				ru.scores = append(ru.scores, rec.Scores(ru.k))
				ru.lines = append(ru.lines, rec.Line)
				st.Scored++
				if o.Progress != nil {
					o.Progress(Progress{Records: st.Scored, Line: rec.Line})
				}
			}
			runs = append(runs, ru)
			continue
		}
		err = instance.Scan(path, o.skip(&st.Invalid), func(in *instance.Instance) error {
			r, err := assess.ReadRecorded(in)
			if err != nil {
				var fe *instance.FieldError
				if errors.As(err, &fe) {
					return &instance.Error{File: path, Line: in.Line, Field: fe.Field, Err: errors.New(fe.Msg)}
				}
				return fmt.Errorf("%s:%d: %w", path, in.Line, err)
			}
			k := [3]string{r.Version, r.NLI, path}
			ru, ok := index[k]
			if !ok {
				ru = &run{version: r.Version, nli: r.NLI, file: path, records: make(map[int]asked)}
				index[k] = ru
				runs = append(runs, ru)
			}
			ru.records[r.Line] = asked{at: in.Line, input: in.Input, output: in.Output}
			ru.scores = append(ru.scores, r.Scores)
			ru.lines = append(ru.lines, r.Line)
			if !r.Scores.Abstained {
				ru.reports = append(ru.reports, r.Solver)
			}
			st.Scored++
			if o.Progress != nil {
				o.Progress(Progress{Records: st.Scored, Line: in.Line})
			}
			return nil
		})
		if err != nil {
			return nil, st, err
		}
	}
	if o.Warn != nil {
		recs := make([]map[int]asked, len(runs))
		files := make([]string, len(runs))
		for i, r := range runs {
			recs[i], files[i] = r.records, r.file
		}
		for _, w := range differentRecords(recs, files) {
			o.Warn(w)
		}
	}
	names := make([]string, len(runs))
	count := func(name func(*run) string, n string) int {
		c := 0
		for _, r := range runs {
			if r.other == nil && name(r) == n {
				c++
			}
		}
		return c
	}
	byVersion := func(r *run) string { return r.version }
	byNLI := func(r *run) string { return r.version + " · " + r.nli }
	labels := make(map[string]int)
	for _, r := range runs {
		if r.other != nil {
			labels[r.other.Label()]++
		}
	}
	for i, r := range runs {
		switch {
		case r.other != nil:
			names[i] = r.other.Label()
			if labels[names[i]] > 1 {
				names[i] += " · " + filepath.Base(r.file)
			}
			names[i] += " · K " + kName(r.k)
		case count(byVersion, r.version) == 1:
			names[i] = r.version
		case count(byNLI, byNLI(r)) == 1:
			names[i] = byNLI(r)
		default:
			names[i] = byNLI(r) + " · " + filepath.Base(r.file)
		}
	}
	rows := make([]comparison.Row, len(runs))
	for i, r := range runs {
		rows[i] = comparison.Summarize(names[i], r.scores, r.lines, r.other != nil && r.other.Decided)
		if r.other != nil {
			rows[i].K, rows[i].Recorded = kName(r.k), r.other.RecordedMeans()
		}
		if len(r.reports) > 0 { // none for a FActScore run or another system's
			sum := comparison.InferenceSummary(r.reports)
			rows[i].Inference = &sum
		}
	}
	return rows, st, nil
}

// kName names a resolved rule for K: "half", the number, or "median N".
func kName(k score.K) string {
	if k.Half {
		return "half"
	}
	v := result.KName(k)
	if k.Name == "median" {
		return "median " + v
	}
	return v
}

// asked is what a recorded result answered: the question and response of
// the record on its input line, and where the result is in its file.
type asked struct {
	at            int
	input, output string
}

// differentRecords says, in a line each, where the runs compared do not
// answer the same questions (fr report refuses to set such runs side by
// side; a table of means can, but should say so): the input lines whose
// question or response differs between runs (a response a run does not
// record is not compared), and runs that hold results of different input
// lines. files names the runs.
func differentRecords(runs []map[int]asked, files []string) []string {
	var out []string
	first := make(map[int]int) // input line -> the first run with it
	mismatched, example := 0, ""
	for i, recs := range runs {
		lines := make([]int, 0, len(recs))
		for l := range recs {
			lines = append(lines, l)
		}
		slices.Sort(lines)
		for _, l := range lines {
			j, ok := first[l]
			if !ok {
				first[l] = i
				continue
			}
			a, b := runs[j][l], recs[l]
			if a.input != b.input || a.output != "" && b.output != "" && a.output != b.output {
				mismatched++
				if example == "" {
					what := fmt.Sprintf("question %q and %q", startOf(a.input), startOf(b.input))
					if a.input == b.input {
						what = fmt.Sprintf("response %q and %q", startOf(a.output), startOf(b.output))
					}
					example = fmt.Sprintf("%s:%d and %s:%d (input line %d: %s)", files[j], a.at, files[i], b.at, l, what)
				}
			}
		}
	}
	if mismatched > 0 {
		out = append(out, fmt.Sprintf("the runs answer different questions on %d input lines, first %s: their rows compare different records", mismatched, example))
	}
	for i := 1; i < len(runs); i++ {
		common := 0
		for l := range runs[i] {
			if _, ok := runs[0][l]; ok {
				common++
			}
		}
		if common != len(runs[0]) || common != len(runs[i]) {
			out = append(out, fmt.Sprintf("%s has results for %d input lines and %s for %d, %d of them the same: each row is the mean of its own run's records", files[0], len(runs[0]), files[i], len(runs[i]), common))
		}
	}
	return out
}

// startOf is the start of a text, for a message.
func startOf(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
