// Package clidoc writes the reference of a command-line program made with
// urfave/cli as markdown, from the commands' own help: each visible
// command's usage, description, examples and flags by category, then more
// about the flags that need it. A program's docs/cli.md made this way
// cannot drift from the program.
package clidoc

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Options say what Write adds to the commands' own help.
type Options struct {
	Header string // markdown before the list of commands
	// Categories are the flag categories in the order their tables are
	// written; flags of no category come last, as "Other".
	Categories []string
	// Details say more about some flags, by name, in markdown: written
	// under "Flag details" for the flags some command has, linked from
	// their rows.
	Details map[string]string
}

// Write writes the reference of app's visible commands: for each, its
// usage, description, examples (Examples) and flags by category; then the
// details of the flags that have some.
func Write(w io.Writer, app *cli.App, o Options) error {
	var b strings.Builder
	b.WriteString(o.Header)
	var cmds []*cli.Command
	var walk func(path string, list []*cli.Command)
	walk = func(path string, list []*cli.Command) {
		for _, c := range list {
			if c.Hidden || c.Name == "help" {
				continue
			}
			name := path + " " + c.Name
			if c.HelpName == "" {
				c.HelpName = name
			}
			cmds = append(cmds, c)
			walk(name, c.Subcommands)
		}
	}
	walk(app.Name, app.Commands)
	for _, c := range cmds {
		fmt.Fprintf(&b, "- [%s](#%s): %s\n", c.HelpName, anchor(c.HelpName), c.Usage)
	}
	used := make(map[string]bool)
	for _, c := range cmds {
		writeCommand(&b, c, used, o)
	}
	details := o.Details
	var names []string
	for name := range details {
		if used[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	b.WriteString("\n## Flag details\n")
	for _, name := range names {
		fmt.Fprintf(&b, "\n### --%s\n\n%s\n", name, strings.TrimRight(details[name], "\n"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCommand writes one command's section, and notes the flags it has
// in used.
func writeCommand(b *strings.Builder, c *cli.Command, used map[string]bool, o Options) {
	fmt.Fprintf(b, "\n## %s\n\n%s.\n\n", c.HelpName, capitalize(c.Usage))
	usage := c.HelpName
	if len(c.Subcommands) > 0 {
		usage += " COMMAND"
	} else {
		if len(c.VisibleFlags()) > 0 {
			usage += " [options]"
		}
		if c.ArgsUsage != "" {
			usage += " " + c.ArgsUsage
		}
	}
	fmt.Fprintf(b, "```\n%s\n```\n", usage)
	desc, ex, _ := CutExamples(c.Description)
	if desc != "" {
		fmt.Fprintf(b, "\n%s\n", markdownText(desc))
	}
	if ex != "" {
		fmt.Fprintf(b, "\nExamples:\n\n```sh\n%s\n```\n", dedent(ex))
	}
	if len(c.Subcommands) > 0 {
		b.WriteString("\nCommands:\n\n")
		for _, s := range c.Subcommands {
			if !s.Hidden && s.Name != "help" {
				fmt.Fprintf(b, "- [%s %s](#%s): %s\n", c.HelpName, s.Name, anchor(c.HelpName+" "+s.Name), s.Usage)
			}
		}
	}
	byCategory := make(map[string][]cli.Flag)
	for _, f := range c.VisibleFlags() {
		if f.Names()[0] == "help" {
			continue
		}
		cat := ""
		if cf, ok := f.(cli.CategorizableFlag); ok {
			cat = cf.GetCategory()
		}
		byCategory[cat] = append(byCategory[cat], f)
	}
	details := o.Details
	for _, cat := range append(slices.Clone(o.Categories), "") {
		flags := byCategory[cat]
		if len(flags) == 0 {
			continue
		}
		title := cat
		if title == "" {
			title = "Other"
		}
		fmt.Fprintf(b, "\n%s:\n\n| Flag | Default | Meaning |\n|---|---|---|\n", title)
		for _, f := range flags {
			name := f.Names()[0]
			used[name] = true
			df := f.(cli.DocGenerationFlag)
			meaning := df.GetUsage()
			if _, ok := details[name]; ok {
				meaning += " ([more](#--" + anchor(name) + "))"
			}
			if env := df.GetEnvVars(); len(env) > 0 {
				meaning += " [$" + strings.Join(env, ", $") + "]"
			}
			fmt.Fprintf(b, "| %s | %s | %s |\n", cell(flagSpelling(f)), cell(defaultText(f)), cell(meaning))
		}
	}
}

// flagSpelling is a flag's names with dashes and its value's placeholder:
// `--output FILE, -o FILE`.
func flagSpelling(f cli.Flag) string {
	df := f.(cli.DocGenerationFlag)
	placeholder := ""
	if df.TakesValue() {
		placeholder, _ = unquoteUsage(df.GetUsage())
		if placeholder == "" {
			placeholder = "value"
		}
		placeholder = " " + placeholder
	}
	var names []string
	for _, n := range f.Names() {
		dash := "--"
		if len(n) == 1 {
			dash = "-"
		}
		names = append(names, "`"+dash+n+placeholder+"`")
	}
	return strings.Join(names, ", ")
}

// unquoteUsage is the placeholder a usage names in back quotes (cli's
// convention: "an SQLite `FILE`"), and the usage without the quotes.
func unquoteUsage(usage string) (placeholder, text string) {
	before, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return "", usage
	}
	name, after, ok := strings.Cut(rest, "`")
	if !ok {
		return "", usage
	}
	return name, before + name + after
}

// defaultText is the default a flag's help shows, without cli's quotes;
// empty for false and for no default.
func defaultText(f cli.Flag) string {
	switch f := f.(type) {
	case interface{ Unwrap() cli.Flag }: // a flag that wraps another
		return defaultText(f.Unwrap())
	case *cli.StringFlag:
		if f.DefaultText != "" {
			return f.DefaultText
		}
		return f.Value
	case *cli.BoolFlag:
		if f.DefaultText != "" {
			return f.DefaultText
		}
		if f.Value {
			return "true"
		}
		return ""
	}
	return f.(cli.DocGenerationFlag).GetDefaultText()
}

// cell is s as a markdown table cell: back quotes of a usage's
// placeholder dropped, pipes escaped.
func cell(s string) string {
	if !strings.HasPrefix(s, "`") {
		_, s = unquoteUsage(s)
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// markdownText is a description as markdown: its paragraphs as they are,
// and its indented lines (lists of choices, formats) as a code block.
func markdownText(desc string) string {
	var b strings.Builder
	lines := strings.Split(desc, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "  ") {
			b.WriteString(lines[i] + "\n")
			continue
		}
		b.WriteString("\n```\n")
		for ; i < len(lines) && strings.HasPrefix(lines[i], "  "); i++ {
			b.WriteString(lines[i] + "\n")
		}
		b.WriteString("```\n\n")
		i--
	}
	return strings.TrimRight(strings.ReplaceAll(b.String(), "\n\n\n", "\n\n"), "\n")
}

// dedent removes the two spaces examples indents each line by.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return strings.Join(lines, "\n")
}

// anchor is the anchor GitHub gives a heading.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// capitalize is s with its first letter in upper case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Examples is the end of a command's description (or all of it): command
// lines that show its use, each after a "# " line that says what it does;
// Write shows them as a code block.
func Examples(lines ...string) string {
	var b strings.Builder
	b.WriteString("\n\nExamples:")
	for _, l := range lines {
		b.WriteString("\n  " + l)
	}
	return b.String()
}

// ExampleLines are the example command lines of a command's description
// (Examples), without their comments.
func ExampleLines(c *cli.Command) []string {
	_, ex, ok := CutExamples(c.Description)
	if !ok {
		return nil
	}
	var out []string
	for _, l := range strings.Split(ex, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// CutExamples splits a description into its text and its examples.
func CutExamples(desc string) (text, examples string, ok bool) {
	if ex, ok := strings.CutPrefix(strings.TrimLeft(desc, "\n"), "Examples:\n"); ok {
		return "", ex, true
	}
	return strings.Cut(desc, "\n\nExamples:\n")
}
