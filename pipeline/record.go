package pipeline

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
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
	NormEntropy    float64 `json:"norm_entropy"`
	AvgNormEntropy float64 `json:"avg_norm_entropy"`
	AvgProb        float64 `json:"avg_prob"`
	AvgLogProb     float64 `json:"avg_logprob"`
	AvgExpLogProb  float64 `json:"avg_explogprob"`
	// FactReasoner's entropy (natural log) and num_false_atoms (undecided
	// atoms included), beside ours of the same name (score.Scores).
	FREntropy       float64           `json:"factreasoner_entropy"`
	FRAvgEntropy    float64           `json:"factreasoner_avg_entropy"`
	FRNumFalseAtoms int               `json:"factreasoner_num_false_atoms"`
	PerAtom         []score.AtomScore `json:"factuality_score_per_atom"`
	Query           string            `json:"query"`
	Response        string            `json:"response"`
	ElapsedTime     *float64          `json:"elapsed_time,omitempty"`

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

	// The NLI pairs put to the backend for this record: own pairs (each
	// atom with its own contexts, FR3's own context pairs), and others
	// (added by similarity, or every other pair with "all"); those that
	// pruning left out (neutral, no factor); and the pruning setting:
	// "own+K" (K other contexts per atom), "own" or "all". Records scored
	// from their own relations ask nothing and have no setting.
	NLIPairs       int    `json:"nli_pairs"`
	NLIPairsOwn    int    `json:"nli_pairs_own"`
	NLIPairsOther  int    `json:"nli_pairs_other"`
	NLIPairsPruned int    `json:"nli_pairs_pruned"`
	PairsPerAtom   string `json:"pairs_per_atom,omitempty"`
	// Priors are the network's priors and factor tables (--use-priors,
	// --atom-prior, --context-prior) and the contexts' own priors, so that
	// a resumed run or a merge refuses results computed with other ones.
	Priors *Priors `json:"priors,omitempty"`
	// Summarizer names where the contexts' summaries that NLI read as
	// premises came from: "llm:MODEL" (the summarizer stage) or "given"
	// (the record's own synthetic_summary); absent when NLI read the
	// contexts' text. ContextsIrrelevant counts the contexts the
	// summarizer dropped as saying nothing about their atoms.
	Summarizer         string `json:"summarizer,omitempty"`
	ContextsIrrelevant *int   `json:"contexts_irrelevant,omitempty"`

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

// Priors are the priors of a record's network as its output line records
// them: the run's settings and the contexts whose prior is their own.
type Priors struct {
	graph.Options
	// ContextPriors are the priors of the network's contexts that carry
	// their own (a context's "probability", FactReasoner's
	// Context.probability: graph.ContextPrior), by context id; the other
	// contexts have the context prior. Absent when no context has its
	// own, as in lines written before per-context priors were read.
	ContextPriors map[string]float64 `json:"context_priors,omitempty"`
}

// contextPriors are the priors of the contexts of a network that carry
// their own (graph.OwnPrior), by id; nil when none does.
func contextPriors(n graph.Nodes) map[string]float64 {
	var m map[string]float64
	for _, c := range n.Contexts {
		if p, ok := graph.OwnPrior(c); ok {
			if m == nil {
				m = make(map[string]float64)
			}
			m[c.ID] = p
		}
	}
	return m
}

// contextPriorsName writes per-context priors for a message: sorted by id,
// "none" for none.
func contextPriorsName(m map[string]float64) string {
	if len(m) == 0 {
		return "none"
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s %v", id, m[id])
	}
	return strings.Join(parts, ", ")
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

// Marginal is the distribution of one binary variable.
type Marginal struct {
	Variable      string     `json:"variable"`
	Probabilities [2]float64 `json:"probabilities"`
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
		FREntropy:       s.FREntropy,
		FRAvgEntropy:    s.FRAvgEntropy,
		FRNumFalseAtoms: s.FRNumFalseAtoms,
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
		Priors:          &Priors{Options: a.Network.Options, ContextPriors: contextPriors(a.Nodes)},
		Line:            a.Instance.Line,
		Output:          a.Instance.Output,
		Atoms:           a.Instance.Atoms,
		Contexts:        a.Instance.Contexts,
		Relations:       a.Relations,
		Extra:           a.Instance.Extra,
	}
	if sr := a.Summaries; sr != nil {
		r.Summarizer = sr.Summarizer
		if sr.Summarizer != SummariesGiven {
			n := sr.Irrelevant
			r.ContextsIrrelevant = &n
		}
	}
	if a.Results != nil { // asked, not given
		r.NLIPairs, r.NLIPairsOwn, r.NLIPairsOther, r.NLIPairsPruned = a.Asked, a.Own, a.Other, a.Pruned
		r.PairsPerAtom = PairsPerAtomName(a.PairsPerAtom)
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
		if v.Kind == graph.AtomVariable {
			r.Marginals = append(r.Marginals, m)
		} else {
			r.ContextMarginals = append(r.ContextMarginals, m)
		}
	}
	return r
}
