package report

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/factreasoner/factreasoner-go/foreign"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/natural"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/result"
	"github.com/factreasoner/factreasoner-go/score"
)

// Run is one output file of `fr score`: one result per scored record.
type Run struct {
	Path    string
	Version string // FR1, FR2 or FR3
	// NLI is the run's NLI setting (result.Line.RunNLI): "given else
	// onnx:MODEL" for a run that scored records with relations from them
	// and the others with a model. Backend and Model are those of the
	// first line's record (nli_backend, model_name).
	NLI       string
	Backend   string
	Model     string
	Solver    string          // the inference engine (solver.solver)
	Identity  result.Identity // of the run that wrote every line
	Results   []*Result
	byLine    map[int]*Result
	Relations bool // every result records its relations
	// Other is the run of another system (package foreign), nil for fr
	// score's: a FactReasoner result file (the atoms' marginals, no
	// relations or context marginals) or an fr factscore output (a
	// decision per atom). Its results' Scores are this project's measures
	// of its marginals or decisions, with K half (FactReasoner's rule).
	Other *foreign.Run
	// Decided: the run decides each atom without a P(true) (FactReasoner's
	// baselines, fr factscore): its results' Supported hold the decisions
	// and PTrue is empty; its entropy measure, undecided atoms, Brier score
	// and calibration do not exist.
	Decided bool

	runs result.Agreement // of the lines read so far
}

// Result is what a run says about one response.
type Result struct {
	Line    int // the input line of the record: the key shared by runs
	OutLine int // the line of the output file it was read from
	Input   string
	Output  string
	Topic   string
	// Atoms and Contexts are the record as scored: duplicates included.
	Atoms    []instance.Atom
	Contexts []instance.Context
	// Relations are those that became factors, between variables of the
	// network. RelationsKnown is false for an output line that does not
	// record them and whose relations could not be recovered from its input.
	Relations      []instance.Relation
	RelationsKnown bool
	// PTrue holds P(true) of every variable of the network (atoms and
	// contexts) by id; an atom or context merged into another by
	// deduplication is not a variable and has no entry here (see Alias).
	PTrue map[string]float64
	// Errors holds, by id, how far each P(true) may be from the truth,
	// where the line records it (a network not solved exactly: see
	// result.Marginal); nil when every marginal was exact.
	Errors map[string]float64
	// Alias maps the id of an atom or context that is not a variable to the
	// variable it was merged into.
	Alias  map[string]string
	Scores score.Scores // as recorded, Gold included when labeled
	// Supported is each atom's decision, by id, in a run that decides
	// without a P(true) (Run.Decided).
	Supported map[string]bool
	// Recorded are the values another system's file records under its own
	// names where this project defines them otherwise (foreign.Record).
	Recorded foreign.Values
	// NoOutput: the run does not record the response text (fr factscore),
	// and no input file gave it.
	NoOutput bool
	// Abstained: the response declined to answer (result.Line.Abstained):
	// it has no atoms, marginals or measures.
	Abstained bool
}

// Inputs are the records of a scored input file by the line they start on.
// They stand in for the atoms, contexts and relations of output lines that
// do not record them (written before `fr score` did).
type Inputs struct {
	Path    string
	records map[int]*instance.Instance
}

// ReadInputs reads the input file that runs were scored from.
func ReadInputs(path string) (*Inputs, error) {
	ins, err := instance.ReadFile(path)
	if err != nil {
		return nil, err
	}
	in := &Inputs{Path: path, records: make(map[int]*instance.Instance, len(ins))}
	for _, r := range ins {
		in.records[r.Line] = r
	}
	return in, nil
}

// ReadRun reads an output file of `fr score`. Each line must record its
// atoms, contexts and relations, or inputs (which may be nil) must hold the
// record it was scored from, matched by the line field. The context is
// checked between lines.
//
// A FactReasoner result file or an output of fr factscore (told from its
// content by foreign.Detect) is read as the run of another system (see
// Run.Other); inputs completes what it does not record (the atoms' texts
// of FactReasoner's results alone, the response of fr factscore's).
func ReadRun(ctx context.Context, path string, inputs *Inputs) (*Run, error) {
	kind, err := foreign.Detect(path)
	if err != nil {
		return nil, err
	}
	if kind != 0 {
		return readOther(ctx, path, inputs)
	}
	run := &Run{Path: path, byLine: make(map[int]*Result), Relations: true}
	err = jsonl.ReadLines(path, jsonl.MaxOutputLineBytes, func(n int, raw []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		o, err := result.Decode(raw)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		r, err := newResult(o, inputs)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		r.OutLine = n
		if prev, dup := run.byLine[r.Line]; dup {
			return fmt.Errorf("%s:%d: line: the record of input line %d is also on line %d", path, n, r.Line, prev.OutLine)
		}
		if err := run.setIdentity(o); err != nil {
			return fmt.Errorf("%s:%d: %w (a run is the output of one fr score command)", path, n, err)
		}
		run.byLine[r.Line] = r
		run.Results = append(run.Results, r)
		run.Relations = run.Relations && r.RelationsKnown
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(run.Results) == 0 {
		return nil, fmt.Errorf("%s: no results (an empty output file)", path)
	}
	sort.Slice(run.Results, func(i, j int) bool { return run.Results[i].Line < run.Results[j].Line })
	return run, nil
}

// Result returns the run's result for the record on the given input line.
func (r *Run) Result(line int) (*Result, bool) {
	x, ok := r.byLine[line]
	return x, ok
}

func (r *Run) setIdentity(o *result.Line) error {
	if d, _ := r.runs.Add(o.Identity()); d != nil {
		return fmt.Errorf("%s: %q, but %q on the lines before", d.Field, d.B, d.A)
	}
	r.Identity = r.runs.Identity()
	if len(r.Results) == 0 {
		r.Version, r.NLI, r.Backend, r.Model, r.Solver = o.Version, o.RunNLI(), o.NLIBackend, o.ModelName, o.Solver.Solver
	}
	if r.NLI == "" { // lines before were scored from their relations
		r.NLI = o.RunNLI()
	}
	return nil
}

// newResult checks an output line and completes it from its input record
// where it does not record the atoms, contexts or relations.
func newResult(o *result.Line, inputs *Inputs) (*Result, error) {
	r := &Result{Line: o.Line, Input: o.Input, Output: o.Output, Topic: o.Topic, PTrue: make(map[string]float64)}
	for _, list := range [][]result.Marginal{o.Marginals, o.ContextMarginals} {
		for _, v := range list {
			r.PTrue[v.Variable] = v.Probabilities[1]
			if e := v.Error; e != 0 {
				if r.Errors == nil {
					r.Errors = make(map[string]float64)
				}
				r.Errors[v.Variable] = e
			}
		}
	}
	r.Scores = scores(o)
	if o.Abstained {
		r.Abstained, r.Scores.Abstained, r.RelationsKnown = true, true, true
		return r, nil
	}

	in := &instance.Instance{Input: o.Input, Output: o.Output, Topic: o.Topic, Atoms: o.Atoms, Contexts: o.Contexts}
	recorded := o.Atoms != nil
	if recorded {
		// An empty response with its atoms given (ConflictBank's records)
		// is a record fr score accepts: its page has the atoms, and no
		// text to place them in.
		if !o.Recorded("output") {
			return nil, errors.New("output: missing (the response text), though the line records its atoms")
		}
		in.Relations = instanceRelations(o.Relations)
		if err := in.Validate(); err != nil {
			return nil, err
		}
		r.RelationsKnown = o.Recorded("relations")
	} else {
		var err error
		if in, err = inputs.record(o); err != nil {
			return nil, err
		}
		r.Output = in.Output
	}
	r.Atoms, r.Contexts = in.Atoms, in.Contexts
	version, _ := graph.ParseVersion(o.Version)
	var fast string
	if o.Run != nil {
		fast = o.Run.Fast
	}
	premises, _ := graph.NearDuplicates(in, result.NearDuplicates(fast))
	nodes := graph.SelectNodes(premises, version)
	r.Alias = nodes.Alias
	if err := r.checkVariables(nodes); err != nil {
		return nil, err
	}
	switch {
	case recorded:
		r.Relations = in.Relations
	case o.NLIBackend == result.GivenBackend:
		// The relations that became factors follow from the input's own,
		// as fr score found them.
		r.Relations, r.RelationsKnown = instanceRelations(graph.GivenRelations(in, nodes)), true
	}
	if r.RelationsKnown {
		if o.Recorded("num_relations") && o.NumRelations != len(r.Relations) {
			where := "relations"
			if !recorded {
				where = "the relations of " + inputs.Path + fmt.Sprintf(":%d", r.Line)
			}
			return nil, fmt.Errorf("num_relations: %d, but %s make %d", o.NumRelations, where, len(r.Relations))
		}
		for i, rel := range r.Relations {
			for _, end := range []struct{ field, id string }{{"source", rel.Source}, {"target", rel.Target}} {
				if _, ok := r.PTrue[end.id]; !ok {
					return nil, fmt.Errorf("relations[%d].%s: %q is not a variable of the network (no marginal)", i, end.field, end.id)
				}
			}
		}
	}
	return r, nil
}

// record returns the input record of an output line that does not record
// its atoms and contexts.
func (in *Inputs) record(o *result.Line) (*instance.Instance, error) {
	if in == nil {
		return nil, errors.New("atoms: missing: this output does not record what was scored; " +
			"give the input file it was scored from (report.Inputs)")
	}
	rec, err := in.at(o.Line, o.Input, o.Topic)
	if err != nil {
		return nil, err
	}
	if len(rec.Atoms) == 0 || len(rec.Contexts) == 0 {
		return nil, fmt.Errorf("atoms: missing, and the record of %s:%d has no atoms or no contexts "+
			"(they were made while scoring and only an output that records them can be reported)", in.Path, rec.Line)
	}
	return rec, nil
}

// at returns the input record that starts on line, which must ask input
// (and have topic, unless topic is unknown: "*").
func (in *Inputs) at(line int, input, topic string) (*instance.Instance, error) {
	rec, ok := in.records[line]
	if !ok {
		return nil, fmt.Errorf("line: %d, but no record of %s starts on that line (is it the file that was scored?)", line, in.Path)
	}
	if rec.Input != input || topic != "*" && rec.Topic != topic {
		return nil, fmt.Errorf("input: %s, but the record of %s:%d asks %s (is it the file that was scored?)",
			quoteShort(input), in.Path, rec.Line, quoteShort(rec.Input))
	}
	return rec, nil
}

// checkVariables checks that the marginals are those of the network the
// version builds from the atoms and contexts.
func (r *Result) checkVariables(nodes graph.Nodes) error {
	want := make(map[string]bool, len(nodes.Atoms)+len(nodes.Contexts))
	for _, a := range nodes.Atoms {
		want[a.ID] = true
	}
	for _, c := range nodes.Contexts {
		want[c.ID] = true
	}
	var missing, extra []string
	for id := range want {
		if _, ok := r.PTrue[id]; !ok {
			missing = append(missing, id)
		}
	}
	for id := range r.PTrue {
		if !want[id] {
			extra = append(extra, id)
		}
	}
	natural.Sort(missing)
	natural.Sort(extra)
	switch {
	case len(extra) > 0:
		return fmt.Errorf("marginals: variable %q is no atom or context of the record", extra[0])
	case len(missing) > 0:
		return fmt.Errorf("marginals: no marginal for %q (and %d more): the output does not match its atoms and contexts", missing[0], len(missing)-1)
	}
	return nil
}

// instanceRelations are relations between variables as a record's
// relations.
func instanceRelations(rels []graph.Relation) []instance.Relation {
	if rels == nil {
		return nil
	}
	out := make([]instance.Relation, len(rels))
	for i, r := range rels {
		out[i] = instance.Relation{Source: r.Source, Target: r.Target, Type: r.Type.String(), Probability: r.Probability}
	}
	return out
}

// scores are the scores a line records, Gold included when labeled.
func scores(o *result.Line) score.Scores {
	s := score.Scores{
		NumAtoms: o.NumAtoms, NumTrueAtoms: o.NumTrueAtoms, NumFalseAtoms: o.NumFalseAtoms, NumUniformAtoms: o.NumUniformAtoms,
		Precision: o.FactualityScore, Entropy: o.Entropy, AvgEntropy: o.AvgEntropy,
		K: o.K, RecallK: o.RecallK, F1K: o.F1K, Predictions: o.Predictions,
	}
	if o.GoldFactualityScore != nil {
		g := &score.Gold{FactualityScore: *o.GoldFactualityScore, References: o.References}
		for _, f := range []struct {
			dst *int
			src *int
		}{{&g.TrueAtoms, o.GoldTrueAtoms}, {&g.TruePositive, o.TruePositive}, {&g.TrueNegative, o.TrueNegative},
			{&g.FalsePositive, o.FalsePositive}, {&g.FalseNegative, o.FalseNegative}} {
			if f.src != nil {
				*f.dst = *f.src
			}
		}
		if o.AvgBrier != nil {
			g.AvgBrier = *o.AvgBrier
		}
		s.Gold = g
	}
	return s
}
