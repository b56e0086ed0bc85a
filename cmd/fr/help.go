package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/internal/clidoc"
	"github.com/factreasoner/factreasoner-go/internal/suggest"
)

// The categories that group the flags in each command's help, in the
// order the help shows them (categories); those of the settings of parts
// are the settings' groups (assemble.Setting.Group).
const (
	catRun        = "Run"
	catShow       = "What to show"
	catIO         = "Input and output"
	catFActScore  = assemble.GroupFActScore
	catScoring    = assemble.GroupScoring
	catAtoms      = assemble.GroupAtoms
	catSummaries  = assemble.GroupSummaries
	catNLI        = assemble.GroupNLI
	catNLIRuntime = assemble.GroupNLIRuntime
	catLLM        = assemble.GroupLLM
	catRetrieval  = assemble.GroupRetrieval
	catWeb        = assemble.GroupWeb
	catInference  = assemble.GroupInference
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
// under "Flag details". They are markdown: the settings' own
// (assemble.Setting.Details), and those of the commands' other flags.
func flagDetails() map[string]string {
	details := map[string]string{
		"skip-invalid": "Failed records are those whose LLM answers cannot be read. A run with failed records still exits 1; " +
			"one that only skipped invalid records exits 0.",
		"jobs": "auto is 1 with --nli onnx, whose model already uses every core, else 2. The output stays in input order, " +
			"byte for byte as with 1.",
		"shard":    "0 ≤ I < N. Join the shards' outputs with fr merge.",
		"versions": "factscore's row verifies each atom against its own contexts.",
		"format":   "markdown has 4 decimals and n/a for a missing value; csv has every digit and an empty cell.",
	}
	var r runs
	for _, s := range assemble.Settings(assemble.Kinds()...) {
		if s.Details != "" {
			details[r.flag(s.Name())] = r.naming().Text(s.Details)
		}
	}
	return details
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
// lines that show its use, each after a "# " line that says what it does
// (clidoc.Examples).
func examples(lines ...string) string { return clidoc.Examples(lines...) }

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
					return usagef("unknown command %q%s (see %s --help)", name, suggest.DidYouMean(name, commandNames(cmds)), path)
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
