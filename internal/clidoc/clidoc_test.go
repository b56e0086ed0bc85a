package clidoc

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestWrite: a command's section has its usage line, its description (an
// indented list as a code block), its examples as a shell block, and its
// flags by category in the order given (the others last, as Other), each
// with its placeholder, default, environment variables and a link to its
// details; the details of the flags some command has follow, sorted.
func TestWrite(t *testing.T) {
	app := &cli.App{Name: "tool", Usage: "does things", Commands: []*cli.Command{{
		Name: "run", Usage: "run a thing", ArgsUsage: "INPUT",
		Description: "Runs it.\n  a  one\n  b  two" + Examples("# Run it.", "tool run in.txt"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Category: "Output", Usage: "output `FILE`"},
			&cli.IntFlag{Name: "k", Value: 3, Category: "Work", Usage: "how many | at once"},
			&cli.StringFlag{Name: "url", Value: "http://x", EnvVars: []string{"TOOL_URL"}, Category: "Work", Usage: "endpoint"},
			&cli.BoolFlag{Name: "loud", Usage: "say more"},
		},
	}, {Name: "secret", Hidden: true}}}
	var b strings.Builder
	err := Write(&b, app, Options{Header: "# Tool\n\n", Categories: []string{"Work", "Output"},
		Details: map[string]string{"k": "K is *many*.", "unused": "never shown"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Tool\n\n- [tool run](#tool-run): run a thing\n\n## tool run\n\nRun a thing.\n\n```\ntool run [options] INPUT\n```\n\n" +
		"Runs it.\n\n```\n  a  one\n  b  two\n```\n\nExamples:\n\n```sh\n# Run it.\ntool run in.txt\n```\n\n" +
		"Work:\n\n| Flag | Default | Meaning |\n|---|---|---|\n" +
		"| `-k value` | 3 | how many \\| at once ([more](#--k)) |\n" +
		"| `--url value` | http://x | endpoint [$TOOL_URL] |\n\n" +
		"Output:\n\n| Flag | Default | Meaning |\n|---|---|---|\n| `--out FILE`, `-o FILE` |  | output FILE |\n\n" +
		"Other:\n\n| Flag | Default | Meaning |\n|---|---|---|\n| `--loud` |  | say more |\n\n" +
		"## Flag details\n\n### --k\n\nK is *many*.\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := ExampleLines(app.Commands[0]); len(got) != 1 || got[0] != "tool run in.txt" {
		t.Errorf("ExampleLines: %q", got)
	}
}
