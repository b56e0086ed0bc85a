package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/pipeline"
	"github.com/factreasoner/factreasoner-go/score"
)

// Run is one output file of `fr score`: one result per scored record.
type Run struct {
	Path      string
	Version   string // FR1, FR2 or FR3
	Backend   string // the NLI backend (nli_backend)
	Model     string // the NLI model (model_name)
	Solver    string // the inference engine (solver.solver)
	Results   []*Result
	byLine    map[int]*Result
	Relations bool // every result records its relations
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
	// pipeline.Marginal); nil when every marginal was exact.
	Errors map[string]float64
	// Alias maps the id of an atom or context that is not a variable to the
	// variable it was merged into.
	Alias  map[string]string
	Scores score.Scores // as recorded, Gold included when labeled
}

// outputLine is one line of `fr score` output: the fields the report reads.
type outputLine struct {
	FactualityScore *float64 `json:"factuality_score"`
	NumAtoms        *int     `json:"num_atoms"`
	NumRelations    *int     `json:"num_relations"`
	NumTrueAtoms    int      `json:"num_true_atoms"`
	NumFalseAtoms   int      `json:"num_false_atoms"`
	NumUniformAtoms int      `json:"num_uniform_atoms"`
	Entropy         float64  `json:"entropy"`
	AvgEntropy      float64  `json:"avg_entropy"`
	K               float64  `json:"k"`
	RecallK         float64  `json:"recall_k"`
	F1K             float64  `json:"f1_k"`

	GoldFactualityScore *float64 `json:"gold_factuality_score"`
	GoldTrueAtoms       *int     `json:"gold_true_atoms"`
	TruePositive        *int     `json:"true_positive"`
	TrueNegative        *int     `json:"true_negative"`
	FalsePositive       *int     `json:"false_positive"`
	FalseNegative       *int     `json:"false_negative"`
	AvgBrier            *float64 `json:"avg_brier"`
	Predictions         string   `json:"predictions"`
	References          string   `json:"references"`

	Input            string              `json:"input"`
	Output           string              `json:"output"`
	Topic            string              `json:"topic"`
	Atoms            []instance.Atom     `json:"atoms"`
	Contexts         []instance.Context  `json:"contexts"`
	Relations        []json.RawMessage   `json:"relations"`
	Marginals        []pipeline.Marginal `json:"marginals"`
	ContextMarginals []pipeline.Marginal `json:"context_marginals"`

	Version    string `json:"version"`
	ModelName  string `json:"model_name"`
	NLIBackend string `json:"nli_backend"`
	Solver     struct {
		Solver string `json:"solver"`
		Method string `json:"method"`
	} `json:"solver"`
	Line *int `json:"line"`
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
func ReadRun(ctx context.Context, path string, inputs *Inputs) (*Run, error) {
	run := &Run{Path: path, byLine: make(map[int]*Result), Relations: true}
	err := jsonl.ReadLines(path, func(n int, raw []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var o outputLine
		if err := json.Unmarshal(raw, &o); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, describeJSONError(err))
		}
		r, err := o.result(inputs)
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

func (r *Run) setIdentity(o outputLine) error {
	if len(r.Results) == 0 {
		r.Version, r.Backend, r.Model, r.Solver = o.Version, o.NLIBackend, o.ModelName, o.Solver.Solver
		return nil
	}
	for _, f := range []struct{ name, have, got string }{
		{"version", r.Version, o.Version},
		{"nli_backend", r.Backend, o.NLIBackend},
		{"model_name", r.Model, o.ModelName},
		{"solver.solver", r.Solver, o.Solver.Solver},
	} {
		if f.have != f.got {
			return fmt.Errorf("%s: %q, but %q on the lines before", f.name, f.got, f.have)
		}
	}
	return nil
}

// describeJSONError names the field of a type error.
func describeJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		want := "a " + te.Type.String()
		switch te.Type.Kind() {
		case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int64:
			want = "a number"
		case reflect.String:
			want = "a string"
		case reflect.Slice:
			want = "an array"
		case reflect.Struct, reflect.Map:
			want = "an object"
		}
		return fmt.Errorf("%s: a JSON %s, not %s", te.Field, te.Value, want)
	}
	var fe *instance.FieldError
	if errors.As(err, &fe) {
		return fe
	}
	return fmt.Errorf("not a JSON record: %w", err)
}

// result checks an output line and completes it from its input record
// where it does not record the atoms, contexts or relations.
func (o *outputLine) result(inputs *Inputs) (*Result, error) {
	switch {
	case o.Line == nil:
		return nil, errors.New(`line: missing (the input line of the record; is this an output file of fr score?)`)
	case o.FactualityScore == nil || o.NumAtoms == nil:
		return nil, errors.New(`factuality_score: missing (is this an output file of fr score?)`)
	case o.Version == "":
		return nil, errors.New(`version: missing`)
	case o.Marginals == nil:
		return nil, errors.New(`marginals: missing`)
	}
	if _, err := graph.ParseVersion(o.Version); err != nil {
		return nil, fmt.Errorf("version: %w", err)
	}
	r := &Result{Line: *o.Line, Input: o.Input, Output: o.Output, Topic: o.Topic, PTrue: make(map[string]float64)}
	for _, m := range []struct {
		field string
		list  []pipeline.Marginal
	}{{"marginals", o.Marginals}, {"context_marginals", o.ContextMarginals}} {
		for i, v := range m.list {
			p := v.Probabilities[1]
			if v.Variable == "" {
				return nil, fmt.Errorf("%s[%d].variable: missing", m.field, i)
			}
			if math.IsNaN(p) || p < 0 || p > 1 {
				return nil, fmt.Errorf("%s[%d].probabilities[1]: %v is not a probability", m.field, i, p)
			}
			if _, dup := r.PTrue[v.Variable]; dup {
				return nil, fmt.Errorf("%s[%d].variable: %q is listed twice", m.field, i, v.Variable)
			}
			r.PTrue[v.Variable] = p
			if e := v.Error; e != 0 {
				if !(e > 0 && e <= 1) {
					return nil, fmt.Errorf("%s[%d].error: %v is not in (0, 1]", m.field, i, e)
				}
				if r.Errors == nil {
					r.Errors = make(map[string]float64)
				}
				r.Errors[v.Variable] = e
			}
		}
	}
	if len(o.Marginals) != *o.NumAtoms {
		return nil, fmt.Errorf("marginals: %d of them but num_atoms is %d", len(o.Marginals), *o.NumAtoms)
	}
	r.Scores = o.scores()

	in := &instance.Instance{Input: o.Input, Output: o.Output, Topic: o.Topic, Atoms: o.Atoms, Contexts: o.Contexts}
	recorded := o.Atoms != nil
	if recorded {
		if o.Output == "" {
			return nil, errors.New("output: missing (the response text), though the line records its atoms")
		}
		rels, err := decodeRelations(o.Relations)
		if err != nil {
			return nil, err
		}
		in.Relations = rels
		if err := in.Validate(); err != nil {
			return nil, err
		}
		r.RelationsKnown = o.Relations != nil
	} else {
		var err error
		if in, err = inputs.record(o); err != nil {
			return nil, err
		}
		r.Output = in.Output
	}
	r.Atoms, r.Contexts = in.Atoms, in.Contexts
	version, _ := graph.ParseVersion(o.Version)
	nodes := graph.SelectNodes(in, version)
	r.Alias = nodes.Alias
	if err := r.checkVariables(nodes); err != nil {
		return nil, err
	}
	switch {
	case recorded:
		r.Relations = in.Relations
	case o.NLIBackend == "given":
		// The relations that became factors follow from the input's own,
		// as fr score found them.
		rels, err := givenRelations(in, nodes)
		if err != nil {
			return nil, err
		}
		r.Relations, r.RelationsKnown = rels, true
	}
	if r.RelationsKnown {
		if o.NumRelations != nil && *o.NumRelations != len(r.Relations) {
			where := "relations"
			if !recorded {
				where = "the relations of " + inputs.Path + fmt.Sprintf(":%d", r.Line)
			}
			return nil, fmt.Errorf("num_relations: %d, but %s make %d", *o.NumRelations, where, len(r.Relations))
		}
		for i, rel := range r.Relations {
			for _, end := range []struct{ field, id string }{{"source", rel.Source}, {"target", rel.Target}} {
				if _, ok := r.PTrue[end.id]; !ok {
					return nil, fmt.Errorf("relations[%d].%s: %q is not a variable of the network (no marginal)", i, end.field, end.id)
				}
			}
			if rel.Type == instance.TypeNeutral {
				return nil, fmt.Errorf("relations[%d].type: neutral relations make no factor", i)
			}
		}
	}
	return r, nil
}

// record returns the input record of an output line that does not record
// its atoms and contexts.
func (in *Inputs) record(o *outputLine) (*instance.Instance, error) {
	if in == nil {
		return nil, errors.New("atoms: missing: this output does not record what was scored; " +
			"give the input file it was scored from (--input)")
	}
	rec, ok := in.records[*o.Line]
	if !ok {
		return nil, fmt.Errorf("line: %d, but no record of %s starts on that line (is it the file that was scored?)", *o.Line, in.Path)
	}
	if rec.Input != o.Input || rec.Topic != o.Topic {
		return nil, fmt.Errorf("input: %s, but the record of %s:%d asks %s (is it the file that was scored?)",
			quoteShort(o.Input), in.Path, rec.Line, quoteShort(rec.Input))
	}
	if len(rec.Atoms) == 0 || len(rec.Contexts) == 0 {
		return nil, fmt.Errorf("atoms: missing, and the record of %s:%d has no atoms or no contexts "+
			"(they were made while scoring and only an output that records them can be reported)", in.Path, rec.Line)
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
	slices.Sort(missing)
	slices.Sort(extra)
	switch {
	case len(extra) > 0:
		return fmt.Errorf("marginals: variable %q is no atom or context of the record", extra[0])
	case len(missing) > 0:
		return fmt.Errorf("marginals: no marginal for %q (and %d more): the output does not match its atoms and contexts", missing[0], len(missing)-1)
	}
	return nil
}

// givenRelations are the relations that became factors when the record was
// scored with its own relations (--nli given).
func givenRelations(in *instance.Instance, nodes graph.Nodes) ([]instance.Relation, error) {
	rels := graph.GivenRelations(in, nodes)
	out := make([]instance.Relation, len(rels))
	for i, r := range rels {
		out[i] = instance.Relation{Source: r.Source, Target: r.Target, Type: r.Type.String(), Probability: r.Probability}
	}
	return out, nil
}

// decodeRelations decodes relations one by one, so that an error names its
// index.
func decodeRelations(raws []json.RawMessage) ([]instance.Relation, error) {
	if raws == nil {
		return nil, nil
	}
	out := make([]instance.Relation, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			var fe *instance.FieldError
			if errors.As(err, &fe) {
				return nil, fmt.Errorf("relations[%d].%s: %s", i, fe.Field, fe.Msg)
			}
			return nil, fmt.Errorf("relations[%d]: %w", i, describeJSONError(err))
		}
	}
	return out, nil
}

func (o *outputLine) scores() score.Scores {
	s := score.Scores{
		NumAtoms: *o.NumAtoms, NumTrueAtoms: o.NumTrueAtoms, NumFalseAtoms: o.NumFalseAtoms, NumUniformAtoms: o.NumUniformAtoms,
		Precision: *o.FactualityScore, Entropy: o.Entropy, AvgEntropy: o.AvgEntropy,
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
