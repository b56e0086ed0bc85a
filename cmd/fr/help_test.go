package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/internal/clidoc"
	"github.com/factreasoner/factreasoner-go/internal/natural"
)

// maxUsage is the longest a flag's or command's usage line may be: one
// short sentence; the detail is in docs/cli.md (flagDetails).
const maxUsage = 100

// documented are the commands a person reads the help of, with their
// command lines ("fr kb build"): every visible command but help.
func documented(t *testing.T) map[string]*cli.Command {
	t.Helper()
	app := newApp()
	cmds := make(map[string]*cli.Command)
	var walk func(path string, list []*cli.Command)
	walk = func(path string, list []*cli.Command) {
		for _, c := range list {
			if c.Hidden || c.Name == "help" {
				continue
			}
			cmds[path+" "+c.Name] = c
			walk(path+" "+c.Name, c.Subcommands)
		}
	}
	walk("fr", app.Commands)
	return cmds
}

// TestHelpEveryCommand (issue 23 item 6): fr help X, for every command, is
// fr X --help; it shows each flag under its category, the categories in
// their order (categories), and examples of the command's use whose flags
// are the command's own.
func TestHelpEveryCommand(t *testing.T) {
	ctx := context.Background()
	for path, c := range documented(t) {
		args := strings.Fields(path)[1:]
		help, _, err := run(t, ctx, append([]string{"help"}, args...)...)
		if err != nil {
			t.Errorf("fr help %s: %v", path, err)
			continue
		}
		if flagHelp, _, _ := run(t, ctx, append(args, "--help")...); flagHelp != help {
			t.Errorf("fr help %s differs from %s --help:\n%s\n---\n%s", path, path, help, flagHelp)
		}
		// Each flag in a known category, the categories shown in order.
		at := -1
		for _, cat := range categories() {
			var names []string
			for _, f := range c.Flags {
				if cf, ok := f.(cli.CategorizableFlag); ok && cf.GetCategory() == cat {
					names = append(names, f.Names()[0])
				}
			}
			if len(names) == 0 {
				continue
			}
			header := "\n   " + cat + "\n\n"
			i := strings.Index(help, header)
			if i < 0 {
				t.Errorf("fr help %s: no category %q", path, cat)
				continue
			}
			if i < at {
				t.Errorf("fr help %s: category %q out of order", path, cat)
			}
			at = i
			block, _, _ := strings.Cut(help[i+len(header):], "\n\n")
			for _, n := range names {
				if !strings.Contains(block, "-"+n+" ") && !strings.Contains(block, "-"+n+",") {
					t.Errorf("fr help %s: --%s is not shown under %s:\n%s", path, n, cat, block)
				}
			}
		}
		for _, f := range c.Flags {
			if cf, ok := f.(cli.CategorizableFlag); ok && f.Names()[0] != "help" && !slices.Contains(categories(), cf.GetCategory()) {
				t.Errorf("%s --%s: category %q is not one of categories()", path, f.Names()[0], cf.GetCategory())
			}
		}
		if len(c.Subcommands) > 0 {
			continue // its help lists its commands, whose help has examples
		}
		examples := clidoc.ExampleLines(c)
		if len(examples) == 0 || !strings.Contains(help, "Examples:\n") {
			t.Errorf("fr help %s: no examples", path)
		}
		var names []string // with their dashes, one or two: -k and --k
		for _, n := range flagNames(c.Flags) {
			names = append(names, n, "-"+n)
		}
		for _, ex := range examples {
			if !strings.HasPrefix(ex, path+" ") && ex != path {
				t.Errorf("%s: example %q is not of this command", path, ex)
			}
			for _, w := range strings.Fields(ex) {
				name, _, _ := strings.Cut(w, "=")
				if strings.HasPrefix(w, "-") && !slices.Contains(names, name) {
					t.Errorf("%s: example %q has %s, which is no flag of the command", path, ex, name)
				}
			}
		}
	}
}

// TestUsageLength: every flag's usage, and every command's, is one short
// line.
func TestUsageLength(t *testing.T) {
	for path, c := range documented(t) {
		if n := len([]rune(c.Usage)); n > maxUsage {
			t.Errorf("%s: usage of %d characters (at most %d): %q", path, n, maxUsage, c.Usage)
		}
		for _, f := range c.Flags {
			u := f.(cli.DocGenerationFlag).GetUsage()
			if n := len([]rune(u)); n > maxUsage || strings.Contains(u, "\n") {
				t.Errorf("%s --%s: usage of %d characters (at most %d, one line): %q", path, f.Names()[0], n, maxUsage, u)
			}
		}
	}
	for name := range flagDetails() {
		found := false
		for _, c := range documented(t) {
			found = found || slices.ContainsFunc(c.Flags, func(f cli.Flag) bool { return f.Names()[0] == name })
		}
		if !found {
			t.Errorf("flagDetails: --%s is no flag of any command", name)
		}
	}
}

// TestDidYouMean: a mistyped command or flag is a usage error (status 2,
// nothing on stdout) that names what was probably meant; a name near
// nothing names nothing.
func TestDidYouMean(t *testing.T) {
	example := "../../testdata/example.jsonl"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"scor", example}, `unknown command "scor": did you mean "score"? (see fr --help)`},
		{[]string{"inpsect", example}, `did you mean "inspect"?`},
		{[]string{"help", "scor"}, `unknown command "scor": did you mean "score"?`},
		{[]string{"kb", "biuld"}, `unknown command "biuld": did you mean "build"? (see fr kb --help)`},
		{[]string{"kb", "help", "biuld"}, `did you mean "build"?`},
		{[]string{"score", "--nli-modle", "m", example}, "-nli-modle: did you mean --nli-model? (see fr score --help)"},
		{[]string{"score", "--verison", "3", example}, "did you mean --version?"},
		{[]string{"score", "--fetch", example}, "did you mean --fetch-budget, --fetch-pages or --fetch-private?"},
		{[]string{"compare", "--fromat", "csv", example}, "did you mean --format?"},
		{[]string{"kb", "build", "--max-token", "9", example}, "did you mean --max-tokens? (see fr kb build --help)"},
		{[]string{"bogus"}, `unknown command "bogus" (see fr --help)`},
		{[]string{"score", "--zzz", example}, "flag provided but not defined: -zzz (see fr score --help)"},
	}
	for _, tc := range tests {
		out, _, err := run(t, context.Background(), tc.args...)
		if exitStatus(err) != exitUsage || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: status %d, %v; want %d and %q", tc.args, exitStatus(err), err, exitUsage, tc.want)
		}
		if out != "" {
			t.Errorf("%v: wrote to stdout: %q", tc.args, out)
		}
	}
}

// TestCLIDoc: docs/cli.md is what fr docs writes, so that it cannot drift
// from the commands.
func TestCLIDoc(t *testing.T) {
	want, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := run(t, context.Background(), "docs")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("docs/cli.md is not fr docs's output: run go generate ./cmd/fr")
	}
	for path := range documented(t) {
		if !strings.Contains(got, "\n## "+path+"\n") {
			t.Errorf("docs/cli.md has no section for %s", path)
		}
	}
}

// TestExamplesRun: the examples that use the shipped example run, their
// output files in a temporary directory.
func TestExamplesRun(t *testing.T) {
	ran := 0
	for path, c := range documented(t) {
		for _, ex := range clidoc.ExampleLines(c) {
			if !strings.Contains(ex, "testdata/") {
				continue
			}
			args := strings.Fields(ex)[len(strings.Fields(path)):]
			args = append(strings.Fields(path)[1:], args...)
			for i, a := range args {
				switch {
				case strings.HasPrefix(a, "testdata/"):
					args[i] = "../../" + a
				case i > 0 && (args[i-1] == "-o" || args[i-1] == "--dot"):
					args[i] = filepath.Join(t.TempDir(), a)
				}
			}
			if _, _, err := run(t, context.Background(), args...); err != nil {
				t.Errorf("%s: %v", ex, err)
			}
			ran++
		}
	}
	if ran < 3 {
		t.Errorf("%d examples run, want those of score, compare and inspect", ran)
	}
}

// TestInspectNaturalOrder: fr inspect lists atoms and contexts as a person
// counts (a9, a10, a11), not by bytes (a1, a10, a11, a2).
func TestInspectNaturalOrder(t *testing.T) {
	out, _, err := run(t, context.Background(), "inspect", "--nli", "given", "--line", "1", "--contexts", "../../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[1] == "P(true)" {
			ids = append(ids, f[0])
		}
	}
	want := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "a12"}
	if len(ids) < len(want) || !slices.Equal(ids[:len(want)], want) {
		t.Errorf("atoms in the order %q, want %q", ids, want)
	}
	contexts := ids[len(want):]
	if !slices.IsSortedFunc(contexts, natural.Compare) || slices.IsSorted(contexts) {
		t.Errorf("contexts in the order %q, want natural order (which is not byte order here)", contexts)
	}
}
