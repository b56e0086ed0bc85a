// Command fr assesses the factuality of long-form LLM responses with
// FactReasoner (FR1, FR2, FR3) and classic FActScore.
//
// The command is a thin layer over the library packages: it parses flags,
// opens files and calls them. Results go to stdout or the -o file; progress
// and warnings go to stderr.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/internal/version"
)

func main() {
	err := execute(context.Background(), newApp(), os.Args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fr:", err) // redacted by execute
	}
	os.Exit(exitStatus(err))
}

// newApp returns the command line; run it with execute, which redacts its
// stderr and its error.
func newApp() *cli.App {
	red := newRedactor()
	app := &cli.App{
		Name:    "fr",
		Usage:   "probabilistic long-form factuality assessment (FactReasoner) and FActScore",
		Version: version.String(),
		// Each command lives in its own file of this package.
		Commands:     commands(),
		OnUsageError: onUsageError,
		Action:       unknownCommand(cli.ShowAppHelp),
		// main reports errors and sets the exit status.
		ExitErrHandler: func(*cli.Context, error) {},
		Metadata:       map[string]any{redactorKey: red},
	}
	setup(app.Commands, red)
	renamingActions(app.Commands)
	return app
}

// setup gives every command the common behaviour: a bad flag is a usage
// error, the secrets given as flags are known to the redactor, and
// temporary files (standard input) are removed at the end.
func setup(cmds []*cli.Command, red *redact.Redactor) {
	for _, c := range cmds {
		c.OnUsageError = onUsageError
		c.Before = func(c *cli.Context) error {
			addFlagSecrets(c, red)
			return withTemp(c)
		}
		c.After = removeTemp
		if len(c.Subcommands) > 0 && c.Action == nil {
			c.Action = unknownCommand(cli.ShowSubcommandHelp)
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
		if c.Args().Present() {
			return usagef("unknown command %q (see %s --help)", c.Args().First(), c.Command.HelpName)
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
