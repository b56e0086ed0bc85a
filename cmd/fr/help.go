package main

import (
	"github.com/factreasoner/factreasoner-go/internal/cachedir"
	"github.com/factreasoner/factreasoner-go/pipeline"
	"github.com/factreasoner/factreasoner-go/sqlcache"
)

// The categories that group the flags in each command's help, in the
// order the help shows them (categories).
const (
	catRun        = "Run"
	catShow       = "What to show"
	catIO         = "Input and output"
	catFActScore  = "FActScore"
	catScoring    = "Scoring"
	catAtoms      = "Atoms"
	catSummaries  = "Summaries"
	catNLI        = "NLI"
	catNLIRuntime = "NLI model runtime (onnx, remote)"
	catLLM        = "LLM endpoint"
	catRetrieval  = "Retrieval"
	catWeb        = "Web search"
	catInference  = "Inference"
	catReport     = "Report"
	catPassages   = "Passages"
	catHub        = "Hub"
)

// categories are the flag categories in the order the help shows them.
func categories() []string {
	return []string{catRun, catShow, catIO, catFActScore, catScoring, catAtoms, catSummaries, catNLI, catNLIRuntime,
		catLLM, catRetrieval, catWeb, catInference, catReport, catPassages, catHub}
}

// flagDetails say more about the flags whose one-line usage cannot say
// all a user may need, by flag name; docs/cli.md (fr docs) prints them
// under "Flag details". They are markdown.
func flagDetails() map[string]string {
	cacheFile := func(c sqlcache.Kind) string {
		return "auto is " + c.DefaultFile() + " in the cache directory ($" + cachedir.EnvVar + ", else ~/.cache/factreasoner-go); off keeps nothing."
	}
	return map[string]string{
		"nli": "The NLI backends:\n\n" + tableDetail(pipeline.NLIBackends(), func(b pipeline.NLIBackend) (string, string) { return b.Name, b.Description }),
		"atomizer": "The atomizers, for records without atoms:\n\n" +
			tableDetail(pipeline.Atomizers(), func(a pipeline.Atomizer) (string, string) { return a.Name, a.Description }),
		"algorithm": "The algorithms of the native solver:\n\n" +
			tableDetail(nativeAlgorithms(), func(a pipeline.Algorithm) (string, string) { return a.Name, a.Description }),
		"source": "Several sources are merged in the order given, without duplicates. auto is db when --db is given, else none.\n\n" +
			tableDetail(pipeline.RetrievalSources(), func(s pipeline.RetrievalSource) (string, string) { return s.Name, s.Description }),
		"verifier": "The verifiers:\n\n" + tableDetail(pipeline.Verifiers(), func(v pipeline.Verifier) (string, string) { return v.Name, v.Description }),

		"use-priors": "Folds the target's prior into the factor tables, as the reference does by default; false gives the factors of the paper's Table 1.",
		"pairs-per-atom": "The NLI model is asked about each atom's own contexts (those retrieved for it, and the question's: FR1's pairs, always asked) " +
			"and its K best-matching other contexts (BM25 over the record's contexts; for FR3 also each context's K most similar contexts " +
			"beside its own partners); the other pairs are neutral. own (or 0) asks the own pairs only; all asks every pair, as the reference does.",
		"query-contexts": "When the tool retrieves for a record, it also retrieves passages for the record's question (its input), as contexts " +
			"c_q_0, c_q_1, … that every atom's pairs take as their own. FactReasoner retrieves as many as per atom (the default); 0 retrieves none.",
		"summarize": "FactReasoner's context summarizer: the LLM (--llm-*) summarizes each context with respect to its atom (query contexts " +
			"c_q_*: with respect to the question). Contexts that say nothing about it are dropped; a kept context's prior becomes " +
			"p_summary × its prior; NLI reads the summaries, and they are written into the output's contexts (synthetic_summary, probability).",
		"use-summaries": "NLI reads the summaries the input's contexts carry (synthetic_summary, as --summarize or FactReasoner wrote them), " +
			"with their probability as prior; no model is asked for them.",
		"summary-fixed-probability": "The value must be above 0 and at most 1; 0 makes such an answer an error.",

		"cache":           cacheFile(sqlcache.NLI),
		"llm-cache":       cacheFile(sqlcache.LLM),
		"retrieval-cache": cacheFile(sqlcache.Retrieval),
		"nli-model": "A directory holds model.onnx (or onnx/model.onnx), tokenizer.json and config.json; a hub repository id names a model " +
			"pulled with fr models pull. --nli remote takes the tokenizer, window and labels from it.",
		"nli-batch-tokens": "Padding included; a longer sequence runs alone. With --nli remote it bounds each request, by default 8192.",
		"nli-protocol": "kserve is the Open Inference Protocol (Triton, KServe, Seldon MLServer); tei is Hugging Face " +
			"text-embeddings-inference.",
		"nli-endpoint":     "For example http://localhost:8000 (Triton) or http://localhost:8080 (TEI).",
		"nli-remote-model": "Required with kserve; with tei, it is checked against the served model.",
		"nli-timeout":      "A failed attempt is retried (--retries, for every HTTP client of the run).",
		"llm-base-url":     "For example http://localhost:8000/v1 (vLLM) or http://localhost:11434/v1 (Ollama).",
		"retries": "For every HTTP client of the run: the LLM endpoint, a remote NLI server, Wikipedia, search engines and web pages. " +
			"A request is retried after a rate limit (429), a server error (5xx), a timeout or a network error.",
		"llm-reask":             "The answer is asked again with a reminder of the format; after the last try, the record fails.",
		"nli-prompt":            "v1 asks for the bare label, its probability taken from the label's tokens; v2 asks for reasoning, then [label], the probability taken from the label's tokens.",
		"nli-fixed-probability": "The value must be above 0.5 and below 1; 0 makes such an answer an error.",

		"max-memory": "Bounds the tables, messages and marginals of one component, checked before any is allocated, and its junction tree " +
			"(and each branch of cutset conditioning running at once).",
		"exact-budget": "CPU time allowed for exact inference by cutset conditioning on a component whose junction tree does not fit, " +
			"as estimated beforehand; auto spends it on the heaviest branches when all do not fit.",
		"damping": "adaptive: none at first, raised when BP stalls.",
		"clamp-budget": "Work allowed for conditioning loopy BP on the variables that change its result most, in millions of message " +
			"updates per component (about 0.15 s each on one core); none: auto approximates with plain loopy BP.",

		"query": "atom queries with the atom's text, as FactReasoner; topic with topic + \" \" + atom, as FActScore. " +
			"The db source always uses topic + atom.",
		"wikipedia-user-agent": "factreasoner-go/VERSION is added after it.",
		"searxng-url":          "The instance's settings.yml must list json under search.formats.",
		"fetch-pages":          "robots.txt is honoured; when a page fails, the result's snippet alone is used.",
		"missing-topic": "Also for a record without a topic. error stops the run, as FActScore does; skip warns, and takes " +
			"contexts from the other sources only, or none.",

		"skip-invalid": "Failed records are those whose LLM answers cannot be read. A run with failed records still exits 1; " +
			"one that only skipped invalid records exits 0.",
		"jobs": "auto is 1 with --nli onnx, whose model already uses every core, else 2. The output stays in input order, " +
			"byte for byte as with 1.",
		"shard":    "0 ≤ I < N. Join the shards' outputs with fr merge.",
		"versions": "factscore's row verifies each atom against its own contexts.",
		"format":   "markdown has 4 decimals and n/a for a missing value; csv has every digit and an empty cell.",
		"abstention": "generic: the response starts with \"I'm sorry\" or asks to \"provide more\"; perplexity_ai: the " +
			"\"no information\" phrases of search-based answers; none: every response responds.",
	}
}
