package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
)

// The settings of the library's parts (assemble.Setting) are fr's flags:
// each command that runs parts of some kinds has a flag for every setting
// of those parts, named after the setting's path (flagName), with its
// default, help and category; the flags given make the run's Options
// (assemble.Given), and a flag given for a part that is not in the run is
// refused, naming what it applies to. The library's errors name options
// by path; fr names them by their flags (withFlagNames).

// runs says what a command runs: the kinds of parts, and the command's
// own names and defaults for some settings, by setting name.
type runs struct {
	kinds    []string
	names    map[string]string
	defaults map[string]string
}

// scoring is what fr score, compare and inspect run.
var scoringKinds = []string{assemble.KindScoring, assemble.KindAtomizer, assemble.KindAbstention, assemble.KindSummarizer,
	assemble.KindNLI, assemble.KindRetrieval, assemble.KindInference}

// runsOf is what the command of that name runs; nothing for a command
// that runs no part.
func runsOf(command string) runs {
	k := map[string]string{"Retrieval.TopK": "k"} // passages per atom: --k where no F1@K's K is
	switch command {
	case "score", "compare", "inspect":
		return runs{kinds: scoringKinds}
	case "factscore", "veriscore", "factverify":
		defaults := map[string]string{"Retrieval.TopK": "5", "FActScore.Verifier": "llm"}
		switch command {
		case "veriscore":
			defaults["FActScore.Verifier"], defaults["Atomizer"] = assemble.BaselineVeriScore, "veriscore"
		case "factverify":
			defaults["FActScore.Verifier"], defaults["Atomizer"] = assemble.BaselineFactVerify, "llm"
		}
		return runs{kinds: []string{assemble.KindAtomizer, assemble.KindAbstention, assemble.KindNLI, assemble.KindRetrieval, assemble.KindVerifier},
			names: k, defaults: defaults}
	case "atomize":
		return runs{kinds: []string{assemble.KindAtomizer}, defaults: map[string]string{"Atomizer": "llm"}}
	case "retrieve":
		return runs{kinds: []string{assemble.KindRetrieval}, names: k}
	case "solve": // fr uai solve
		return runs{kinds: []string{assemble.KindInference}}
	}
	return runs{}
}

// flagRenames are the flags whose names are not their settings' paths
// (flagName): the names fr had before its flags were made from the
// settings, kept.
var flagRenames = map[string]string{
	"NLI.Backend":                     "nli",
	"Caches.NLI":                      "cache",
	"NLI.ONNX.Library":                "onnxruntime-lib",
	"NLI.Remote.Model":                "nli-remote-model",
	"LLM.Reasks":                      "llm-reask",
	"Retry.FirstByte":                 "first-byte-timeout",
	"LLMPrompt":                       "nli-prompt",
	"LLMMethod":                       "nli-method",
	"LLMSamples":                      "nli-samples",
	"LLMFixedProbability":             "nli-fixed-probability",
	"OneWayPairs":                     "fr3-pairs",
	"Summaries=llm":                   "summarize",
	"Summaries=given":                 "use-summaries",
	"Inference.Engine":                "solver",
	"Inference.MaxBytes":              "max-memory",
	"Retrieval.TopK":                  "retrieve-k",
	"Retrieval.SkipMissingTopics":     "missing-topic",
	"Retrieval.Scope":                 "kb-scope",
	"Retrieval.Ranking":               "retrieval",
	"Retrieval.Query":                 "web-query",
	"Retrieval.Wikipedia.MinInterval": "wikipedia-interval",
	"Retrieval.SearXNG.URL":           "searxng-url",
	"Retrieval.Pages.Fetch":           "fetch-pages",
	"Retrieval.Pages.Timeout":         "page-timeout",
	"Retrieval.Pages.Budget":          "fetch-budget",
	"Retrieval.Pages.AllowPrivate":    "fetch-private",
	"Retrieval.Embed.BaseURL":         "embed-endpoint",
}

// flagAliases are other names of some flags.
var flagAliases = map[string][]string{"Retry.Retries": {"llm-retries"}}

// flagName is the flag of the setting of that name (assemble.Setting's
// Name): its path in kebab case, the first element left out where it only
// groups (Graph, Inference, Retrieval, FActScore, Retry), a prefix nli- or
// llm- for those of NLI and LLM, and a cache's kind before -cache; or its
// name in flagRenames.
func flagName(setting string) string {
	if n, ok := flagRenames[setting]; ok {
		return n
	}
	elems := strings.Split(setting, ".")
	switch elems[0] {
	case "Graph", "Inference", "Retrieval", "FActScore", "Retry":
		elems = elems[1:]
	case "NLI":
		elems = append([]string{"nli"}, elems[len(elems)-1])
	case "Caches":
		elems = []string{elems[1], "cache"}
	}
	words := make([]string, len(elems))
	for i, e := range elems {
		words[i] = kebab(e)
	}
	return strings.Join(words, "-")
}

// kebab writes a Go name in kebab case: "KPerSource" is k-per-source,
// "BaseURL" base-url.
func kebab(name string) string {
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1])) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// flag is the command's name for the setting of that name.
func (r runs) flag(setting string) string {
	if n, ok := r.names[setting]; ok {
		return n
	}
	return flagName(setting)
}

// flags are the command's flags of its settings.
func (r runs) flags() []cli.Flag {
	var out []cli.Flag
	for _, s := range assemble.Settings(r.kinds...) {
		out = append(out, r.settingFlag(s))
	}
	return out
}

// settingFlag is the flag of a setting.
func (r runs) settingFlag(s assemble.Setting) cli.Flag {
	name, def := r.flag(s.Name()), s.Default
	if d, ok := r.defaults[s.Name()]; ok {
		def = d
	}
	n := r.naming()
	usage, defText, cat, aliases := n.Text(s.Usage), n.Text(s.DefaultText), s.Group, flagAliases[s.Name()]
	if f, ok := n.Option(s.DefaultText); ok {
		defText = f // the default is another setting's value
	}
	number := func(parse func(string) error) {
		if def != "" {
			if err := parse(def); err != nil {
				panic(fmt.Sprintf("the default of %s: %v", s.Name(), err))
			}
		}
	}
	switch s.Kind {
	case assemble.Bool:
		return &cli.BoolFlag{Name: name, Aliases: aliases, Value: def == "true", DefaultText: defText, Category: cat, Usage: usage}
	case assemble.Int:
		f := &cli.IntFlag{Name: name, Aliases: aliases, DefaultText: defText, Category: cat, Usage: usage}
		number(func(d string) (err error) { f.Value, err = strconv.Atoi(d); return })
		return f
	case assemble.Float:
		f := &cli.Float64Flag{Name: name, Aliases: aliases, DefaultText: defText, Category: cat, Usage: usage}
		number(func(d string) (err error) { f.Value, err = strconv.ParseFloat(d, 64); return })
		return f
	case assemble.Duration:
		f := &cli.DurationFlag{Name: name, Aliases: aliases, DefaultText: defText, Category: cat, Usage: usage}
		number(func(d string) (err error) { f.Value, err = time.ParseDuration(d); return })
		return f
	}
	f := &cli.StringFlag{Name: name, Aliases: aliases, Value: def, DefaultText: defText, Category: cat, Usage: usage}
	if len(s.Env) > 0 {
		f.EnvVars = s.Env
		return envShown{f}
	}
	return f
}

// envShown is a flag whose environment variables its help names but which
// the library reads (assemble.Setting.Env), so that a value from the
// environment is not a flag given: the environment of a run may set the
// LLM endpoint of a part the run does not have.
type envShown struct{ *cli.StringFlag }

// Unwrap is the flag as help shows it (clidoc).
func (f envShown) Unwrap() cli.Flag { return f.StringFlag }

// Apply defines the flag without reading its environment variables.
func (f envShown) Apply(set *flag.FlagSet) error {
	plain := *f.StringFlag
	plain.EnvVars = nil
	return plain.Apply(set)
}

// given are the command's settings given as flags, by setting name, as
// text: what the flag read, as Go prints it (2m0s, 0.9), which is the
// setting's form (assemble.Kind).
func (r runs) given(c *cli.Context) map[string]string {
	out := map[string]string{}
	for _, s := range assemble.Settings(r.kinds...) {
		if name := r.flag(s.Name()); c.IsSet(name) {
			out[s.Name()] = fmt.Sprint(c.Value(name))
		}
	}
	return out
}

// options are the run's Options from the command's flags (parts beyond
// those they choose in also), with the secrets fr knows and its log.
func (r runs) options(c *cli.Context, also ...assemble.Part) (assemble.Options, error) {
	o, err := assemble.Given{Kinds: r.kinds, Values: r.given(c), Defaults: r.defaults, Env: os.LookupEnv, Also: also}.Options()
	var na *assemble.NotApplied
	var cf *assemble.Conflict
	if errors.As(err, &na) || errors.As(err, &cf) {
		return o, asUsage(r.naming().Error(err))
	}
	if err != nil {
		return o, r.withFlagNames(err)
	}
	o.LLM.Secrets = knownSecrets(c)
	o.Log = &prefixLines{w: c.App.ErrWriter, prefix: "fr: "}
	return o, nil
}

// noParts refuses, for a run of the command that runs no part, the flags
// of its settings (but those of the settings keep names by path) and the
// flags also names, the first given in that order: "--FLAG " + why.
func (r runs) noParts(c *cli.Context, why string, keep []string, also ...string) error {
	for _, s := range assemble.Settings(r.kinds...) {
		if f := r.flag(s.Name()); c.IsSet(f) && !slices.Contains(keep, s.Path) {
			also = append([]string{f}, also...)
			break
		}
	}
	for _, f := range also {
		if c.IsSet(f) {
			return usagef("--%s %s", f, why)
		}
	}
	return nil
}

// naming names the library's settings and options by the command's
// flags, in its help and its errors.
func (r runs) naming() assemble.Naming {
	return assemble.Naming{Setting: func(name string) string { return "--" + r.flag(name) }, Kinds: r.kinds, Others: commandOptions}
}

// commandOptions are options the library's errors name that commands'
// own flags set.
var commandOptions = map[string]string{
	"FileOptions.OmitInputs": "--output-inputs=false",
	"hub.PullOptions.ONNX":   "--onnx-file",
	"report.Inputs":          "--input",
}
