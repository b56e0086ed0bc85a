// Package assess runs FactReasoner on one record at a time: it fills in
// what a record lacks (atoms, contexts), asks the NLI model about the pairs
// a graph version needs (or takes the record's own relations), builds the
// network, computes the marginals and the scores, and says why (Explain).
// Data flows one way: instance → pairs → relations → network → marginals →
// scores. An Assessment is all of it for one record and version; its
// Record is the output line, and AssessmentOf reads one back.
//
// A Pipeline is put together from parts: an NLI Classifier, a Solver and,
// for records that lack them, an Atomizer and a Retriever. Package
// assemble makes one from names and settings, as the fr command does;
// package batch runs one over a file.
package assess

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/foreign"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/prune"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/score"
	summarizer "github.com/factreasoner/factreasoner-go/summarize"
)

// GivenMode says when an instance's own "relations" are used instead of a
// classifier.
type GivenMode int

const (
	// GivenNever always asks the Classifier.
	GivenNever GivenMode = iota
	// GivenAlways uses only the instance's relations; every other pair is
	// neutral.
	GivenAlways
	// GivenWhenPresent uses the relations of instances that have them and
	// the Classifier for the others.
	GivenWhenPresent
)

// Pipeline is a FactReasoner pipeline. Its fields may be set directly (a
// program bringing its own classifier, say), or by package assemble.
type Pipeline struct {
	Graph graph.Options
	K     score.K

	// Classifier labels text pairs. It may be nil with GivenAlways.
	Classifier nli.Classifier
	Given      GivenMode

	Solver inference.Solver

	// PairsPerAtom, when positive, prunes the pairs put to the Classifier
	// (package prune): each atom is asked about its own contexts (those
	// retrieved for it, and the question's) and the PairsPerAtom other
	// contexts that match it best under BM25, and for FR3 each context
	// about its own partners and its PairsPerAtom most similar others; the
	// other pairs are neutral. OwnPairsOnly asks the own pairs only. Zero
	// (or AllPairs) asks about every pair, as the reference does. A
	// record's own relations are never pruned: they cost nothing.
	PairsPerAtom int
	// Round is how many pairs are put to the Classifier at once; 0 is
	// NLIRound. Benchmarks vary it.
	Round int
	// NearDuplicates, when above 0, makes a context whose NLI text is at
	// least this similar to an earlier one's read as that one
	// (graph.NearDuplicates): in FR2 and FR3 the two are one variable,
	// the later id an alias. 0 merges identical texts only, as the
	// reference.
	NearDuplicates float64
	// OneWayPairs asks each FR3 context pair in one direction (the longer
	// text as premise), and the other direction only when the first
	// answer is not neutral (docs/retrieval.md, "Fast mode"). Off, both
	// directions are asked, as the reference.
	OneWayPairs bool

	// Atomizer makes atoms for records that have none; Reviser, when set,
	// rewrites them to stand alone.
	Atomizer atomize.Atomizer
	Reviser  atomize.Reviser
	// Retriever finds contexts for records that have none; TopK passages
	// per atom (default DefaultTopK), and QueryContexts passages for the
	// question, as FactReasoner's pipeline retrieves them (ids c_q_<n>,
	// every atom's own contexts): 0 is TopK (FactReasoner asks its
	// retriever for the same number), NoQueryContexts none. With
	// SkipMissingTopics a record whose topic the knowledge source does not
	// know is scored without contexts (its atoms stay undecided) instead
	// of failing.
	Retriever retrieve.Retriever
	// Queries, when set, writes each atom's search queries, and the
	// Retriever is asked for them instead of the atom's text
	// (retrieve.Queried); the question is searched as it is.
	Queries           retrieve.QueryWriter
	TopK              int
	QueryContexts     int
	SkipMissingTopics bool

	// Summarizer, when set, runs FactReasoner's context summarizer on each
	// record before NLI (docs/llm.md; see summarize.LLM.Record): contexts
	// that say nothing about their atoms are dropped, a kept context's
	// prior is scaled by its summary's probability, and NLI reads the
	// summaries. UseSummaries instead reads the summaries the records'
	// contexts carry (synthetic_summary), without a model.
	Summarizer   *summarizer.LLM
	UseSummaries bool

	// Verifier decides FActScore's supported atoms (FActScore); nil
	// selects the NLI verifier: an atom is supported iff some context
	// entails it with probability above Threshold, by the Classifier or by
	// the record's own relations (as Given says).
	Verifier  factscore.Verifier
	Threshold float64
	// Abstention tells FActScore's raw responses that declined to answer
	// (the zero value: none does).
	Abstention factscore.Abstention

	// Warn, when set, receives warnings about single records.
	Warn func(msg string)

	// What the run's identity says beyond what the parts say of
	// themselves (RunIdentity), as package assemble sets them: Prompts
	// names the prompt sets of the LLM stages that are not this project's
	// own (result.Run.Prompts; prompts.Selection.Name); RetrievalSettings
	// are the retrieval settings beyond the number of passages that change
	// what is retrieved, as name=value (result.Run.Retrieval).
	Prompts           string
	RetrievalSettings []string
	// NoNLI says why Classifier is nil where one was asked for (the auto
	// backend without a model), for the error of a record that needs one
	// (ErrNoNLI).
	NoNLI string
	// SettingsOf, when set, names the settings of the pipeline that enter
	// a field of a line's identity ("run.inference": Inference.Algorithm,
	// …), for the message of a line that differs there (package batch's
	// resume); package assemble sets it from the parts' declarations.
	SettingsOf func(field string) []string
}

// DefaultTopK is FactReasoner's number of Wikipedia passages per atom.
const DefaultTopK = 3

// NoQueryContexts, as Pipeline.QueryContexts, retrieves no passages for
// the question.
const NoQueryContexts = -1

// Assessment is everything computed for one instance and version.
type Assessment struct {
	Instance *instance.Instance // as scored, with atoms and contexts filled in
	Version  graph.Version
	Nodes    graph.Nodes
	// Pairs are the pairs the version asks (after pruning). Asked counts
	// the distinct text pairs among them, what the classifier is asked
	// (FR1 may name one text under two context ids): Own of them are own
	// pairs (always asked), Other the others (added by similarity, or,
	// asking every pair, all of them). Pruned counts the pairs that
	// pruning left out; PairsPerAtom is the pruning setting
	// (Pipeline.PairsPerAtom). Given relations are never pruned, and ask
	// nothing.
	Pairs                     []nli.Pair
	Asked, Own, Other, Pruned int
	PairsPerAtom              int
	// AskedBy counts the distinct text pairs each backend answered, by
	// its name, where the classifier puts each pair to one of several (a
	// cascade: nli.Result.By); nil otherwise.
	AskedBy map[string]int
	// Results[i] answers Pairs[i]; nil when the relations were given.
	Results   []nli.Result
	Relations []graph.Relation
	Network   *graph.Network
	Solution  *inference.Result // Marginals indexed like Network.Variables
	Scores    score.Scores
	NLI       nli.Identity
	// Summaries says what the summarizer stage did; nil when NLI read the
	// contexts' text. Nodes, Pairs and Relations are then of the
	// summaries (summarize.Premises), Instance has the contexts' texts.
	Summaries *SummaryReport
	// EmptyContexts are the ids of the record's contexts that had neither
	// text nor snippet, dropped before scoring (Prepare).
	EmptyContexts []string
	// Abstained marks a record without atoms whose response declined to
	// answer (Pipeline.Abstention): it was not atomized, and has no nodes,
	// network or solution; its Scores only say so.
	Abstained bool

	own []bool // own[i]: Pairs[i] is an own pair
	// With OneWayPairs, the FR3 context pairs' second directions, each
	// asked when its first (first[i]) answered other than neutral.
	second, first []nli.Pair
	secondOwn     []bool
}

// PTrue returns the marginal probability that the named variable is true.
func (a *Assessment) PTrue(id string) (float64, bool) {
	if a.Network == nil { // abstained
		return 0, false
	}
	i, ok := a.Network.Index(id)
	if !ok {
		return 0, false
	}
	return a.Solution.Marginals[i][1], true
}

// Assess runs one version on an instance.
func (p *Pipeline) Assess(ctx context.Context, in *instance.Instance, v graph.Version) (*Assessment, error) {
	as, err := p.AssessVersions(ctx, in, []graph.Version{v})
	if err != nil {
		return nil, err
	}
	return as[0], nil
}

// AssessVersions runs several versions on the same instance. Each distinct
// NLI pair is classified once, in one batch, and shared by the versions.
func (p *Pipeline) AssessVersions(ctx context.Context, in *instance.Instance, versions []graph.Version) ([]*Assessment, error) {
	as, _, err := p.Compare(ctx, in, versions)
	return as, err
}

// Baseline is an assessor that decides each atom, supported or not,
// scored beside the FactReasoner versions on the same atoms: classic
// FActScore with an NLI verifier (Verifier nil: an atom is supported iff
// one of the contexts retrieved for it entails it with probability above
// Threshold), or another verifier, such as FactReasoner's VeriScore and
// FactVerify baselines (package assemble's OpenBaseline).
type Baseline struct {
	// Name names the baseline's row; "" is FActScoreBaselineName.
	Name      string
	Threshold float64
	Verifier  factscore.Verifier
	// Recorded, when set, gives the baseline's own measures over the
	// responses it scored (VeriScore's score with its K), for its row's
	// Recorded values.
	Recorded func(all []score.Scores) foreign.Values
}

// FActScoreBaselineName names the FActScore baseline's row.
const FActScoreBaselineName = "FActScore-NLI"

// RowName is the name of the baseline's row.
func (b Baseline) RowName() string {
	if b.Name == "" {
		return FActScoreBaselineName
	}
	return b.Name
}

// ErrNoNLI is the error of a record without relations when the pipeline
// has no NLI classifier: configure one (Options.NLI.Backend: onnx with a
// model, remote, llm, or lexical, which compares words and is for trying
// the tool), or give the records their relations.
var ErrNoNLI = errors.New("the record has no relations and no NLI backend is configured (Options.NLI.Backend: onnx with a model, remote or llm; lexical to try the tool)")

// givenIdentity is the NLI identity of records scored from their own
// relations.
var givenIdentity = nli.Identity{Backend: "given"}

// Compare runs several versions, and the baselines, on the same instance:
// an assessment per version, the scores of each baseline. Each distinct
// NLI pair is classified once, and shared by all of them; pairs are put to
// the classifier in rounds (Round).
func (p *Pipeline) Compare(ctx context.Context, in *instance.Instance, versions []graph.Version, bs ...Baseline) ([]*Assessment, []score.Scores, error) {
	return p.CompareTracked(ctx, in, versions, bs, nil)
}

// NLIProgress is told of a record's NLI work as Compare does it, for a
// run's progress display: each call says a number of distinct text pairs.
type NLIProgress struct {
	// Planned is told of the pairs the record will put to the classifier
	// (none for a record scored from its own relations, or that
	// abstains); Answered, after each round, of those it answered.
	Planned, Answered func(pairs int)
	// More is told of pairs found to be needed after the first answers
	// (OneWayPairs' second directions), which no count foresaw.
	More func(pairs int)
}

// plan tells np, when there is one, of a record's pairs.
func (np *NLIProgress) plan(pairs int) {
	if np != nil && np.Planned != nil {
		np.Planned(pairs)
	}
}

// CompareTracked is Compare, telling hooks (when not nil) of the record's
// NLI work as it goes.
func (p *Pipeline) CompareTracked(ctx context.Context, in *instance.Instance, versions []graph.Version, bs []Baseline, hooks *NLIProgress) ([]*Assessment, []score.Scores, error) {
	if p.Solver == nil {
		return nil, nil, errors.New("assess: no solver configured")
	}
	if p.abstains(in) {
		out := make([]*Assessment, len(versions))
		for i, v := range versions {
			out[i] = &Assessment{Instance: in, Version: v, NLI: givenIdentity, Abstained: true, Scores: score.Scores{Abstained: true}}
		}
		fs := make([]score.Scores, len(bs))
		for i := range fs {
			fs[i].Abstained = true
		}
		hooks.plan(0)
		return out, fs, nil
	}
	in, dropped, err := p.prepare(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	sum, err := p.summarize(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	in, _ = graph.NearDuplicates(sum.premises, p.NearDuplicates)
	given := p.usesGiven(in)
	if !given && p.Classifier == nil {
		if p.NoNLI != "" {
			return nil, nil, fmt.Errorf("%w (%s)", ErrNoNLI, p.NoNLI)
		}
		return nil, nil, ErrNoNLI
	}
	out, all, err := p.plan(in, versions, bs, given)
	if err != nil {
		return nil, nil, err
	}
	sum.attach(out)
	for _, a := range out {
		a.EmptyContexts = dropped
	}
	verifiers := make([]factscore.Verifier, len(bs))
	for i, b := range bs {
		verifiers[i] = b.Verifier
	}
	if given {
		hooks.plan(0)
		for _, a := range out {
			a.Relations = graph.GivenRelations(in, a.Nodes)
		}
		for i, b := range bs {
			if b.Verifier == nil {
				verifiers[i] = &factscore.RelationVerifier{Relation: graph.NewStated(in).Relation, Threshold: b.Threshold}
			}
		}
	} else {
		shared := newMemo(p.Classifier)
		if p.Round > 0 {
			shared.round = p.Round
		}
		if hooks != nil {
			shared.answered = hooks.Answered
		}
		hooks.plan(distinct(all))
		if _, err := shared.Classify(ctx, all); err != nil {
			return nil, nil, fmt.Errorf("nli (%s): %w", shared.Identity(), err)
		}
		var more func(int)
		if hooks != nil {
			more = hooks.More
		}
		if err := p.askReverse(ctx, shared, out, more); err != nil {
			return nil, nil, fmt.Errorf("nli (%s): %w", shared.Identity(), err)
		}
		for _, a := range out {
			a.NLI = shared.Identity()
			if a.Results, err = shared.Classify(ctx, a.Pairs); err != nil { // from memory
				return nil, nil, err
			}
			a.AskedBy = answeredBy(a.Pairs, a.Results)
			if a.Relations, err = graph.Relations(a.Nodes, a.Pairs, a.Results); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", a.Version, err)
			}
		}
		for i, b := range bs {
			if b.Verifier == nil {
				verifiers[i] = &factscore.NLIVerifier{Classifier: shared, Threshold: b.Threshold}
			}
		}
	}
	for _, a := range out {
		if err := p.solve(ctx, a); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", a.Version, err)
		}
	}
	fs := make([]score.Scores, len(bs))
	for i, b := range bs {
		_, ds, err := factscore.Score(ctx, verifiers[i], in, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", b.RowName(), err)
		}
		// A decision is P(true) 1 or 0: the measures of a probability
		// do not apply to the row (summarize).
		atoms := make([]score.Atom, len(ds))
		for j, d := range ds {
			atoms[j] = score.Atom{ID: in.Atoms[j].ID, Gold: in.Atoms[j].Label}
			if d.Supported {
				atoms[j].PTrue = 1
			}
		}
		fs[i] = score.Compute(atoms, p.K)
	}
	return out, fs, nil
}

// plan selects each version's nodes and the pairs it asks: after pruning,
// unless the relations are given. all lists every pair the classifier is
// to answer, the FActScore baseline's among them (each atom with the
// contexts it lists, never pruned: that is FActScore's definition). A
// record whose pairs would exceed MaxPairs is refused, before they are
// listed, as an invalid record.
func (p *Pipeline) plan(in *instance.Instance, versions []graph.Version, bs []Baseline, given bool) (out []*Assessment, all []nli.Pair, err error) {
	out = make([]*Assessment, len(versions))
	k := pruneK(p.PairsPerAtom)
	estimate := 0
	for i, v := range versions {
		nodes := graph.SelectNodes(in, v)
		out[i] = &Assessment{Instance: in, Version: v, Nodes: nodes, NLI: givenIdentity}
		if !given {
			estimate += prune.Estimate(nodes, k)
		}
	}
	if given {
		return out, nil, nil
	}
	var baseline []nli.Pair
	if slices.ContainsFunc(bs, func(b Baseline) bool { return b.Verifier == nil }) {
		for _, c := range factscore.Claims(in) {
			for _, e := range c.Evidence {
				baseline = append(baseline, nli.Pair{PremiseID: e.ID, HypothesisID: c.ID, Premise: e.NLIText(), Hypothesis: c.Text})
			}
		}
	}
	if estimate+len(baseline) > MaxPairs {
		return nil, nil, &instance.FieldError{Field: "contexts", Msg: fmt.Sprintf(
			"the record would put up to %d NLI pairs to the classifier (%d atoms, %d contexts; pruning %s), more than the %d one record may: prune more, or split the record",
			estimate+len(baseline), len(in.Atoms), len(in.Contexts), PairsPerAtomName(p.PairsPerAtom), MaxPairs)}
	}
	for _, a := range out {
		sel := prune.Select(a.Nodes, k)
		a.Pairs, a.PairsPerAtom, a.own, a.Pruned = sel.Pairs, p.PairsPerAtom, sel.Own, sel.Pruned
		if p.OneWayPairs && a.Version == graph.FR3 {
			a.oneWay()
		}
		a.count()
		all = append(all, a.Pairs...)
	}
	return out, append(all, baseline...), nil
}

// MaxPairs bounds the NLI pairs one record may put to the classifier, over
// the versions scored together: they are held in memory with their
// answers (a record at the limits of 10,000 atoms and 10,000 contexts has
// 10^8 pairs in FR2, 6.4 GB of them). A record over it is refused as an
// invalid record, which a run may skip; pruning keeps most records far
// below it.
const MaxPairs = 1_000_000

// solve builds the network of an assessment's relations, computes its
// marginals and scores the atoms.
func (p *Pipeline) solve(ctx context.Context, a *Assessment) error {
	var err error
	if a.Network, err = graph.Build(a.Nodes, a.Relations, p.Graph); err != nil {
		return err
	}
	if a.Solution, err = p.Solver.Solve(ctx, a.Network.Model()); err != nil {
		return fmt.Errorf("inference: %w", err)
	}
	atoms := make([]score.Atom, len(a.Nodes.Atoms))
	for i, at := range a.Nodes.Atoms {
		pt, _ := a.PTrue(at.ID)
		atoms[i] = score.Atom{ID: at.ID, PTrue: pt, Gold: at.Label}
	}
	a.Scores = score.Compute(atoms, p.K)
	return nil
}

// abstains reports whether a record is a raw response (no atoms) that
// declines to answer, when the pipeline atomizes raw responses: it is then
// not atomized, and scores nothing (Assessment.Abstained). Without an
// atomizer a record without atoms is invalid, as before the rule existed,
// unless it is the output line of a run that found it abstaining
// ("abstained": true): an output line is also an input line, and scores
// again as it did, as its relations are given again.
func (p *Pipeline) abstains(in *instance.Instance) bool {
	if len(in.Atoms) != 0 {
		return false
	}
	if p.Atomizer != nil {
		return p.Abstention.Abstained(in.Output)
	}
	return markedAbstained(in)
}

// markedAbstained reports a record that says it abstained, as fr score's
// output line of such a response does.
func markedAbstained(in *instance.Instance) bool {
	for _, f := range in.Extra {
		if f.Name == "abstained" {
			return bytes.Equal(bytes.TrimSpace(f.Value), []byte("true"))
		}
	}
	return false
}

// usesGiven reports whether an instance is scored from its own relations.
func (p *Pipeline) usesGiven(in *instance.Instance) bool {
	// A record says it has none with "relations": [], as an output
	// line whose relations were all neutral does: they are given too.
	return p.Given == GivenAlways || (p.Given == GivenWhenPresent && in.Relations != nil)
}

// NLIIdentity is the NLI backend an instance is scored with: "given" for
// its own relations, else the Classifier's.
func (p *Pipeline) NLIIdentity(in *instance.Instance) nli.Identity {
	if p.usesGiven(in) || p.Classifier == nil {
		return givenIdentity
	}
	return p.Classifier.Identity()
}

// Prepare returns the instance with atoms and contexts filled in where it
// lacks them, and without its empty contexts (those with neither text nor
// snippet, which relate to nothing: instance.WithoutEmptyContexts); the
// input is not modified.
func (p *Pipeline) Prepare(ctx context.Context, in *instance.Instance) (*instance.Instance, error) {
	out, _, err := p.prepare(ctx, in)
	return out, err
}

// prepare is Prepare, also returning the ids of the empty contexts it
// dropped. They are dropped after filling in: a record whose contexts are
// all empty is scored without contexts, as FactReasoner scores it, not
// retrieved for.
func (p *Pipeline) prepare(ctx context.Context, in *instance.Instance) (*instance.Instance, []string, error) {
	out, err := p.fill(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	out, dropped := out.WithoutEmptyContexts()
	return out, dropped, nil
}

// fill fills in the atoms and contexts a record lacks.
func (p *Pipeline) fill(ctx context.Context, in *instance.Instance) (*instance.Instance, error) {
	if len(in.Atoms) > 0 && len(in.Contexts) > 0 {
		return in, nil
	}
	out := *in
	if len(out.Atoms) == 0 {
		// A record that ends up without atoms cannot be scored (its
		// precision would be 0/0): it is an invalid record, which a run
		// may skip.
		if p.Atomizer == nil {
			return nil, &instance.FieldError{Field: "atoms", Msg: "the record has no atoms and no atomizer is configured (Options.Atomizer)"}
		}
		atoms, err := atomize.AtomsFor(ctx, p.Atomizer, p.Reviser, in.Input, in.Output)
		if errors.Is(err, atomize.ErrNoAtoms) {
			return nil, &instance.FieldError{Field: "output", Msg: "the atomizer found no atoms in the response"}
		}
		if err != nil {
			return nil, err
		}
		out.Atoms = atoms
	}
	if len(out.Contexts) == 0 {
		if p.Retriever == nil {
			return nil, errors.New("the record has no contexts and no knowledge source is configured (Options.Retrieval)")
		}
		// The atoms are copied: Retrieve fills in their context lists.
		out.Atoms = append([]instance.Atom(nil), out.Atoms...)
		if _, _, err := p.Retrieve(ctx, &out); err != nil {
			return nil, fmt.Errorf("retrieval: %w", err)
		}
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return &out, nil
}

// Retrieve adds up to TopK contexts for each atom of in that lists none
// and, when it retrieved for one, the question's contexts
// (QueryContexts), and returns the number of atoms retrieved for. A topic
// the knowledge source lacks (or a record without a topic, for a source
// looked up by topic) is an error, or with SkipMissingTopics a warning
// that leaves those atoms without contexts (skipped is then true).
func (p *Pipeline) Retrieve(ctx context.Context, in *instance.Instance) (n int, skipped bool, err error) {
	return p.retrieve(ctx, in, true)
}

// retrieve is Retrieve; question says whether to retrieve the question's
// contexts (FActScore uses none).
func (p *Pipeline) retrieve(ctx context.Context, in *instance.Instance, question bool) (n int, skipped bool, err error) {
	if p.Retriever == nil {
		return 0, false, errors.New("no knowledge source is configured (Options.Retrieval)")
	}
	k := p.TopK
	if k <= 0 {
		k = DefaultTopK
	}
	atoms := p.Retriever
	if p.Queries != nil {
		atoms = &retrieve.Queried{Next: p.Retriever, Writer: p.Queries, Response: in.Output}
	}
	n, err = retrieve.Fill(ctx, atoms, in, k)
	if err == nil && n > 0 && question {
		q := p.QueryContexts
		if q == 0 {
			q = k
		}
		// The question is looked up under the topic its atoms were: a
		// failure here is not a missing topic to skip.
		if _, err := retrieve.FillQuery(ctx, p.Retriever, in, q); err != nil {
			return 0, false, err
		}
	}
	if err == nil {
		return n, false, nil
	}
	missing := errors.Is(err, retrieve.ErrTopicNotFound) || errors.Is(err, retrieve.ErrNoTopic)
	if !missing {
		return 0, false, err
	}
	if !p.SkipMissingTopics {
		return 0, false, fmt.Errorf("%w (Options.Retrieval.SkipMissingTopics goes on without contexts)", err)
	}
	if p.Warn != nil {
		p.Warn(fmt.Sprintf("line %d: %v; its atoms get no contexts", in.Line, err))
	}
	return 0, true, nil
}
