package pipeline

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
)

// resumeFields are the fields of an output line that the input record and
// the run's settings determine. A run resumes only into a file whose lines
// agree with it on each of them.
var resumeFields = []string{"input", "topic", "version", "nli_backend", "model_name", "solver", "k", "num_atoms", "num_contexts", "pairs_per_atom", "priors", "summarizer"}

// OpenOutput opens the output file of a scoring run of input with version
// v (of one shard of it, when shard.Count > 1): a new file, or one this run
// can resume. It returns the file, positioned for appending, and the input
// lines it already holds. A file holding results of another run (another
// input record, version, NLI backend or model, pruning, K, solver or
// priors, or another shard) is refused with an error naming its line and
// field, and left as it is; so is a file that is not an output of this
// tool.
func (p *Pipeline) OpenOutput(path, input string, v graph.Version, shard Shard) (*os.File, jsonl.Done, error) {
	check := func(d jsonl.Done) error { return p.checkResume(input, path, v, shard, d) }
	return jsonl.Resume(path, "line", resumeFields, check)
}

// checkResume refuses to resume into out when one of its lines was not
// written by this run.
func (p *Pipeline) checkResume(input, out string, v graph.Version, shard Shard, done jsonl.Done) error {
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
	seen := make(map[int]bool, len(done))
	err := instance.Scan(input, func(*instance.Error) {} /* an invalid record: the run reports it */, func(in *instance.Instance) error {
		st, ok := done[in.Line]
		if !ok {
			return nil
		}
		seen[in.Line] = true
		if err := p.sameRun(v, in, st); err != nil {
			return fmt.Errorf("%s:%d: %w, for the record at %s:%d; %s", out, st.Line, err, input, in.Line, advice)
		}
		return nil
	})
	if err != nil {
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

// sameRun compares an output line with what this run writes for in.
func (p *Pipeline) sameRun(v graph.Version, in *instance.Instance, st jsonl.Stored) error {
	id := p.NLIIdentity(in)
	for _, f := range []struct{ name, want string }{
		{"input", in.Input},
		{"topic", in.Topic},
		{"version", v.String()},
		{"nli_backend", id.Backend},
		{"model_name", ModelName(id)},
		{"summarizer", p.summarizerName()},
	} {
		var got string
		if raw, ok := st.Fields[f.name]; ok && json.Unmarshal(raw, &got) != nil {
			got = string(raw)
		}
		if got != f.want {
			return fmt.Errorf("field %q is %s there but %s in this run", f.name, shortQuote(got), shortQuote(f.want))
		}
	}
	if !p.usesGiven(in) && p.Classifier != nil {
		// Lines written before pruning existed asked about every pair.
		got := "all"
		if raw, ok := st.Fields["pairs_per_atom"]; ok && json.Unmarshal(raw, &got) != nil {
			got = string(raw)
		}
		if want := PairsPerAtomName(p.PairsPerAtom); got != want {
			return fmt.Errorf("field %q is %s there but %s in this run (--pairs-per-atom)", "pairs_per_atom", shortQuote(got), shortQuote(want))
		}
	}
	var priors *Priors
	if raw, ok := st.Fields["priors"]; ok && json.Unmarshal(raw, &priors) != nil {
		return fmt.Errorf("field %q is %s there, not the network's priors", "priors", shortQuote(string(raw)))
	}
	var recorded *graph.Options
	if priors != nil {
		recorded = &priors.Options
	}
	if got, want := priorsName(recorded), priorsName(&p.Graph); got != want {
		return fmt.Errorf("field %q is %s there but %s in this run (--use-priors, --atom-prior, --context-prior)", "priors", shortQuote(got), shortQuote(want))
	}
	if want := SolverName(p.Solver); want != "" {
		var solver struct {
			Solver string `json:"solver"`
		}
		json.Unmarshal(st.Fields["solver"], &solver)
		if solver.Solver != want {
			return fmt.Errorf("field %q is %s there but %s in this run", "solver.solver", shortQuote(solver.Solver), shortQuote(want))
		}
	}
	var atoms int
	json.Unmarshal(st.Fields["num_atoms"], &atoms)
	if premises, ok := p.premisesAhead(in); ok && len(in.Atoms) > 0 && len(in.Contexts) > 0 {
		// Neither atomized, retrieved for nor summarized: the counts and
		// the contexts' own priors are known now.
		premises, _ := premises.WithoutEmptyContexts()
		nodes := graph.SelectNodes(premises, v)
		var got map[string]float64
		if priors != nil {
			got = priors.ContextPriors
		}
		if err := sameContextPriors(got, contextPriors(nodes)); err != nil {
			return fmt.Errorf("%w in this run (a context's \"probability\" is its prior)", err)
		}
		for _, f := range []struct {
			name string
			want int
		}{{"num_atoms", len(nodes.Atoms)}, {"num_contexts", len(nodes.Contexts)}} {
			var got int
			if json.Unmarshal(st.Fields[f.name], &got) != nil || got != f.want {
				return fmt.Errorf("field %q is %s there but %d in this run", f.name, st.Fields[f.name], f.want)
			}
		}
	}
	var k float64
	kErr := json.Unmarshal(st.Fields["k"], &k)
	if want := p.K.For(atoms); kErr != nil || k != want {
		return fmt.Errorf("field %q is %s there but %s with --k %s", "k", st.Fields["k"], strconv.FormatFloat(want, 'g', -1, 64), p.K.Name)
	}
	return nil
}

// sameContextPriors compares the per-context priors an output line records
// with those the record gives (by its contexts' "probability"). A line
// written before per-context priors were read records none: results
// computed without them are another run's.
// The error says "field … is A there but B"; callers say where B is from.
func sameContextPriors(recorded, want map[string]float64) error {
	if maps.Equal(recorded, want) {
		return nil
	}
	return fmt.Errorf("field %q is %s there but %s", "priors.context_priors", shortQuote(contextPriorsName(recorded)), shortQuote(contextPriorsName(want)))
}

// SolverName is the name a solver's results report as Report.Solver
// ("native", "merlin"), when the solver says it (a Name method); else "".
func SolverName(s inference.Solver) string {
	if n, ok := s.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

// shortQuote quotes s for an error message, on one line and cut to 60
// characters.
func shortQuote(s string) string { return strconv.Quote(OneLine(s, 60)) }

// OneLine shortens text to its first n characters, on one line.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
