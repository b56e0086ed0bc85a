package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/lexical"
	"github.com/factreasoner/factreasoner-go/nli/llmnli"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/retry"
	"github.com/factreasoner/factreasoner-go/score"
	"github.com/factreasoner/factreasoner-go/sqlcache"
)

// Options describe a pipeline by names and settings; Open turns them into
// one. The zero value, with a Solver, scores records that carry their own
// relations, and falls back to the lexical NLI backend (with a warning) for
// the others.
type Options struct {
	// Graph sets the priors and factor tables; the zero value selects
	// graph.DefaultOptions.
	Graph graph.Options
	// K is F1@K's K; the zero value is "half" (max(⌊n/2⌋, 1) per response).
	K score.K
	// Solver computes the marginals (needed to score, not to retrieve or
	// verify).
	Solver inference.Solver

	NLI NLIOptions
	// PairsPerAtom prunes the pairs put to the NLI classifier (see
	// Pipeline.PairsPerAtom): 0 is DefaultPairsPerAtom, AllPairs asks
	// about every pair.
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
	// "v2".
	LLMPrompt string

	// Atomizer makes atoms for records without any: "" (none), "llm" or
	// "sentences". Revise says whether the LLM reviser rewrites them to
	// stand alone; ReviseDefault revises after the llm atomizer only.
	Atomizer string
	Revise   Revise

	Retrieval RetrievalOptions
	Caches    Caches

	// FActScore configures FActScore's verifier, for FActScore runs.
	FActScore FActScoreOptions

	// Log receives warnings, retry notices and, at Close, the run's
	// summaries (what the NLI backend and the LLM stages did). Nil
	// discards them.
	Log io.Writer
}

// NLIOptions choose the NLI backend.
type NLIOptions struct {
	// Backend is "auto" (or ""), "given", "onnx", "llm" or "lexical". Auto
	// scores records that carry relations from them and the others with
	// onnx when a model is available (Model is set, or the default model
	// was pulled), else with the lexical fallback and a warning.
	Backend string
	// Model is the onnx backend's model: a directory, or a hub repository
	// id pulled into the model store. Empty means DefaultONNXModel.
	Model string
	// ONNX tunes the onnx backend; its Name and Graph are set from Model.
	ONNX onnxnli.Options
}

// Revise says whether atoms are revised.
type Revise int

// Revise settings.
const (
	ReviseDefault Revise = iota // after the llm atomizer, not after sentences
	ReviseOn
	ReviseOff
)

// RetrievalOptions choose the knowledge source of records without
// contexts.
type RetrievalOptions struct {
	// Source is "auto" (or ""; db when DB is set, else none), "none", "db"
	// or "wikipedia".
	Source string
	// DB is a knowledge base in FActScore's SQLite format.
	DB string
	// Wikipedia configures the wikipedia source; zero fields take the
	// retrieve package's defaults.
	Wikipedia WikipediaOptions
	// TopK passages per atom (default DefaultTopK).
	TopK int
	// SkipMissingTopics scores a record whose topic the knowledge base
	// lacks without contexts, with a warning, instead of failing.
	SkipMissingTopics bool
}

// WikipediaOptions configure the MediaWiki API retriever.
type WikipediaOptions struct {
	Endpoint    string
	UserAgent   string
	MinInterval time.Duration
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
	// Abstention tells raw responses that declined to answer; "" is
	// factscore.AbstentionGeneric.
	Abstention factscore.Abstention
}

// OptionError is a bad value of one of the Options, named as the fr
// command's flag for it.
type OptionError struct {
	Option string // the flag, without its dashes
	Err    error
}

func (e *OptionError) Error() string {
	if msg := e.Err.Error(); strings.HasPrefix(msg, "--"+e.Option) {
		return msg // it names the flag itself
	}
	return "--" + e.Option + ": " + e.Err.Error()
}
func (e *OptionError) Unwrap() error { return e.Err }

func optionErr(option string, err error) error { return &OptionError{Option: option, Err: err} }

// resources are what Open opened: closed, after their summaries are
// written, by Close.
type resources struct {
	log       io.Writer
	closers   []func() error
	summaries []func(io.Writer)
	llm       *llmStages
	retry     *retry.Policy
	verifier  string // FActScore's verifier, by name
	closed    bool
}

// llmStages are the LLM stages of a pipeline, sharing one client (one
// concurrency limit, one cache, one usage count).
type llmStages struct {
	client     *llm.Client
	classifier *llmnli.Classifier
	atomizer   *atomize.LLM
	reviser    *atomize.LLMReviser
}

// Open assembles the pipeline that o describes. Close releases what it
// opened.
func Open(ctx context.Context, o Options) (_ *Pipeline, err error) {
	p := &Pipeline{Graph: o.Graph, K: o.K, Solver: o.Solver, TopK: o.Retrieval.TopK, SkipMissingTopics: o.Retrieval.SkipMissingTopics}
	if p.Graph == (graph.Options{}) {
		p.Graph = graph.DefaultOptions()
	}
	if p.K == (score.K{}) {
		p.K = score.K{Name: "half", Half: true}
	}
	if err := p.Graph.Validate(); err != nil {
		return nil, optionErr("atom-prior, --context-prior", err)
	}
	switch {
	case o.PairsPerAtom == 0:
		p.PairsPerAtom = DefaultPairsPerAtom
	case o.PairsPerAtom > 0 || o.PairsPerAtom == AllPairs:
		p.PairsPerAtom = o.PairsPerAtom
	default:
		return nil, optionErr("pairs-per-atom", fmt.Errorf("%d: want 1 or more, or all", o.PairsPerAtom))
	}
	if o.Retrieval.TopK < 0 {
		return nil, optionErr("retrieve-k", fmt.Errorf("%d passages per atom: want at least 1", o.Retrieval.TopK))
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	p.res.log = &lockedWriter{w: log}
	p.Warn = func(msg string) { fmt.Fprintln(p.res.log, "fr: warning:", msg) }
	p.res.retry = o.Retry
	if p.res.retry == nil {
		p.res.retry = retry.Default()
	}
	if p.res.retry.Retries < 0 {
		return nil, optionErr("llm-retries", fmt.Errorf("%d: want 0 or more", p.res.retry.Retries))
	}
	if p.res.retry.Notify == nil {
		p.res.retry.Notify = retry.Printer(p.res.log, "fr: ")
	}
	defer func() {
		if err != nil {
			p.abort()
		}
	}()
	if err := p.openNLI(o); err != nil {
		return nil, err
	}
	if err := p.openAtomizer(o); err != nil {
		return nil, err
	}
	if err := p.openRetriever(o); err != nil {
		return nil, err
	}
	if err := p.openVerifier(o); err != nil {
		return nil, err
	}
	return p, nil
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

// openNLI opens the NLI backend of o.NLI, behind the NLI cache when one is
// configured.
func (p *Pipeline) openNLI(o Options) error {
	backend := o.NLI.Backend
	if backend == "" {
		backend = "auto"
	}
	var cl nli.Classifier
	switch backend {
	case "auto":
		p.Given = GivenWhenPresent
		if !onnxAvailable(o.NLI.Model) {
			cl = p.lexicalFallback("fr: warning: no NLI model configured; records without relations use the lexical fallback (rough word overlap). " +
				"For real results give the records relations (--nli given), use an NLI model (fr models pull " + DefaultONNXModel +
				", then --nli onnx) or an LLM (--nli llm).")
			break
		}
		model, err := p.openONNX(o.NLI)
		if err != nil && o.NLI.Model == "" {
			// The default model was pulled but cannot run here (no ONNX
			// Runtime, say): auto falls back rather than fail.
			fmt.Fprintf(p.res.log, "fr: warning: --nli auto cannot use %s: %v\n", DefaultONNXModel, err)
			cl = p.lexicalFallback("fr: warning: records without relations use the lexical fallback (rough word overlap).")
			break
		}
		if err != nil {
			return fmt.Errorf("--nli onnx: %w", err)
		}
		cl = model
	case "given":
		p.Given = GivenAlways
		return nil
	case "lexical":
		cl = lexical.New()
	case "onnx":
		model, err := p.openONNX(o.NLI)
		if err != nil {
			return fmt.Errorf("--nli onnx: %w", err)
		}
		cl = model
	case "llm":
		prompt, err := llmnli.ParsePrompt(o.LLMPrompt)
		if err != nil {
			return optionErr("nli-prompt", err)
		}
		st, err := p.llmStages(o)
		if err != nil {
			return err
		}
		st.classifier = llmnli.New(st.client, prompt)
		cl = st.classifier
	default:
		return optionErr("nli", fmt.Errorf("unknown backend %q (want auto, given, onnx, llm or lexical)", backend))
	}
	path, err := sqlcache.Resolve(o.Caches.NLI, sqlcache.NLI)
	if err != nil {
		return fmt.Errorf("--cache: %w", err)
	}
	if path != "" {
		cache, err := nli.OpenCache(path, cl)
		if err != nil {
			return fmt.Errorf("--cache: %w", err)
		}
		p.onClose(cache.Close)
		cl = cache
	}
	p.Classifier = cl
	return nil
}

// lexicalFallback is the lexical backend that prints msg the first time
// it is used.
func (p *Pipeline) lexicalFallback(msg string) nli.Classifier {
	return &warnFirstUse{Classifier: lexical.New(), w: p.res.log, msg: msg}
}

// warnFirstUse prints a warning the first time its classifier is used.
type warnFirstUse struct {
	nli.Classifier
	w    io.Writer
	msg  string
	once sync.Once
}

func (c *warnFirstUse) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	c.once.Do(func() { fmt.Fprintln(c.w, c.msg) })
	return c.Classifier.Classify(ctx, pairs)
}

// openONNX loads the onnx backend's model.
func (p *Pipeline) openONNX(o NLIOptions) (*onnxnli.Model, error) {
	ref, err := ResolveModel(o.Model)
	if err != nil {
		return nil, err
	}
	opts := o.ONNX
	opts.Name, opts.Graph = ref.Name, ref.Graph
	m, err := onnxnli.Load(ref.Dir, opts)
	if err != nil {
		return nil, err
	}
	p.onClose(m.Close)
	p.onSummary(func(w io.Writer) {
		s := m.Stats()
		if s.Pairs == 0 {
			return
		}
		fmt.Fprintf(w, "fr: onnx nli %s: %d pairs, %d model inputs; %d premises split into chunks (up to %d), %d hypotheses cut to half the %d-token window\n",
			m.Identity().Model, s.Pairs, s.Sequences, s.ChunkedPairs, s.MaxChunksOfPair, s.CutHypotheses, m.MaxLength())
	})
	return m, nil
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
		return nil, optionErr("llm-model", fmt.Errorf("--llm-model is required by the LLM stages: the model name at the endpoint %s, e.g. gpt-4o-mini (see the README, \"Using an LLM endpoint\")", redact.URL(base)))
	}
	path, err := sqlcache.Resolve(defaultOn(o.Caches.LLM), sqlcache.LLM)
	if err != nil {
		return nil, fmt.Errorf("--llm-cache: %w", err)
	}
	cfg.CachePath, cfg.Retry = path, p.res.retry
	client, err := llm.New(cfg)
	if err != nil {
		return nil, err
	}
	st := &llmStages{client: client}
	p.res.llm = st
	p.onClose(client.Close)
	p.onSummary(func(w io.Writer) {
		fmt.Fprintf(w, "fr: llm %s at %s: %s\n", client.Model(), client.Endpoint(), client.Usage())
		if st.classifier != nil {
			fmt.Fprintf(w, "fr: llm nli: %s\n", st.classifier.Stats())
		}
		if st.atomizer != nil {
			fmt.Fprintf(w, "fr: llm atomizer: %s\n", st.atomizer.Stats())
		}
		if st.reviser != nil {
			fmt.Fprintf(w, "fr: llm reviser: %s\n", st.reviser.Stats())
		}
	})
	return st, nil
}

// openAtomizer opens the atomizer and reviser of o.
func (p *Pipeline) openAtomizer(o Options) error {
	revise := o.Revise == ReviseOn
	switch o.Atomizer {
	case "":
		return nil
	case "sentences":
		p.Atomizer = atomize.Sentences{}
	case "llm":
		st, err := p.llmStages(o)
		if err != nil {
			return err
		}
		st.atomizer = atomize.NewLLM(st.client)
		p.Atomizer = st.atomizer
		revise = o.Revise != ReviseOff
	default:
		return optionErr("atomizer", fmt.Errorf("unknown atomizer %q (want llm or sentences)", o.Atomizer))
	}
	if !revise {
		return nil
	}
	st, err := p.llmStages(o)
	if err != nil {
		return fmt.Errorf("--revise: %w", err)
	}
	st.reviser = atomize.NewLLMReviser(st.client)
	p.Reviser = st.reviser
	return nil
}

// openRetriever opens the knowledge source of o.Retrieval, behind the
// retrieval cache.
func (p *Pipeline) openRetriever(o Options) error {
	ro := o.Retrieval
	source := ro.Source
	if source == "" || source == "auto" {
		source = "none"
		if ro.DB != "" {
			source = "db"
		}
	}
	var (
		r    retrieve.Retriever
		name string
	)
	switch source {
	case "none":
		return nil
	case "db":
		if ro.DB == "" {
			return optionErr("source", errors.New("db needs --db KB.db"))
		}
		db, err := retrieve.OpenDocDB(ro.DB)
		if err != nil {
			return fmt.Errorf("--db: %w", err)
		}
		p.onClose(db.Close)
		br := retrieve.NewBM25Retriever(db)
		r, name = br, br.Source()
	case "wikipedia":
		if ro.DB != "" {
			return optionErr("db", errors.New("--db and --source wikipedia: choose one knowledge source"))
		}
		w := retrieve.NewWikipedia(ro.Wikipedia.Endpoint)
		if ro.Wikipedia.UserAgent != "" {
			w.UserAgent = ro.Wikipedia.UserAgent
		}
		if ro.Wikipedia.MinInterval != 0 {
			w.MinInterval = ro.Wikipedia.MinInterval
		}
		w.Retry = p.res.retry
		r, name = w, w.Source()
	default:
		return optionErr("source", fmt.Errorf("%q is not auto, db or wikipedia", ro.Source))
	}
	path, err := sqlcache.Resolve(defaultOn(o.Caches.Retrieval), sqlcache.Retrieval)
	if err != nil {
		return fmt.Errorf("--retrieval-cache: %w", err)
	}
	if path != "" {
		cache, err := retrieve.OpenCache(path)
		if err != nil {
			return fmt.Errorf("--retrieval-cache: %w", err)
		}
		p.onClose(cache.Close)
		r = cache.Wrap(name, r)
	}
	p.Retriever = r
	return nil
}

// openVerifier opens FActScore's verifier.
func (p *Pipeline) openVerifier(o Options) error {
	p.Abstention = factscore.AbstentionGeneric
	if o.FActScore.Abstention != "" {
		a, err := factscore.ParseAbstention(string(o.FActScore.Abstention))
		if err != nil {
			return optionErr("abstention", err)
		}
		p.Abstention = a
	}
	switch v := o.FActScore.Verifier; v {
	case "":
	case "llm":
		st, err := p.llmStages(o)
		if err != nil {
			return err
		}
		p.Verifier = &factscore.LLMVerifier{Generator: st.client, Model: st.client.Model()}
		p.res.verifier = p.Verifier.Name()
	case "nli":
		th := o.FActScore.Threshold
		if th < 0 || th >= 1 {
			return optionErr("threshold", fmt.Errorf("%v: want a probability in [0, 1)", th))
		}
		p.Threshold = th
		backend := o.NLI.Backend
		if backend == "" {
			backend = "auto"
		}
		p.res.verifier = "nli:" + backend
	default:
		return optionErr("verifier", fmt.Errorf("%q is not llm or nli", v))
	}
	return nil
}

// VerifierName names FActScore's verifier as Options.FActScore chose it:
// "llm:MODEL", or "nli:" and the NLI backend's name.
func (p *Pipeline) VerifierName() string { return p.res.verifier }

// defaultOn is a cache setting whose default ("") is auto.
func defaultOn(setting string) string {
	if setting == "" {
		return "auto"
	}
	return setting
}
