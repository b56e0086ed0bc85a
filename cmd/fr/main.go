// Command fr assesses the factuality of long-form LLM responses with
// FactReasoner (FR1, FR2, FR3) and classic FActScore.
//
// The command is a thin layer over the library packages: it parses flags,
// opens files and calls them. Results go to stdout or the -o file; progress
// and warnings go to stderr.
package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	if err := newApp().Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "fr:", err)
		os.Exit(1)
	}
}

func newApp() *cli.App {
	return &cli.App{
		Name:  "fr",
		Usage: "probabilistic long-form factuality assessment (FactReasoner) and FActScore",
		// Each command lives in its own file of this package.
		Commands:        commands(),
		HideHelpCommand: true,
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
		modelsCommand(),
		reportCommand(),
		retrieveCommand(),
		scoreCommand(),
		uaiCommand(),
	}
}
