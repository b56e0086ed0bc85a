package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/pipeline"
)

// optionFlags maps the library's option paths (as its errors name them:
// pipeline.Options' fields) to the flags that set them. It is the one
// place where the command's flags meet the library's names.
var optionFlags = []struct{ option, flags string }{
	// Longest first, so that a path is not taken for its prefix.
	{"NLI.Remote.Endpoint", "--nli-endpoint"},
	{"NLI.Remote.Protocol", "--nli-protocol"},
	{"NLI.Remote.Model", "--nli-remote-model"},
	{"NLI.Remote", "--nli-endpoint, --nli-protocol, --nli-remote-model"},
	{"NLI.PositiveLabel", "--nli-positive-label"},
	{"NLI.Unsupported", "--nli-unsupported"},
	{"NLI.CascadeBelow", "--nli-cascade-below"},
	{"NLI.Backend", "--nli"},
	{"NLI.Model", "--nli-model"},
	{"NLI", "--nli, --nli-model"},
	{"Graph", "--use-priors, --atom-prior, --context-prior"},
	{"PairsPerAtom", "--pairs-per-atom"},
	{"NearDuplicates", "--near-duplicates"},
	{"OneWayPairs", "--fr3-pairs"},
	{"Solver", "--solver, --algorithm and its settings"},
	{"K", "--k"},
	{"Retrieval.Source", "--source"},
	{"Retrieval.DB", "--db"},
	{"Retrieval.KPerSource", "--k-per-source"},
	{"Retrieval.Query", "--web-query"},
	{"Retrieval.TopK", "--retrieve-k"},
	{"Retrieval.Pages.Fetch", "--fetch-pages"},
	{"Retrieval.Pages", "--fetch-pages"},
	{"Retrieval.SearXNG.URL", "--searxng-url"},
	{"Retrieval.Scope", "--kb-scope"},
	{"Retrieval.Ranking", "--retrieval"},
	{"Retrieval.Embed.BaseURL", "--embed-endpoint"},
	{"Retrieval.Embed.Model", "--embed-model"},
	{"Retrieval.Embed", "--embed-endpoint, --embed-model"},
	{"Retrieval.SourcePriors", "--source-priors"},
	{"Retrieval.QueryBuilder", "--query-builder"},
	{"Retrieval", "--retrieve-k, --query-contexts, --source"},
	{"Caches.NLI", "--cache"},
	{"Caches.LLM", "--llm-cache"},
	{"Caches.Retrieval", "--retrieval-cache"},
	{"Retry.Retries", "--retries"},
	{"LLM.Model", "--llm-model"},
	{"LLM.BaseURL", "--llm-base-url"},
	{"LLM.Reasks", "--llm-reask"},
	{"LLM.Concurrency", "--llm-concurrency"},
	{"LLM.Timeout", "--llm-timeout"},
	{"LLMPrompt", "--nli-prompt"},
	{"LLMFixedProbability", "--nli-fixed-probability"},
	{"LLMMethod", "--nli-method, --nli-samples, --nli-fixed-probability"},
	{"SummaryFixedProbability", "--summary-fixed-probability"},
	{"SummaryMethod", "--summary-method, --summary-samples, --summary-fixed-probability"},
	{"Summaries", "--summarize, --use-summaries"},
	{"Atomizer", "--atomizer"},
	{"Revise", "--revise"},
	{"FActScore.Verifier", "--verifier"},
	{"FActScore.Threshold", "--threshold"},
	{"Abstention", "--abstention"},
	{"Prompts", "--prompts"},
	{"LLM", "--llm-model, --llm-base-url"},
	{"Retrieval.Wikipedia", "--wikipedia-endpoint"},
	{"Retrieval.SkipMissingTopics", "--missing-topic skip"},
	{"Retrieval.DB", "--db"},
	{"Retrieval.Serper", "--serper-endpoint, $SERPER_API_KEY"},
	{"FileOptions.OmitInputs", "--output-inputs=false"},
	// Other packages' options, as their errors name them.
	{"onnxnli.Options.Library", "--onnxruntime-lib"},
	{"crossenc.EncoderOptions.PositiveLabel", "--nli-positive-label"},
	{"remotenli.Options.Model", "--nli-remote-model"},
	{"llmnli.Options.Method", "--nli-method"},
	{"llmnli.Options.Samples", "--nli-samples"},
	{"llmnli.Options.FixedProbability", "--nli-fixed-probability"},
	{"summarize.Options.Method", "--summary-method"},
	{"summarize.Options.Samples", "--summary-samples"},
	{"summarize.Options.FixedProbability", "--summary-fixed-probability"},
	{"remotenli.Options.MaxLength", "--nli-max-length"},
	{"remotenli.Options.Endpoint", "--nli-endpoint"},
	{"remotenli.Options.Protocol", "--nli-protocol"},
	{"llm.Config.APIKey", "--llm-api-key"},
	{"hub.PullOptions.ONNX", "--onnx-file"},
	{"report.Inputs", "--input"},
	{"merlin.Solver.Path", "--merlin-path"},
}

// flagOf is the flag (or flags) that set a library option; the option
// itself when the command has none for it.
func flagOf(option string) string {
	for _, o := range optionFlags {
		if o.option == option {
			return o.flags
		}
	}
	return option
}

// withFlagNames renames the options an error names ("(Options.K)",
// pipeline.OptionError) after the flags that set them, keeping what the
// error is (its exit status).
func withFlagNames(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if errors.Is(err, pipeline.ErrNoNLI) {
		msg = strings.Replace(msg, pipeline.ErrNoNLI.Error(), noNLIHint, 1)
	}
	var oe *pipeline.OptionError
	if errors.As(err, &oe) {
		msg = strings.Replace(msg, oe.Error(), flagOf(oe.Option)+": "+withFlagNames(oe.Err).Error(), 1)
	}
	for _, o := range optionFlags {
		if strings.Contains(o.option, "Options.") || strings.Contains(o.option, ".Config.") || strings.Contains(o.option, ".Solver.") || strings.HasPrefix(o.option, "report.") || strings.HasPrefix(o.option, "FileOptions.") {
			msg = strings.ReplaceAll(msg, "("+o.option+")", "("+o.flags+")")
			continue
		}
		msg = strings.ReplaceAll(msg, "(Options."+o.option+")", "("+o.flags+")")
		msg = strings.ReplaceAll(msg, "(Options."+o.option+" ", "("+o.flags+" ")
	}
	if msg == err.Error() {
		return err
	}
	return &renamedError{msg: msg, err: err}
}

// noNLIHint says, for pipeline.ErrNoNLI, the ways to get NLI.
var noNLIHint = "the record has no relations and no NLI model is configured: for results, pull one (fr models pull " +
	pipeline.DefaultONNXModel + ", then --nli auto or --nli onnx uses it), or use --nli llm (an OpenAI-compatible endpoint, with --llm-model) " +
	"or --nli remote (an inference server, with --nli-endpoint); --nli lexical tries the tool without a model (it compares words, not meaning: not for results)"

// renamedError is an error whose message names flags instead of options.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// renamingActions makes each command's errors name flags (withFlagNames).
func renamingActions(cmds []*cli.Command) {
	for _, c := range cmds {
		if action := c.Action; action != nil {
			c.Action = func(ctx *cli.Context) error { return withFlagNames(action(ctx)) }
		}
		renamingActions(c.Subcommands)
	}
}

// prefixLines writes each line to w with prefix before it: the library's
// log lines, which name no program, as fr's ("fr: warning: …").
type prefixLines struct {
	w       io.Writer
	prefix  string
	midLine bool
}

func (p *prefixLines) Write(b []byte) (int, error) {
	var out []byte
	for _, c := range b {
		if !p.midLine {
			out = append(out, p.prefix...)
		}
		out = append(out, c)
		p.midLine = c != '\n'
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// atomizerUsage is the usage of --atomizer, from the table of atomizers.
func atomizerUsage() string {
	return tableNames(pipeline.Atomizers(), func(a pipeline.Atomizer) string { return a.Name })
}

// tableNames is the names of a table of parts, as "a, b or c".
func tableNames[T any](table []T, name func(T) string) string {
	return oneOf(pipeline.Names(table, name))
}

// tableDetail describes a table of parts in markdown (a flag's details):
// each name with its description, the options it names as flags.
func tableDetail[T any](table []T, entry func(T) (name, description string)) string {
	var b strings.Builder
	for _, e := range table {
		name, desc := entry(e)
		fmt.Fprintf(&b, "- `%s`: %s\n", name, flagText(desc))
	}
	return b.String()
}

// flagText names the options a description names in parentheses
// ("(NLI.Model)", "(NLI.Model, or …)") as their flags.
func flagText(s string) string {
	return parenthesized.ReplaceAllStringFunc(s, func(group string) string {
		items := strings.Split(group[1:len(group)-1], ", ")
		for i, item := range items {
			if f := flagOf(item); f != item {
				items[i] = f
			}
		}
		return "(" + strings.Join(items, ", ") + ")"
	})
}

// parenthesized matches a parenthesized group without parentheses inside.
var parenthesized = regexp.MustCompile(`\([^()]*\)`)
