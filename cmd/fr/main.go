// Command fr assesses the factuality of long-form LLM responses with
// FactReasoner (FR1, FR2, FR3) and classic FActScore.
//
// The command is a thin layer over the library packages: it parses flags,
// opens files and calls them. Results go to stdout or the -o file; progress
// and warnings go to stderr.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/internal/profile"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/internal/suggest"
	"github.com/factreasoner/factreasoner-go/internal/version"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// Scoring allocates fast and keeps little (a few records in
		// flight), so at Go's default the collector runs every few
		// milliseconds and, with many --jobs, holds the workers up:
		// 400 takes a quarter to a third off the CPU time and lets 16 jobs
		// run 10 to 25% faster, for 2 to 3 times the (small) heap
		// (BENCHMARKS.md, "Records in parallel"). GOGC overrides it.
		debug.SetGCPercent(gcPercent)
	}
	stop, err := profile.Start(os.Getenv("FR_CPUPROFILE"), os.Getenv("FR_TRACE"))
	if err == nil {
		app := newApp()
		logThrough(app, os.Stderr)
		err = execute(context.Background(), app, os.Args)
		err = errors.Join(err, stop())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fr:", err) // redacted by execute
	}
	os.Exit(exitStatus(err))
}

// gcPercent is the collector's target (debug.SetGCPercent) unless GOGC
// is set.
const gcPercent = 400

// newApp returns the command line; run it with execute, which redacts its
// stderr and its error.
func newApp() *cli.App {
	red := newRedactor()
	app := &cli.App{
		Name:    "fr",
		Usage:   "probabilistic long-form factuality assessment (FactReasoner) and FActScore",
		Version: version.String(),
		// Each command lives in its own file of this package.
		Commands: append(commands(), helpCommand(nil), docsCommand()),
		// cli adds --help only where it adds its help command, which
		// helpCommand replaces.
		Flags:        []cli.Flag{cli.HelpFlag},
		OnUsageError: onUsageError,
		Action:       unknownCommand(cli.ShowAppHelp),
		// main reports errors and sets the exit status.
		ExitErrHandler: func(*cli.Context, error) {},
		Metadata:       map[string]any{redactorKey: red, spoolNamesKey: new(spoolNames)},
	}
	setup(app.Commands, red)
	renamingActions(app.Commands)
	return app
}

// setup gives every command the common behaviour: a bad flag is a usage
// error, the secrets given as flags are known to the redactor, temporary
// files (standard input) are removed at the end, and the help shows the
// flags by category (helpTemplate); a command made of subcommands has a
// help subcommand (fr kb help build).
func setup(cmds []*cli.Command, red *redact.Redactor) {
	for _, c := range cmds {
		c.OnUsageError = onUsageError
		c.Before = func(c *cli.Context) error {
			addFlagSecrets(c, red)
			return withTemp(c)
		}
		c.After = removeTemp
		// A description of examples only (examples) starts with them.
		c.Description = strings.TrimLeft(c.Description, "\n")
		if len(c.Subcommands) > 0 {
			if c.Action == nil {
				c.Action = unknownCommand(cli.ShowSubcommandHelp)
			}
			c.Subcommands = append(c.Subcommands, helpCommand(c))
			c.CustomHelpTemplate = helpTemplate(cli.SubcommandHelpTemplate)
		} else {
			c.CustomHelpTemplate = helpTemplate(cli.CommandHelpTemplate)
		}
		// cli adds --help after it has grouped the flags of a top
		// command, which then has none of no category.
		if !slices.ContainsFunc(c.Flags, func(f cli.Flag) bool { return f.Names()[0] == "help" }) {
			c.Flags = append(c.Flags, cli.HelpFlag)
		}
		setup(c.Subcommands, red)
	}
}

// unknownCommand is the action of fr and of commands made of subcommands
// (fr kb, fr uai, ...): without arguments it shows the help; an argument
// that names no command is a usage error, in one line on stderr (urfave/cli
// would print "No help topic" and exit 1).
func unknownCommand(help func(*cli.Context) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if name := c.Args().First(); name != "" {
			cmds := c.App.Commands
			if c.Command != nil && len(c.Command.Subcommands) > 0 {
				cmds = c.Command.Subcommands
			}
			return usagef("unknown command %q%s (see %s --help)", name, suggest.DidYouMean(name, commandNames(cmds)), helpName(c))
		}
		return help(c)
	}
}

// commands lists the subcommands; keep it sorted by name.
func commands() []*cli.Command {
	return []*cli.Command{
		atomizeCommand(),
		compareCommand(),
		convertCommand(),
		factscoreCommand(),
		veriscoreCommand(),
		factverifyCommand(),
		inspectCommand(),
		kbCommand(),
		mergeCommand(),
		modelsCommand(),
		reportCommand(),
		retrieveCommand(),
		scoreCommand(),
		uaiCommand(),
	}
}
