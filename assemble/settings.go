package assemble

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Settings are data. Each setting a user gives by name is declared once,
// as a Setting in the table entry of the part that reads it (a setting
// several parts read, such as the LLM endpoint's, is one declaration that
// each of them lists): its Options path, the form of its value, its
// default, its help, and whether it enters the run's identity. From the
// declarations come the options a user's settings give (Given.Options),
// the refusal of a setting that no part of the run reads (*NotApplied),
// and, in fr, the flags, their help and docs/cli.md. Every part is an
// entry of a table of its kind (Parts); which ones a run has follows from
// its Options (RunParts).

// Kind is the form of a setting's value, as a user writes it.
type Kind int

// The kinds of values.
const (
	Text     Kind = iota // any text
	Int                  // a whole number
	Float                // a number
	Bool                 // true or false; given alone, true
	Duration             // a Go duration: 2m, 1.5s
)

// Setting is one setting of Options that a user gives by name.
type Setting struct {
	// Path is the field of Options it sets ("NLI.Model",
	// "Inference.Damping"), as OptionError names it.
	Path string
	// Switch, for a Bool setting, is the value true gives Path: two
	// settings of one Path ("Summaries=llm", "Summaries=given") are two
	// ways to choose it, and giving both is an error.
	Switch string
	Kind   Kind
	// Default is the value the setting takes when not given, in its text
	// form; "" gives none (the field's zero value, which its part reads as
	// its default). DefaultText says what the default is where it is not
	// a value ("the knowledge base's").
	Default, DefaultText string
	// Usage says what the setting does in one line; Details says more, in
	// markdown. Options paths in parentheses, "(NLI.Model)", name the
	// settings they are (fr shows its flags there). A word in back
	// quotes names the value: "an SQLite `FILE`".
	Usage, Details string
	// Group is the kind of thing it configures, for help: GroupNLI, ...
	Group string
	// Env are environment variables that give the setting when it is not
	// given, as their users set them (OPENAI_BASE_URL).
	Env []string
	// Secret says the value is a secret; URL that it is an endpoint's URL,
	// which may carry credentials. Both are kept out of messages.
	Secret, URL bool
	// Identifies says that the setting changes the results of the parts
	// that read it, and enters the run's identity through theirs
	// (Part.Identity): another value is another run. A setting that
	// changes how results are found but not which (a batch size, a
	// timeout, a cache) does not.
	Identifies bool
	// Set sets Options from the text; nil sets Path's field by Kind.
	Set func(o *Options, text string) error
}

// Name is the setting's name: its Path, and for a switch the value it
// gives ("Summaries=llm").
func (s Setting) Name() string {
	if s.Switch != "" {
		return s.Path + "=" + s.Switch
	}
	return s.Path
}

// apply sets the setting's value from text.
func (s Setting) apply(o *Options, text string) error {
	if s.Switch != "" {
		on, err := strconv.ParseBool(text)
		if err != nil {
			return optionErr(s.Path, fmt.Errorf("%q is not true or false", text))
		}
		if !on {
			return nil
		}
		text = s.Switch
	}
	kind := s.Kind
	if s.Switch != "" {
		kind = Text // the value it switches to
	}
	var err error
	if s.Set != nil {
		err = s.Set(o, text)
	} else {
		err = setField(o, s.Path, kind, text)
	}
	var oe *OptionError
	if err != nil && !errors.As(err, &oe) {
		err = optionErr(s.Path, err)
	}
	return err
}

// setField sets the field of o at path from text, read as kind.
func setField(o *Options, path string, kind Kind, text string) error {
	v, err := field(o, path)
	if err != nil {
		return err
	}
	switch kind {
	case Text:
		v.SetString(text)
	case Int:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return fmt.Errorf("%q is not a whole number", text)
		}
		v.SetInt(n)
	case Float:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", text)
		}
		v.SetFloat(f)
	case Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("%q is not true or false", text)
		}
		v.SetBool(b)
	case Duration:
		d, err := time.ParseDuration(strings.TrimSpace(text))
		if err != nil {
			return fmt.Errorf("%q is not a duration (as 30s, 2m or 1h)", text)
		}
		v.SetInt(int64(d))
	}
	return nil
}

// field is the settable field of o at a dotted path of exported fields.
func field(o *Options, path string) (reflect.Value, error) {
	v := reflect.ValueOf(o).Elem()
	for _, name := range strings.Split(path, ".") {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, fmt.Errorf("assemble: %s is no field of Options", path)
		}
		v = v.FieldByName(name)
		if !v.IsValid() || !v.CanSet() {
			return reflect.Value{}, fmt.Errorf("assemble: %s is no field of Options", path)
		}
	}
	return v, nil
}

// Part is a part a run can have, as its settings see it: an entry of one
// of the tables of parts, what chooses it, and the settings it reads.
type Part struct {
	// Kind is the table: KindNLI, KindAtomizer, ...
	Kind string
	Name string
	// Choice is the option that puts the part in a run, and Value the
	// value that does (for a setting that switches it on, ""); a part
	// without a Choice is in every run that has parts of its kind. Within
	// is the Choice and Value of a part this one is a part of
	// ("Inference.Engine=native"). When says what puts it in a run where
	// no one value of Choice does ("an atomizer (Atomizer)"). All are for
	// messages: which parts a run has follows from In.
	Choice, Value, Within, When string
	// Identity is the field of a line's identity (result.Identity) in
	// which the part names itself and the settings it reads that enter
	// the identity ("run.nli"); "" for a part that changes no result.
	Identity string
	Settings []Setting
	// In says whether a run of o has the part.
	In func(o Options) bool
}

// The kinds of parts, each a table (Parts): what a command runs.
const (
	KindScoring    = "scoring"    // the network's priors, K, pruning, the fast mode
	KindNLI        = "nli"        // NLIBackends, a cascade
	KindAtomizer   = "atomizer"   // Atomizers, the reviser
	KindAbstention = "abstention" // FActScore's abstention rule
	KindSummarizer = "summarizer" // the summarizer stage
	KindRetrieval  = "retrieval"  // RetrievalSources and what they share
	KindVerifier   = "verifier"   // Verifiers
	KindInference  = "inference"  // Algorithms
)

// The groups of settings, as help shows them.
const (
	GroupScoring    = "Scoring"
	GroupAtoms      = "Atoms"
	GroupSummaries  = "Summaries"
	GroupNLI        = "NLI"
	GroupNLIRuntime = "NLI model runtime (onnx, remote)"
	GroupLLM        = "LLM endpoint"
	GroupRetrieval  = "Retrieval"
	GroupWeb        = "Web search"
	GroupInference  = "Inference"
	GroupFActScore  = "FActScore"
)

// Parts lists the parts of the given kinds, table by table, in table
// order. The parts' Settings are shared: do not modify them.
func Parts(kinds ...string) []Part {
	var out []Part
	for _, k := range kinds {
		parts, ok := partTables()[k]
		if !ok {
			panic("assemble: no kind of part " + k)
		}
		out = append(out, parts...)
	}
	return out
}

// partTables are the parts of every kind, made once: the tables do not
// change while a program runs.
var partTables = sync.OnceValue(func() map[string][]Part {
	return map[string][]Part{
		KindScoring:    scoringParts(),
		KindNLI:        nliParts(),
		KindAtomizer:   atomizerParts(),
		KindAbstention: abstentionParts(),
		KindSummarizer: summarizerParts(),
		KindRetrieval:  retrievalParts(),
		KindVerifier:   verifierParts(),
		KindInference:  inferenceParts(),
	}
})

// Settings lists the settings of the parts of the given kinds, each once,
// in the order of the parts.
func Settings(kinds ...string) []Setting {
	var out []Setting
	seen := map[string]bool{}
	for _, p := range Parts(kinds...) {
		for _, s := range p.Settings {
			if !seen[s.Name()] {
				seen[s.Name()] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// Kinds are every kind of part.
func Kinds() []string {
	return []string{KindScoring, KindAtomizer, KindAbstention, KindSummarizer, KindNLI, KindRetrieval, KindInference, KindVerifier}
}

// RunParts lists the parts of the given kinds that a run of o has.
func RunParts(o Options, kinds ...string) []Part {
	var out []Part
	for _, p := range Parts(kinds...) {
		if p.In == nil || p.In(o) {
			out = append(out, p)
		}
	}
	return out
}

// Given are the settings a user gave, by name (Setting.Name), as text, for
// a command that runs the parts of Kinds.
type Given struct {
	Kinds  []string
	Values map[string]string
	// Defaults replace the declared defaults of some settings, by name
	// (a command's own: fr factscore retrieves 5 passages per atom).
	Defaults map[string]string
	// Env looks an environment variable up (os.LookupEnv); nil reads none.
	Env func(string) (string, bool)
	// Also are parts the run has beyond those its Options choose (fr
	// compare's baselines: their verifiers).
	Also []Part
}

// Options returns the options the settings give: each given setting set
// from its text, the others from their environment variables or their
// defaults, in the order they are declared. A value that cannot be read
// is an *OptionError naming its setting; a setting given that no part of
// the run reads, a *NotApplied; two ways of choosing one option given
// together, an error naming both.
func (g Given) Options() (Options, error) {
	var o Options
	settings := Settings(g.Kinds...)
	known := map[string]bool{}
	byPath := map[string]string{} // a given setting's name, by path
	for _, s := range settings {
		known[s.Name()] = true
		text, given := g.Values[s.Name()]
		if given {
			if other, ok := byPath[s.Path]; ok && s.Switch != "" {
				if on, _ := strconv.ParseBool(text); on {
					if on, _ := strconv.ParseBool(g.Values[other]); on {
						return o, &Conflict{A: other, B: s.Name()}
					}
				}
			}
			byPath[s.Path] = s.Name()
		} else {
			text = g.fallback(s)
			if text == "" {
				continue
			}
		}
		if err := s.apply(&o, text); err != nil {
			return o, err
		}
	}
	for name := range g.Values {
		if !known[name] {
			return o, fmt.Errorf("assemble: %s is no setting of %s", name, strings.Join(g.Kinds, ", "))
		}
	}
	if err := checkChoices(o, g.Kinds); err != nil {
		return o, err // the part a setting names may be the mistake
	}
	o.fromGiven = true
	return o, g.check(o, settings)
}

// checkApplied refuses, in options a program set field by field, an option
// that no part of the run reads, as Given refuses such a setting given by
// name: NLI.Model with the lexical backend is a *NotApplied, not silently
// nothing. An option holding its zero value or its declared default is not
// given. The choices themselves (NLI.Backend, ...) are checked where the
// parts they name are opened.
func checkApplied(o Options) error {
	kinds := Kinds()
	run := RunParts(o, kinds...)
	settings := Settings(kinds...)
	read := map[string]bool{} // paths, for the two settings of a switch
	for _, s := range settings {
		if slices.ContainsFunc(run, func(p Part) bool { return p.reads(s.Name()) }) {
			read[s.Path] = true
		}
	}
	var names []string
	for _, s := range settings {
		if read[s.Path] {
			continue
		}
		read[s.Path] = true // once
		v, err := field(&o, s.Path)
		if err != nil || v.IsZero() {
			continue
		}
		var def Options
		if s.Default != "" {
			if err := s.apply(&def, s.Default); err != nil {
				return err
			}
		}
		if d, _ := field(&def, s.Path); reflect.DeepEqual(v.Interface(), d.Interface()) {
			continue
		}
		names = append(names, s.Name())
	}
	if len(names) == 0 {
		return nil
	}
	values := map[string]string{}
	for _, n := range names {
		values[n] = ""
	}
	return Given{Kinds: kinds, Values: values}.check(o, settings)
}

// fallback is the text of a setting not given: its environment
// variable's, the command's default, or its own.
func (g Given) fallback(s Setting) string {
	if g.Env != nil {
		for _, e := range s.Env {
			if v, ok := g.Env(e); ok {
				return v
			}
		}
	}
	if d, ok := g.Defaults[s.Name()]; ok {
		return d
	}
	return s.Default
}

// check refuses a given setting that no part of a run of o reads.
func (g Given) check(o Options, settings []Setting) error {
	run := append(RunParts(o, g.Kinds...), g.Also...)
	var names []string
	for name := range g.Values {
		names = append(names, name)
	}
	// The first in declaration order, so that the error is the same from
	// run to run.
	slices.SortFunc(names, func(a, b string) int {
		return slices.IndexFunc(settings, func(s Setting) bool { return s.Name() == a }) -
			slices.IndexFunc(settings, func(s Setting) bool { return s.Name() == b })
	})
	for _, name := range names {
		if slices.ContainsFunc(run, func(p Part) bool { return p.reads(name) }) {
			continue
		}
		na := &NotApplied{Setting: name, Run: map[string]string{}}
		for _, p := range Parts(g.Kinds...) {
			if !p.reads(name) {
				continue
			}
			na.Readers = append(na.Readers, p)
			for _, c := range []string{p.Choice, strings.Split(p.Within, "=")[0]} {
				if c != "" {
					na.Run[c] = chosen(o, c)
				}
			}
		}
		return na
	}
	return nil
}

// reads reports whether the part reads the setting of that name.
func (p Part) reads(name string) bool {
	return slices.ContainsFunc(p.Settings, func(s Setting) bool { return s.Name() == name })
}

// chosen is the value a run of o has for the option at path, as text,
// defaults resolved ("" is "none").
func chosen(o Options, path string) string {
	var s string
	switch path {
	case "NLI.Backend":
		s = strings.Join(backendsOf(o), ",")
	case "Inference.Engine":
		s = o.Inference.engine()
	case "Inference.Algorithm":
		s = o.Inference.algorithm()
	case "Retrieval.Source":
		s = strings.Join(sourcesOf(o), ",")
	default:
		v, err := field(&o, path)
		if err != nil {
			return ""
		}
		s = fmt.Sprint(v.Interface())
	}
	if s == "" {
		return "none"
	}
	return s
}
