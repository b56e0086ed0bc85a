// Package prompts holds other systems' prompts, which fr can send in place
// of its own, as data files beside their sources' licences (README.md):
// IBM FactReasoner's (Apache-2.0) for the atomizer, the reviser, LLM NLI
// (v1 and v2), the context summarizer, the query builder and the verifiers
// of its VeriScore and FactVerify baselines, and VeriScore's claim
// extraction (Song et al., MIT). A prompt is a Template, its text with {{name}} placeholders.
//
// The LLM stages of fr have their own prompts, measured here to work best
// (docs/llm.md); a Selection says for which stages FactReasoner's are sent
// instead, as `--prompts factreasoner` or `--prompts atomizer=factreasoner`
// writes it.
package prompts

import (
	"embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

//go:embed factreasoner/*.txt veriscore/*.txt
var files embed.FS

// Template is a prompt with {{name}} placeholders.
type Template struct {
	Name string // its file, without .txt: "factreasoner/atomizer"
	text string
	vars []string // the placeholders' names, in order of first use
}

var placeholder = regexp.MustCompile(`\{\{([a-z_]+)\}\}`)

// Load returns the template of that name ("factreasoner/atomizer").
func Load(name string) (Template, error) {
	b, err := files.ReadFile(name + ".txt")
	if err != nil {
		return Template{}, fmt.Errorf("no prompt %q", name)
	}
	t := Template{Name: name, text: string(b)}
	for _, m := range placeholder.FindAllStringSubmatch(t.text, -1) {
		if !slices.Contains(t.vars, m[1]) {
			t.vars = append(t.vars, m[1])
		}
	}
	return t, nil
}

// Text is the template as it is stored, placeholders and all.
func (t Template) Text() string { return t.text }

// Vars are the names of the template's placeholders.
func (t Template) Vars() []string { return slices.Clone(t.vars) }

// Fill replaces each placeholder by its value, in one pass: a value that
// holds "{{name}}" itself is left as it is. Every placeholder must be
// given, and nothing else.
func (t Template) Fill(values map[string]string) (string, error) {
	for _, v := range t.vars {
		if _, ok := values[v]; !ok {
			return "", fmt.Errorf("prompt %s: no value for {{%s}}", t.Name, v)
		}
	}
	for k := range values {
		if !slices.Contains(t.vars, k) {
			return "", fmt.Errorf("prompt %s has no placeholder {{%s}}", t.Name, k)
		}
	}
	return placeholder.ReplaceAllStringFunc(t.text, func(m string) string {
		return values[m[2:len(m)-2]]
	}), nil
}

// The prompt sets.
const (
	// Default is fr's own prompts.
	Default = "default"
	// FactReasoner is IBM FactReasoner's.
	FactReasoner = "factreasoner"
)

// Sets are the prompt sets.
func Sets() []string { return []string{Default, FactReasoner} }

// The LLM stages whose prompts a Selection chooses.
const (
	Atomizer     = "atomizer"
	Reviser      = "reviser"
	NLI          = "nli"
	Summarizer   = "summarizer"
	QueryBuilder = "querybuilder"
)

// Stages are the stages a Selection chooses prompts for.
func Stages() []string { return []string{Atomizer, Reviser, NLI, Summarizer, QueryBuilder} }

// Selection is the prompt set of each stage that does not use Default.
type Selection map[string]string

// ParseSelection reads a selection: "" or "default" (fr's prompts
// everywhere), a set for every stage ("factreasoner"), or comma-separated
// STAGE=SET items ("atomizer=factreasoner,nli=default"), the stages not
// named keeping fr's.
func ParseSelection(spec string) (Selection, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Selection{}, nil
	}
	if !strings.Contains(spec, "=") {
		if !slices.Contains(Sets(), spec) {
			return nil, fmt.Errorf("%q is not a prompt set (want %s, or STAGE=SET items)", spec, strings.Join(Sets(), " or "))
		}
		s := Selection{}
		for _, st := range Stages() {
			s.set(st, spec)
		}
		return s, nil
	}
	s := Selection{}
	seen := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		stage, set, ok := strings.Cut(strings.TrimSpace(item), "=")
		stage, set = strings.TrimSpace(stage), strings.TrimSpace(set)
		switch {
		case !ok:
			return nil, fmt.Errorf("%q is not STAGE=SET", item)
		case !slices.Contains(Stages(), stage):
			return nil, fmt.Errorf("%q is not a stage with prompts (want %s)", stage, strings.Join(Stages(), ", "))
		case !slices.Contains(Sets(), set):
			return nil, fmt.Errorf("%s=%s: %q is not a prompt set (want %s)", stage, set, set, strings.Join(Sets(), " or "))
		case seen[stage]:
			return nil, fmt.Errorf("%s is given twice", stage)
		}
		seen[stage] = true
		s.set(stage, set)
	}
	return s, nil
}

func (s Selection) set(stage, set string) {
	if set == Default {
		delete(s, stage)
		return
	}
	s[stage] = set
}

// For is the prompt set of a stage.
func (s Selection) For(stage string) string {
	if set, ok := s[stage]; ok {
		return set
	}
	return Default
}

// Name names the sets of the stages given (those a run used), for the
// run's identity: "" when they all use Default, the set when they all use
// one, else "stage=set" items for the others, in stage order.
func (s Selection) Name(used []string) string {
	var items []string
	sets := map[string]bool{}
	for _, st := range Stages() {
		if !slices.Contains(used, st) {
			continue
		}
		set := s.For(st)
		sets[set] = true
		if set != Default {
			items = append(items, st+"="+set)
		}
	}
	switch {
	case len(items) == 0:
		return ""
	case len(sets) == 1:
		for set := range sets {
			return set
		}
	}
	sort.Strings(items)
	return strings.Join(items, ",")
}

// ForStage loads a stage's template in a set: "factreasoner/atomizer".
// nli takes its prompt version, "v1" or "v2" ("factreasoner/nli-v2").
func ForStage(set, stage, version string) (Template, error) {
	if set == Default {
		return Template{}, errors.New("the default prompts are fr's own, not templates")
	}
	name := set + "/" + stage
	if stage == NLI {
		name += "-" + version
	}
	return Load(name)
}
