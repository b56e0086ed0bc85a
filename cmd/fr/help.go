package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

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
		"kb-scope": "topic: a record with a topic is searched in the document of that title (FActScore's retrieval), a record without one in every " +
			"passage of the knowledge base (its index; fr kb build writes one). corpus: every record in every passage, its query topic + atom.",
		"retrieval": "How a search of every passage ranks them: bm25 (the index's words), dense (the cosine similarity of the query's vector, " +
			"embedded at --embed-endpoint, to the passages' vectors) or hybrid (the two fused by reciprocal rank). dense and hybrid need a " +
			"knowledge base built with fr kb build --embed-model; the key is read from $OPENAI_API_KEY.",
		"source-priors": "One entry a line: a web domain (wikipedia.org, which covers its subdomains) or title:TITLE, then the prior in [0, 1]; " +
			"# starts a comment. The contexts retrieved take the prior of their link's domain, else of their title.",
		"query-builder": "The LLM writes one to three search queries for each atom from the atom and its response (FactReasoner's QueryBuilder); " +
			"every source is searched with them instead of the atom's text. An answer without queries is asked again, then fails the record. " +
			"--prompts querybuilder=factreasoner sends FactReasoner's own prompt instead: one query, from the atom alone.",
		"near-duplicates": "A context whose words are at least this similar (cosine of word counts) to an earlier context's reads as that one: " +
			"one variable in FR2 and FR3, its id an alias. 0.92 is FactReasoner's fast preset; off (0) merges identical texts only.",
		"fr3-pairs": "one-way asks each FR3 context pair with the longer text as premise, and the reverse only when that answer is not neutral " +
			"(docs/retrieval.md, Fast mode); both asks every pair both ways, as FactReasoner does.",
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
		"llm-reask": "The answer is asked again with a reminder of the format; after the last try, the record fails.",
		"prompts": "default sends fr's own prompts, factreasoner IBM FactReasoner's, as its code has them (prompts/README.md), " +
			"for the atomizer, the reviser, --nli llm (v1 or v2, as --nli-prompt says), the summarizer and --query-builder (querybuilder); " +
			"atomizer=factreasoner,nli=factreasoner chooses per stage. The stages a run uses with FactReasoner's prompts are part of its identity (run.prompts).",
		"first-byte-timeout": "For every HTTP client of the run, each attempt: Wikipedia, search engines and a remote NLI server's checks " +
			"wait this long for the start of an answer; the LLM endpoint (and --embed-endpoint), whose answer starts only when it is whole, is asked once, " +
			"before its first request, for its list of models (GET BASE/models; any answer, an error too, passes). A server that " +
			"accepted the connection and said nothing in that time (a wrong port, a hung process) fails at once, not after the retries.",
		"nli-prompt":            "v1 asks for the bare label, its probability taken from the label's tokens; v2 asks for reasoning, then [label], the probability taken from the label's tokens.",
		"nli-fixed-probability": "The value must be above 0.5 and below 1; 0 makes such an answer an error.",

		"max-memory": "Bounds the tables, messages and marginals of one component, checked before any is allocated, and its junction tree " +
			"(and each branch of cutset conditioning running at once).",
		"exact-budget": "CPU time allowed for exact inference by cutset conditioning on a component whose junction tree does not fit, " +
			"as estimated beforehand; auto spends it on the heaviest branches when all do not fit.",
		"damping": "adaptive: none at first, raised when BP stalls.",
		"clamp-budget": "Work allowed for conditioning loopy BP on the variables that change its result most, in millions of message " +
			"updates per component (about 0.15 s each on one core); none: auto approximates with plain loopy BP.",
		"error-budget": "Work allowed for the Gibbs sampler that gives approximate marginals their error bars (the error of each marginal " +
			"in the output), in millions of factor lookups per component; none: no error bars. Where the budget cannot pay for the " +
			"sampler's least run, every error is unknown (a bar of 1).",

		"web-query": "atom queries with the atom's text, as FactReasoner; topic with topic + \" \" + atom, as FActScore. " +
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

// helpTemplate is cli's template of a command's help with the flag
// categories in the order of categories (cli sorts them by name), the
// flags of no category (--help) last, and a pointer to the flags'
// details.
func helpTemplate(base string) string {
	const body = `
   {{if .Name}}{{.Name}}

   {{end}}{{$flglen := len .Flags}}{{range $i, $e := .Flags}}{{if eq (subtract $flglen $i) 1}}{{$e}}
{{else}}{{$e}}
   {{end}}{{end}}`
	var b strings.Builder
	known := make([]string, 0, len(categories()))
	for _, c := range categories() {
		fmt.Fprintf(&b, `{{range .VisibleFlagCategories}}{{if eq .Name %q}}%s{{end}}{{end}}`, c, body)
		known = append(known, fmt.Sprintf("(eq .Name %q)", c))
	}
	fmt.Fprintf(&b, `{{range .VisibleFlagCategories}}{{if not (or %s)}}%s{{end}}{{end}}`, strings.Join(known, " "), body)
	b.WriteString("\n   Every flag in detail: docs/cli.md, or fr docs.")
	// The subcommands in the order given (cli's categories of commands
	// exist only once a command has run, which fr help X does not do).
	base = strings.Replace(base, `{{template "visibleCommandCategoryTemplate" .}}`, `{{template "visibleCommandTemplate" .}}`, 1)
	return strings.Replace(base, `{{template "visibleFlagCategoryTemplate" .}}`, b.String(), 1)
}

// examples is the end of a command's description (or all of it): command
// lines that show its use, each after a "# " line that says what it does.
func examples(lines ...string) string {
	var b strings.Builder
	b.WriteString("\n\nExamples:")
	for _, l := range lines {
		b.WriteString("\n  " + l)
	}
	return b.String()
}

// examplesOf are the example command lines of a command's description
// (examples), without their comments.
func examplesOf(c *cli.Command) []string {
	_, ex, ok := cutExamples(c.Description)
	if !ok {
		return nil
	}
	var out []string
	for _, l := range strings.Split(ex, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// cutExamples splits a description into its text and its examples.
func cutExamples(desc string) (text, examples string, ok bool) {
	if ex, ok := strings.CutPrefix(strings.TrimLeft(desc, "\n"), "Examples:\n"); ok {
		return "", ex, true
	}
	return strings.Cut(desc, "\n\nExamples:\n")
}

// helpCommand is fr help (and fr kb help, ...) for the commands of parent
// (the app's when nil): the help of a command, as its --help shows it, or
// of the parent; a name that is no command is a usage error that says
// which command was probably meant. It replaces cli's, which says "No help
// topic" and exits 3.
func helpCommand(parent *cli.Command) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the commands, or the help of one",
		ArgsUsage: "[COMMAND [SUBCOMMAND]]",
		Action: func(c *cli.Context) error {
			cmds, path := c.App.Commands, c.App.Name
			if parent != nil {
				cmds, path = parent.Subcommands, parent.HelpName
			}
			if !c.Args().Present() {
				if parent != nil {
					cli.HelpPrinter(c.App.Writer, parent.CustomHelpTemplate, parent)
					return nil
				}
				return cli.ShowAppHelp(c)
			}
			var cmd *cli.Command
			for _, name := range c.Args().Slice() {
				cmd = findCommand(cmds, name)
				if cmd == nil {
					return usagef("unknown command %q%s (see %s --help)", name, didYouMean(name, commandNames(cmds)), path)
				}
				if cmd.HelpName == "" {
					cmd.HelpName = path + " " + cmd.Name
				}
				cmds, path = cmd.Subcommands, cmd.HelpName
			}
			cli.HelpPrinter(c.App.Writer, cmd.CustomHelpTemplate, cmd)
			return nil
		},
	}
}

// findCommand is the command of cmds that name names, nil if none.
func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// commandNames are the names and aliases of the visible commands of cmds.
func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	return names
}

// flagNames are the names and aliases of the visible flags, with their
// dashes: -k, --nli-model.
func flagNames(flags []cli.Flag) []string {
	var names []string
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		for _, n := range f.Names() {
			if len(n) == 1 {
				names = append(names, "-"+n)
			} else {
				names = append(names, "--"+n)
			}
		}
	}
	return names
}

// unknownFlag is the flag of cli's error for an undefined flag ("flag
// provided but not defined: -nli-modle"), with the dashes the user gave
// it; ok is false for other errors.
func unknownFlag(err error) (flag string, ok bool) {
	return strings.CutPrefix(err.Error(), "flag provided but not defined: ")
}

// didYouMean says which of candidates (command names, or flags with
// their dashes) the mistyped name probably meant: those nearest to it in
// edit distance, if near enough to be a typo, or else those it begins
// (--fetch for --fetch-pages); "" when none is. The answer is ready to be
// appended to a message: `: did you mean "score"?`.
func didYouMean(name string, candidates []string) string {
	flag := strings.HasPrefix(name, "-")
	key := func(s string) string { return strings.TrimLeft(s, "-") }
	typed := key(name)
	// A typo changes a few characters: one in a short name, a third of
	// a longer one, at most three.
	limit := min(max(1, len([]rune(typed))/3), 3)
	best, nearest := limit+1, []string(nil)
	for _, c := range candidates {
		switch d := editDistance(typed, key(c)); {
		case d < best:
			best, nearest = d, []string{c}
		case d == best && !slices.Contains(nearest, c):
			nearest = append(nearest, c)
		}
	}
	if len(nearest) == 0 && len(typed) >= 3 {
		for _, c := range candidates {
			if strings.HasPrefix(key(c), typed) && !slices.Contains(nearest, c) {
				nearest = append(nearest, c)
			}
		}
	}
	if len(nearest) == 0 {
		return ""
	}
	slices.Sort(nearest)
	if len(nearest) > 3 {
		nearest = nearest[:3]
	}
	quoted := make([]string, len(nearest))
	for i, n := range nearest {
		if flag {
			quoted[i] = n
		} else {
			quoted[i] = strconv.Quote(n)
		}
	}
	return ": did you mean " + oneOf(quoted) + "?"
}

// editDistance is the optimal string alignment distance between a and b:
// the fewest insertions, deletions, substitutions and transpositions of
// two neighbouring characters that turn one into the other (each
// character edited once), counted in runes.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
