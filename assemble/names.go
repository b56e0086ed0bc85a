package assemble

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Naming says how a program names settings and options in its messages.
// The library's own messages name an option by its path in Options
// ("NLI.Model"), a setting by its name (Setting.Name), and the texts of
// the settings (Setting.Usage, Details) name others in parentheses,
// "(NLI.Model)"; fr names them all by its flags. The zero Naming names
// them by path.
type Naming struct {
	// Setting is the program's name of the setting of that name (fr:
	// "--nli-model"); nil keeps the name.
	Setting func(name string) string
	// Kinds are the kinds of parts whose settings the program takes (a
	// command's): a NotApplied says what the run has instead only for
	// options among them. Nil is every kind.
	Kinds []string
	// Others are the program's names of option paths that are no
	// setting, which the library's errors name (fr:
	// "FileOptions.OmitInputs" is --output-inputs=false).
	Others map[string]string
}

// setting is the program's name of a setting.
func (n Naming) setting(name string) string {
	if n.Setting == nil {
		return name
	}
	return n.Setting(name)
}

// has reports whether the setting of that name is one the program takes
// (Summaries is two: Summaries=llm and Summaries=given).
func (n Naming) has(name string) bool {
	kinds := n.Kinds
	if kinds == nil {
		kinds = Kinds()
	}
	return slices.ContainsFunc(Settings(kinds...), func(s Setting) bool { return s.Name() == name })
}

// Option is the program's name of an option path ("NLI.Model",
// "Options.NLI.Model", a setting's name, an option of a part's package as
// its error names it: OptionPath, or one of Others), or the names of the
// settings an option groups, joined by ", " ("Graph": Graph.UsePriors,
// Graph.AtomPrior, Graph.ContextPrior; at most five); false for none.
func (n Naming) Option(path string) (string, bool) {
	path = strings.TrimPrefix(path, "Options.")
	if f, ok := n.Others[path]; ok {
		return f, true
	}
	if p, ok := OptionPath(path); ok {
		path = p
	}
	if s, ok := allSettings().byName[path]; ok {
		return n.setting(s.Name()), true
	}
	group := allSettings().groups[path]
	if len(group) == 0 || len(group) > 5 {
		return "", false
	}
	names := make([]string, len(group))
	for i, name := range group {
		names[i] = n.setting(name)
	}
	return strings.Join(names, ", "), true
}

// Text is s with the options it names in parentheses, "(NLI.Model)", each
// alone or as the first word of an item of a list, named as the program
// names them (Option).
func (n Naming) Text(s string) string {
	return parenthesized.ReplaceAllStringFunc(s, func(group string) string {
		items := strings.Split(group[1:len(group)-1], ", ")
		for i, item := range items {
			first, rest, _ := strings.Cut(item, " ")
			if f, ok := n.Option(item); ok {
				items[i] = f
			} else if f, ok := n.Option(first); ok {
				items[i] = f + " " + rest
			}
		}
		return "(" + strings.Join(items, ", ") + ")"
	})
}

// parenthesized matches a parenthesized group without parentheses inside.
var parenthesized = regexp.MustCompile(`\([^()]*\)`)

// choice says how a run gets the parts that values of an option choose:
// "NLI.Backend onnx, remote or auto", "Retrieval.Pages.Fetch" (a switch,
// value ""), "Summaries=llm" (the switch to that value), as the program
// names them.
func (n Naming) choice(option string, values ...string) string {
	if len(values) == 0 || len(values) == 1 && values[0] == "" {
		return n.setting(option)
	}
	if len(values) == 1 {
		if f, ok := n.Option(option + "=" + values[0]); ok {
			return f
		}
	}
	return n.setting(option) + " " + oneOf(values)
}

// Error is err said in the program's names: a setting given for parts not
// in the run (NotApplied) and two that choose one option (Conflict) said
// by their Message, the option of an OptionError (its own error said so
// too), and every option named in parentheses (Text). What err is
// (errors.Is, errors.As) is kept.
func (n Naming) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var na *NotApplied
	var cf *Conflict
	var oe *OptionError
	switch {
	case errors.As(err, &na):
		msg = strings.Replace(msg, na.Error(), na.Message(n), 1)
	case errors.As(err, &cf):
		msg = strings.Replace(msg, cf.Error(), cf.Message(n), 1)
	case errors.As(err, &oe):
		name := oe.Option
		if f, ok := n.Option(name); ok {
			name = f
		}
		msg = strings.Replace(msg, oe.Error(), name+": "+n.Error(oe.Err).Error(), 1)
	}
	if msg = n.Text(msg); msg == err.Error() {
		return err
	}
	return &named{msg: msg, err: err}
}

// named is an error said in a program's names.
type named struct {
	msg string
	err error
}

func (e *named) Error() string { return e.msg }
func (e *named) Unwrap() error { return e.err }

// allSettings are the settings of every part, by name (and, for those that
// are not switches, by path), and the names of those each option path
// groups: "Graph" the settings Graph.*, "Summaries" its two switches.
var allSettings = sync.OnceValue(func() (all struct {
	byName map[string]Setting
	groups map[string][]string
}) {
	all.byName, all.groups = map[string]Setting{}, map[string][]string{}
	for _, s := range Settings(Kinds()...) {
		all.byName[s.Name()] = s
		elems := strings.Split(s.Path, ".")
		for i := 1; i < len(elems); i++ {
			prefix := strings.Join(elems[:i], ".")
			all.groups[prefix] = append(all.groups[prefix], s.Name())
		}
		if s.Switch != "" {
			all.groups[s.Path] = append(all.groups[s.Path], s.Name())
		}
	}
	return all
})

// NotApplied is a setting given for parts that are not in the run.
type NotApplied struct {
	Setting string // its name
	// Readers are the parts that read it; Run is what the run has for the
	// options that choose them, by path.
	Readers []Part
	Run     map[string]string
}

func (e *NotApplied) Error() string { return e.Message(Naming{}) }

// Message says what the setting applies to, and what the run has
// instead, with the settings named as n names them: "NLI.Model applies to
// NLI.Backend auto, onnx or remote, not to this run (NLI.Backend
// lexical)"; fr's "--nli-model applies to --nli auto, onnx or remote, not
// to this run (--nli lexical)".
func (e *NotApplied) Message(n Naming) string {
	var ways, have []string
	for _, g := range e.Groups() {
		if g.When != "" {
			ways = append(ways, n.Text(g.When))
			continue
		}
		way := n.choice(g.Choice, g.Values...)
		option, value, _ := strings.Cut(g.Within, "=")
		if g.Within != "" {
			way += " (of " + n.choice(option, value) + ")"
		}
		ways = append(ways, way)
		// What the run has instead: the part this one is within, or the
		// value of the option that chooses it.
		if g.Within != "" && e.Run[option] != value {
			have = append(have, n.choice(option, e.Run[option]))
		} else if len(g.Values) > 0 && g.Values[0] != "" && n.has(g.Choice) {
			have = append(have, n.choice(g.Choice, e.Run[g.Choice]))
		}
	}
	msg := fmt.Sprintf("%s applies to %s, not to this run", n.setting(e.Setting), strings.Join(ways, "; "))
	if len(have) > 0 {
		msg += " (" + strings.Join(have, ", ") + ")"
	}
	return msg
}

// ChoiceGroup is a way to put parts that read a setting in a run: the
// values of one option (within what Within names), or what When says.
type ChoiceGroup struct {
	Choice string   // the option's path
	Values []string // "" for a switch
	Within string   // Part.Within
	When   string   // Part.When, for a part no one value chooses
}

// Groups are the ways to put a part that reads the setting in a run, in
// the order of the parts: the values of one option together.
func (e *NotApplied) Groups() []ChoiceGroup {
	var out []ChoiceGroup
	for _, p := range e.Readers {
		if p.When != "" {
			if !slices.ContainsFunc(out, func(g ChoiceGroup) bool { return g.When == p.When }) {
				out = append(out, ChoiceGroup{When: p.When})
			}
			continue
		}
		i := slices.IndexFunc(out, func(g ChoiceGroup) bool { return g.When == "" && g.Choice == p.Choice && g.Within == p.Within })
		if i < 0 {
			out = append(out, ChoiceGroup{Choice: p.Choice, Within: p.Within})
			i = len(out) - 1
		}
		if !slices.Contains(out[i].Values, p.Value) {
			out[i].Values = append(out[i].Values, p.Value)
		}
	}
	return out
}

// OptionPath is the path in Options of an option that the error of one of
// the pipeline's parts names in its own package's terms
// ("llmnli.Options.Method" is LLMMethod); false for another.
func OptionPath(name string) (string, bool) {
	path, ok := partOptions[name]
	return path, ok
}

// partOptions are the options of the parts' packages that Options set.
var partOptions = map[string]string{
	"onnxnli.Options.Library":               "NLI.ONNX.Library",
	"crossenc.EncoderOptions.PositiveLabel": "NLI.PositiveLabel",
	"remotenli.Options.Model":               "NLI.Remote.Model",
	"remotenli.Options.MaxLength":           "NLI.ONNX.MaxLength",
	"remotenli.Options.Endpoint":            "NLI.Remote.Endpoint",
	"remotenli.Options.Protocol":            "NLI.Remote.Protocol",
	"llmnli.Options.Method":                 "LLMMethod",
	"llmnli.Options.Samples":                "LLMSamples",
	"llmnli.Options.FixedProbability":       "LLMFixedProbability",
	"summarize.Options.Method":              "SummaryMethod",
	"summarize.Options.Samples":             "SummarySamples",
	"summarize.Options.FixedProbability":    "SummaryFixedProbability",
	"llm.Config.APIKey":                     "LLM.APIKey",
	"merlin.Solver.Path":                    "Inference.Merlin.Path",
}

// Conflict is two settings given together that choose one option two
// ways (Setting.Switch).
type Conflict struct{ A, B string }

func (e *Conflict) Error() string { return e.Message(Naming{}) }

// Message says so with the settings named as n names them.
func (e *Conflict) Message(n Naming) string {
	return fmt.Sprintf("%s and %s choose one option two ways: give one", n.setting(e.A), n.setting(e.B))
}
