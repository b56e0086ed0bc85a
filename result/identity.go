package result

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/score"
)

// Identity is everything that makes the lines of two runs comparable: two
// lines whose identities differ were computed by different methods, and
// must not be resumed into, merged with or reported as one run. Each field
// is a name for messages. "" stands for a setting the line's result does
// not depend on (a record scored from its own relations asked no NLI
// model and pruned nothing; a record that brought its contexts was not
// retrieved for), or that lines written before it was recorded do not
// name: where Compare says so, it matches any.
type Identity struct {
	Version string // FR1, FR2, FR3
	// NLI is the run's NLI setting (Run.NLI); for lines written before it
	// was recorded, the backend and model that scored the record, "" for
	// its own relations.
	NLI string
	// Inference is the solver's identity (Run.Inference); for lines written
	// before it was recorded, the solver's name only (solver.solver).
	Inference string
	// PairsPerAtom is the pruning of the pairs asked ("all" for lines
	// written before pruning existed); "" for a record scored from its own
	// relations.
	PairsPerAtom string
	Priors       string // PriorsName
	K            string // Run.K; "" for lines written before it was recorded
	Retrieval    string // Run.Retrieval; "" for a record that brought its contexts
	Sources      string // Run.Sources; "" for a record that brought its contexts
	Fast         string // Run.Fast
	Summarizer   string // where NLI's premises came from; "" for the contexts' text
	Atomizer     string // Run.Atomizer; "" for a record that brought its atoms
	Abstention   string // Run.Abstention; "" for a record that brought its atoms
	Prompts      string // Run.Prompts; "" for this project's own
}

// Identity returns the identity of the run that wrote the line.
func (l *Line) Identity() Identity {
	id := Identity{Version: l.Version, Summarizer: l.Summarizer, Inference: l.Solver.Solver}
	var priors *graph.Options
	if l.Priors != nil {
		priors = &l.Priors.Options
	}
	id.Priors = PriorsName(priors)
	if l.NLIBackend != GivenBackend {
		id.PairsPerAtom = l.PairsPerAtom
		if id.PairsPerAtom == "" {
			id.PairsPerAtom = "all" // written before pruning existed
		}
		id.NLI = l.NLIName()
	}
	if l.Run != nil {
		id = id.WithRun(l.Run)
	}
	return id
}

// WithRun is the identity with the run's settings, as a line that records
// r says them.
func (id Identity) WithRun(r *Run) Identity {
	id.NLI, id.Inference, id.K, id.Retrieval, id.Sources, id.Fast = r.NLI, r.Inference, r.K, r.Retrieval, r.Sources, r.Fast
	id.Atomizer, id.Abstention, id.Prompts = r.Atomizer, r.Abstention, r.Prompts
	return id
}

// GivenBackend is the nli_backend of a record scored from its own
// relations.
const GivenBackend = "given"

// NLIName names the NLI backend and model that scored the line's record:
// "backend:model", or the backend alone when it has no model of its own.
func (l *Line) NLIName() string {
	if l.ModelName == "" || l.ModelName == l.NLIBackend {
		return l.NLIBackend
	}
	return l.NLIBackend + ":" + l.ModelName
}

// NLIIdentity is the NLI identity of the backend that scored the line's
// record, as a line records it (ModelName).
func (l *Line) NLIIdentity() nli.Identity {
	id := nli.Identity{Backend: l.NLIBackend}
	if l.ModelName != l.NLIBackend {
		id.Model = l.ModelName
	}
	return id
}

// ModelName is a line's model_name for an NLI backend: its model, or the
// backend's name when it has none.
func ModelName(id nli.Identity) string {
	if id.Model == "" {
		return id.Backend
	}
	return id.Model
}

// RunNLI is the NLI a run used, for naming it: the run's setting, or, for
// lines written before it was recorded, the backend and model of the
// record.
func (l *Line) RunNLI() string {
	if l.Run != nil {
		return l.Run.NLI
	}
	return l.NLIName()
}

// Difference is a setting in which two identities differ: the field of an
// output line that says so, and its two values.
type Difference struct {
	Field string // JSON path: "run.inference", "priors", ...
	A, B  string
}

// identityField is one field of an Identity: its JSON path in an output
// line, and whether "" matches any value.
type identityField struct {
	path string
	get  func(*Identity) *string
	any  bool
}

// identityFields are the fields of an Identity in the order Compare
// checks them.
var identityFields = []identityField{
	{"version", func(i *Identity) *string { return &i.Version }, false},
	{"run.nli", func(i *Identity) *string { return &i.NLI }, true},
	{"run.inference", func(i *Identity) *string { return &i.Inference }, false},
	{"pairs_per_atom", func(i *Identity) *string { return &i.PairsPerAtom }, true},
	{"priors", func(i *Identity) *string { return &i.Priors }, false},
	{"run.k", func(i *Identity) *string { return &i.K }, false},
	{"run.retrieval", func(i *Identity) *string { return &i.Retrieval }, true},
	{"run.sources", func(i *Identity) *string { return &i.Sources }, true},
	{"run.fast", func(i *Identity) *string { return &i.Fast }, false},
	{"summarizer", func(i *Identity) *string { return &i.Summarizer }, false},
	{"run.atomizer", func(i *Identity) *string { return &i.Atomizer }, true},
	{"run.abstention", func(i *Identity) *string { return &i.Abstention }, true},
	{"run.prompts", func(i *Identity) *string { return &i.Prompts }, false},
}

// Compare returns the first setting in which two identities differ, or
// nil when they are of one run. A setting that one of them does not depend
// on ("", where the field allows it) matches any.
func Compare(a, b Identity) *Difference {
	for _, f := range identityFields {
		x, y := *f.get(&a), *f.get(&b)
		if x == y || f.any && (x == "" || y == "") {
			continue
		}
		return &Difference{Field: f.path, A: x, B: y}
	}
	return nil
}

// Agreement checks that lines are of one run, one line at a time: each
// line's identity is compared with what the lines before it say of each
// setting (the first line that names a setting, for a setting "" matches).
// Merge, compare and report check files with it.
type Agreement struct {
	id   Identity
	from []int // from[i]: the line that set identityFields[i]
	n    int
}

// Add compares the identity of the next line with the lines before. On a
// difference it returns it, and the index (from 0, in the order Add was
// called) of the line that set the other value; the line is then not
// added.
func (g *Agreement) Add(id Identity) (*Difference, int) {
	defer func() { g.n++ }()
	if g.from == nil {
		g.id, g.from = id, make([]int, len(identityFields))
		return nil, 0
	}
	if d := Compare(g.id, id); d != nil {
		for i, f := range identityFields {
			if f.path == d.Field {
				return d, g.from[i]
			}
		}
	}
	for i, f := range identityFields {
		if p := f.get(&g.id); *p == "" && *f.get(&id) != "" {
			*p, g.from[i] = *f.get(&id), g.n
		}
	}
	return nil, 0
}

// Identity is what the lines added so far say of each setting.
func (g *Agreement) Identity() Identity { return g.id }

// KName is Run.K for a setting of K: "half", or its number.
func KName(k score.K) string {
	if k.Half {
		return "half"
	}
	return strconv.FormatFloat(k.Value, 'g', -1, 64)
}

// RetrievalName is Run.Retrieval for a run that retrieves topK passages
// per atom and query passages for the question, with other settings that
// change what it retrieves ("kb_scope=corpus", "queries=llm:MODEL") after
// them; a run with none is named as before they existed.
func RetrievalName(topK, query int, settings ...string) string {
	s := fmt.Sprintf("top_k=%d,query_contexts=%d", topK, query)
	for _, x := range settings {
		s += "," + x
	}
	return s
}

// FastName is Run.Fast for a fast mode: near-duplicates at threshold
// (0: off) and FR3's context pairs one way or not; "" when both are off.
func FastName(threshold float64, oneWay bool) string {
	var parts []string
	if threshold > 0 {
		parts = append(parts, "near_duplicates="+strconv.FormatFloat(threshold, 'g', -1, 64))
	}
	if oneWay {
		parts = append(parts, "fr3_pairs=one-way")
	}
	return strings.Join(parts, ",")
}

// NearDuplicates is the near-duplicate threshold a Run.Fast names; 0 when
// none.
func NearDuplicates(fast string) float64 {
	for _, part := range strings.Split(fast, ",") {
		if v, ok := strings.CutPrefix(part, "near_duplicates="); ok {
			t, _ := strconv.ParseFloat(v, 64)
			return t
		}
	}
	return 0
}

// GivenElse is Run.NLI for a run that scores a record from its own
// relations when it has some, and with the classifier otherwise.
func GivenElse(classifier nli.Identity) string {
	return GivenBackend + " else " + classifier.String()
}

// SameContextPriors compares the per-context priors a line records with
// those wanted, and describes the difference as an error: "field
// "priors.context_priors" is A there but B"; callers say where B is from.
func SameContextPriors(recorded, want map[string]float64) error {
	if maps.Equal(recorded, want) {
		return nil
	}
	return fmt.Errorf("field %q is %s there but %s", "priors.context_priors", ShortQuote(contextPriorsName(recorded)), ShortQuote(contextPriorsName(want)))
}

// ShortQuote quotes s for an error message, on one line and cut to 60
// characters.
func ShortQuote(s string) string { return strconv.Quote(OneLine(s, 60)) }

// OneLine shortens text to its first n characters, on one line.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
