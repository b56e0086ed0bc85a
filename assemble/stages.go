package assemble

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/cachedir"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli/cascade"
	"github.com/factreasoner/factreasoner-go/nli/llmnli"
	"github.com/factreasoner/factreasoner-go/nli/nlimodel"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli"
	"github.com/factreasoner/factreasoner-go/prompts"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/retry"
	"github.com/factreasoner/factreasoner-go/score"
	"github.com/factreasoner/factreasoner-go/sqlcache"
	summarizer "github.com/factreasoner/factreasoner-go/summarize"
)

// The settings several parts read, each declared once here and listed in
// the table entry of every part that reads it, and the parts that are
// not entries of the tables of alternatives (NLIBackends, Atomizers,
// RetrievalSources, Verifiers, Algorithms): the network's priors, K,
// pruning, the fast mode, the cascade, the reviser, the abstention rule,
// the summarizer, the query builder, fetched pages, embeddings and what
// every knowledge source shares.

// httpSettings are read by every part that talks HTTP: one retry policy
// for the run (Options.Retry).
var httpSettings = []Setting{
	{Path: "Retry.Retries", Kind: Int, Default: strconv.Itoa(retry.DefaultRetries), Group: GroupLLM,
		Usage: "retries of an HTTP request after a 429, a 5xx, a timeout or a dropped connection",
		Details: "For every HTTP client of the run: the LLM endpoint, a remote NLI server, Wikipedia, search engines and web pages. " +
			"A request is retried after a rate limit (429), a server error (5xx), a timeout or a network error.",
		Set: func(o *Options, text string) error {
			n, err := strconv.Atoi(strings.TrimSpace(text))
			if err != nil || n < 0 {
				return fmt.Errorf("%q: want 0 or more", text)
			}
			o.retry().Retries = n
			return nil
		}},
	{Path: "Retry.FirstByte", Kind: Duration, Default: retry.DefaultFirstByte.String(), Group: GroupLLM,
		Usage: "time a server may take to start answering (0: no limit); one that says nothing is not asked again",
		Details: "For every HTTP client of the run, each attempt: Wikipedia, search engines and a remote NLI server's checks " +
			"wait this long for the start of an answer; the LLM endpoint (and the embeddings endpoint, Retrieval.Embed.BaseURL), whose answer starts only when it is whole, is asked once, " +
			"before its first request, for its list of models (GET BASE/models; any answer, an error too, passes). A server that " +
			"accepted the connection and said nothing in that time (a wrong port, a hung process) fails at once, not after the retries.",
		Set: func(o *Options, text string) error {
			d, err := time.ParseDuration(strings.TrimSpace(text))
			if err != nil || d < 0 {
				return fmt.Errorf("%q: want a duration, 0 for no limit", text)
			}
			if d == 0 {
				d = -1 // retry.Policy's "no limit"
			}
			o.retry().FirstByte = d
			return nil
		}},
}

// retry is the options' retry policy, made when first set.
func (o *Options) retry() *retry.Policy {
	if o.Retry == nil {
		o.Retry = &retry.Policy{}
	}
	return o.Retry
}

// llmSettings are the LLM endpoint's, read by every LLM stage.
var llmSettings = append([]Setting{
	{Path: "LLM.BaseURL", Default: llm.DefaultBaseURL, Env: []string{"OPENAI_BASE_URL"}, URL: true, Group: GroupLLM,
		Usage:   "OpenAI-compatible API root, /v1 included (vLLM: http://localhost:8000/v1)",
		Details: "For example http://localhost:8000/v1 (vLLM) or http://localhost:11434/v1 (Ollama)."},
	{Path: "LLM.APIKey", DefaultText: "none", Env: []string{"OPENAI_API_KEY"}, Secret: true, Group: GroupLLM,
		Usage: "API key; prefer the environment variable (a flag shows in the process list)"},
	{Path: "LLM.Model", Identifies: true, Group: GroupLLM, Usage: "model name at the endpoint, e.g. gpt-4o-mini (required by the LLM stages)"},
	{Path: "LLM.Concurrency", Kind: Int, Default: "4", Group: GroupLLM, Usage: "most LLM requests in flight at once"},
	{Path: "LLM.Timeout", Kind: Duration, Default: (2 * time.Minute).String(), Group: GroupLLM, Usage: "time limit of one LLM request attempt"},
}, append(httpSettings[:len(httpSettings):len(httpSettings)],
	Setting{Path: "LLM.Seed", Kind: Int, Default: "42", Group: GroupLLM, Usage: "seed sent with every request (temperature is always 0)"},
	Setting{Path: "LLM.Reasks", Kind: Int, Default: "2", Group: GroupLLM, Usage: "times an answer that cannot be read is asked again before the record fails",
		Details: "The answer is asked again with a reminder of the format; after the last try, the record fails."},
	Setting{Path: "Caches.LLM", Default: "auto", Group: GroupLLM, Usage: "LLM answers reused by later runs: an SQLite `FILE`, auto or off",
		Details: cacheDetails(sqlcache.LLM)},
)...)

// promptsSetting chooses the prompts of the stages that have another
// system's (prompts.ForStage).
var promptsSetting = Setting{Path: "Prompts", Default: prompts.Default, Identifies: true, Group: GroupLLM,
	Usage: "prompts of the LLM stages: default (fr's), factreasoner (IBM FactReasoner's), or `STAGE=SET,...`",
	Details: "default sends fr's own prompts, factreasoner IBM FactReasoner's, as its code has them (prompts/README.md), " +
		"for the atomizer, the reviser, the llm NLI backend (LLMPrompt, v1 or v2), the summarizer and the query builder (querybuilder); " +
		"atomizer=factreasoner,nli=factreasoner chooses per stage. The stages a run uses with FactReasoner's prompts are part of its identity (run.prompts).",
}

// llmStage are the settings of an LLM stage that has prompts of another
// system: the endpoint's and the prompts'.
func llmStage() []Setting {
	return append(llmSettings[:len(llmSettings):len(llmSettings)], promptsSetting)
}

// cacheDetails say where a cache of kind c is.
func cacheDetails(c sqlcache.Kind) string {
	return "auto is " + c.DefaultFile() + " in the cache directory ($" + cachedir.EnvVar + ", else ~/.cache/factreasoner-go); off keeps nothing."
}

// probabilityRule are the three settings of how an LLM stage (the llm
// backend, the summarizer) measures a probability (llm.Method): the
// method (Options path prefix + "Method"), the answers the sampling
// methods sample per item ("Samples") and the fixed method's probability
// of an answer without log probabilities ("FixedProbability"), which,
// given without a method, chooses the fixed method (as before there were
// others), 0 turning it off (the library's negative value).
func probabilityRule(prefix, group, stage, what, per, docs, valid string, fixed float64, fields func(*Options) (*string, *int, *float64)) []Setting {
	return []Setting{
		{Path: prefix + "Method", DefaultText: "auto", Identifies: true, Group: group,
			Usage: "how " + stage + " measures " + what + ": auto, logprobs, sample or fixed (" + docs + ")",
			Set: func(o *Options, text string) error {
				if _, err := llm.ParseMethod(text); err != nil {
					return err
				}
				m, _, _ := fields(o)
				*m = text
				return nil
			}},
		{Path: prefix + "Samples", Kind: Int, Default: strconv.Itoa(llm.DefaultSamples), Identifies: true, Group: group,
			Usage: "answers sampled per " + per + " by sample, and auto without log probabilities (" + prefix + "Method)"},
		{Path: prefix + "FixedProbability", Kind: Float, DefaultText: strconv.FormatFloat(fixed, 'g', -1, 64), Identifies: true, Group: group,
			Usage:   "the fixed method's " + strings.TrimPrefix(what, "a label's ") + " of an answer without log probabilities, 0: an error (" + prefix + "Method)",
			Details: "The value must be " + valid + "; 0 makes such an answer an error. Given alone, it chooses the fixed method.",
			Set: func(o *Options, text string) error {
				v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
				if err != nil {
					return fmt.Errorf("%q is not a number", text)
				}
				if v == 0 {
					v = -1
				}
				m, _, p := fields(o)
				*p = v
				if *m == "" {
					*m = "fixed"
				}
				return nil
			}},
	}
}

// The settings of the NLI backends that read a cross-encoder model (onnx,
// remote, and auto through onnx).
var (
	nliModel = Setting{Path: "NLI.Model", DefaultText: nlimodel.Default, Identifies: true, Group: GroupNLI,
		Usage: "model of the onnx and remote backends (NLI.Backend): a directory, or a hub repository id (fr models pull)",
		Details: "A directory holds model.onnx (or onnx/model.onnx), tokenizer.json and config.json; a hub repository id names a model " +
			"pulled into the model store (fr models pull). The remote backend takes the tokenizer, window and labels from it."}
	nliMaxLength = Setting{Path: "NLI.ONNX.MaxLength", Kind: Int, Identifies: true, Group: GroupNLIRuntime,
		Usage: "tokens per model input (0: the model's window); longer premises are split into chunks",
		Set:   crossEncoders(func(o *Options) (*int, *int) { return &o.NLI.ONNX.MaxLength, &o.NLI.Remote.MaxLength })}
	nliBatchSize = Setting{Path: "NLI.ONNX.BatchSize", Kind: Int, Default: strconv.Itoa(onnxnli.DefaultBatchSize), Group: GroupNLIRuntime,
		Usage: "most sequences per ONNX Runtime call (the remote backend: per request)",
		Set:   crossEncoders(func(o *Options) (*int, *int) { return &o.NLI.ONNX.BatchSize, &o.NLI.Remote.BatchSize })}
	// nliBatchTokens's default is the onnx backend's only: the remote
	// backend's own suits servers, not CPUs.
	nliBatchTokens = Setting{Path: "NLI.ONNX.BatchTokens", Kind: Int, DefaultText: strconv.Itoa(onnxnli.DefaultBatchTokens), Group: GroupNLIRuntime,
		Usage:   "most tokens per ONNX Runtime call (the remote backend: per request), padding included",
		Details: fmt.Sprintf("Padding included; a longer sequence runs alone. With the remote backend it bounds each request, by default %d.", remotenli.DefaultBatchTokens),
		Set:     crossEncoders(func(o *Options) (*int, *int) { return &o.NLI.ONNX.BatchTokens, &o.NLI.Remote.BatchTokens })}
	nliPositiveLabel = Setting{Path: "NLI.PositiveLabel", Identifies: true, Group: GroupNLI,
		Usage: "label of a 2-label grounding classifier that means supported (MiniCheck's exports: LABEL_1)"}
	nliUnsupported = Setting{Path: "NLI.Unsupported", Default: "neutral", Identifies: true, Group: GroupNLI,
		Usage: "a pair a grounding classifier finds not supported: neutral, or contradiction with 1 − P"}
	nliCache = Setting{Path: "Caches.NLI", Default: "off", Group: GroupNLI,
		Usage: "NLI answers reused by later runs: an SQLite `FILE`, auto or off", Details: cacheDetails(sqlcache.NLI)}
)

// crossEncoders reads a whole number of 0 or more into an option of the
// onnx backend and the same of the remote backend: one setting bounds the
// runs of the cross-encoder wherever it runs.
func crossEncoders(fields func(*Options) (onnx, remote *int)) func(o *Options, text string) error {
	return func(o *Options, text string) error {
		n, err := nonNegative(text)
		a, b := fields(o)
		*a, *b = n, n
		return err
	}
}

// nonNegative reads a whole number of 0 or more.
func nonNegative(text string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q: want a whole number, 0 or more", text)
	}
	return n, nil
}

// onnxSettings are the onnx backend's.
var onnxSettings = []Setting{nliModel,
	{Path: "NLI.ONNX.Library", DefaultText: "installed by scripts/install-onnxruntime", Env: []string{onnxnli.LibraryEnvVar}, Group: GroupNLIRuntime,
		Usage: "ONNX Runtime shared library (libonnxruntime.so)"},
	nliBatchSize, nliBatchTokens,
	{Path: "NLI.ONNX.Threads", Kind: Int, Group: GroupNLIRuntime, Usage: "ONNX Runtime threads (0: one per core)"},
	nliMaxLength, nliPositiveLabel, nliUnsupported, nliCache,
}

// remoteSettings are the remote backend's.
var remoteSettings = append([]Setting{nliModel,
	{Path: "NLI.Remote.Protocol", Default: remotenli.KServe, Identifies: true, Group: GroupNLIRuntime,
		Usage:   "protocol of the remote backend: kserve (Triton, KServe, MLServer) or tei (text-embeddings-inference)",
		Details: "kserve is the Open Inference Protocol (Triton, KServe, Seldon MLServer); tei is Hugging Face text-embeddings-inference."},
	{Path: "NLI.Remote.Endpoint", URL: true, Group: GroupNLIRuntime,
		Usage:   "base `URL` of the remote backend's inference server, e.g. http://localhost:8000",
		Details: "For example http://localhost:8000 (Triton) or http://localhost:8080 (TEI). Not part of a run's identity: the replicas of one deployment answer alike."},
	{Path: "NLI.Remote.Model", Identifies: true, Group: GroupNLIRuntime, Usage: "model name at the remote backend's server (required with kserve)",
		Details: "Required with kserve; with tei, it is checked against the served model."},
	{Path: "NLI.Remote.Concurrency", Kind: Int, Default: strconv.Itoa(remotenli.DefaultConcurrency), Group: GroupNLIRuntime,
		Usage: "most requests of the remote backend in flight at once"},
	{Path: "NLI.Remote.Timeout", Kind: Duration, Default: remotenli.DefaultTimeout.String(), Group: GroupNLIRuntime,
		Usage: "time limit of one request attempt of the remote backend", Details: "A failed attempt is retried (Retry.Retries, for every HTTP client of the run)."},
	nliBatchSize, nliBatchTokens, nliMaxLength, nliPositiveLabel, nliUnsupported, nliCache,
}, httpSettings...)

// llmNLISettings are the llm backend's.
var llmNLISettings = append([]Setting{
	{Path: "LLMPrompt", Default: "v1", Identifies: true, Group: GroupNLI,
		Usage:   "prompt of the llm backend: v1 (bare label) or v2 (reasoning, then [label])",
		Details: "v1 asks for the bare label, its probability taken from the label's tokens; v2 asks for reasoning, then [label], the probability taken from the label's tokens."},
	nliCache,
}, append(probabilityRule("LLM", GroupNLI, "the llm backend", "a label's probability", "pair", "docs/nli.md", "above 0.5 and below 1",
	llmnli.DefaultFixedProbability, func(o *Options) (*string, *int, *float64) { return &o.LLMMethod, &o.LLMSamples, &o.LLMFixedProbability }),
	llmStage()...)...)

// cascadePart is two NLI backends as one (NLIOptions.CascadeBelow).
func cascadePart() Part {
	return Part{Kind: KindNLI, Name: "cascade", Choice: "NLI.Backend", When: "a cascade FIRST,SECOND (NLI.Backend)", Identity: "run.nli",
		In: func(o Options) bool { return strings.Contains(o.NLI.Backend, ",") },
		Settings: []Setting{{Path: "NLI.CascadeBelow", Kind: Float, Default: strconv.FormatFloat(cascade.DefaultBelow, 'g', -1, 64), Identifies: true, Group: GroupNLI,
			Usage: "with a cascade FIRST,SECOND (NLI.Backend): pairs whose FIRST answer is less sure than this go to SECOND"}}}
}

// scoringParts are what every scoring run has: the network's priors, K,
// the fast mode, and pruning where a model is asked.
func scoringParts() []Part {
	return []Part{
		{Kind: KindScoring, Name: "priors", Identity: "priors", Settings: []Setting{
			{Path: "Graph.UsePriors", Kind: Bool, Default: "true", Identifies: true, Group: GroupScoring,
				Usage:   "fold each target's prior into its factor tables (false: the paper's Table 1)",
				Details: "Folds the target's prior into the factor tables, as the reference does by default; false gives the factors of the paper's Table 1."},
			{Path: "Graph.AtomPrior", Kind: Float, Default: fmt.Sprint(graph.DefaultOptions().AtomPrior), Identifies: true, Group: GroupScoring,
				Usage: "prior probability that an atom is true"},
			{Path: "Graph.ContextPrior", Kind: Float, Default: fmt.Sprint(graph.DefaultOptions().ContextPrior), Identifies: true, Group: GroupScoring,
				Usage: "prior probability that a context is true"},
		}},
		{Kind: KindScoring, Name: "K", Identity: "run.k", Settings: []Setting{
			{Path: "K", Default: "half", Identifies: true, Group: GroupScoring,
				Usage: "K of F1@K: half (max(⌊n/2⌋,1) per response), median (median atom count of the input) or a number",
				Set: func(o *Options, text string) (err error) {
					o.K, err = score.ParseK(text)
					return err
				}},
		}},
		{Kind: KindScoring, Name: "pruning", Choice: "NLI.Backend", When: "an NLI backend that asks a model (NLI.Backend)", Identity: "pairs_per_atom",
			In: func(o Options) bool { return o.NLI.Backend != "given" },
			Settings: []Setting{{Path: "PairsPerAtom", Default: assess.PairsPerAtomName(assess.DefaultPairsPerAtom), Identifies: true, Group: GroupScoring,
				Usage: "NLI pairs of each atom: its own contexts and its K best-matching others, `own+K` (or K); own or all",
				Details: "The NLI model is asked about each atom's own contexts (those retrieved for it, and the question's: FR1's pairs, always asked) " +
					"and its K best-matching other contexts (BM25 over the record's contexts; for FR3 also each context's K most similar contexts " +
					"beside its own partners); the other pairs are neutral. own (or 0) asks the own pairs only; all asks every pair, as the reference does.",
				Set: func(o *Options, text string) (err error) {
					o.PairsPerAtom, err = assess.ParsePairsPerAtom(text)
					return err
				}}}},
		{Kind: KindScoring, Name: "fast mode", Identity: "run.fast", Settings: []Setting{
			{Path: "NearDuplicates", Kind: Float, DefaultText: "off", Identifies: true, Group: GroupScoring,
				Usage: "contexts at least this similar (e.g. 0.92) are one variable in FR2 and FR3",
				Details: "A context whose words are at least this similar (cosine of word counts) to an earlier context's reads as that one: " +
					"one variable in FR2 and FR3, its id an alias. 0.92 is FactReasoner's fast preset; off (0) merges identical texts only.",
				Set: func(o *Options, text string) error {
					v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
					if err != nil || !(v >= 0 && v <= 1) {
						return fmt.Errorf("%q: want a similarity in (0, 1], or 0 for off", text)
					}
					o.NearDuplicates = v
					return nil
				}},
			{Path: "OneWayPairs", Default: "both", Identifies: true, Group: GroupScoring,
				Usage: "FR3's context pairs: both (asked both ways, as FactReasoner) or one-way",
				Details: "one-way asks each FR3 context pair with the longer text as premise, and the reverse only when that answer is not neutral " +
					"(docs/retrieval.md, Fast mode); both asks every pair both ways, as FactReasoner does.",
				Set: either("both", "one-way", func(o *Options) *bool { return &o.OneWayPairs })},
		}},
	}
}

// nliParts are the NLI backends (NLIBackends) and the cascade, with the
// setting that chooses them.
func nliParts() []Part {
	out := []Part{{Kind: KindNLI, Name: "NLI", Settings: []Setting{{Path: "NLI.Backend", Default: "auto", Identifies: true, Group: GroupNLI,
		Usage:   "NLI backend: " + oneOf(Names(NLIBackends(), func(b NLIBackend) string { return b.Name })) + "; FIRST,SECOND: a cascade",
		Details: "The NLI backends:\n\n" + describe(NLIBackends(), func(b NLIBackend) (string, string) { return b.Name, b.Description })}}}}
	for _, b := range NLIBackends() {
		out = append(out, Part{Kind: KindNLI, Name: b.Name, Choice: "NLI.Backend", Value: b.Name, Identity: "run.nli", Settings: b.Settings,
			In: func(o Options) bool { return slices.Contains(backendsOf(o), b.Name) }})
	}
	return append(out, cascadePart())
}

// backendsOf are the NLI backends a run of o has: the one named, or both
// of a cascade.
func backendsOf(o Options) []string {
	name := o.NLI.Backend
	if name == "" {
		name = "auto"
	}
	var out []string
	for _, b := range strings.Split(name, ",") {
		out = append(out, strings.TrimSpace(b))
	}
	return out
}

// describe lists a table of parts in markdown: each name with its
// description.
func describe[T any](table []T, entry func(T) (name, description string)) string {
	var b strings.Builder
	for _, e := range table {
		name, desc := entry(e)
		fmt.Fprintf(&b, "- `%s`: %s\n", name, desc)
	}
	return b.String()
}

// atomizerParts are the atomizers (Atomizers), with the setting that
// chooses them, and the reviser.
func atomizerParts() []Part {
	out := []Part{{Kind: KindAtomizer, Name: "atomizer", Settings: []Setting{{Path: "Atomizer", Identifies: true, Group: GroupAtoms,
		Usage:   "how records without atoms get them: " + oneOf(Names(Atomizers(), func(a Atomizer) string { return a.Name })),
		Details: "The atomizers, for records without atoms:\n\n" + describe(Atomizers(), func(a Atomizer) (string, string) { return a.Name, a.Description })}}}}
	for _, a := range Atomizers() {
		out = append(out, Part{Kind: KindAtomizer, Name: a.Name, Choice: "Atomizer", Value: a.Name, Identity: "run.atomizer",
			Settings: append(a.Settings[:len(a.Settings):len(a.Settings)], reviseSetting),
			In:       func(o Options) bool { return o.Atomizer == a.Name }})
	}
	return append(out, Part{Kind: KindAtomizer, Name: "reviser", Choice: "Revise", When: "revised atoms (Revise, by default with the llm atomizer)", Identity: "run.atomizer", Settings: llmStage(),
		In: revises})
}

// reviseSetting says whether the reviser rewrites the atoms.
var reviseSetting = Setting{Path: "Revise", Kind: Bool, DefaultText: "true with the llm atomizer, false with sentences", Identifies: true, Group: GroupAtoms,
	Usage: "rewrite each atom with the LLM so that it stands alone (one request per atom)",
	Set: func(o *Options, text string) error {
		on, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("%q is not true or false", text)
		}
		o.Revise = ReviseOff
		if on {
			o.Revise = ReviseOn
		}
		return nil
	}}

// revises reports whether a run of o revises its atoms.
func revises(o Options) bool {
	i := slices.IndexFunc(Atomizers(), func(a Atomizer) bool { return a.Name == o.Atomizer })
	return i >= 0 && (o.Revise == ReviseOn || o.Revise == ReviseDefault && Atomizers()[i].RevisedByDefault)
}

// abstentionParts are FActScore's abstention rule, which a run that
// atomizes reads.
func abstentionParts() []Part {
	return []Part{{Kind: KindAbstention, Name: "abstention", Choice: "Atomizer", When: "an atomizer (Atomizer)", Identity: "run.abstention",
		In: func(o Options) bool { return o.Atomizer != "" },
		Settings: []Setting{{Path: "Abstention", Default: string(factscore.AbstentionGeneric), Identifies: true, Group: GroupAtoms,
			Usage: "rule that tells a record without atoms that declines to answer: generic, perplexity_ai or none",
			Details: "generic: the response starts with \"I'm sorry\" or asks to \"provide more\"; perplexity_ai: the " +
				"\"no information\" phrases of search-based answers; none: every response responds.",
			Set: func(o *Options, text string) error {
				a, err := factscore.ParseAbstention(text)
				o.Abstention = a
				return err
			}}}}}
}

// summarizerParts are the summarizer stage: its two settings that choose
// it, and the LLM summarizer's.
func summarizerParts() []Part {
	return []Part{
		{Kind: KindSummarizer, Name: "summaries", Settings: []Setting{
			{Path: "Summaries", Switch: assess.SummariesLLM, Kind: Bool, Identifies: true, Group: GroupSummaries,
				Usage: "summarize each context with respect to its atom by the LLM, as FactReasoner's summarizer",
				Details: "FactReasoner's context summarizer: the LLM (LLM.Model) summarizes each context with respect to its atom (query contexts " +
					"c_q_*: with respect to the question). Contexts that say nothing about it are dropped; a kept context's prior becomes " +
					"p_summary × its prior; NLI reads the summaries, and they are written into the output's contexts (synthetic_summary, probability)."},
			{Path: "Summaries", Switch: assess.SummariesGiven, Kind: Bool, Identifies: true, Group: GroupSummaries,
				Usage: "NLI reads the summaries the input's contexts carry (synthetic_summary); no model is asked",
				Details: "NLI reads the summaries the input's contexts carry (synthetic_summary, as the summarizer or FactReasoner wrote them), " +
					"with their probability as prior; no model is asked for them."},
		}},
		{Kind: KindSummarizer, Name: "llm summarizer", Choice: "Summaries", Value: assess.SummariesLLM, Identity: "summarizer",
			In: func(o Options) bool { return o.Summaries == assess.SummariesLLM },
			Settings: append(probabilityRule("Summary", GroupSummaries, "the summarizer", "p_summary", "summary", "docs/llm.md", "above 0 and at most 1",
				summarizer.DefaultFixedProbability, func(o *Options) (*string, *int, *float64) {
					return &o.SummaryMethod, &o.SummarySamples, &o.SummaryFixedProbability
				}), llmStage()...)},
	}
}

// verifierParts are FActScore's verifiers (Verifiers).
func verifierParts() []Part {
	out := []Part{{Kind: KindVerifier, Name: "verifier", Settings: []Setting{{Path: "FActScore.Verifier", Group: GroupFActScore,
		Usage:   "how each atom is checked: " + oneOf(Names(Verifiers(), func(v Verifier) string { return v.Name })),
		Details: "The verifiers:\n\n" + describe(Verifiers(), func(v Verifier) (string, string) { return v.Name, v.Description })}}}}
	for _, v := range Verifiers() {
		out = append(out, VerifierPart(v.Name))
	}
	return out
}

// VerifierPart is the part of the verifier of that name (a command that
// runs one besides Options.FActScore.Verifier: fr compare's baselines).
func VerifierPart(name string) Part {
	i := slices.IndexFunc(Verifiers(), func(v Verifier) bool { return v.Name == name })
	if i < 0 {
		panic("assemble: no verifier " + name)
	}
	return Part{Kind: KindVerifier, Name: name, Choice: "FActScore.Verifier", Value: name, Settings: Verifiers()[i].Settings,
		In: func(o Options) bool { return o.FActScore.Verifier == name }}
}

// inferenceParts are the inference engines (Algorithms), with the
// settings that choose them.
func inferenceParts() []Part {
	var native []string
	for _, a := range Algorithms() {
		if a.Engine == inferenceNative {
			native = append(native, a.Name)
		}
	}
	out := []Part{
		{Kind: KindInference, Name: "inference", Settings: []Setting{{Path: "Inference.Engine", Default: inferenceNative, Identifies: true, Group: GroupInference,
			Usage: "inference engine: native, or merlin (an external binary)"}}},
		{Kind: KindInference, Name: inferenceNative, Choice: "Inference.Engine", Value: inferenceNative, Identity: "run.inference",
			In: func(o Options) bool { return o.Inference.engine() == inferenceNative },
			Settings: []Setting{{Path: "Inference.Algorithm", DefaultText: inference.NameAuto, Identifies: true, Group: GroupInference,
				Usage: "native solver: " + oneOf(native),
				Details: "The algorithms of the native solver:\n\n" + describe(slices.DeleteFunc(Algorithms(), func(a Algorithm) bool { return a.Engine != inferenceNative }),
					func(a Algorithm) (string, string) { return a.Name, a.Description })}}},
	}
	for _, a := range Algorithms() {
		p := Part{Kind: KindInference, Name: a.Name, Choice: "Inference.Algorithm", Value: a.Name, Within: "Inference.Engine=" + a.Engine,
			Identity: "run.inference", Settings: a.Settings,
			In: func(o Options) bool { return o.Inference.engine() == a.Engine && o.Inference.algorithm() == a.Name }}
		if a.Name == a.Engine { // an engine of one algorithm
			p.Choice, p.Value, p.Within = "Inference.Engine", a.Engine, ""
		}
		out = append(out, p)
	}
	return out
}

// queryMode is the web sources' query (RetrievalOptions.Query).
var queryMode = Setting{Path: "Retrieval.Query", Default: "atom", Identifies: true, Group: GroupWeb,
	Usage:   "query of the web sources: atom (as FactReasoner) or topic, for topic + atom (as FActScore)",
	Details: "atom queries with the atom's text, as FactReasoner; topic with topic + \" \" + atom, as FActScore. The db source always uses topic + atom."}

// fetchPages makes the web sources fetch their results' pages.
var fetchPages = Setting{Path: "Retrieval.Pages.Fetch", Kind: Bool, Identifies: true, Group: GroupWeb,
	Usage:   "use the main text of each serper or searxng result's page (robots.txt honoured)",
	Details: "robots.txt is honoured; when a page fails, the result's snippet alone is used."}

// retrievalParts are the knowledge sources (RetrievalSources), with the
// setting that chooses them, what every source reads, and the parts some
// settings add: the query builder, fetched pages, and the embeddings of
// dense and hybrid search.
func retrievalParts() []Part {
	sources := RetrievalSources()
	out := []Part{{Kind: KindRetrieval, Name: "retrieval", Settings: []Setting{{Path: "Retrieval.Source", Default: "auto", Identifies: true, Group: GroupRetrieval,
		Usage:   "knowledge sources, comma-separated: " + oneOf(Names(sources, func(s RetrievalSource) string { return s.Name })) + "; auto or none",
		Details: "Several sources are merged in the order given, without duplicates. auto is db when a knowledge base (Retrieval.DB) is given, else none.\n\n" + describe(sources, func(s RetrievalSource) (string, string) { return s.Name, s.Description })}}}}
	for _, src := range sources {
		out = append(out, Part{Kind: KindRetrieval, Name: src.Name, Choice: "Retrieval.Source", Value: src.Name, Identity: "run.sources", Settings: src.Settings,
			In: func(o Options) bool { return slices.Contains(sourcesOf(o), src.Name) }})
	}
	anySource := func(o Options) bool { return len(sourcesOf(o)) > 0 }
	return append(out,
		Part{Kind: KindRetrieval, Name: "knowledge sources", Choice: "Retrieval.Source", When: "a knowledge source (Retrieval.Source, Retrieval.DB)", Identity: "run.retrieval", In: anySource,
			Settings: []Setting{
				{Path: "Retrieval.TopK", Kind: Int, Default: strconv.Itoa(assess.DefaultTopK), Identifies: true, Group: GroupRetrieval,
					Usage: "passages retrieved per atom for records without contexts",
					Set: func(o *Options, text string) error {
						n, err := strconv.Atoi(strings.TrimSpace(text))
						if err != nil || n < 1 {
							return fmt.Errorf("%q passages per atom: want at least 1", text)
						}
						o.Retrieval.TopK = n
						return nil
					}},
				{Path: "Retrieval.QueryContexts", Kind: Int, DefaultText: "Retrieval.TopK", Identifies: true, Group: GroupRetrieval,
					Usage: "passages retrieved for the record's question, as contexts of every atom (0: none)",
					Details: "When the tool retrieves for a record, it also retrieves passages for the record's question (its input), as contexts " +
						"c_q_0, c_q_1, … that every atom's pairs take as their own. FactReasoner retrieves as many as per atom (the default); 0 retrieves none.",
					Set: func(o *Options, text string) error {
						n, err := nonNegative(text)
						if n == 0 {
							n = assess.NoQueryContexts
						}
						o.Retrieval.QueryContexts = n
						return err
					}},
				{Path: "Retrieval.KPerSource", Identifies: true, Group: GroupRetrieval,
					Usage: "passages per atom of single sources, as `serper=5,wikipedia=3` (the others: Retrieval.TopK)",
					Set: func(o *Options, text string) (err error) {
						o.Retrieval.KPerSource, err = ParseKPerSource(text)
						return err
					}},
				{Path: "Caches.Retrieval", Default: "auto", Group: GroupRetrieval,
					Usage: "retrieval results reused by later runs: an SQLite `FILE`, auto or off", Details: cacheDetails(sqlcache.Retrieval)},
				{Path: "Retrieval.QueryBuilder", Kind: Bool, Identifies: true, Group: GroupRetrieval,
					Usage: "the LLM (LLM.Model) writes each atom's search queries, which every source is searched with",
					Details: "The LLM writes one to three search queries for each atom from the atom and its response (FactReasoner's QueryBuilder); " +
						"every source is searched with them instead of the atom's text. An answer without queries is asked again, then fails the record. " +
						"FactReasoner's own prompt (Prompts querybuilder=factreasoner) writes one query, from the atom alone."},
				{Path: "Retrieval.SourcePriors", Identifies: true, Group: GroupRetrieval,
					Usage: "`FILE` of context priors by web domain or knowledge base title",
					Details: "One entry a line: a web domain (wikipedia.org, which covers its subdomains) or title:TITLE, then the prior in [0, 1]; " +
						"# starts a comment. The contexts retrieved take the prior of their link's domain, else of their title."},
			}},
		Part{Kind: KindRetrieval, Name: "query builder", Choice: "Retrieval.QueryBuilder", Identity: "run.sources", Settings: llmStage(),
			In: func(o Options) bool { return o.Retrieval.QueryBuilder && anySource(o) }},
		Part{Kind: KindRetrieval, Name: "pages", Choice: "Retrieval.Pages.Fetch", When: "fetched pages (Retrieval.Pages.Fetch) of serper or searxng", Identity: "run.sources",
			In: func(o Options) bool { return o.Retrieval.Pages.Fetch && slices.ContainsFunc(sourcesOf(o), isWeb) },
			Settings: append([]Setting{
				{Path: "Retrieval.Pages.Timeout", Kind: Duration, Default: retrieve.DefaultPageTimeout.String(), Identifies: true, Group: GroupWeb,
					Usage: "time limit of one page fetched", Set: positive(func(o *Options) *time.Duration { return &o.Retrieval.Pages.Timeout }, time.ParseDuration)},
				{Path: "Retrieval.Pages.Budget", Kind: Duration, Default: retrieve.DefaultFetchBudget.String(), Identifies: true, Group: GroupWeb,
					Usage: "time limit of all the pages of one search", Set: positive(func(o *Options) *time.Duration { return &o.Retrieval.Pages.Budget }, time.ParseDuration)},
				{Path: "Retrieval.Pages.AllowPrivate", Kind: Bool, Identifies: true, Group: GroupWeb,
					Usage: "read pages on loopback and private network addresses (refused by default)"},
			}, httpSettings...)},
		Part{Kind: KindRetrieval, Name: "embeddings", Choice: "Retrieval.Ranking", When: "dense or hybrid search of a knowledge base (Retrieval.Ranking)", Identity: "run.sources",
			In: func(o Options) bool {
				r, err := retrieve.ParseRanking(o.Retrieval.Ranking)
				return err == nil && r != retrieve.RankBM25 && slices.Contains(sourcesOf(o), "db")
			},
			Settings: append([]Setting{
				{Path: "Retrieval.Embed.BaseURL", Default: llm.DefaultBaseURL, Env: []string{"OPENAI_BASE_URL"}, URL: true, Group: GroupRetrieval,
					Usage: "API root, /v1 included, whose /embeddings embeds the queries of dense or hybrid search (Retrieval.Ranking)"},
				{Path: "Retrieval.Embed.Model", DefaultText: "the knowledge base's", Group: GroupRetrieval,
					Usage: "embedding model of the queries; another than the knowledge base's is refused"},
			}, httpSettings...)},
	)
}

// sourcesOf are the knowledge sources a run of o has; none when they
// cannot be read (Open says why).
func sourcesOf(o Options) []string {
	names, err := sourceNames(o.Retrieval)
	if err != nil {
		return nil
	}
	return names
}

// isWeb reports whether the source of that name gives web pages.
func isWeb(name string) bool {
	return slices.ContainsFunc(RetrievalSources(), func(s RetrievalSource) bool { return s.Name == name && s.Web })
}

// inferenceNative is the engine of package inference's algorithms.
const inferenceNative = "native"

// engine is the inference engine o chooses.
func (o InferenceOptions) engine() string {
	if o.Engine == "" {
		return inferenceNative
	}
	return o.Engine
}

// algorithm is the algorithm o chooses: Algorithm, or the engine's first.
func (o InferenceOptions) algorithm() string {
	if o.Algorithm != "" {
		return o.Algorithm
	}
	for _, a := range Algorithms() {
		if a.Engine == o.engine() {
			return a.Name
		}
	}
	return ""
}

// mib reads a number of MiB, at least 1, into a number of bytes.
func mib(field func(*Options) *int64) func(o *Options, text string) error {
	return func(o *Options, text string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		switch {
		case err != nil:
			return fmt.Errorf("%q is not a whole number of MiB", text)
		case n <= 0:
			return fmt.Errorf("%d MiB is not positive", n)
		case n > math.MaxInt64>>20:
			return fmt.Errorf("%d MiB is too large", n)
		}
		*field(o) = n << 20
		return nil
	}
}

// checkChoices refuses options that name no part: an unknown NLI backend,
// atomizer, knowledge source, verifier or inference engine (the errors
// Open gives), for the kinds of parts a command runs. A setting given for
// a part the run would have, had its name been right, is then not the
// mistake to point out.
func checkChoices(o Options, kinds []string) error {
	for _, k := range kinds {
		var err error
		switch k {
		case KindNLI:
			_, err = nliBackend(o)
		case KindAtomizer:
			if o.Atomizer != "" {
				_, err = atomizerOf(o.Atomizer)
			}
		case KindRetrieval:
			_, err = sourceNames(o.Retrieval)
		case KindVerifier:
			if o.FActScore.Verifier != "" {
				_, err = verifierOf(o.FActScore.Verifier)
			}
		case KindInference:
			// An algorithm named for an engine that has no choice of them
			// is the setting to refuse (Given.check), not a name.
			only := o.Inference
			if only.engine() != inferenceNative {
				only.Algorithm = ""
			}
			_, err = algorithmOf(only)
		case KindSummarizer:
			switch o.Summaries {
			case assess.SummariesOff, assess.SummariesLLM, assess.SummariesGiven:
			default:
				err = optionErr("Summaries", fmt.Errorf("%q is not off, llm or given", o.Summaries))
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// either reads a setting of two words into a bool: true for the second.
func either(off, on string, field func(*Options) *bool) func(o *Options, text string) error {
	return func(o *Options, text string) error {
		if text != off && text != on {
			return fmt.Errorf("%q is not %s or %s", text, off, on)
		}
		*field(o) = text == on
		return nil
	}
}

// positive reads a number above 0 of a setting's kind into the field.
func positive[T int | float64 | time.Duration](field func(*Options) *T, parse func(string) (T, error)) func(o *Options, text string) error {
	return func(o *Options, text string) error {
		v, err := parse(strings.TrimSpace(text))
		if err != nil || !(v > 0) {
			return fmt.Errorf("%s is not positive", text)
		}
		*field(o) = v
		return nil
	}
}
