package pipeline

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/score"
)

// Record is one output line of `fr score`: the reference's fields and some
// more. Field order is fixed, so equal inputs give byte-identical lines.
type Record struct {
	FactualityScore float64 `json:"factuality_score"`
	NumAtoms        int     `json:"num_atoms"`
	NumContexts     int     `json:"num_contexts"`
	NumRelations    int     `json:"num_relations"`
	NumTrueAtoms    int     `json:"num_true_atoms"`
	NumFalseAtoms   int     `json:"num_false_atoms"`
	NumUniformAtoms int     `json:"num_uniform_atoms"`
	Entropy         float64 `json:"entropy"`
	AvgEntropy      float64 `json:"avg_entropy"`
	K               float64 `json:"k"`
	RecallK         float64 `json:"recall_k"`
	F1K             float64 `json:"f1_k"`

	// The reference's other measures (README, Output), p being P(true)
	// clamped to [1e-6, 1 − 1e-6]; the record's input and output under
	// the reference's names; and, only with timings on, the seconds the
	// record took (atomizing, retrieval, NLI, inference).
	NormEntropy    float64           `json:"norm_entropy"`
	AvgNormEntropy float64           `json:"avg_norm_entropy"`
	AvgProb        float64           `json:"avg_prob"`
	AvgLogProb     float64           `json:"avg_logprob"`
	AvgExpLogProb  float64           `json:"avg_explogprob"`
	PerAtom        []score.AtomScore `json:"factuality_score_per_atom"`
	Query          string            `json:"query"`
	Response       string            `json:"response"`
	ElapsedTime    *float64          `json:"elapsed_time,omitempty"`

	// Present when the input is labeled.
	GoldFactualityScore *float64 `json:"gold_factuality_score,omitempty"`
	GoldTrueAtoms       *int     `json:"gold_true_atoms,omitempty"`
	TruePositive        *int     `json:"true_positive,omitempty"`
	TrueNegative        *int     `json:"true_negative,omitempty"`
	FalsePositive       *int     `json:"false_positive,omitempty"`
	FalseNegative       *int     `json:"false_negative,omitempty"`
	AvgBrier            *float64 `json:"avg_brier,omitempty"`

	Predictions string `json:"predictions"`
	References  string `json:"references,omitempty"`
	Input       string `json:"input"`
	Topic       string `json:"topic,omitempty"`
	// Marginals of the atoms, then of the contexts, each in byte-sorted id
	// order: probabilities are [P(false), P(true)].
	Marginals        []Marginal `json:"marginals"`
	ContextMarginals []Marginal `json:"context_marginals"`

	Version    string           `json:"version"`
	ModelName  string           `json:"model_name"`  // the NLI model
	NLIBackend string           `json:"nli_backend"` // the NLI backend
	Solver     inference.Report `json:"solver"`

	// The NLI pairs put to the backend for this record, those that pruning
	// left out (neutral, no factor) and the pruning setting: the most
	// contexts asked about per atom, or "all". Records scored from their
	// own relations ask nothing and have no setting.
	NLIPairs       int    `json:"nli_pairs"`
	NLIPairsPruned int    `json:"nli_pairs_pruned"`
	PairsPerAtom   string `json:"pairs_per_atom,omitempty"`
	// Priors are the network's priors and factor tables (--use-priors,
	// --atom-prior, --context-prior), so that a resumed run or a merge
	// refuses results computed with other ones.
	Priors *graph.Options `json:"priors,omitempty"`

	// Line is the input line the record came from; a resumed run uses it to
	// skip what is already done.
	Line int `json:"line"`

	// The record as it was scored: its response and, unless left out
	// (WithoutInputs), its atoms (after atomizing), contexts (after
	// retrieval) and the relations that became factors, between the
	// network's variables. An output line is so also an input line: scored
	// again, it gives the same results from its relations.
	Output    string             `json:"output"`
	Atoms     []instance.Atom    `json:"atoms,omitempty"`
	Contexts  []instance.Context `json:"contexts,omitempty"`
	Relations []graph.Relation   `json:"relations,omitempty"`

	// Extra are the input record's fields this tool does not know, passed
	// through unchanged after the others (leaving out any that has the
	// name of a field above).
	Extra []instance.Field `json:"-"`
}

// MarshalJSON writes the record's fields, then its Extra fields.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record // without this method
	b, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	return instance.AppendFields(b, r.Extra, isRecordField)
}

// priorsName names a network's priors and factor tables, for comparing
// runs. nil, a line written before the priors were recorded, is taken as
// graph.DefaultOptions, the flags' defaults (as a line without
// pairs_per_atom is taken as asking every pair).
func priorsName(o *graph.Options) string {
	if o == nil {
		d := graph.DefaultOptions()
		o = &d
	}
	return fmt.Sprintf("use_priors %v, atom_prior %v, context_prior %v", o.UsePriors, o.AtomPrior, o.ContextPrior)
}

// isRecordField reports whether name is the JSON name of a field of
// Record.
func isRecordField(name string) bool {
	_, ok := recordFields()[name]
	return ok
}

var recordFields = sync.OnceValue(func() map[string]bool {
	names := make(map[string]bool)
	t := reflect.TypeFor[Record]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
})

// WithoutInputs returns the record without the scored record's atoms,
// contexts and relations.
func (r Record) WithoutInputs() Record {
	r.Atoms, r.Contexts, r.Relations = nil, nil, nil
	return r
}

// ModelName is a record's model_name for an NLI backend: its model, or the
// backend's name when it has none.
func ModelName(id nli.Identity) string {
	if id.Model == "" {
		return id.Backend
	}
	return id.Model
}

// Marginal is the distribution of one binary variable. When the network
// was not solved exactly, Error is how far each probability may be from
// the truth (inference.Result.Errors: a bound or a statistical estimate,
// see the record's solver report), and Uncertain says that the label,
// true when P(true) > 0.5, could change within it; both are left out of
// an exact marginal.
type Marginal struct {
	Variable      string     `json:"variable"`
	Probabilities [2]float64 `json:"probabilities"`
	Error         float64    `json:"error,omitempty"`
	Uncertain     bool       `json:"uncertain,omitempty"`
}

// Record returns the output line of the assessment.
func (a *Assessment) Record() Record {
	s := a.Scores
	r := Record{
		FactualityScore: s.Precision,
		NumAtoms:        s.NumAtoms,
		NumContexts:     len(a.Nodes.Contexts),
		NumRelations:    len(a.Relations),
		NumTrueAtoms:    s.NumTrueAtoms,
		NumFalseAtoms:   s.NumFalseAtoms,
		NumUniformAtoms: s.NumUniformAtoms,
		Entropy:         s.Entropy,
		AvgEntropy:      s.AvgEntropy,
		K:               s.K,
		RecallK:         s.RecallK,
		F1K:             s.F1K,
		NormEntropy:     s.NormEntropy,
		AvgNormEntropy:  s.AvgNormEntropy,
		AvgProb:         s.AvgProb,
		AvgLogProb:      s.AvgLogProb,
		AvgExpLogProb:   s.AvgExpLogProb,
		PerAtom:         s.PerAtom,
		Query:           a.Instance.Input,
		Response:        a.Instance.Output,
		Predictions:     s.Predictions,
		Input:           a.Instance.Input,
		Topic:           a.Instance.Topic,
		Version:         a.Version.String(),
		ModelName:       ModelName(a.NLI),
		NLIBackend:      a.NLI.Backend,
		Solver:          a.Solution.Report,
		Priors:          &a.Network.Options,
		Line:            a.Instance.Line,
		Output:          a.Instance.Output,
		Atoms:           a.Instance.Atoms,
		Contexts:        a.Instance.Contexts,
		Relations:       a.Relations,
		Extra:           a.Instance.Extra,
	}
	if a.Results != nil { // asked, not given
		r.NLIPairs, r.NLIPairsPruned, r.PairsPerAtom = a.Asked, a.Pruned, PairsPerAtomName(a.PairsPerAtom)
	}
	if g := s.Gold; g != nil {
		r.GoldFactualityScore = &g.FactualityScore
		r.GoldTrueAtoms = &g.TrueAtoms
		r.TruePositive = &g.TruePositive
		r.TrueNegative = &g.TrueNegative
		r.FalsePositive = &g.FalsePositive
		r.FalseNegative = &g.FalseNegative
		r.AvgBrier = &g.AvgBrier
		r.References = g.References
	}
	r.Marginals = []Marginal{}
	r.ContextMarginals = []Marginal{}
	for i, v := range a.Network.Variables { // sorted by name
		m := Marginal{Variable: v.Name, Probabilities: [2]float64{a.Solution.Marginals[i][0], a.Solution.Marginals[i][1]}}
		if a.Solution.Errors != nil {
			m.Error, m.Uncertain = a.Solution.Errors[i], a.Solution.Uncertain(i)
		}
		if v.Kind == graph.AtomVariable {
			r.Marginals = append(r.Marginals, m)
		} else {
			r.ContextMarginals = append(r.ContextMarginals, m)
		}
	}
	return r
}
