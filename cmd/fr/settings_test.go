package main

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/assemble"
)

// settingCommands are the commands that run parts, with their argument.
func settingCommands(t *testing.T) map[string][]string {
	input := writeFile(t, "in.jsonl", record(0, nil)+"\n")
	model := writeUAIFile(t, "m.uai", cliModel)
	return map[string][]string{
		"score": {input}, "compare": {input}, "inspect": {input},
		"factscore": {input}, "veriscore": {input}, "factverify": {input},
		"atomize": {input}, "retrieve": {input}, "solve": {model},
	}
}

// flagsOf writes settings as the command's flags.
func flagsOf(r runs, values map[string]string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if s := settingOf(name); s.Kind == assemble.Bool {
			out = append(out, "--"+r.flag(name)+"="+values[name])
		} else {
			out = append(out, "--"+r.flag(name), values[name])
		}
	}
	return out
}

// settingOf is the declaration of the setting of that name.
func settingOf(name string) assemble.Setting {
	all := assemble.Settings(assemble.Kinds()...)
	return all[slices.IndexFunc(all, func(s assemble.Setting) bool { return s.Name() == name })]
}

// valueOf is a valid value of a setting: its default, or one of its kind.
func valueOf(s assemble.Setting) string {
	if s.Default != "" {
		return s.Default
	}
	switch s.Kind {
	case assemble.Bool:
		return "true"
	case assemble.Int:
		return "1"
	case assemble.Float:
		return "0.5"
	case assemble.Duration:
		return "1s"
	}
	switch s.Path {
	case "LLMMethod", "SummaryMethod":
		return "logprobs"
	case "Retrieval.KPerSource":
		return "db=2"
	}
	// An option that chooses parts: a value that chooses one.
	for _, p := range assemble.Parts(assemble.Kinds()...) {
		if p.Choice == s.Path && p.Value != "" && p.When == "" {
			return p.Value
		}
	}
	return "x"
}

// withoutReaders returns settings that make a run of the command, given
// the setting, have no part that reads it, starting from values: each
// reader in the run is left out by another value (or none) of an option
// that chose it; false when some part that reads it is in every run.
func withoutReaders(r runs, s assemble.Setting, values map[string]string) (map[string]string, bool) {
	all := assemble.Parts(r.kinds...)
	// readersIn are the parts of a run of v that read the setting; false
	// for settings that make no run.
	readersIn := func(v map[string]string) ([]assemble.Part, bool) {
		given := maps.Clone(v)
		given[s.Name()] = valueOf(s)
		o, err := assemble.Given{Kinds: r.kinds, Values: given, Defaults: r.defaults}.Options()
		var na *assemble.NotApplied
		switch {
		case errors.As(err, &na) && na.Setting == s.Name():
			return nil, true
		case err != nil:
			return nil, false
		}
		return slices.DeleteFunc(assemble.RunParts(o, r.kinds...), func(p assemble.Part) bool {
			return !slices.ContainsFunc(p.Settings, func(x assemble.Setting) bool { return x.Name() == s.Name() })
		}), true
	}
	v := maps.Clone(values)
	for range 4 { // a few options to change at most
		in, ok := readersIn(v)
		if !ok {
			return nil, false
		}
		if len(in) == 0 {
			v[s.Name()] = valueOf(s)
			return v, true
		}
		// The options that chose the first reader, and their values.
		p := in[0]
		options := []string{p.Choice}
		if option, _, ok := strings.Cut(p.Within, "="); ok {
			options = append(options, option)
		}
		var tries []map[string]string
		for _, option := range options {
			if option == "" {
				continue
			}
			tries = append(tries, map[string]string{option: ""}, map[string]string{option: "false"})
			for _, q := range all {
				if q.Choice == option && q.Value != "" && q.When == "" && q.Name != p.Name {
					try := map[string]string{option: q.Value}
					if o, value, ok := strings.Cut(q.Within, "="); ok {
						try[o] = value
					}
					tries = append(tries, try)
				}
			}
		}
		changed := false
		for _, try := range tries {
			next := maps.Clone(v)
			maps.Copy(next, try)
			if after, ok := readersIn(next); ok && len(after) < len(in) {
				v, changed = next, true
				break
			}
		}
		if !changed {
			return nil, false
		}
	}
	return nil, false
}

// TestFlagsOfPartsNotInRun (issue 30 item 2) walks every flag of every
// command that runs parts, as the settings declare them: given in a run
// that has no part that reads it (other values of the options that choose
// them), the flag is refused before any work, a usage error that names it
// and what it applies to. A flag whose setting some part of every run
// reads (--nli, --k) is accepted in the least run.
func TestFlagsOfPartsNotInRun(t *testing.T) {
	ctx := context.Background()
	cmds := settingCommands(t)
	least := map[string]string{"NLI.Backend": "given"}
	walked, always := 0, 0
	for _, name := range slices.Sorted(maps.Keys(cmds)) {
		r := runsOf(name)
		prefix := []string{name}
		if name == "solve" {
			prefix = []string{"uai", "solve"}
		}
		start := map[string]string{}
		if slices.Contains(r.kinds, assemble.KindNLI) {
			start = least
		}
		for _, s := range assemble.Settings(r.kinds...) {
			v, ok := withoutReaders(r, s, start)
			if !ok {
				// Read by a part every run has: given, it is accepted.
				if !slices.ContainsFunc(assemble.Parts(r.kinds...), func(p assemble.Part) bool {
					return p.In == nil && slices.ContainsFunc(p.Settings, func(x assemble.Setting) bool { return x.Name() == s.Name() })
				}) {
					t.Errorf("fr %s --%s: no run leaves its parts out, and no part of every run reads it", name, r.flag(s.Name()))
				}
				always++
				continue
			}
			args := append(append(prefix, flagsOf(r, v)...), cmds[name]...)
			_, _, err := run(t, ctx, args...)
			want := "--" + r.flag(s.Name()) + " applies to "
			if err == nil || !strings.Contains(err.Error(), want) || exitStatus(err) != exitUsage {
				t.Errorf("fr %s: error %v (status %d)\nwant a usage error containing %q", strings.Join(args, " "), err, exitStatus(err), want)
			}
			walked++
		}
	}
	if walked < 200 {
		t.Errorf("%d flags walked: the walk lost its way", walked)
	}
	t.Logf("%d flags refused where their parts are not in the run, %d read by a part of every run", walked, always)
}

// TestPartFlagsWhereNoPartRuns: where a command runs no part (fr compare
// of recorded outputs, fr factscore --gold), a flag of a part is refused,
// saying why; K, which fr compare reads for runs that do not record it,
// is not.
func TestPartFlagsWhereNoPartRuns(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "out.jsonl")
	if _, _, err := run(t, ctx, "score", "-o", out, exampleFile); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string // "" when accepted
	}{
		{[]string{"compare", "--nli", "lexical", out, out}, "--nli applies to scoring an INPUT file"},
		{[]string{"compare", "--damping", "0.5", out}, "--damping applies to scoring an INPUT file"},
		{[]string{"compare", "--k", "3", out, out}, ""},
		{[]string{"factscore", "--gold", "--db", "kb.db", exampleFile}, "--db does not apply to --gold"},
		{[]string{"factscore", "--gold", exampleFile}, ""},
	} {
		_, _, err := run(t, ctx, tc.args...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || exitStatus(err) != exitUsage):
			t.Errorf("%v: %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}
