package assess

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/result"
	"github.com/factreasoner/factreasoner-go/score"
	summarizer "github.com/factreasoner/factreasoner-go/summarize"
)

// Recorded is a result read back from an output line of batch.ScoreFile: the
// run that wrote it and the scores of its marginals.
type Recorded struct {
	Line             int    // the input line of the record
	Version          string // FR1, FR2, FR3
	NLI              string // the run's NLI (result.Line.RunNLI)
	Scores           score.Scores
	Marginals        []result.Marginal
	ContextMarginals []result.Marginal
	Solver           inference.Report
	// Priors are the network's priors and factor tables as recorded;
	// graph.DefaultOptions for a line written before they were.
	Priors graph.Options
	// Summaries is what the summarizer stage did, as recorded; nil when
	// NLI read the contexts' text.
	Summaries *SummaryReport
	// ContextPriors are the contexts' own priors as recorded (Priors of
	// the output line), nil when none is.
	ContextPriors map[string]float64
	// Identity is the identity of the run that wrote the line.
	Identity result.Identity
	identity nli.Identity
}

// IsRecorded reports whether a record is an output line of batch.ScoreFile (it
// carries marginals and a version).
func IsRecorded(in *instance.Instance) bool { return result.IsLine(in) }

// ReadRecorded reads the result an output line holds (result.FromInstance).
// The scores are computed again from its marginals, K and gold labels (the
// atoms' labels, else its "references"), as batch.ScoreFile computed them.
func ReadRecorded(in *instance.Instance) (*Recorded, error) {
	l, err := result.FromInstance(in)
	if err != nil {
		return nil, err
	}
	priors := graph.DefaultOptions()
	var contextPriors map[string]float64
	if l.Priors != nil {
		priors, contextPriors = l.Priors.Options, l.Priors.ContextPriors
	}
	gold := make(map[string]string)
	for _, a := range in.Atoms {
		gold[a.ID] = a.Label
	}
	if len(in.Atoms) == 0 { // written without its inputs
		f := strings.Fields(l.References) // " a0: S a1: NS"
		for i := 0; i+1 < len(f); i += 2 {
			gold[strings.TrimSuffix(f[i], ":")] = f[i+1]
		}
	}
	atoms := make([]score.Atom, len(l.Marginals))
	for i, m := range l.Marginals {
		atoms[i] = score.Atom{ID: m.Variable, PTrue: m.Probabilities[1], Gold: gold[m.Variable]}
	}
	var summaries *SummaryReport
	if l.Summarizer != "" {
		irrelevant := 0
		if l.ContextsIrrelevant != nil {
			irrelevant = *l.ContextsIrrelevant
		}
		summaries = &SummaryReport{Summarizer: l.Summarizer, Irrelevant: irrelevant}
	}
	k := score.K{Value: l.K, Name: fmt.Sprint(l.K)}
	scores := score.Compute(atoms, k)
	scores.Abstained = l.Abstained
	return &Recorded{Line: l.Line, Version: l.Version, NLI: l.RunNLI(), Marginals: l.Marginals, ContextMarginals: l.ContextMarginals,
		Solver: l.Solver, Priors: priors, ContextPriors: contextPriors, Summaries: summaries, Scores: scores,
		Identity: l.Identity(), identity: l.NLIIdentity()}, nil
}

// AssessmentOf rebuilds the assessment an output line of batch.ScoreFile records,
// without scoring anything again: its network from its relations, its
// marginals as recorded. The line must carry its inputs (atoms, contexts,
// relations: written without --output-inputs=false).
func AssessmentOf(in *instance.Instance) (*Assessment, error) {
	r, err := ReadRecorded(in)
	if err != nil {
		return nil, err
	}
	v, _ := graph.ParseVersion(r.Version) // checked by ReadRecorded
	if r.Scores.Abstained {
		return &Assessment{Instance: in, Version: v, NLI: r.identity, Scores: r.Scores, Abstained: true}, nil
	}
	if len(in.Atoms) == 0 {
		return nil, &instance.FieldError{Field: "atoms", Msg: "the output line was written without its inputs (FileOptions.OmitInputs): nothing to rebuild the network from"}
	}
	premises := in // what the network's nodes and relations are of
	if r.Summaries != nil {
		premises, _ = summarizer.Premises(in)
	}
	premises, _ = graph.NearDuplicates(premises, result.NearDuplicates(r.Identity.Fast))
	a := &Assessment{Instance: in, Version: v, Nodes: graph.SelectNodes(premises, v), NLI: r.identity, Scores: r.Scores, Summaries: r.Summaries}
	// The contexts' priors are those the line records (a line written
	// before they were read has none, whatever its contexts carry).
	a.Nodes.Contexts = slices.Clone(a.Nodes.Contexts)
	for i, c := range a.Nodes.Contexts {
		a.Nodes.Contexts[i].Probability = nil
		if p, ok := r.ContextPriors[c.ID]; ok {
			a.Nodes.Contexts[i].Probability = &p
		}
	}
	a.Pairs = graph.Pairs(a.Nodes)
	a.Relations = graph.GivenRelations(premises, a.Nodes)
	if a.Network, err = graph.Build(a.Nodes, a.Relations, r.Priors); err != nil {
		return nil, err
	}
	recorded := make(map[string][2]float64, len(r.Marginals)+len(r.ContextMarginals))
	for _, m := range append(append([]result.Marginal(nil), r.Marginals...), r.ContextMarginals...) {
		recorded[m.Variable] = m.Probabilities
	}
	a.Solution = &inference.Result{Marginals: make([][]float64, len(a.Network.Variables)), LogZ: math.NaN(), Report: r.Solver}
	for i, v := range a.Network.Variables {
		m, ok := recorded[v.Name]
		if !ok {
			return nil, &instance.FieldError{Field: "marginals", Msg: fmt.Sprintf("no marginal recorded for variable %q of the %s network", v.Name, r.Version)}
		}
		a.Solution.Marginals[i] = []float64{m[0], m[1]}
	}
	return a, nil
}
