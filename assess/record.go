package assess

import (
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/result"
	"github.com/factreasoner/factreasoner-go/score"
)

// RunIdentity is what the pipeline records as its run's settings on every
// output line (result.Run): its NLI setting, its solver's identity, K and,
// with an atomizer or a knowledge source, how it atomizes and retrieves.
// A line records the last two only where they acted (LineRun).
func (p *Pipeline) RunIdentity() *result.Run {
	r := &result.Run{NLI: p.nliSetting(), Inference: p.Solver.Identify(), K: result.KName(p.K)}
	r.Fast = result.FastName(p.NearDuplicates, p.OneWayPairs)
	r.Prompts = p.Prompts
	if p.Atomizer != nil {
		r.Atomizer = p.Atomizer.Identify()
		if p.Reviser != nil {
			r.Atomizer += "; revised by " + p.Reviser.Identify()
		}
		r.Abstention = string(p.Abstention)
		if r.Abstention == "" {
			r.Abstention = string(factscore.AbstentionNone)
		}
	}
	if p.Retriever != nil {
		k, q := p.TopK, p.QueryContexts
		if k <= 0 {
			k = DefaultTopK
		}
		switch {
		case q == 0:
			q = k
		case q < 0:
			q = 0
		}
		r.Retrieval = result.RetrievalName(k, q, p.RetrievalSettings...)
		r.Sources = p.Retriever.Identify()
		if p.Queries != nil {
			r.Sources += "; queries=" + p.Queries.Identify()
		}
		if p.SkipMissingTopics {
			r.Sources += "; missing_topic=skip"
		}
	}
	return r
}

// LineRun is the run's settings (RunIdentity) as the output line of the
// record in says them: the stages that fill in what a record lacks are
// named only where they acted. A record that brought its atoms was not
// atomized, and the abstention rule did not read it; one that brought its
// contexts (or abstained) was not retrieved for. A stage that would act
// on the record but the run lacks is "none": such a record cannot be
// scored, and the line of a run that could is not this run's.
func (p *Pipeline) LineRun(run *result.Run, in *instance.Instance) *result.Run {
	r := *run
	switch {
	case len(in.Atoms) > 0:
		r.Atomizer, r.Abstention = "", ""
	case r.Atomizer == "":
		r.Atomizer = "none"
	}
	switch {
	case len(in.Contexts) > 0 || p.abstains(in):
		r.Retrieval, r.Sources = "", ""
	case r.Retrieval == "":
		r.Retrieval = "none"
	}
	if p.abstains(in) {
		r.Atomizer = ""
	}
	return &r
}

// nliSetting names the run's NLI setting (result.Run.NLI).
func (p *Pipeline) nliSetting() string {
	switch {
	case p.Given == GivenAlways || p.Classifier == nil:
		return givenIdentity.Backend
	case p.Given == GivenWhenPresent:
		return result.GivenElse(p.Classifier.Identity())
	}
	return p.Classifier.Identity().String()
}

// Record returns the output line of the assessment.
func (a *Assessment) Record() result.Line {
	if a.Abstained {
		return a.abstainedRecord()
	}
	s := a.Scores
	r := result.Line{
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
		ModelName:       result.ModelName(a.NLI),
		NLIBackend:      a.NLI.Backend,
		Solver:          a.Solution.Report,
		Priors:          &result.Priors{Options: a.Network.Options, ContextPriors: result.ContextPriors(a.Nodes)},
		Line:            a.Instance.Line,
		Output:          a.Instance.Output,
		Atoms:           a.Instance.Atoms,
		Contexts:        a.Instance.Contexts,
		Relations:       knownRelations(a.Relations),
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
		r.NLIPairsBy = a.AskedBy
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
	r.Marginals = []result.Marginal{}
	r.ContextMarginals = []result.Marginal{}
	for i, v := range a.Network.Variables { // sorted by name
		m := result.Marginal{Variable: v.Name, Probabilities: [2]float64{a.Solution.Marginals[i][0], a.Solution.Marginals[i][1]}}
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

// abstainedRecord is the output line of a response that declined to
// answer: no atoms, no marginals, no measures; only what the record was.
func (a *Assessment) abstainedRecord() result.Line {
	in := a.Instance
	return result.Line{
		Abstained:        true,
		PerAtom:          []score.AtomScore{},
		Query:            in.Input,
		Response:         in.Output,
		Input:            in.Input,
		Topic:            in.Topic,
		Marginals:        []result.Marginal{},
		ContextMarginals: []result.Marginal{},
		Version:          a.Version.String(),
		ModelName:        result.ModelName(a.NLI),
		NLIBackend:       a.NLI.Backend,
		Line:             in.Line,
		Output:           in.Output,
		Contexts:         in.Contexts,
		Extra:            in.Extra,
	}
}

// knownRelations are a record's relations as its output line records
// them: an empty list, not an absent field, when there are none (every
// pair neutral), so that the line scored again takes them as given, as
// it takes those of a line that has some.
func knownRelations(rs []graph.Relation) []graph.Relation {
	if rs == nil {
		return []graph.Relation{}
	}
	return rs
}

// LineIdentity is the identity of the output line of the record in, scored
// with version v (result.Line.Identity): what another run's line for the
// same record must agree with.
func (p *Pipeline) LineIdentity(v graph.Version, in *instance.Instance) result.Identity {
	id := result.Identity{Version: v.String(), Priors: result.PriorsName(&p.Graph)}
	if !p.abstains(in) { // an abstained record's contexts were not summarized
		id.Summarizer = p.summarizerName()
	}
	if !p.usesGiven(in) && p.Classifier != nil {
		id.PairsPerAtom = PairsPerAtomName(p.PairsPerAtom)
	}
	return id.WithRun(p.LineRun(p.RunIdentity(), in))
}
