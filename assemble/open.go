// Package assemble assembles FactReasoner pipelines (assess.Pipeline)
// from names and settings, as the fr command does: Open turns Options into
// the parts they name (an NLI backend, an atomizer, knowledge sources, a
// summarizer, a verifier, a solver), opened and owned until Close. Each
// kind of part is a table (NLIBackends, Atomizers, RetrievalSources,
// Verifiers, Algorithms) whose entries declare the settings they read
// (Setting): the options a user's settings give (Given), the refusal of a
// setting no part of the run reads, and fr's flags are made from them.
package assemble

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	summarizer "github.com/factreasoner/factreasoner-go/summarize"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/endpoint"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/cascade"
	"github.com/factreasoner/factreasoner-go/nli/llmnli"
	"github.com/factreasoner/factreasoner-go/nli/nlicache"
	"github.com/factreasoner/factreasoner-go/nli/nlimodel"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli"
	"github.com/factreasoner/factreasoner-go/prompts"
	"github.com/factreasoner/factreasoner-go/querybuild"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/retry"
	"github.com/factreasoner/factreasoner-go/score"
	"github.com/factreasoner/factreasoner-go/sqlcache"
)

// Options describe a pipeline by names and settings; Open turns them into
// one. The zero value scores records that carry their own relations (with
// inference.Auto); a record without relations is then an error, ErrNoNLI,
// that says what to configure (NLI.Backend), never a guess.
type Options struct {
	// Graph sets the priors and factor tables; the zero value selects
	// graph.DefaultOptions.
	Graph graph.Options
	// K is F1@K's K; the zero value is "half" (max(⌊n/2⌋, 1) per response).
	K score.K
	// Solver computes the marginals; nil opens the one Inference
	// describes (OpenSolver: inference.Auto by default).
	Solver    inference.Solver
	Inference InferenceOptions

	NLI NLIOptions
	// NearDuplicates and OneWayPairs are the fast mode (see
	// Pipeline.NearDuplicates, Pipeline.OneWayPairs): contexts at least
	// NearDuplicates similar read as one (0: off; graph's
	// DefaultNearDuplicates is FactReasoner's), FR3's context pairs asked
	// one way first. Both are off by default: measured, they change labels
	// (BENCHMARKS.md, "Fast mode").
	NearDuplicates float64
	OneWayPairs    bool
	// PairsPerAtom prunes the pairs put to the NLI classifier (see
	// Pipeline.PairsPerAtom): 0 is DefaultPairsPerAtom, AllPairs asks
	// about every pair, OwnPairsOnly about the own pairs only.
	PairsPerAtom int
	// LLM is the OpenAI-compatible endpoint of the LLM stages (NLI backend
	// llm, atomizer llm, the reviser, FActScore's llm verifier). Its
	// CachePath and Retry are ignored: the cache is Caches.LLM, the policy
	// Retry.
	LLM llm.Config
	// Retry is the retry policy of every HTTP client of the pipeline (the
	// LLM endpoint, Wikipedia), shared so that its notices come one at a
	// time; nil is retry.Default(). A policy without Notify gets one that
	// writes to Log.
	Retry *retry.Policy
	// LLMPrompt is the prompt of the llm NLI backend: "v1" (default) or
	// "v2". LLMMethod is how it measures a label's probability: "auto"
	// (or ""; log probabilities where the endpoint returns them, else
	// LLMSamples answers sampled), "logprobs", "sample" or "fixed"
	// (llm.ParseMethod). LLMFixedProbability is the fixed method's
	// probability of a label whose answer came without log probabilities
	// (llmnli.Options: 0 is the default, a negative value makes such an
	// answer an error).
	LLMPrompt           string
	LLMMethod           string
	LLMSamples          int
	LLMFixedProbability float64
	// Summaries selects the summarizer stage (see Pipeline.Summarizer):
	// SummariesOff, SummariesLLM (over the LLM endpoint) or
	// SummariesGiven. SummaryMethod, SummarySamples and
	// SummaryFixedProbability measure p_summary as LLMMethod, LLMSamples
	// and LLMFixedProbability measure a label's probability
	// (summarize.Options).
	Summaries               string
	SummaryMethod           string
	SummarySamples          int
	SummaryFixedProbability float64
	// Prompts chooses, per LLM stage, this project's prompts (the
	// default) or FactReasoner's (package prompts): "", "default",
	// "factreasoner", or "STAGE=SET" items ("atomizer=factreasoner").
	// The stages the run uses with another set are part of its identity
	// (result.Run.Prompts).
	Prompts string

	// Atomizer makes atoms for records without any: "" (none), "llm" or
	// "sentences". Revise says whether the LLM reviser rewrites them to
	// stand alone; ReviseDefault revises after the llm atomizer only.
	Atomizer string
	Revise   Revise

	Retrieval RetrievalOptions
	Caches    Caches

	// FActScore configures FActScore's verifier, for FActScore runs.
	FActScore FActScoreOptions
	// Abstention tells raw responses (records without atoms) that decline
	// to answer, by FActScore's rules: such a response is not atomized,
	// and is reported as abstained, left out of every mean. "" is
	// factscore.AbstentionGeneric.
	Abstention factscore.Abstention

	// Log receives warnings, retry notices and, at Close, the run's
	// summaries (what the NLI backend and the LLM stages did). Nil
	// discards them.
	Log io.Writer

	// fromGiven marks options made by Given.Options, which refused the
	// settings given by name for parts not in the run and filled the
	// others from defaults and the environment; Open checks the rest.
	fromGiven bool
}

// NLIOptions choose the NLI backend.
type NLIOptions struct {
	// Backend is "auto" (or ""), "given", "onnx", "remote", "llm" or
	// "lexical". Auto scores records that carry relations from them and
	// the others with onnx when a model is available (Model is set, or the
	// default model was pulled); without one, a record without relations
	// is an error (ErrNoNLI). Lexical compares words, not meaning: it is
	// for trying the tool, and only when asked for.
	Backend string
	// Model is the onnx backend's model: a directory, or a hub repository
	// id pulled into the model store. Empty means nlimodel.Default.
	Model string
	// ONNX tunes the onnx backend; its Name and Graph are set from Model.
	ONNX onnxnli.Options
	// Remote configures the remote backend, which reads its tokenizer,
	// window and labels from Model; its Name is set from Model, its Retry
	// is Options.Retry.
	Remote remotenli.Options
	// Extra are backends beside the built-in ones (NLIBackends), chosen
	// by Backend like them: a program's own.
	Extra []NLIBackend
	// PositiveLabel and Unsupported read a grounding classifier with the
	// onnx and remote backends (a model with two labels, supported and
	// not supported, or one score; see docs/nli.md): PositiveLabel names
	// the label that means supported where its labels do not say it
	// (MiniCheck's exports: LABEL_1); Unsupported is what a pair it finds
	// not supported becomes: "neutral" (or "") or "contradiction".
	PositiveLabel string
	Unsupported   string
	// CascadeBelow is the threshold of a cascade, Backend "FIRST,SECOND"
	// (package cascade): the pairs whose FIRST answer has a probability
	// below it go to SECOND. Zero is cascade.DefaultBelow.
	CascadeBelow float64
}

// grounding reads the settings of a grounding classifier.
func (o NLIOptions) grounding() (positive string, unsupported nli.Label, err error) {
	if unsupported, err = nli.ParseUnsupported(o.Unsupported); err != nil {
		return "", 0, optionErr("NLI.Unsupported", err)
	}
	return o.PositiveLabel, unsupported, nil
}

// Revise says whether atoms are revised.
type Revise int

// Revise settings.
const (
	ReviseDefault Revise = iota // after the llm atomizer, not after sentences
	ReviseOn
	ReviseOff
)

// RetrievalOptions choose the knowledge sources of records without
// contexts.
type RetrievalOptions struct {
	// Source is "auto" (or ""; db when DB is set, else none), "none", or a
	// comma-separated list of sources, merged in that order: "db",
	// "wikipedia", "serper", "searxng".
	Source string
	// DB is a knowledge base in FActScore's SQLite format.
	DB string
	// Wikipedia configures the wikipedia source; zero fields take the
	// retrieve package's defaults.
	Wikipedia WikipediaOptions
	Serper    SerperOptions
	SearXNG   SearXNGOptions
	// Pages fetches the pages of serper and searxng results for their
	// text.
	Pages PageOptions
	// Query is how the web sources (wikipedia, serper, searxng) form their
	// query: "atom" (or "", FactReasoner) or "topic" (topic + " " + atom,
	// FActScore). The db source always searches topic + " " + atom.
	Query string
	// TopK passages per atom (default DefaultTopK), for each source
	// without its own number in KPerSource.
	TopK       int
	KPerSource map[string]int
	// QueryContexts passages for the question (Pipeline.QueryContexts):
	// 0 is TopK, as FactReasoner; NoQueryContexts none.
	QueryContexts int
	// SkipMissingTopics scores a record whose topic the knowledge base
	// lacks without contexts, with a warning, instead of failing; with
	// other sources beside db, their contexts are kept.
	SkipMissingTopics bool
	// Scope is which passages of the knowledge base a record is searched
	// against: "topic" (or ""): a record with a topic in the document of
	// that title (FActScore), one without in every passage (the knowledge
	// base's corpus-wide index); "corpus": every record in every passage.
	Scope string
	// Ranking ranks the corpus-wide search: "bm25" (or ""), "dense" (the
	// cosine similarity of passage and query vectors) or "hybrid" (the
	// two fused by reciprocal rank). Dense and hybrid need a knowledge
	// base built with an embedding model, and Embed.
	Ranking string
	// Embed is the embeddings endpoint that embeds the queries of dense
	// and hybrid search.
	Embed EmbedOptions
	// SourcePriors is a file of context priors by web domain or knowledge
	// base title (retrieve.LoadSourcePriors), given to the contexts
	// retrieved; the contexts a record brings keep their own.
	SourcePriors string
	// QueryBuilder has the LLM endpoint (LLM) write the search queries of
	// each atom, from the atom and its response (querybuild), and every
	// source is searched with them instead of the atom's text.
	QueryBuilder bool
}

// EmbedOptions configure an OpenAI-compatible /v1/embeddings endpoint.
type EmbedOptions struct {
	// BaseURL is the API root, /v1 included; "" is LLM.BaseURL (and its
	// default).
	BaseURL string
	// APIKey is sent as a bearer token; "" is LLM.APIKey.
	APIKey string
	// Model names the embedding model; "" is the model the knowledge
	// base's vectors were made with. Another model is refused.
	Model string
}

// ParseKPerSource reads RetrievalOptions.KPerSource written as
// "serper=5,wikipedia=3": comma-separated SOURCE=K items, K at least 1.
// The empty string is no map.
func ParseKPerSource(spec string) (map[string]int, error) {
	if spec == "" {
		return nil, nil
	}
	m := map[string]int{}
	for _, item := range strings.Split(spec, ",") {
		name, num, ok := strings.Cut(strings.TrimSpace(item), "=")
		k, err := strconv.Atoi(strings.TrimSpace(num))
		if !ok || err != nil || k < 1 {
			return nil, fmt.Errorf("%q is not SOURCE=K with K at least 1", item)
		}
		m[strings.TrimSpace(name)] = k
	}
	return m, nil
}

// WikipediaOptions configure the MediaWiki API retriever.
type WikipediaOptions struct {
	Endpoint    string
	UserAgent   string
	MinInterval time.Duration
}

// SerperOptions configure the serper source.
type SerperOptions struct {
	Endpoint string // default retrieve.DefaultSerperEndpoint
	// APIKey is the Serper API key; empty reads $SERPER_API_KEY.
	APIKey string
}

// SearXNGOptions configure the searxng source.
type SearXNGOptions struct {
	URL string // the instance, as http://localhost:8888
}

// PageOptions configure page fetching; zero fields take the retrieve
// package's defaults.
type PageOptions struct {
	Fetch        bool
	Timeout      time.Duration // per page
	Budget       time.Duration // all pages of one search
	MaxBytes     int64
	AllowPrivate bool // loopback and private addresses
}

// Caches are the persistent SQLite caches (package sqlcache), each "FILE",
// "auto" (the kind's file in the cache directory) or "off"; "" takes the
// default named beside each field.
type Caches struct {
	NLI       string // answers of text NLI backends; default off
	LLM       string // LLM answers; default auto
	Retrieval string // retrieval results; default auto
}

// FActScoreOptions configure FActScore's verifier.
type FActScoreOptions struct {
	// Verifier is "llm" (FActScore's prompt to the LLM endpoint) or "nli"
	// (the NLI backend: supported iff some passage entails the atom with
	// probability above Threshold); "" opens none.
	Verifier  string
	Threshold float64
}

// OptionError is a bad value of one of the Options, named by its path
// (NLI.Backend, Retrieval.Source): a program maps it to its own name for
// the setting (fr, to its flag).
type OptionError struct {
	Option string // the path of the option in Options
	Err    error
}

func (e *OptionError) Error() string { return e.Option + ": " + e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

func optionErr(option string, err error) error { return &OptionError{Option: option, Err: err} }

// Pipeline is an assess.Pipeline that Open assembled from Options: it owns
// what its parts opened (models, caches, the LLM client) until Close.
type Pipeline struct {
	*assess.Pipeline
	res resources
}

// resources are what Open opened: closed, after their summaries are
// written, by Close.
type resources struct {
	log       io.Writer
	closers   []func() error
	summaries []func(io.Writer)
	llm       *llmStages
	retry     *retry.Policy
	verifier  string                // FActScore's verifier, by name
	pages     *retrieve.PageFetcher // fetching pages, when on
	// retrievalCache is the retrieval cache, when on: it also keeps the
	// content identities of knowledge bases that record none.
	retrievalCache *retrieve.Cache
	// inProcess says whether the NLI classifier runs in this process on
	// every core (InProcess).
	inProcess bool
	closed    bool
	// prompts is the prompt set of each LLM stage (Options.Prompts), and
	// promptStages the stages the pipeline opened with one.
	prompts      prompts.Selection
	promptStages []string
	// options are the options Open was given, for parts opened later
	// (OpenBaseline) and for naming the settings of the run (settingsOf).
	options Options
}

// llmStages are the LLM stages of a pipeline, sharing one client (one
// concurrency limit, one cache, one usage count).
type llmStages struct {
	client     *llm.Client
	classifier *llmnli.Classifier
	atomizer   *atomize.LLM
	reviser    *atomize.LLMReviser
	queries    *querybuild.LLM
}

// Open assembles the pipeline that o describes. Close releases what it
// opened. An option set for a part the run does not have (NLI.Model with
// the lexical backend) is a *NotApplied, as a setting given by name is
// (Given); an option at its zero value or its default is not given.
func Open(ctx context.Context, o Options) (_ *Pipeline, err error) {
	p := &Pipeline{Pipeline: &assess.Pipeline{Graph: o.Graph, K: o.K, Solver: o.Solver, TopK: o.Retrieval.TopK, QueryContexts: o.Retrieval.QueryContexts,
		SkipMissingTopics: o.Retrieval.SkipMissingTopics}}
	p.res.options = o
	p.SettingsOf = p.settingsOf
	if p.Graph == (graph.Options{}) {
		p.Graph = graph.DefaultOptions()
	}
	if p.K == (score.K{}) {
		p.K = score.K{Name: "half", Half: true}
	}
	if p.Solver == nil {
		s, err := OpenSolver(o.Inference)
		if err != nil {
			return nil, err
		}
		p.Solver = s
	}
	if err := p.Graph.Validate(); err != nil {
		return nil, optionErr("Graph", err)
	}
	if !o.fromGiven {
		if err := checkApplied(o); err != nil {
			return nil, err
		}
	}
	switch {
	case o.PairsPerAtom == 0:
		p.PairsPerAtom = assess.DefaultPairsPerAtom
	case o.PairsPerAtom > 0 || o.PairsPerAtom == assess.AllPairs || o.PairsPerAtom == assess.OwnPairsOnly:
		p.PairsPerAtom = o.PairsPerAtom
	default:
		return nil, optionErr("PairsPerAtom", fmt.Errorf("%d: want 1 or more, all or own", o.PairsPerAtom))
	}
	if !(o.NearDuplicates >= 0 && o.NearDuplicates <= 1) {
		return nil, optionErr("NearDuplicates", fmt.Errorf("%v: want a similarity in (0, 1], or 0 for off", o.NearDuplicates))
	}
	p.NearDuplicates, p.OneWayPairs = o.NearDuplicates, o.OneWayPairs
	if o.Retrieval.TopK < 0 {
		return nil, optionErr("Retrieval.TopK", fmt.Errorf("%d passages per atom: want at least 1", o.Retrieval.TopK))
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	p.res.log = &lockedWriter{w: log}
	p.Warn = func(msg string) { fmt.Fprintln(p.res.log, "warning:", msg) }
	if p.res.prompts, err = prompts.ParseSelection(o.Prompts); err != nil {
		return nil, optionErr("Prompts", err)
	}
	p.res.retry = o.Retry
	if p.res.retry == nil {
		p.res.retry = retry.Default()
	}
	if p.res.retry.Retries < 0 {
		return nil, optionErr("Retry.Retries", fmt.Errorf("%d: want 0 or more", p.res.retry.Retries))
	}
	if p.res.retry.Notify == nil {
		p.res.retry.Notify = retry.Printer(p.res.log, "")
	}
	defer func() {
		if err != nil {
			p.abort()
		}
	}()
	if err := p.openNLI(ctx, o); err != nil {
		return nil, err
	}
	p.Abstention = factscore.AbstentionGeneric
	if o.Abstention != "" {
		if p.Abstention, err = factscore.ParseAbstention(string(o.Abstention)); err != nil {
			return nil, optionErr("Abstention", err)
		}
	}
	if err := p.openAtomizer(o); err != nil {
		return nil, err
	}
	if err := p.openSummarizer(o); err != nil {
		return nil, err
	}
	if err := p.openRetriever(ctx, o); err != nil {
		return nil, err
	}
	if err := p.openVerifier(o); err != nil {
		return nil, err
	}
	// The prompt sets of the LLM stages opened (prompts.Selection.Name):
	// "" for this project's own.
	p.Prompts = p.res.prompts.Name(p.res.promptStages)
	return p, nil
}

// PageStats returns what the page fetcher of --fetch-pages did so far;
// false without one.
func (p *Pipeline) PageStats() (retrieve.PageStats, bool) {
	if p.res.pages == nil {
		return retrieve.PageStats{}, false
	}
	return p.res.pages.Stats(), true
}

// Close writes the summaries of what the pipeline's backends did to the
// log, then releases what Open opened. It may be called more than once.
func (p *Pipeline) Close() error {
	if p.res.closed {
		return nil
	}
	for _, s := range p.res.summaries {
		s(p.res.log)
	}
	return p.abort()
}

// Discard releases what Open opened without writing the summaries: for a
// run that ended before it did anything (they would count zeros).
func (p *Pipeline) Discard() error { return p.abort() }

// abort releases what Open opened, without summaries, latest first.
func (p *Pipeline) abort() error {
	if p.res.closed {
		return nil
	}
	p.res.closed = true
	var errs []error
	for i := len(p.res.closers) - 1; i >= 0; i-- {
		errs = append(errs, p.res.closers[i]())
	}
	return errors.Join(errs...)
}

func (p *Pipeline) onClose(close func() error) { p.res.closers = append(p.res.closers, close) }

func (p *Pipeline) onSummary(s func(io.Writer)) { p.res.summaries = append(p.res.summaries, s) }

// lockedWriter serialises writes from the goroutines of concurrent
// backends (retry notices of LLM requests in flight, say).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// openNLI opens the NLI backend of o.NLI (NLIBackends, o.NLI.Extra),
// behind the NLI cache when one is configured.
func (p *Pipeline) openNLI(ctx context.Context, o Options) error {
	b, err := nliBackend(o)
	if err != nil {
		return err
	}
	p.Given = b.Given
	if b.Open == nil {
		return nil
	}
	cl, err := b.Open(ctx, &Env{Options: o, p: p})
	if err != nil || cl == nil {
		return err
	}
	if c, ok := cl.(*cascade.Classifier); ok {
		// Its backends were registered, each behind the cache, as it
		// opened them.
		p.summarizeAtClose(c)
		p.Classifier = c
		return nil
	}
	p.Classifier, err = p.register(cl, o)
	return err
}

// register makes the pipeline close a classifier at Close, say what it did
// at the end of a run, and know whether it runs in process; and returns it
// behind the NLI cache when one is configured.
func (p *Pipeline) register(cl nli.Classifier, o Options) (nli.Classifier, error) {
	if c, ok := cl.(io.Closer); ok {
		p.onClose(c.Close)
	}
	p.summarizeAtClose(cl)
	if ip, ok := cl.(InProcess); ok && ip.InProcess() {
		p.res.inProcess = true
	}
	path, err := sqlcache.Resolve(o.Caches.NLI, sqlcache.NLI)
	if err != nil {
		return nil, optionErr("Caches.NLI", err)
	}
	if path == "" {
		return cl, nil
	}
	cache, err := nlicache.Open(path, cl)
	if err != nil {
		return nil, optionErr("Caches.NLI", err)
	}
	p.onClose(cache.Close)
	return cache, nil
}

// openONNX loads the onnx backend's model.
func (p *Pipeline) openONNX(o NLIOptions) (*onnxnli.Model, error) {
	ref, err := nlimodel.Resolve(o.Model)
	if err != nil {
		return nil, err
	}
	opts := o.ONNX
	opts.Name, opts.Graph = ref.Name, ref.Graph
	if opts.PositiveLabel, opts.Unsupported, err = o.grounding(); err != nil {
		return nil, err
	}
	if ref.Found != "" {
		fmt.Fprintf(p.res.log, "nli model %s from %s\n", ref.Name, ref.Found)
	}
	return onnxnli.Load(ref.Dir, opts)
}

// llmStages returns the pipeline's LLM client and stages, opening the
// client on first use.
func (p *Pipeline) llmStages(o Options) (*llmStages, error) {
	if p.res.llm != nil {
		return p.res.llm, nil
	}
	cfg := o.LLM
	if strings.TrimSpace(cfg.Model) == "" {
		base := cfg.BaseURL
		if base == "" {
			base = llm.DefaultBaseURL
		}
		return nil, optionErr("LLM.Model", fmt.Errorf("required by the LLM stages: the model name at the endpoint %s, e.g. gpt-4o-mini (see docs/llm.md)", redact.URL(base)))
	}
	// Bad values are the command line's mistakes (exit status 2), found
	// before llm.New, whose errors may also be the cache's.
	if cfg.Reasks < 0 {
		return nil, optionErr("LLM.Reasks", fmt.Errorf("%d: want 0 or more", cfg.Reasks))
	}
	if cfg.Concurrency < 0 {
		return nil, optionErr("LLM.Concurrency", fmt.Errorf("%d: want 1 or more", cfg.Concurrency))
	}
	if cfg.Timeout < 0 {
		return nil, optionErr("LLM.Timeout", fmt.Errorf("%v: want a positive duration", cfg.Timeout))
	}
	if b := strings.TrimSpace(cfg.BaseURL); b != "" {
		if _, err := endpoint.Parse(b); err != nil {
			return nil, optionErr("LLM.BaseURL", err)
		}
	}
	path, err := sqlcache.Resolve(defaultOn(o.Caches.LLM), sqlcache.LLM)
	if err != nil {
		return nil, optionErr("Caches.LLM", err)
	}
	cfg.CachePath, cfg.Retry = path, p.res.retry
	client, err := llm.New(cfg)
	if ce := new(llm.CacheError); errors.As(err, &ce) {
		return nil, optionErr("Caches.LLM", err) // as the other caches' refusals
	}
	if err != nil {
		return nil, err
	}
	st := &llmStages{client: client}
	p.res.llm = st
	p.onClose(client.Close)
	p.onSummary(func(w io.Writer) {
		fmt.Fprintf(w, "llm %s at %s: %s\n", client.Model(), client.Endpoint(), client.Usage())
		if st.classifier != nil {
			fmt.Fprintf(w, "llm nli: %s\n", st.classifier.Stats())
		}
		if st.atomizer != nil {
			fmt.Fprintf(w, "llm atomizer: %s\n", st.atomizer.Stats())
		}
		if st.reviser != nil {
			fmt.Fprintf(w, "llm reviser: %s\n", st.reviser.Stats())
		}
		if st.queries != nil {
			fmt.Fprintf(w, "llm query builder: %s\n", st.queries.Stats())
		}
	})
	return st, nil
}

// openAtomizer opens the atomizer of o (Atomizers) and the reviser.
func (p *Pipeline) openAtomizer(o Options) error {
	if o.Atomizer == "" {
		return nil
	}
	entry, err := atomizerOf(o.Atomizer)
	if err != nil {
		return err
	}
	a, err := entry.Open(&Env{Options: o, p: p})
	if err != nil {
		return err
	}
	p.Atomizer = a
	p.summarizeAtClose(a)
	if !revises(o) {
		return nil
	}
	st, err := p.llmStages(o)
	if err != nil {
		return fmt.Errorf("Revise: %w", err)
	}
	if tmpl, ok, err := p.stagePrompt(prompts.Reviser, ""); err != nil {
		return err
	} else if ok {
		if st.reviser, err = atomize.NewLLMReviserPrompt(st.client, tmpl); err != nil {
			return err
		}
	} else {
		st.reviser = atomize.NewLLMReviser(st.client)
	}
	p.Reviser = st.reviser
	return nil
}

// openRetriever opens the knowledge sources of o.Retrieval, each behind
// the retrieval cache, merged by a retrieve.Multi.
func (p *Pipeline) openRetriever(ctx context.Context, o Options) error {
	ro := o.Retrieval
	names, err := sourceNames(ro)
	if err != nil || len(names) == 0 {
		return err
	}
	if ro.DB != "" && !slices.Contains(names, "db") {
		return optionErr("Retrieval.DB", fmt.Errorf("a knowledge base is given but the sources (%s) list no db: add it", strings.Join(names, ",")))
	}
	for name, k := range ro.KPerSource {
		if !slices.Contains(names, name) {
			return optionErr("Retrieval.KPerSource", fmt.Errorf("%s is not one of the sources (%s)", name, strings.Join(names, ",")))
		}
		if k < 1 {
			return optionErr("Retrieval.KPerSource", fmt.Errorf("%s=%d: want at least 1", name, k))
		}
	}
	query, err := retrieve.ParseQueryMode(ro.Query)
	if err != nil {
		return optionErr("Retrieval.Query", err)
	}
	table := RetrievalSources()
	var web []string
	for _, src := range table {
		if src.Web {
			web = append(web, src.Name)
		}
	}
	if ro.Pages.Fetch && !slices.ContainsFunc(names, func(n string) bool { return slices.Contains(web, n) }) {
		return optionErr("Retrieval.Pages.Fetch", fmt.Errorf("pages are fetched for the results of %s; the sources list none", oneOf(web)))
	}
	var cache *retrieve.Cache
	path, err := sqlcache.Resolve(defaultOn(o.Caches.Retrieval), sqlcache.Retrieval)
	if err != nil {
		return optionErr("Caches.Retrieval", err)
	}
	if path != "" {
		if cache, err = retrieve.OpenCache(path); err != nil {
			return optionErr("Caches.Retrieval", err)
		}
		p.onClose(cache.Close)
		p.res.retrievalCache = cache
	}
	var fetcher *retrieve.PageFetcher
	if ro.Pages.Fetch {
		fetcher = retrieve.NewPageFetcher()
		if ro.Pages.Timeout > 0 {
			fetcher.Timeout = ro.Pages.Timeout
		}
		if ro.Pages.MaxBytes > 0 {
			fetcher.MaxBytes = ro.Pages.MaxBytes
		}
		fetcher.AllowPrivate = ro.Pages.AllowPrivate
		fetcher.Retry = p.res.retry
		p.res.pages = fetcher
		p.onClose(fetcher.Close)
	}
	// withPages fetches the pages of a web source's results.
	withPages := func(r retrieve.Retriever, name string) (retrieve.Retriever, string) {
		if fetcher == nil {
			return r, name
		}
		fp := &retrieve.FetchPages{Search: r, Fetcher: fetcher, Budget: ro.Pages.Budget}
		return fp, fp.Source()
	}
	if ro.QueryBuilder {
		st, err := p.openQueryBuilder(o)
		if err != nil {
			return fmt.Errorf("Retrieval.QueryBuilder: %w", err)
		}
		p.Queries = st.queries
		p.RetrievalSettings = append(p.RetrievalSettings, "queries="+st.queries.Name())
	}
	multi := &retrieve.Multi{SkipMissingTopics: ro.SkipMissingTopics, Warn: p.Warn}
	env := &Env{Options: o, p: p}
	for _, name := range names {
		src := table[slices.IndexFunc(table, func(s RetrievalSource) bool { return s.Name == name })]
		r, cacheName, err := src.Open(ctx, env, query)
		if err != nil {
			return err
		}
		if src.Web {
			r, cacheName = withPages(r, cacheName)
		}
		if cache != nil {
			r = cache.Wrap(cacheName, r)
		}
		multi.Sources = append(multi.Sources, retrieve.Member{Name: name, Retriever: r, K: ro.KPerSource[name]})
	}
	if fetcher != nil {
		p.onSummary(func(w io.Writer) {
			if s := fetcher.Stats(); s.Fetched+s.Failed() > 0 {
				fmt.Fprintf(w, "pages: %s\n", s)
			}
		})
	}
	p.Retriever = multi
	if ro.SourcePriors != "" {
		sp, err := retrieve.LoadSourcePriors(ro.SourcePriors)
		if err != nil {
			return optionErr("Retrieval.SourcePriors", err)
		}
		p.Retriever = &retrieve.WithPriors{Next: multi, Priors: sp}
		p.RetrievalSettings = append(p.RetrievalSettings, "source_priors="+sp.Name())
	}
	return nil
}

// droppedLinks says how many result links were dropped for not being
// http(s) URLs, if any.
func droppedLinks(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d result links that are not http(s) dropped (the results kept without them)", n)
}

// sourceNames reads the list of sources; none gives an empty list.
func sourceNames(ro RetrievalOptions) ([]string, error) {
	switch strings.TrimSpace(ro.Source) {
	case "", "auto":
		if ro.DB != "" {
			return []string{"db"}, nil
		}
		return nil, nil
	case "none":
		return nil, nil
	}
	var names []string
	for _, name := range strings.Split(ro.Source, ",") {
		name = strings.TrimSpace(name)
		switch {
		case !slices.ContainsFunc(RetrievalSources(), func(s RetrievalSource) bool { return s.Name == name }):
			return nil, optionErr("Retrieval.Source", fmt.Errorf("%q is not a source (want auto, none, or a list of %s)", name, strings.Join(Names(RetrievalSources(), func(s RetrievalSource) string { return s.Name }), ", ")))
		case slices.Contains(names, name):
			return nil, optionErr("Retrieval.Source", fmt.Errorf("%s is listed twice", name))
		}
		names = append(names, name)
	}
	return names, nil
}

// openVerifier opens FActScore's verifier.
func (p *Pipeline) openVerifier(o Options) error {
	if o.FActScore.Verifier == "" {
		return nil
	}
	entry, err := verifierOf(o.FActScore.Verifier)
	if err != nil {
		return err
	}
	v, name, err := entry.Open(&Env{Options: o, p: p})
	if err != nil {
		return err
	}
	p.Verifier, p.res.verifier = v, name
	return nil
}

// VerifierName names FActScore's verifier as Options.FActScore chose it:
// "llm:MODEL", or "nli:" and the NLI backend's name.
func (p *Pipeline) VerifierName() string { return p.res.verifier }

// stagePrompt is the template of another prompt set that an LLM stage
// sends, when Options.Prompts chooses one for it (version: the NLI
// prompt's); ok is false for this project's own. The stage is noted as
// opened, for the run's identity (PromptsName).
func (p *Pipeline) stagePrompt(stage, version string) (t prompts.Template, ok bool, err error) {
	p.res.promptStages = append(p.res.promptStages, stage)
	set := p.res.prompts.For(stage)
	if set == prompts.Default {
		return prompts.Template{}, false, nil
	}
	t, err = prompts.ForStage(set, stage, version)
	if err != nil {
		return t, false, optionErr("Prompts", err)
	}
	return t, true, nil
}

// defaultOn is a cache setting whose default ("") is auto.
func defaultOn(setting string) string {
	if setting == "" {
		return "auto"
	}
	return setting
}

// atomizerOf is the entry of Atomizers of that name.
func atomizerOf(name string) (Atomizer, error) {
	return entryOf(Atomizers(), func(a Atomizer) string { return a.Name }, name, "Atomizer", "atomizer")
}

// verifierOf is the entry of Verifiers of that name.
func verifierOf(name string) (Verifier, error) {
	return entryOf(Verifiers(), func(v Verifier) string { return v.Name }, name, "FActScore.Verifier", "verifier")
}

// entryOf is the entry of a table of parts of that name; an unknown name
// is an OptionError of the option at path that says which there are.
func entryOf[T any](table []T, nameOf func(T) string, name, path, what string) (T, error) {
	i := slices.IndexFunc(table, func(e T) bool { return nameOf(e) == name })
	if i < 0 {
		var none T
		return none, optionErr(path, fmt.Errorf("unknown %s %q (want %s)", what, name, oneOf(Names(table, nameOf))))
	}
	return table[i], nil
}

// openSummarizer opens the summarizer stage of o.Summaries.
func (p *Pipeline) openSummarizer(o Options) error {
	switch o.Summaries {
	case assess.SummariesOff:
	case assess.SummariesGiven:
		p.UseSummaries = true
	case assess.SummariesLLM:
		if p.Given == assess.GivenAlways {
			return optionErr("Summaries", errors.New("the given NLI backend reads relations computed on the contexts' texts, not on summaries: choose a backend that reads the summaries"))
		}
		st, err := p.llmStages(o)
		if err != nil {
			return err
		}
		method, err := llm.ParseMethod(o.SummaryMethod)
		if err != nil {
			return optionErr("SummaryMethod", err)
		}
		so := summarizer.Options{Method: method, Samples: o.SummarySamples, FixedProbability: o.SummaryFixedProbability, Log: p.res.log}
		if tmpl, ok, err := p.stagePrompt(prompts.Summarizer, ""); err != nil {
			return err
		} else if ok {
			so.Template = &tmpl
		}
		s, err := summarizer.NewLLM(st.client, so)
		if err != nil {
			return optionErr("SummaryMethod", err)
		}
		p.Summarizer = s
		p.onSummary(func(w io.Writer) { fmt.Fprintf(w, "llm summarizer: %s\n", s.Stats()) })
	default:
		return optionErr("Summaries", fmt.Errorf("unknown summaries setting %q (want %q, %q or %q)", o.Summaries, assess.SummariesOff, assess.SummariesLLM, assess.SummariesGiven))
	}
	return nil
}

// settingsOf names the settings of this run that enter an identity's
// field (Setting.Identifies, through the parts that name themselves there:
// Part.Identity), with the options that choose those parts:
// Inference.Algorithm, Inference.ExactBudget, … (assess.Pipeline's
// SettingsOf).
func (p *Pipeline) settingsOf(field string) []string {
	var paths []string
	add := func(path string) {
		if path != "" && !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	for _, part := range RunParts(p.res.options, Kinds()...) {
		if part.Identity != field {
			continue
		}
		if part.When == "" { // chosen by a value of Choice
			add(part.Choice)
			add(strings.Split(part.Within, "=")[0])
		}
		for _, s := range part.Settings {
			if s.Identifies {
				add(s.Name())
			}
		}
	}
	return paths
}

// AutoJobs is how many records to score at once when the user does not
// say: 1 when the NLI model runs in this process on the CPU (InProcess: ONNX
// Runtime already uses every core, and a second record in flight only
// makes the two contend: 11% slower on 2 cores), else 2 (a second record
// keeps an endpoint busy, or the second core, at the cost of one more
// record in memory). See BENCHMARKS.md, "Records in parallel".
func (p *Pipeline) AutoJobs() int {
	ip, ok := p.Classifier.(InProcess)
	if p.Classifier != nil && p.Given != assess.GivenAlways && (p.res.inProcess || ok && ip.InProcess()) {
		return 1
	}
	return 2
}
