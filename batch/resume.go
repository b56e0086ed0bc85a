package batch

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/result"
)

// resumeFields are the fields of an output line that the input record and
// the run's settings determine. A run resumes only into a file whose lines
// agree with it on each of them.
var resumeFields = []string{"line", "input", "topic", "version", "nli_backend", "model_name", "solver", "k", "num_atoms", "num_contexts", "pairs_per_atom", "priors", "summarizer", "run"}

// OpenOutput opens the output file of a scoring run of input with version
// v (of one shard of it, when shard.Count > 1): a new file, or one this run
// can resume. It returns the file, positioned for appending, and the input
// lines it already holds. A file holding results of another run (another
// input record, version, NLI backend or model, pruning, K, solver or
// priors, or another shard) is refused with an error naming its line and
// field, and left as it is; so is a file that is not an output of this
// tool.
func OpenOutput(p *assess.Pipeline, path, input string, v graph.Version, shard Shard) (*os.File, jsonl.Done, error) {
	check := func(d jsonl.Done) error { return checkResume(p, input, path, v, shard, d) }
	return jsonl.Resume(path, "line", resumeFields, check)
}

// checkResume refuses to resume into out when one of its lines was not
// written by this run.
func checkResume(p *assess.Pipeline, input, out string, v graph.Version, shard Shard, done jsonl.Done) error {
	if len(done) == 0 {
		return nil
	}
	advice := fmt.Sprintf("%s holds the results of another run: give a different -o, or remove the file to start again", out)
	var other []int // output lines of another shard
	for line, st := range done {
		if !shard.Has(line) {
			other = append(other, st.Line)
		}
	}
	if len(other) > 0 {
		first := slices.Min(other)
		for line, st := range done {
			if st.Line == first {
				return fmt.Errorf("%s:%d: holds the result of input line %d, which is not in shard %s (line modulo %d is not %d); %s", out, first, line, shard, shard.Count, shard.Index, advice)
			}
		}
	}
	// Only the records the output holds are decoded, and the input is
	// read no further than the last of them.
	seen := make(map[int]bool, len(done))
	last := slices.Max(slices.Collect(maps.Keys(done)))
	err := instance.ScanRaw(input, func(*instance.Error) {} /* an invalid record: the run reports it */, func(raw instance.Raw) error {
		if st, ok := done[raw.Line]; ok {
			in, err := raw.Decode()
			if err != nil {
				return nil // no valid record: unseen
			}
			seen[in.Line] = true
			if err := sameRun(p, v, in, st); err != nil {
				return fmt.Errorf("%s:%d: %w, for the record at %s:%d; %s", out, st.Line, err, input, in.Line, advice)
			}
		}
		if raw.Line >= last {
			return errLastDone
		}
		return nil
	})
	if err != nil && err != errLastDone {
		return err
	}
	var unseen []int // output lines whose input line is not a record
	byOut := make(map[int]int)
	for line, st := range done {
		if !seen[line] {
			unseen = append(unseen, st.Line)
			byOut[st.Line] = line
		}
	}
	if len(unseen) > 0 {
		first := slices.Min(unseen)
		return fmt.Errorf("%s:%d: holds the result of line %d of %s, which has no valid record there; %s", out, first, byOut[first], input, advice)
	}
	return nil
}

// errLastDone stops the resume check's scan of the input after the last
// record the output holds.
var errLastDone = errors.New("the last record done")

// sameRun compares an output line with what this run writes for in: the
// run's identity (result.Identity), the record's input and topic and,
// where they are known before scoring, its counts and contexts' priors.
func sameRun(p *assess.Pipeline, v graph.Version, in *instance.Instance, st jsonl.Stored) error {
	obj, err := json.Marshal(st.Fields)
	if err != nil {
		return err
	}
	var l result.Line
	if err := l.UnmarshalJSON(obj); err != nil {
		return fmt.Errorf("not an output line of this tool: %w", err)
	}
	for _, f := range []struct{ name, got, want string }{
		{"input", l.Input, in.Input},
		{"topic", l.Topic, in.Topic},
	} {
		if f.got != f.want {
			return fmt.Errorf("field %q is %s there but %s in this run", f.name, result.ShortQuote(f.got), result.ShortQuote(f.want))
		}
	}
	if d := result.Compare(l.Identity(), p.LineIdentity(v, in)); d != nil {
		what := "this run"
		if l.Run == nil && strings.HasPrefix(d.Field, "run.") {
			what = "this run (the line was written before the run's settings were recorded)"
		}
		return fmt.Errorf("field %q is %s there but %s in %s%s", d.Field, strconv.Quote(d.A), strconv.Quote(d.B), what, settingsNamed(p, d.Field))
	}
	// The backend that scores this record: given, or the classifier.
	id := p.NLIIdentity(in)
	for _, f := range []struct{ name, got, want string }{
		{"nli_backend", l.NLIBackend, id.Backend},
		{"model_name", l.ModelName, result.ModelName(id)},
	} {
		if f.got != f.want {
			return fmt.Errorf("field %q is %s there but %s in this run", f.name, result.ShortQuote(f.got), result.ShortQuote(f.want))
		}
	}
	if nodes, ok := p.NodesAhead(in, v); ok {
		var got map[string]float64
		if l.Priors != nil {
			got = l.Priors.ContextPriors
		}
		if err := result.SameContextPriors(got, result.ContextPriors(nodes)); err != nil {
			return fmt.Errorf("%w in this run (a context's \"probability\" is its prior)", err)
		}
		for _, f := range []struct {
			name      string
			got, want int
		}{{"num_atoms", l.NumAtoms, len(nodes.Atoms)}, {"num_contexts", l.NumContexts, len(nodes.Contexts)}} {
			if !l.Recorded(f.name) || f.got != f.want {
				return fmt.Errorf("field %q is %s there but %d in this run", f.name, st.Fields[f.name], f.want)
			}
		}
	}
	if want := p.K.For(l.NumAtoms); !l.Recorded("k") || l.K != want {
		return fmt.Errorf("field %q is %s there but %s with K %s", "k", st.Fields["k"], strconv.FormatFloat(want, 'g', -1, 64), p.K.Name)
	}
	return nil
}

// settingsNamed names, for a message, the settings of p that enter an
// identity's field (assess.Pipeline.SettingsOf): " (Inference.Algorithm,
// Inference.ExactBudget, …)"; "" where it names none.
func settingsNamed(p *assess.Pipeline, field string) string {
	if p.SettingsOf == nil {
		return ""
	}
	paths := p.SettingsOf(field)
	if len(paths) == 0 {
		return ""
	}
	return " (" + strings.Join(paths, ", ") + ")"
}
