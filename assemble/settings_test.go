package assemble

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli/remotenlitest"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/retrieve/searchtest"
)

// scoringKinds are the kinds of parts a scoring run has.
var scoringKinds = []string{KindScoring, KindAtomizer, KindAbstention, KindSummarizer, KindNLI, KindRetrieval, KindInference}

// TestSettingsDeclared: every setting names a field of Options (or sets
// them itself), has a one-line usage, a help group and a default its kind
// reads; a setting several parts read is one declaration; every part has
// a kind, a name and, where a value chooses it, a setting of that option.
func TestSettingsDeclared(t *testing.T) {
	byName := map[string]Setting{}
	for _, p := range Parts(Kinds()...) {
		if p.Kind == "" || p.Name == "" {
			t.Errorf("part %+v: no kind or name", p)
		}
		if p.Choice != "" && p.When == "" && !slices.ContainsFunc(Settings(Kinds()...), func(s Setting) bool { return s.Path == p.Choice }) {
			t.Errorf("%s %s: chosen by %s, which is no setting", p.Kind, p.Name, p.Choice)
		}
		for _, s := range p.Settings {
			if prev, ok := byName[s.Name()]; ok && declaration(prev) != declaration(s) {
				t.Errorf("%s is declared twice, differently:\n%s\n%s", s.Name(), declaration(prev), declaration(s))
			}
			byName[s.Name()] = s
		}
	}
	for name, s := range byName {
		var o Options
		if _, err := field(&o, s.Path); err != nil && s.Set == nil {
			t.Errorf("%s: %v", name, err)
		}
		if s.Usage == "" || strings.Contains(s.Usage, "\n") || s.Group == "" {
			t.Errorf("%s: usage %q, group %q", name, s.Usage, s.Group)
		}
		if s.Default != "" {
			if err := s.apply(&o, s.Default); err != nil {
				t.Errorf("%s: its default %q: %v", name, s.Default, err)
			}
		}
	}
	if len(byName) < 80 {
		t.Errorf("%d settings", len(byName))
	}
}

// declaration is a setting as text, for comparing two declarations.
func declaration(s Setting) string {
	s.Set = nil
	return fmt.Sprintf("%+v", s)
}

// identityFixture is what the parts of TestSettingsIdentity open: loopback
// servers, models, knowledge bases and files, as the defaults of the
// settings that name them (given, they would be settings of parts a run
// may not have).
func identityFixture(t *testing.T) (defaults map[string]string, alt, recipes map[string]map[string]string) {
	lib, err := onnxnli.FindLibrary("")
	if err != nil {
		// As every test that opens an ONNX model: scripts/test installs
		// the library (scripts/install-onnxruntime), so a missing one is a
		// set-up to mend, not a walk to leave out.
		t.Fatalf("ONNX Runtime, which the onnx and remote NLI parts open: %v", err)
	}
	t.Setenv(onnxnli.LibraryEnvVar, lib) // found in the cache directory, which changes now
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	t.Setenv(retrieve.SerperKeyEnv, "key")
	answer := func(int, llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "[]"} }
	srv, srv2 := llmtest.New(t, answer), llmtest.New(t, answer)
	emb, emb2 := llmtest.NewEmbeddings(t, "hash-96", 96), llmtest.NewEmbeddings(t, "hash-96", 96)
	models := filepath.Join("..", "testdata", "nli")
	remote, remote2, remoteOther := remotenlitest.Start(t, filepath.Join(models, "tiny-roberta"), "tiny"),
		remotenlitest.Start(t, filepath.Join(models, "tiny-roberta"), "tiny"), remotenlitest.Start(t, filepath.Join(models, "tiny-roberta"), "other")
	kb := func(text string) string {
		path := filepath.Join(t.TempDir(), "kb.db")
		b, err := retrieve.NewBuilder(path, retrieve.BuildOptions{Embedder: llmClient(t, emb.BaseURL()), EmbedModel: "hash-96"})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(context.Background(), retrieve.Document{Title: "T", Pieces: []string{text}}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Finish(context.Background()); err != nil {
			t.Fatal(err)
		}
		return path
	}
	priors := filepath.Join(t.TempDir(), "priors.txt")
	os.WriteFile(priors, []byte("wikipedia.org 0.8\n"), 0o644)
	defaults = map[string]string{
		"NLI.Backend": "lexical", "NLI.Model": filepath.Join(models, "tiny-roberta"),
		"NLI.Remote.Endpoint": remote.URL, "NLI.Remote.Model": "tiny",
		"LLM.BaseURL": srv.BaseURL(), "LLM.Model": "m", "Caches.LLM": "off", "Caches.Retrieval": "off",
		"Retrieval.Embed.BaseURL": emb.BaseURL(),
		"Retrieval.SearXNG.URL":   searchtest.NewSearXNG(t).URL, "Retrieval.Serper.Endpoint": searchtest.NewSerper(t, "key").URL,
		"Retrieval.Wikipedia.Endpoint": "http://127.0.0.1:9/w/api.php",
	}
	// Another value of each setting whose kind does not give one, with
	// the settings that must change with it (not of the identity).
	alt = map[string]map[string]string{
		"NLI.Backend":                   {"NLI.Backend": "llm"},
		"NLI.Model":                     {"NLI.Model": filepath.Join(models, "tiny-bert")},
		"NLI.PositiveLabel":             {"NLI.PositiveLabel": "LABEL_0"},
		"NLI.Unsupported":               {"NLI.Unsupported": "contradiction"},
		"NLI.ONNX.Library":              {"NLI.ONNX.Library": lib},
		"NLI.ONNX.MaxLength":            {"NLI.ONNX.MaxLength": "32"},
		"NLI.Remote.Protocol":           {"NLI.Remote.Protocol": "tei"},
		"NLI.Remote.Endpoint":           {"NLI.Remote.Endpoint": remote2.URL},
		"NLI.Remote.Model":              {"NLI.Remote.Model": "other", "NLI.Remote.Endpoint": remoteOther.URL},
		"LLM.BaseURL":                   {"LLM.BaseURL": srv2.BaseURL()},
		"LLM.Model":                     {"LLM.Model": "m2"},
		"LLM.APIKey":                    {"LLM.APIKey": "sk-other"},
		"Caches.LLM":                    {"Caches.LLM": "auto"},
		"Caches.NLI":                    {"Caches.NLI": "auto"},
		"Caches.Retrieval":              {"Caches.Retrieval": "auto"},
		"LLMPrompt":                     {"LLMPrompt": "v2"},
		"LLMMethod":                     {"LLMMethod": "sample"},
		"SummaryMethod":                 {"SummaryMethod": "sample"},
		"Prompts":                       {"Prompts": "factreasoner"},
		"Atomizer":                      {"Atomizer": "sentences"},
		"Abstention":                    {"Abstention": "none"},
		"K":                             {"K": "3"},
		"PairsPerAtom":                  {"PairsPerAtom": "all"},
		"OneWayPairs":                   {"OneWayPairs": "one-way"},
		"Retrieval.Source":              {"Retrieval.Source": "wikipedia"},
		"Retrieval.DB":                  {"Retrieval.DB": kb("T was born in 1960.")},
		"Retrieval.SkipMissingTopics":   {"Retrieval.SkipMissingTopics": "skip"},
		"Retrieval.Scope":               {"Retrieval.Scope": "corpus"},
		"Retrieval.Ranking":             {"Retrieval.Ranking": "dense"},
		"Retrieval.Query":               {"Retrieval.Query": "topic"},
		"Retrieval.KPerSource":          {"Retrieval.KPerSource": "wikipedia=2"},
		"Retrieval.SourcePriors":        {"Retrieval.SourcePriors": priors},
		"Retrieval.Wikipedia.Endpoint":  {"Retrieval.Wikipedia.Endpoint": "http://127.0.0.2:9/w/api.php"},
		"Retrieval.Wikipedia.UserAgent": {"Retrieval.Wikipedia.UserAgent": "test/1"},
		"Retrieval.Serper.Endpoint":     {"Retrieval.Serper.Endpoint": "http://127.0.0.2:9/search"},
		"Retrieval.SearXNG.URL":         {"Retrieval.SearXNG.URL": "http://127.0.0.2:9"},
		"Retrieval.Embed.BaseURL":       {"Retrieval.Embed.BaseURL": emb2.BaseURL()},
		"Retrieval.Embed.Model":         {"Retrieval.Embed.Model": "hash-96"},
		"Inference.Engine":              {"Inference.Engine": "merlin"},
		"Inference.Algorithm":           {"Inference.Algorithm": "exact"},
		"Inference.Damping":             {"Inference.Damping": "0.5"},
		"Inference.ClampBudget":         {"Inference.ClampBudget": "3"},
		"Inference.ErrorBudget":         {"Inference.ErrorBudget": "none"},
		"Inference.Merlin.Path":         {"Inference.Merlin.Path": "/usr/local/bin/merlin"},
		"Inference.Merlin.Flags":        {"Inference.Merlin.Flags": "--ibound 4"},
		"Revise":                        {"Revise": "false"},
	}
	// The knowledge base is given to the runs of the parts that read it
	// (a default, it would make every run's sources db).
	kb1 := kb("T was born in 1950.")
	recipes = map[string]map[string]string{
		"retrieval db":         {"Retrieval.DB": kb1},
		"retrieval embeddings": {"Retrieval.DB": kb1, "Retrieval.Ranking": "dense"},
	}
	return defaults, alt, recipes
}

// llmClient is an embeddings client of the endpoint.
func llmClient(t *testing.T, base string) retrieve.Embedder {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: base, Model: "hash-96"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// partRecipes put in a run the parts that no one value of an option
// chooses (Part.When), and those that need more than their value.
// They are keyed by kind and name.
var partRecipes = map[string]map[string]string{
	"nli cascade":                 {"NLI.Backend": "lexical,llm"},
	"scoring pruning":             {"NLI.Backend": "lexical"},
	"atomizer reviser":            {"Atomizer": "llm"},
	"abstention abstention":       {"Atomizer": "sentences"},
	"retrieval knowledge sources": {"Retrieval.Source": "wikipedia"},
	"retrieval query builder":     {"Retrieval.Source": "wikipedia", "Retrieval.QueryBuilder": "true"},
	"retrieval pages":             {"Retrieval.Source": "serper", "Retrieval.Pages.Fetch": "true"},
	"nli auto":                    {"NLI.Backend": "onnx"}, // auto reads the onnx backend's settings: it is onnx here
}

// settingOverrides are settings a run needs for a setting to act on its
// result: a grounding classifier's labels act on a grounding classifier.
var settingOverrides = map[string]map[string]string{
	"NLI.PositiveLabel": {"NLI.Model": filepath.Join("..", "testdata", "nli", "tiny-minicheck"), "NLI.PositiveLabel": "LABEL_1"},
	"NLI.Unsupported":   {"NLI.Model": filepath.Join("..", "testdata", "nli", "tiny-minicheck"), "NLI.PositiveLabel": "LABEL_1"},
}

// recipe is the settings that put the part in a run (partRecipes, and
// those of the fixture).
func recipe(p Part, fixture map[string]map[string]string) map[string]string {
	if r, ok := fixture[p.Kind+" "+p.Name]; ok {
		return maps.Clone(r)
	}
	if r, ok := partRecipes[p.Kind+" "+p.Name]; ok {
		return maps.Clone(r)
	}
	out := map[string]string{}
	switch {
	case p.Choice == "":
	case p.Value == "":
		out[p.Choice] = "true"
	case slices.ContainsFunc(Settings(Kinds()...), func(s Setting) bool { return s.Name() == p.Choice+"="+p.Value }):
		out[p.Choice+"="+p.Value] = "true"
	default:
		out[p.Choice] = p.Value
	}
	if option, value, ok := strings.Cut(p.Within, "="); ok {
		out[option] = value
	}
	return out
}

// another is another value of a setting than text, by its kind, where
// the fixture gives none.
func another(s Setting, text string) string {
	switch s.Kind {
	case Bool:
		if text == "true" {
			return "false"
		}
		return "true"
	case Int:
		if text == "2" {
			return "3"
		}
		return "2"
	case Float:
		if text == "0.7" {
			return "0.6"
		}
		return "0.7"
	case Duration:
		return "7s"
	}
	return ""
}

// TestSettingsIdentity (issue 30): every setting that is declared to
// enter the run's identity does, and every other does not. For each
// setting, in a run that has a part reading it (and every other part the
// fixture can open: a knowledge base, web sources, NLI models and servers,
// an LLM), two pipelines are opened, one with another value of it, and
// the identity of the line of a record that came with nothing (atomized,
// retrieved for, summarized, asked) is compared: a setting that enters
// the identity changes it, one that does not leaves it. Derived from the
// declarations: a new setting is covered, or the test says what it lacks.
func TestSettingsIdentity(t *testing.T) {
	if testing.Short() {
		t.Skip("opens every part")
	}
	defaults, alts, recipes := identityFixture(t)
	raw := &instance.Instance{Input: "Who is T?", Output: "T was born in 1950. T lives in Rome.", Topic: "T", Line: 1}
	identity := func(values map[string]string) (string, error) {
		o, err := Given{Kinds: scoringKinds, Values: values, Defaults: defaults}.Options()
		if err != nil {
			return "", err
		}
		p, err := Open(context.Background(), o)
		if err != nil {
			return "", err
		}
		defer p.Close()
		return fmt.Sprintf("%+v", p.LineIdentity(graph.FR2, raw)), nil
	}
	covered, identifying := 0, 0
	for _, s := range Settings(scoringKinds...) {
		readers := slices.DeleteFunc(Parts(scoringKinds...), func(p Part) bool { return !p.reads(s.Name()) })
		// A reader that names itself in the identity, where one does.
		i := max(0, slices.IndexFunc(readers, func(p Part) bool { return p.Identity != "" }))
		base := recipe(readers[i], recipes)
		maps.Copy(base, settingOverrides[s.Name()])
		if _, ok := base[s.Name()]; !ok {
			base[s.Name()] = defaults[s.Name()]
			if base[s.Name()] == "" {
				base[s.Name()] = s.Default
			}
			if base[s.Name()] == "" {
				delete(base, s.Name()) // its zero value: not given
			}
		}
		changed := maps.Clone(base)
		if a, ok := alts[s.Name()]; ok {
			maps.Copy(changed, a)
		} else if v := another(s, base[s.Name()]); v != "" {
			changed[s.Name()] = v
		} else {
			t.Errorf("%s: no other value to try (give one in identityFixture)", s.Name())
			continue
		}
		a, err := identity(base)
		if err != nil {
			t.Errorf("%s with %v: %v", s.Name(), base, err)
			continue
		}
		b, err := identity(changed)
		if err != nil {
			t.Errorf("%s with %v: %v", s.Name(), changed, err)
			continue
		}
		switch {
		case s.Identifies && a == b:
			t.Errorf("%s enters the identity (Identifies), but %v and %v give the same:\n%s", s.Name(), base, changed, a)
		case !s.Identifies && a != b:
			t.Errorf("%s does not enter the identity, but %v and %v differ:\n%s\n%s", s.Name(), base, changed, a, b)
		}
		covered++
		if s.Identifies {
			identifying++
		}
	}
	if covered < 75 {
		t.Errorf("%d settings compared", covered)
	}
	t.Logf("%d settings compared, %d of them in the identity", covered, identifying)
}

// TestGivenOptions: settings given as text set the options they name; a
// value that cannot be read names its setting; two switches of one option
// conflict; a setting of a part the run has not is refused, naming the
// parts that read it and what chooses them.
func TestGivenOptions(t *testing.T) {
	o, err := Given{Kinds: scoringKinds, Values: map[string]string{
		"NLI.Backend": "remote", "NLI.Model": "m", "Inference.MaxBytes": "3", "Retrieval.DB": "kb.db",
		"Summaries=given": "true", "Retry.FirstByte": "0s", "OneWayPairs": "one-way",
	}}.Options()
	if err != nil {
		t.Fatal(err)
	}
	want := Options{NLI: NLIOptions{Backend: "remote", Model: "m"}, Summaries: assess.SummariesGiven, OneWayPairs: true}
	if o.NLI.Backend != want.NLI.Backend || o.NLI.Model != want.NLI.Model || o.Inference.MaxBytes != 3<<20 || o.Retrieval.DB != "kb.db" ||
		o.Summaries != want.Summaries || o.Retry.FirstByte != -1 || !o.OneWayPairs || o.LLM.Seed != 42 || o.Retrieval.TopK != assess.DefaultTopK {
		t.Errorf("options %+v", o)
	}
	for _, tc := range []struct {
		values map[string]string
		check  func(error) bool
	}{
		{map[string]string{"Inference.MaxBytes": "0"}, func(err error) bool {
			var oe *OptionError
			return errors.As(err, &oe) && oe.Option == "Inference.MaxBytes" && strings.Contains(err.Error(), "0 MiB is not positive")
		}},
		{map[string]string{"Summaries=llm": "true", "Summaries=given": "true"}, func(err error) bool {
			var c *Conflict
			return errors.As(err, &c) && c.A == "Summaries=llm" && c.B == "Summaries=given"
		}},
		{map[string]string{"NLI.Backend": "lexical", "NLI.Model": "m"}, func(err error) bool {
			var na *NotApplied
			return errors.As(err, &na) && na.Setting == "NLI.Model" && reflect.DeepEqual(na.Groups(), []ChoiceGroup{{Choice: "NLI.Backend", Values: []string{"auto", "onnx", "remote"}}}) &&
				na.Run["NLI.Backend"] == "lexical" && err.Error() == "NLI.Model applies to NLI.Backend auto, onnx or remote, not to this run (NLI.Backend lexical)"
		}},
		{map[string]string{"Inference.Engine": "merlin", "Inference.Damping": "0.5"}, func(err error) bool {
			var na *NotApplied
			return errors.As(err, &na) && na.Run["Inference.Engine"] == "merlin" && na.Groups()[0].Within == "Inference.Engine=native"
		}},
		{map[string]string{"NLI.Backend": "lexical,bert", "LLM.Model": "m"}, func(err error) bool {
			var oe *OptionError
			return errors.As(err, &oe) && oe.Option == "NLI.Backend" // the backend's name is the mistake
		}},
	} {
		_, err := Given{Kinds: scoringKinds, Values: tc.values}.Options()
		if !tc.check(err) {
			t.Errorf("%v: %v", tc.values, err)
		}
	}
}

func TestParseKPerSource(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]int
	}{
		{"", nil},
		{"serper=5", map[string]int{"serper": 5}},
		{"serper=5, wikipedia = 3", map[string]int{"serper": 5, "wikipedia": 3}},
	} {
		got, err := ParseKPerSource(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseKPerSource(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"serper", "serper=0", "serper=-1", "serper=x", "serper=5,"} {
		if got, err := ParseKPerSource(in); err == nil {
			t.Errorf("ParseKPerSource(%q) = %v, want an error", in, got)
		}
	}
}

// TestOptionsOfPartsNotInRun: a Go program that sets, field by field, an
// option that no part of its run reads gets from Open the *NotApplied that
// a user who gives the setting by name gets (Given), for every setting;
// the same option at its declared default is not given, and Open goes on.
// A setting read by a part of every run, or that chooses its own part,
// cannot be out of place.
func TestOptionsOfPartsNotInRun(t *testing.T) {
	ctx := context.Background()
	everyRun := RunParts(Options{}, Kinds()...)
	refused, inRun := 0, 0
	for _, s := range Settings(Kinds()...) {
		if slices.ContainsFunc(everyRun, func(p Part) bool { return p.reads(s.Name()) }) {
			inRun++
			continue
		}
		if strings.HasPrefix(s.Path, "Retry.") {
			continue // Options.Retry is one policy, shared by every HTTP client
		}
		var o Options
		if !valueNotDefault(s, &o) {
			t.Errorf("%s: no value to try other than its default", s.Name())
			continue
		}
		if slices.ContainsFunc(RunParts(o, Kinds()...), func(p Part) bool { return p.reads(s.Name()) }) {
			inRun++
			continue
		}
		p, err := Open(ctx, o)
		if err == nil {
			p.Close()
		}
		// The setting, or another option its value sets (a fixed
		// probability also sets its method).
		var na *NotApplied
		if !errors.As(err, &na) || !strings.Contains(err.Error(), strings.Split(na.Setting, "=")[0]) {
			t.Errorf("%s set alone: Open gives %v, want it refused as a setting no part of the run reads", s.Name(), err)
			continue
		} else if v, _ := field(&o, strings.Split(na.Setting, "=")[0]); v.IsZero() {
			t.Errorf("%s set alone: %v names an option it did not set", s.Name(), err)
		}
		refused++
		if s.Default == "" || s.Switch != "" {
			continue
		}
		var d Options
		if err := s.apply(&d, s.Default); err != nil {
			t.Fatal(err)
		}
		if p, err := Open(ctx, d); errors.As(err, &na) {
			t.Errorf("%s at its default %q: %v", s.Name(), s.Default, err)
		} else if err == nil {
			p.Close()
		}
	}
	if refused < 45 {
		t.Errorf("%d settings refused where no part reads them, %d in the run they make", refused, inRun)
		return
	}
	t.Logf("%d settings refused where no part reads them, %d in the run they make", refused, inRun)
}

// valueNotDefault sets s in o to a value its kind reads that is neither
// the option's zero value nor its default, and reports whether it found one.
func valueNotDefault(s Setting, o *Options) bool {
	var def Options
	if s.Default != "" {
		if err := s.apply(&def, s.Default); err != nil {
			return false
		}
	}
	d, _ := field(&def, s.Path)
	for _, text := range []string{another(s, s.Default), "x", "wikipedia=3", "factreasoner",
		"http://127.0.0.1:1/v1", "1", "0.5", "one-way", "skip", "sample", "none"} {
		var try Options
		if text == "" || s.apply(&try, text) != nil {
			continue
		}
		v, err := field(&try, s.Path)
		if err != nil || v.IsZero() || reflect.DeepEqual(v.Interface(), d.Interface()) {
			continue
		}
		*o = try
		return true
	}
	return false
}
