package assemble

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/factverify"
	"github.com/factreasoner/factreasoner-go/foreign"
	"github.com/factreasoner/factreasoner-go/internal/endpoint"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/kbindex"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/lexical"
	"github.com/factreasoner/factreasoner-go/nli/llmnli"
	"github.com/factreasoner/factreasoner-go/nli/nlimodel"
	"github.com/factreasoner/factreasoner-go/prompts"
	"github.com/factreasoner/factreasoner-go/querybuild"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/retry"
	"github.com/factreasoner/factreasoner-go/score"
	"github.com/factreasoner/factreasoner-go/veriscore"
)

// The pluggable parts of a pipeline are listed in tables, one per kind:
// NLIBackends, Atomizers, RetrievalSources, Verifiers (and Algorithms,
// the inference engines). Each entry has the name Options choose it by, a
// line that says what it is, and how to open it from the options; Open
// looks the chosen names up. A program lists a table for its help, and
// adds its own parts beside the built-in ones (NLIOptions.Extra). A part
// that can say what it did at the end of a run is a RunSummarizer.

// Env is what a part's Open is given: the options, and the pipeline's
// shared resources (its log, its retry policy, what it closes at Close).
type Env struct {
	Options Options
	p       *Pipeline
}

// Logf writes a line to the pipeline's log (Options.Log).
func (e *Env) Logf(format string, args ...any) { fmt.Fprintf(e.p.res.log, format+"\n", args...) }

// Warn writes a warning about a single record to the log.
func (e *Env) Warn(msg string) { e.p.Warn(msg) }

// Retry is the retry policy every HTTP client of the pipeline shares.
func (e *Env) Retry() *retry.Policy { return e.p.res.retry }

// OnClose registers what Close releases (latest first).
func (e *Env) OnClose(close func() error) { e.p.onClose(close) }

// RunSummarizer is a part that says, at the end of a run, what it did: one
// line for the log, or "" when it did nothing. Close writes them.
type RunSummarizer interface {
	RunSummary() string
}

// InProcess is an NLI classifier that runs its model in this process on
// every core (InProcess returns true): AutoJobs then scores one record at a
// time, since a second in flight only makes the two contend.
type InProcess interface {
	InProcess() bool
}

// summarize registers a part's end-of-run summary, when it has one.
func (p *Pipeline) summarizeAtClose(part any) {
	if s, ok := part.(RunSummarizer); ok {
		p.onSummary(func(w io.Writer) {
			if line := s.RunSummary(); line != "" {
				fmt.Fprintln(w, line)
			}
		})
	}
}

// NLIBackend is an entry of the table of NLI backends.
type NLIBackend struct {
	Name        string // as Options.NLI.Backend names it
	Description string // one line
	// Given says when a record's own relations are used instead of the
	// classifier.
	Given assess.GivenMode
	// Open opens the classifier; nil for a backend that has none (given).
	// It may return a nil classifier and no error (auto without a model):
	// records without relations are then an error, ErrNoNLI. A classifier
	// that is an io.Closer is closed at Close; one that is a RunSummarizer
	// says what it did there.
	Open func(ctx context.Context, env *Env) (nli.Classifier, error)
	// Settings are the options it reads (Setting).
	Settings []Setting
}

// NLIBackends is the table of the built-in NLI backends.
func NLIBackends() []NLIBackend {
	return []NLIBackend{
		{Name: "auto", Given: assess.GivenWhenPresent, Open: openAuto, Settings: onnxSettings,
			Description: "a record's own relations when it has some; onnx for the others when a model is available (NLI.Model, or the default model pulled), else an error"},
		{Name: "given", Given: assess.GivenAlways, Description: "the records' own relations only; every other pair is neutral"},
		{Name: "onnx", Open: openONNXBackend, Settings: onnxSettings, Description: "an MNLI cross-encoder run in this process by ONNX Runtime (NLI.Model)"},
		{Name: "remote", Open: openRemoteBackend, Settings: remoteSettings,
			Description: "the cross-encoder of the model (NLI.Model) run by an inference server (NLI.Remote.Endpoint)"},
		{Name: "llm", Open: openLLMBackend, Settings: llmNLISettings, Description: "an LLM at an OpenAI-compatible endpoint (LLM.Model)"},
		{Name: "lexical", Open: func(context.Context, *Env) (nli.Classifier, error) { return lexical.New(), nil }, Settings: []Setting{nliCache},
			Description: "word coverage with number and negation checks: for trying the tool, not for results"},
	}
}

// Names lists the names of a table's entries, for "want one of" messages.
func Names[T any](table []T, name func(T) string) []string {
	out := make([]string, len(table))
	for i, e := range table {
		out[i] = name(e)
	}
	return out
}

// oneOf writes names as "a, b or c".
func oneOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// nliBackend looks a backend up in the built-in table and o.NLI.Extra; two
// names, "FIRST,SECOND", are a cascade of the two (openCascade).
func nliBackend(o Options) (NLIBackend, error) {
	name := o.NLI.Backend
	if name == "" {
		name = "auto"
	}
	if first, second, ok := strings.Cut(name, ","); ok {
		return cascadeBackend(o, strings.TrimSpace(first), strings.TrimSpace(second))
	}
	builtin := NLIBackends()
	for _, b := range o.NLI.Extra {
		if slices.ContainsFunc(builtin, func(d NLIBackend) bool { return d.Name == b.Name }) {
			return NLIBackend{}, optionErr("NLI.Extra", fmt.Errorf("%s is a built-in backend's name", b.Name))
		}
	}
	table := append(builtin, o.NLI.Extra...)
	if i := slices.IndexFunc(table, func(b NLIBackend) bool { return b.Name == name }); i >= 0 {
		return table[i], nil
	}
	return NLIBackend{}, optionErr("NLI.Backend", fmt.Errorf("unknown backend %q (want %s)", name, oneOf(Names(table, func(b NLIBackend) string { return b.Name }))))
}

func openAuto(ctx context.Context, env *Env) (nli.Classifier, error) {
	p, o := env.p, env.Options
	if !nlimodel.Available(o.NLI.Model) {
		// Records with relations are scored from them; the others are an
		// error that says how to get NLI (ErrNoNLI), never a guess.
		p.NoNLI = "the default model " + nlimodel.Default + " is not in the model store"
		return nil, nil
	}
	model, err := openONNXBackend(ctx, env)
	if err != nil && o.NLI.Model == "" {
		// The default model was pulled but cannot run here (no ONNX
		// Runtime, say): records with relations can still be scored.
		p.NoNLI = fmt.Sprintf("the default model %s cannot be used: %v", nlimodel.Default, err)
		return nil, nil
	}
	return model, err
}

func openONNXBackend(_ context.Context, env *Env) (nli.Classifier, error) {
	m, err := env.p.openONNX(env.Options.NLI)
	if err != nil {
		return nil, fmt.Errorf("nli onnx: %w", err)
	}
	return m, nil
}

func openRemoteBackend(ctx context.Context, env *Env) (nli.Classifier, error) {
	c, err := env.p.openRemote(ctx, env.Options.NLI)
	if err != nil {
		return nil, fmt.Errorf("nli remote: %w", err)
	}
	return c, nil
}

func openLLMBackend(_ context.Context, env *Env) (nli.Classifier, error) {
	o := env.Options
	prompt, err := llmnli.ParsePrompt(o.LLMPrompt)
	if err != nil {
		return nil, optionErr("LLMPrompt", err)
	}
	st, err := env.p.llmStages(o)
	if err != nil {
		return nil, err
	}
	method, err := llm.ParseMethod(o.LLMMethod)
	if err != nil {
		return nil, optionErr("LLMMethod", err)
	}
	lo := llmnli.Options{Prompt: prompt, Method: method, Samples: o.LLMSamples, FixedProbability: o.LLMFixedProbability, Log: env.p.res.log}
	if tmpl, ok, err := env.p.stagePrompt(prompts.NLI, prompt.String()); err != nil {
		return nil, err
	} else if ok {
		lo.Template = &tmpl
	}
	if st.classifier, err = llmnli.New(st.client, lo); err != nil {
		return nil, optionErr("LLMMethod", err)
	}
	return st.classifier, nil
}

// openQueryBuilder opens the LLM stages with the query writer of
// Retrieval.QueryBuilder, in the prompt set Options.Prompts chooses for the
// query builder (fr's own by default).
func (p *Pipeline) openQueryBuilder(o Options) (*llmStages, error) {
	st, err := p.llmStages(o)
	if err != nil {
		return nil, err
	}
	tmpl, ok, err := p.stagePrompt(prompts.QueryBuilder, "")
	switch {
	case err != nil:
		return nil, err
	case ok:
		st.queries, err = querybuild.NewPrompt(st.client, tmpl)
	default:
		st.queries = querybuild.New(st.client)
	}
	return st, err
}

// Atomizer is an entry of the table of atomizers.
type Atomizer struct {
	Name        string // as Options.Atomizer names it
	Description string
	// RevisedByDefault says whether ReviseDefault revises its atoms.
	RevisedByDefault bool
	Open             func(env *Env) (atomize.Atomizer, error)
	// Settings are the options it reads (Setting).
	Settings []Setting
}

// Atomizers is the table of the atomizers.
func Atomizers() []Atomizer {
	return []Atomizer{
		{Name: "llm", RevisedByDefault: true, Description: "FactReasoner's atomizer prompt to the LLM endpoint (LLM.Model)", Settings: llmStage(),
			Open: func(env *Env) (atomize.Atomizer, error) {
				st, err := env.p.llmStages(env.Options)
				if err != nil {
					return nil, err
				}
				tmpl, ok, err := env.p.stagePrompt(prompts.Atomizer, "")
				switch {
				case err != nil:
					return nil, err
				case ok:
					st.atomizer, err = atomize.NewLLMPrompt(st.client, tmpl)
				default:
					st.atomizer = atomize.NewLLM(st.client)
				}
				return st.atomizer, err
			}},
		{Name: "sentences", Description: "one atom per sentence of the response, without a model",
			Open: func(*Env) (atomize.Atomizer, error) { return atomize.Sentences{}, nil }},
		{Name: "veriscore", Description: "VeriScore's claim extraction by the LLM (LLM.Model), sentence by sentence: verifiable claims only", Settings: llmSettings,
			Open: func(env *Env) (atomize.Atomizer, error) {
				st, err := env.p.llmStages(env.Options)
				if err != nil {
					return nil, err
				}
				e, err := veriscore.NewClaimExtractor(st.client)
				if err != nil {
					return nil, err
				}
				env.p.onSummary(func(w io.Writer) { fmt.Fprintf(w, "veriscore claims: %s\n", e.Stats()) })
				return e, nil
			}},
	}
}

// RetrievalSource is an entry of the table of knowledge sources.
type RetrievalSource struct {
	Name        string // as Options.Retrieval.Source lists it
	Description string
	// Open opens the source; cacheName names it in the retrieval cache
	// (it says its settings: the knowledge base, the endpoint). A source
	// whose results are pages is given the page fetcher, when pages are
	// fetched (RetrievalOptions.Pages).
	Open func(ctx context.Context, env *Env, query retrieve.QueryMode) (r retrieve.Retriever, cacheName string, err error)
	// Web says whether the source's results are web pages, whose text
	// RetrievalOptions.Pages fetches.
	Web bool
	// Settings are the options it reads (Setting).
	Settings []Setting
}

// RetrievalSources is the table of the knowledge sources.
func RetrievalSources() []RetrievalSource {
	return []RetrievalSource{
		{Name: "db", Description: "a knowledge base in FActScore's SQLite format (Retrieval.DB): BM25 over the topic's passages, or a search of every passage (Retrieval.Scope, Retrieval.Ranking)", Open: openDB,
			Settings: []Setting{
				{Path: "Retrieval.DB", Identifies: true, Group: GroupRetrieval,
					Usage: "knowledge base `KB.db` in FActScore's SQLite format (fr kb build makes one)"},
				{Path: "Retrieval.SkipMissingTopics", Default: "error", Identifies: true, Group: GroupRetrieval,
					Usage: "a record whose topic is no title of the knowledge base: error (as FActScore) or skip",
					Details: "Also for a record without a topic. error stops the run, as FActScore does; skip warns, and takes " +
						"contexts from the other sources only, or none.",
					Set: either("error", "skip", func(o *Options) *bool { return &o.Retrieval.SkipMissingTopics })},
				{Path: "Retrieval.Scope", Default: "topic", Identifies: true, Group: GroupRetrieval,
					Usage: "passages searched in the knowledge base: topic (the topic's document, or all without one) or corpus",
					Details: "topic: a record with a topic is searched in the document of that title (FActScore's retrieval), a record without one in every " +
						"passage of the knowledge base (its index; fr kb build writes one). corpus: every record in every passage, its query topic + atom."},
				{Path: "Retrieval.Ranking", Default: "bm25", Identifies: true, Group: GroupRetrieval,
					Usage: "ranking of a search of every passage of the knowledge base: bm25, dense or hybrid",
					Details: "How a search of every passage ranks them: bm25 (the index's words), dense (the cosine similarity of the query's vector, " +
						"embedded at Retrieval.Embed.BaseURL, to the passages' vectors) or hybrid (the two fused by reciprocal rank). dense and hybrid need a " +
						"knowledge base built with an embedding model (fr kb build --embed-model); the key is read from $OPENAI_API_KEY."},
			}},
		{Name: "wikipedia", Description: "the MediaWiki API of Wikipedia (Retrieval.Wikipedia.Endpoint)", Open: openWikipedia,
			Settings: append([]Setting{queryMode,
				{Path: "Retrieval.Wikipedia.Endpoint", Default: retrieve.DefaultWikipediaEndpoint, URL: true, Identifies: true, Group: GroupWeb,
					Usage: "MediaWiki api.php URL of the wikipedia source"},
				{Path: "Retrieval.Wikipedia.UserAgent", DefaultText: "factreasoner-go/VERSION (project URL)", Group: GroupWeb,
					Usage: "User-Agent for Wikipedia, with your contact as Wikimedia asks", Details: "factreasoner-go/VERSION is added after it."},
				{Path: "Retrieval.Wikipedia.MinInterval", Kind: Duration, Default: retrieve.DefaultMinInterval.String(), Group: GroupWeb,
					Usage: "least time between two Wikipedia requests"},
			}, httpSettings...)},
		{Name: "serper", Web: true, Description: "Google results through the Serper API (Retrieval.Serper.Endpoint)", Open: openSerper,
			Settings: append([]Setting{queryMode,
				{Path: "Retrieval.Serper.Endpoint", Default: retrieve.DefaultSerperEndpoint, URL: true, Identifies: true, Group: GroupWeb,
					Usage: "Serper search URL of the serper source (the key is read from $" + retrieve.SerperKeyEnv + ")"},
				fetchPages,
			}, httpSettings...)},
		{Name: "searxng", Web: true, Description: "a SearXNG instance's results (Retrieval.SearXNG.URL)", Open: openSearXNG,
			Settings: append([]Setting{queryMode,
				{Path: "Retrieval.SearXNG.URL", URL: true, Identifies: true, Group: GroupWeb,
					Usage: "SearXNG instance of the searxng source, as `http://localhost:8888`", Details: "The instance's settings.yml must list json under search.formats."},
				fetchPages,
			}, httpSettings...)},
	}
}

func openDB(ctx context.Context, env *Env, _ retrieve.QueryMode) (retrieve.Retriever, string, error) {
	ro := env.Options.Retrieval
	if ro.DB == "" {
		return nil, "", optionErr("Retrieval.DB", errors.New("the db source needs a knowledge base"))
	}
	scope, err := retrieve.ParseScope(ro.Scope)
	if err != nil {
		return nil, "", optionErr("Retrieval.Scope", err)
	}
	ranking, err := retrieve.ParseRanking(ro.Ranking)
	if err != nil {
		return nil, "", optionErr("Retrieval.Ranking", err)
	}
	db, err := retrieve.OpenDocDB(ro.DB)
	if err != nil {
		return nil, "", optionErr("Retrieval.DB", err)
	}
	env.OnClose(db.Close)
	if _, err := db.Content(ctx, env.p.res.retrievalCache, contentProgress(env, ro.DB)); err != nil {
		return nil, "", err
	}
	kb := &retrieve.KB{Topic: retrieve.NewBM25Retriever(db), Scope: scope}
	corpus, err := retrieve.NewCorpus(ctx, db)
	switch {
	case errors.Is(err, kbindex.ErrNoIndex):
		if scope == retrieve.ScopeCorpus {
			return nil, "", optionErr("Retrieval.Scope", err)
		}
		if ranking != retrieve.RankBM25 {
			return nil, "", optionErr("Retrieval.Ranking", err)
		}
		return kb, kb.Source(), nil
	case err != nil:
		return nil, "", optionErr("Retrieval.DB", err)
	}
	env.OnClose(corpus.Close)
	kb.Corpus, kb.CorpusName = corpus, corpus.Source()
	if ranking != retrieve.RankBM25 {
		vs, err := openVectorSearch(ctx, env, corpus, ranking)
		if err != nil {
			return nil, "", err
		}
		kb.Corpus, kb.CorpusName = vs, vs.Source()
	}
	if scope == retrieve.ScopeCorpus {
		env.p.RetrievalSettings = append(env.p.RetrievalSettings, "kb_scope=corpus")
	}
	if ranking != retrieve.RankBM25 {
		model, dim, _ := corpus.EmbedModel()
		env.p.RetrievalSettings = append(env.p.RetrievalSettings, fmt.Sprintf("kb_ranking=%s:%s/%d", ranking, model, dim))
	}
	return kb, kb.Source(), nil
}

// contentProgress says, on the log, that a knowledge base's content
// identity is being computed (it records none), and how far it is, every
// ten seconds.
func contentProgress(env *Env, path string) func(read, size int64) {
	var last time.Time
	return func(read, size int64) {
		switch {
		case read == 0:
			env.Logf("knowledge base %s records no content identity: reading its documents once (%.1f GB file) to compute one; the retrieval cache keeps it", path, float64(size)/1e9)
			last = time.Now()
		case time.Since(last) >= 10*time.Second && size > 0:
			env.Logf("knowledge base %s: %.0f%% read", path, 100*float64(read)/float64(size))
			last = time.Now()
		}
	}
}

// openVectorSearch opens the dense or hybrid search of a knowledge base,
// its queries embedded at Retrieval.Embed.
func openVectorSearch(ctx context.Context, env *Env, corpus *retrieve.Corpus, ranking retrieve.Ranking) (*retrieve.VectorSearch, error) {
	o := env.Options
	eo := o.Retrieval.Embed
	model := eo.Model
	kbModel, _, ok := corpus.EmbedModel()
	if !ok {
		return nil, optionErr("Retrieval.Ranking", fmt.Errorf("%s search: %w", ranking, kbindex.ErrNoVectors))
	}
	if model == "" {
		model = kbModel
	}
	cfg := llm.Config{BaseURL: firstOf(eo.BaseURL, o.LLM.BaseURL), APIKey: firstOf(eo.APIKey, o.LLM.APIKey), Model: model, Retry: env.Retry(), Timeout: o.LLM.Timeout}
	if b := strings.TrimSpace(cfg.BaseURL); b != "" {
		if _, err := endpoint.Parse(b); err != nil {
			return nil, optionErr("Retrieval.Embed.BaseURL", err)
		}
	}
	client, err := llm.New(cfg)
	if err != nil {
		return nil, optionErr("Retrieval.Embed", err)
	}
	env.OnClose(client.Close)
	vs, err := retrieve.NewVectorSearch(ctx, corpus, ranking, client, eo.Model)
	if err != nil {
		return nil, optionErr("Retrieval.Embed.Model", err)
	}
	env.p.onSummary(func(w io.Writer) {
		if u := client.Usage(); u.Requests > 0 {
			fmt.Fprintf(w, "embeddings %s at %s: %d queries embedded, %d requests (%d retries)\n", model, client.EmbedEndpoint(), u.Calls, u.Requests, u.Retries)
		}
	})
	return vs, nil
}

// firstOf returns the first of its arguments that is not empty.
func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func openWikipedia(_ context.Context, env *Env, query retrieve.QueryMode) (retrieve.Retriever, string, error) {
	ro := env.Options.Retrieval
	w := retrieve.NewWikipedia(ro.Wikipedia.Endpoint)
	if ro.Wikipedia.UserAgent != "" {
		w.UserAgent = ro.Wikipedia.UserAgent
	}
	if ro.Wikipedia.MinInterval != 0 {
		w.MinInterval = ro.Wikipedia.MinInterval
	}
	w.Query, w.Retry = query, env.Retry()
	return w, w.Source(), nil
}

func openSerper(_ context.Context, env *Env, query retrieve.QueryMode) (retrieve.Retriever, string, error) {
	ro := env.Options.Retrieval
	key := ro.Serper.APIKey
	if key == "" {
		key = os.Getenv(retrieve.SerperKeyEnv)
	}
	s, err := retrieve.NewSerper(ro.Serper.Endpoint, key)
	if err != nil {
		return nil, "", optionErr("Retrieval.Serper", err)
	}
	s.Query, s.Retry = query, env.Retry()
	env.p.onSummary(func(w io.Writer) {
		if n := s.Searches(); n > 0 {
			fmt.Fprintf(w, "serper: %d searches at %s%s\n", n, redact.URL(s.Endpoint), droppedLinks(s.DroppedLinks()))
		}
	})
	return s, s.Source(), nil
}

func openSearXNG(_ context.Context, env *Env, query retrieve.QueryMode) (retrieve.Retriever, string, error) {
	ro := env.Options.Retrieval
	if ro.SearXNG.URL == "" {
		return nil, "", optionErr("Retrieval.SearXNG.URL", errors.New("the searxng source needs the instance's URL, as http://localhost:8888"))
	}
	s, err := retrieve.NewSearXNG(ro.SearXNG.URL)
	if err != nil {
		return nil, "", optionErr("Retrieval.SearXNG.URL", err)
	}
	s.Query, s.Retry = query, env.Retry()
	env.p.onSummary(func(w io.Writer) {
		if n := s.Searches(); n > 0 {
			fmt.Fprintf(w, "searxng: %d searches at %s%s\n", n, redact.URL(s.Endpoint), droppedLinks(s.DroppedLinks()))
		}
	})
	return s, s.Source(), nil
}

// openLabelVerifier opens a three-label LLM verifier (a baseline's) over
// the pipeline's LLM client, its counts said at the end of the run.
func openLabelVerifier(env *Env, open func(*llm.Client) (*factscore.LabelVerifier, error)) (factscore.Verifier, string, error) {
	st, err := env.p.llmStages(env.Options)
	if err != nil {
		return nil, "", err
	}
	v, err := open(st.client)
	if err != nil {
		return nil, "", err
	}
	env.p.onSummary(func(w io.Writer) { fmt.Fprintf(w, "llm %s verifier: %s\n", v.Verifier, v.Stats()) })
	return v, v.Name(), nil
}

// Verifier is an entry of the table of FActScore's verifiers.
type Verifier struct {
	Name        string // as Options.FActScore.Verifier names it
	Description string
	// Open opens the verifier and returns its name for reports; a nil
	// verifier is the NLI verifier (Pipeline.Verifier).
	Open func(env *Env) (v factscore.Verifier, name string, err error)
	// Settings are the options it reads (Setting).
	Settings []Setting
}

// Verifiers is the table of FActScore's verifiers.
func Verifiers() []Verifier {
	return []Verifier{
		{Name: "llm", Description: "FActScore's prompt to the LLM endpoint (LLM.Model)", Settings: llmSettings, Open: func(env *Env) (factscore.Verifier, string, error) {
			st, err := env.p.llmStages(env.Options)
			if err != nil {
				return nil, "", err
			}
			v := &factscore.LLMVerifier{Generator: st.client, Model: st.client.Model()}
			env.p.onSummary(func(w io.Writer) { fmt.Fprintf(w, "llm factscore verifier: %s\n", v.Stats()) })
			return v, v.Name(), nil
		}},
		{Name: "veriscore", Description: "FactReasoner's VeriScore prompt to the LLM endpoint (LLM.Model): [Supported], [Contradicted] or [Unverifiable]", Settings: llmSettings,
			Open: func(env *Env) (factscore.Verifier, string, error) {
				return openLabelVerifier(env, veriscore.NewVerifier)
			}},
		{Name: "factverify", Description: "FactReasoner's FactVerify prompt to the LLM endpoint (LLM.Model): ###Supported###, ###Contradicted### or ###Inconclusive###", Settings: llmSettings,
			Open: func(env *Env) (factscore.Verifier, string, error) {
				return openLabelVerifier(env, factverify.NewVerifier)
			}},
		{Name: "nli", Description: "the NLI backend: an atom is supported iff some passage entails it with probability above the threshold (FActScore.Threshold)",
			Settings: []Setting{{Path: "FActScore.Threshold", Kind: Float, Default: strconv.FormatFloat(factscore.DefaultThreshold, 'g', -1, 64), Group: GroupFActScore,
				Usage: "nli verifier: entailment probability a context must exceed"}},
			Open: func(env *Env) (factscore.Verifier, string, error) {
				th := env.Options.FActScore.Threshold
				if th < 0 || th >= 1 {
					return nil, "", optionErr("FActScore.Threshold", fmt.Errorf("%v: want a probability in [0, 1)", th))
				}
				env.p.Threshold = th
				backend := env.Options.NLI.Backend
				if backend == "" {
					backend = "auto"
				}
				return nil, "nli:" + backend, nil
			}},
	}
}

// The baselines fr compare runs beside the versions (OpenBaseline).
const (
	BaselineFActScore  = "factscore"
	BaselineVeriScore  = "veriscore"
	BaselineFactVerify = "factverify"
)

// OpenBaseline opens a baseline of a comparison by name: "factscore",
// classic FActScore with the NLI verifier (an atom is supported iff a
// context entails it with probability above threshold); "veriscore" and
// "factverify", FactReasoner's VeriScore and FactVerify verifiers over
// the LLM endpoint (Options.LLM), as the Verifiers table opens them.
// VeriScore's row also records its own score, VeriScore with its K
// (veriscore.Score), as its Recorded "veriscore" and "veriscore_k". The
// pipeline must have been made by Open.
func (p *Pipeline) OpenBaseline(name string, threshold float64) (assess.Baseline, error) {
	switch name {
	case BaselineFActScore:
		if threshold < 0 || threshold >= 1 {
			return assess.Baseline{}, optionErr("FActScore.Threshold", fmt.Errorf("%v: want a probability in [0, 1)", threshold))
		}
		return assess.Baseline{Threshold: threshold}, nil
	case BaselineVeriScore, BaselineFactVerify:
	default:
		return assess.Baseline{}, fmt.Errorf("unknown baseline %q (want %s, %s or %s)", name, BaselineFActScore, BaselineVeriScore, BaselineFactVerify)
	}
	table := Verifiers()
	i := slices.IndexFunc(table, func(v Verifier) bool { return v.Name == name })
	v, _, err := table[i].Open(&Env{Options: p.res.options, p: p})
	if err != nil {
		return assess.Baseline{}, err
	}
	if name == BaselineFactVerify {
		return assess.Baseline{Name: "FactVerify", Verifier: v}, nil
	}
	return assess.Baseline{Name: "VeriScore", Verifier: v, Recorded: veriScoreOf}, nil
}

// veriScoreOf is VeriScore over the responding responses of a row, with
// its own K.
func veriScoreOf(all []score.Scores) foreign.Values {
	var supported, claims []int
	for _, s := range all {
		if !s.Abstained {
			supported, claims = append(supported, s.NumTrueAtoms), append(claims, s.NumAtoms)
		}
	}
	if len(claims) == 0 {
		return foreign.Values{{Name: "veriscore"}, {Name: "veriscore_k"}}
	}
	k, vs := veriscore.Score(supported, claims)
	kf := float64(k)
	return foreign.Values{{Name: "veriscore", Value: &vs}, {Name: "veriscore_k", Value: &kf}}
}
