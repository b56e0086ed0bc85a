// Package result is the scored line: the one type of an output line of
// `fr score` (Line), its encoding and decoding, and the identity of the run
// that wrote it (Identity: everything that makes two lines comparable).
//
// Every program that reads scored lines reads them through this package:
// a resumed run and a merge check that lines are of one run, fr compare
// summarizes recorded runs, fr inspect rebuilds a line's network, and the
// report draws them. The pipeline is the one writer (assess.Assessment's
// Record). Adding a field to the output is one edit here.
package result

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
	"github.com/factreasoner/factreasoner-go/score"
)

// Line is one output line of `fr score`: the reference's fields and some
// more. Field order is fixed, so equal inputs give byte-identical lines.
type Line struct {
	// Abstained marks a response that declined to answer (Run.Abstention):
	// it was not atomized, has no atoms, marginals or measures (its
	// factuality_score, 0, is no score), and is left out of every mean.
	Abstained bool `json:"abstained,omitempty"`

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

	// The reference's other measures (docs/formats.md, output lines), p being P(true)
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
	ModelName  string           `json:"model_name"`  // the NLI model that scored this record
	NLIBackend string           `json:"nli_backend"` // the NLI backend that scored this record
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
	// NLIPairsBy counts the pairs each backend of a cascade answered (the
	// first those it was sure of, the second the others), by backend;
	// absent for a single backend.
	NLIPairsBy map[string]int `json:"nli_pairs_by,omitempty"`
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
	// Run is the run's own settings, the same on every line it writes;
	// absent in lines written before it was recorded.
	Run *Run `json:"run,omitempty"`

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
	Relations []graph.Relation   `json:"relations,omitzero"` // [] when all were neutral: given, none

	// Extra are the input record's fields this tool does not know, passed
	// through unchanged after the others (leaving out any that has the
	// name of a field above).
	Extra []instance.Field `json:"-"`

	// present are the names of the fields a decoded line has.
	present map[string]bool
}

// Run is what a scoring run was asked to do, beyond what each line says
// of its own record. The stages that fill in what a record lacks (atoms,
// contexts) are named only on the lines of the records they acted on
// (Retrieval, Sources, Atomizer, Abstention): a record's own atoms and
// contexts do not depend on them. The other fields are the same on every
// line of the run.
type Run struct {
	// NLI is the run's NLI setting: "given" (the records' own relations
	// only), a classifier (Identity.String: "onnx:MODEL", "llm:MODEL",
	// ...), or "given else CLASSIFIER" (a record's own relations when it
	// has some, the classifier for the others: fr score --nli auto). Each
	// line's nli_backend and model_name say which one scored its record.
	NLI string `json:"nli"`
	// Inference is the solver's identity with its settings
	// (inference.Solver's Identify): "auto[maxmem=…,approx=cbp[…]]",
	// "bp[damping=0.5,tol=0.001,…]", "merlin[task=MAR,…]".
	Inference string `json:"inference"`
	// K is F1@K's setting: "half" (max(⌊n/2⌋, 1) per response) or the
	// number (given, or the median of the input's atom counts).
	K string `json:"k"`
	// Retrieval is how the record's contexts were retrieved, on the line
	// of a record that came without any: "top_k=3,query_contexts=3"
	// (passages per atom and for the question), with the settings that
	// change what is retrieved after them; absent on the line of a record
	// that brought its contexts (lines written before this rule have it
	// on every line of a run that had a knowledge source).
	Retrieval string `json:"retrieval,omitempty"`
	// Sources are the knowledge sources the record's contexts were
	// retrieved from, each with every setting that changes what it finds
	// (retrieve.Retriever's Identify: a knowledge base by its content,
	// a web source by its endpoint's host, its query; fetched pages and
	// their limits), on the line of a record that came without contexts;
	// absent otherwise.
	Sources string `json:"sources,omitempty"`
	// Fast is the fast mode's settings, when on: "near_duplicates=0.92"
	// (contexts at least that similar read as one, graph.NearDuplicates),
	// "fr3_pairs=one-way" (FR3's context pairs asked one way first);
	// absent when off (every pair both ways, identical texts merged).
	Fast string `json:"fast,omitempty"`
	// Atomizer is how the record's atoms were made, on the line of a
	// record that came without any: the atomizer's identity
	// (atomize.Atomizer's Identify: "sentences", "llm:MODEL"), and the
	// reviser's after "; revised by " when one rewrote them; absent on
	// the line of a record that brought its atoms.
	Atomizer string `json:"atomizer,omitempty"`
	// Abstention is FActScore's rule that told whether the record, which
	// came without atoms, declined to answer (generic, perplexity_ai or
	// none); absent on the line of a record that brought its atoms
	// (lines written before this rule have it on every line of a run
	// that had an atomizer).
	Abstention string `json:"abstention,omitempty"`
	// Prompts names the prompt sets of the run's LLM stages where they
	// are not this project's own (prompts.Selection.Name):
	// "factreasoner", or "atomizer=factreasoner,…"; absent for its own.
	Prompts string `json:"prompts,omitempty"`
}

// MarshalJSON writes the line's fields, then its Extra fields.
func (l Line) MarshalJSON() ([]byte, error) {
	type plain Line // without this method
	b, err := json.Marshal(plain(l))
	if err != nil {
		return nil, err
	}
	return instance.AppendFields(b, l.Extra, IsField)
}

// Marginal is the distribution of one binary variable. When the network
// was not solved exactly, Error is how far each probability may be from
// the truth (inference.Result.Errors: a bound or a statistical estimate,
// see the line's solver report), and Uncertain says that the label, true
// when P(true) > 0.5, could change within it; both are left out of an
// exact marginal.
type Marginal struct {
	Variable      string     `json:"variable"`
	Probabilities [2]float64 `json:"probabilities"`
	Error         float64    `json:"error,omitempty"`
	Uncertain     bool       `json:"uncertain,omitempty"`
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

// ContextPriors are the priors of the contexts of a network that carry
// their own (graph.OwnPrior), by id; nil when none does.
func ContextPriors(n graph.Nodes) map[string]float64 {
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

// PriorsName names a network's priors and factor tables, for comparing
// runs. nil, a line written before the priors were recorded, is taken as
// graph.DefaultOptions, the flags' defaults (as a line without
// pairs_per_atom is taken as asking every pair).
func PriorsName(o *graph.Options) string {
	if o == nil {
		d := graph.DefaultOptions()
		o = &d
	}
	return fmt.Sprintf("use_priors %v, atom_prior %v, context_prior %v", o.UsePriors, o.AtomPrior, o.ContextPrior)
}

// IsField reports whether name is the JSON name of a field of Line.
func IsField(name string) bool {
	_, ok := lineFields()[name]
	return ok
}

var lineFields = sync.OnceValue(func() map[string]bool {
	names := make(map[string]bool)
	t := reflect.TypeFor[Line]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
})

// WithoutInputs returns the line without the scored record's atoms,
// contexts and relations.
func (l Line) WithoutInputs() Line {
	l.Atoms, l.Contexts, l.Relations = nil, nil, nil
	return l
}

// Recorded reports whether a decoded line has the field of that JSON name
// (lines written by older versions lack the newer fields). A line made in
// memory, not decoded, has none.
func (l *Line) Recorded(field string) bool { return l.present[field] }
