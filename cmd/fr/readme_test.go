package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/urfave/cli/v2"
)

// The documentation the tests below keep honest: the README, a guide, and
// the pages of docs/ it links to.
const (
	repoRoot       = "../.."
	maxReadmeLines = 200
)

// docFiles are README.md and docs/*.md, as paths relative to the root.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(repoRoot, p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.ToSlash(rel))
	}
	if len(files) < 8 {
		t.Fatalf("found %v: want README.md and the docs/ pages", files)
	}
	return files
}

// mdDoc is a markdown file split into what the tests look at.
type mdDoc struct {
	lines []string
	code  []bool // the line is in a fenced or indented code block
}

func readDoc(t *testing.T, rel string) mdDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return parseDoc(string(b))
}

// parseDoc marks the lines of code blocks: fenced (``` or ~~~) and
// indented (four spaces or a tab after a blank line or another code line,
// as in a list item too).
func parseDoc(s string) mdDoc {
	d := mdDoc{lines: strings.Split(s, "\n")}
	d.code = make([]bool, len(d.lines))
	fence := ""
	prevBlank, prevCode := true, false
	for i, l := range d.lines {
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case fence != "":
			d.code[i] = true
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			d.code[i] = true
			fence = trimmed[:3]
		case (strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")) && (prevBlank || prevCode):
			d.code[i] = true
		}
		blank := strings.TrimSpace(l) == ""
		prevCode = d.code[i] || (blank && prevCode)
		prevBlank = blank
	}
	return d
}

// paragraph is a run of lines outside code, between blank lines, code
// blocks and headings (a heading is a paragraph of its own): where code
// spans and links may run over a line break.
type paragraph struct {
	text string
	line int // of its first line, from 1
}

// lineOf is the line of the byte at offset i of the paragraph.
func (p paragraph) lineOf(i int) int { return p.line + strings.Count(p.text[:i], "\n") }

func (d mdDoc) paragraphs() []paragraph {
	var out []paragraph
	var cur []string
	start := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, paragraph{text: strings.Join(cur, "\n"), line: start + 1})
			cur = nil
		}
	}
	for i, l := range d.lines {
		switch {
		case d.code[i] || strings.TrimSpace(l) == "":
			flush()
		case heading.MatchString(l):
			flush()
			out = append(out, paragraph{text: l, line: i + 1})
		default:
			if len(cur) == 0 {
				start = i
			}
			cur = append(cur, l)
		}
	}
	flush()
	return out
}

var (
	codeSpan = regexp.MustCompile("`[^`]*`")
	mdLink   = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	heading  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	scheme   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// anchors are the GitHub anchors of a document's headings.
func (d mdDoc) anchors() map[string]bool {
	out := make(map[string]bool)
	seen := make(map[string]int)
	for i, l := range d.lines {
		m := heading.FindStringSubmatch(l)
		if d.code[i] || m == nil {
			continue
		}
		s := githubSlug(m[2])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// githubSlug is the anchor GitHub gives a heading: its text as rendered
// (code spans' text, links' text), lower-cased, spaces made hyphens, and
// every character but letters, digits, hyphens and underscores dropped.
func githubSlug(h string) string {
	h = mdLink.ReplaceAllStringFunc(h, func(l string) string { return l[1:strings.Index(l, "](")] })
	h = strings.NewReplacer("`", "", "*", "").Replace(h)
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestGithubSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"Pair pruning (`--pairs-per-atom`)", "pair-pruning---pairs-per-atom"},
		{"Throughput (issue 12): pruning, records in parallel, memory", "throughput-issue-12-pruning-records-in-parallel-memory"},
		{"Models: [fr models pull](#x)", "models-fr-models-pull"},
		{"Fields named as FactReasoner's but defined otherwise", "fields-named-as-factreasoners-but-defined-otherwise"},
		{"--nli", "--nli"},
		{"Café crème", "café-crème"},
	}
	for _, tc := range tests {
		if got := githubSlug(tc.heading); got != tc.want {
			t.Errorf("githubSlug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// TestReadmeLinks: every relative link of README.md and docs/*.md leads
// to a file of the repository, and every #anchor to a heading of its
// file, so that moving a section or a page cannot leave a link dangling.
func TestReadmeLinks(t *testing.T) {
	docs := make(map[string]mdDoc)
	doc := func(rel string) mdDoc {
		if d, ok := docs[rel]; ok {
			return d
		}
		docs[rel] = readDoc(t, rel)
		return docs[rel]
	}
	checked := 0
	for _, file := range docFiles(t) {
		for _, p := range doc(file).paragraphs() {
			// Code spans blanked, not removed, so that offsets keep their lines.
			text := codeSpan.ReplaceAllStringFunc(p.text, func(c string) string {
				return strings.Map(func(r rune) rune {
					if r == '\n' {
						return r
					}
					return ' '
				}, c)
			})
			for _, m := range mdLink.FindAllStringSubmatchIndex(text, -1) {
				target := text[m[2]:m[3]]
				if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
					continue
				}
				checked++
				where := fmt.Sprintf("%s:%d: link %s", file, p.lineOf(m[0]), target)
				path, anchor, _ := strings.Cut(target, "#")
				rel := file
				if path != "" {
					rel = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(file), path)))
					if strings.HasPrefix(rel, "../") || filepath.IsAbs(path) {
						t.Errorf("%s: leads outside the repository", where)
						continue
					}
					if _, err := os.Stat(filepath.Join(repoRoot, rel)); err != nil {
						t.Errorf("%s: %v", where, err)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(rel, ".md") {
					t.Errorf("%s: an anchor into %s, which is not markdown", where, rel)
					continue
				}
				if !doc(rel).anchors()[anchor] {
					t.Errorf("%s: %s has no heading with the anchor #%s", where, rel, anchor)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d relative links found: the test no longer reads them", checked)
	}
}

// TestReadmeLength: the README is a guide, with the reference in docs/.
func TestReadmeLength(t *testing.T) {
	d := readDoc(t, "README.md")
	if n := len(d.lines) - 1; n >= maxReadmeLines {
		t.Errorf("README.md has %d lines, want under %d: move reference material to docs/", n, maxReadmeLines)
	}
}

// TestReadmeNoOutsideReferences: the documentation refers to nothing
// outside the repository (a specification or data beside the clone).
func TestReadmeNoOutsideReferences(t *testing.T) {
	outside := regexp.MustCompile(`\bSPEC\b|\.\./shared|\bshared/(data|SPEC)`)
	for _, file := range docFiles(t) {
		for i, l := range readDoc(t, file).lines {
			if m := outside.FindString(l); m != "" {
				t.Errorf("%s:%d: %q refers outside the repository", file, i+1, m)
			}
		}
	}
}

// otherPrograms are flags of other programs that the documentation names
// in code spans of their own: their servers' options.
var otherPrograms = map[string]string{
	"--max-client-batch-size": "text-embeddings-inference",
	"--served-model-name":     "vllm serve",
}

// TestReadmeCommands: every fr command written in the documentation's code
// (code blocks, with a line ending in a backslash joined to the next, and
// code spans) names a command of the app and flags of that command, and
// every flag written alone in a code span is a flag of some command; so
// renaming a command or a flag fails here until the documentation follows.
func TestReadmeCommands(t *testing.T) {
	app := newApp()
	all := map[string]bool{"help": true, "h": true}
	for _, f := range app.Flags {
		for _, n := range f.Names() {
			all[n] = true
		}
	}
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			for _, n := range flagNamesOf(c) {
				all[n] = true
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)

	flags, commands := 0, 0
	for _, file := range docFiles(t) {
		d := readDoc(t, file)
		for _, c := range docCode(d) {
			for _, inv := range frInvocations(c.text) {
				commands++
				n, err := checkInvocation(app, inv)
				flags += n
				if err != nil {
					t.Errorf("%s:%d: %q: %v", file, c.line, "fr "+inv, err)
				}
			}
			if c.span && standaloneFlag.MatchString(c.text) {
				name, _, _ := strings.Cut(strings.TrimLeft(c.text, "-"), "=")
				flags++
				if _, other := otherPrograms[c.text]; !other && !all[name] {
					t.Errorf("%s:%d: %s is no flag of any fr command", file, c.line, c.text)
				}
			}
		}
	}
	if commands < 60 || flags < 200 {
		t.Errorf("%d fr commands and %d flags found: the test no longer reads them", commands, flags)
	}
}

// standaloneFlag is a code span that is a long flag alone, perhaps with
// its value after "=".
var standaloneFlag = regexp.MustCompile(`^--[a-z][a-z0-9-]*(=\S*)?$`)

// codeText is a piece of code in a document: a code block's line (with
// its continuation lines) or a code span, and the line it starts on.
type codeText struct {
	text string
	line int
	span bool
}

func docCode(d mdDoc) []codeText {
	var out []codeText
	for _, p := range d.paragraphs() {
		for _, m := range codeSpan.FindAllStringIndex(p.text, -1) {
			text := strings.ReplaceAll(strings.Trim(p.text[m[0]:m[1]], "`"), "\n", " ")
			out = append(out, codeText{text: text, line: p.lineOf(m[0]), span: true})
		}
	}
	for i := 0; i < len(d.lines); i++ {
		l := d.lines[i]
		if !d.code[i] {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue // a shell comment
		}
		start := i
		for strings.HasSuffix(strings.TrimSpace(l), "\\") && i+1 < len(d.lines) && d.code[i+1] {
			i++
			l = strings.TrimSuffix(strings.TrimSpace(l), "\\") + " " + strings.TrimSpace(d.lines[i])
		}
		out = append(out, codeText{text: l, line: start + 1})
	}
	return out
}

var (
	frCall = regexp.MustCompile(`(?:^|[\s;&(])fr\s+(\S.*)$`)
	quoted = regexp.MustCompile(`"[^"]*"|'[^']*'`)
	// commandEnd ends a command: a pipe, a list, a redirection, the end of
	// a command substitution, a comment.
	commandEnd = regexp.MustCompile(`\s\|\s|;|&&|\)|[<>]|\s#`)
	cmdWord    = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
)

// frInvocations are the fr commands in a piece of code, each as the words
// after "fr", quoted strings replaced by a word.
func frInvocations(code string) []string {
	var out []string
	code = quoted.ReplaceAllString(code, "QUOTED")
	for {
		m := frCall.FindStringSubmatchIndex(code)
		if m == nil {
			return out
		}
		rest := code[m[2]:m[3]]
		if e := commandEnd.FindStringIndex(rest); e != nil {
			rest = rest[:e[0]]
		}
		out = append(out, strings.TrimSpace(rest))
		code = code[m[2]:]
	}
}

// checkInvocation checks the words after "fr": a command path (a word
// that is no command is output, such as "score:", unless it looks like
// one) and its flags. It returns the number of flags checked.
func checkInvocation(app *cli.App, inv string) (int, error) {
	words := strings.Fields(inv)
	if len(words) == 0 {
		return 0, nil
	}
	if !strings.HasPrefix(words[0], "-") && !cmdWord.MatchString(words[0]) {
		return 0, nil // output, as "fr score: FR3: 3 responses …"
	}
	var cmd *cli.Command
	known := map[string]bool{"help": true, "h": true, "version": true, "v": true}
	for _, f := range app.Flags {
		for _, n := range f.Names() {
			known[n] = true
		}
	}
	list := app.Commands
	for len(words) > 0 && cmdWord.MatchString(words[0]) {
		i := slices.IndexFunc(list, func(c *cli.Command) bool { return c.HasName(words[0]) })
		switch {
		case i >= 0:
		case cmd == nil:
			return 0, fmt.Errorf("%q is no command", words[0])
		case cmd.Name == "help" || len(cmd.Subcommands) > 0:
			return 0, fmt.Errorf("%q is no command of %s", words[0], cmd.Name)
		}
		if i < 0 {
			break // the command's first argument
		}
		cmd, list, words = list[i], list[i].Subcommands, words[1:]
		if cmd.Name == "help" {
			list = app.Commands // fr help COMMAND [SUBCOMMAND]
		}
		known = map[string]bool{"help": true, "h": true}
		for _, n := range flagNamesOf(cmd) {
			known[n] = true
		}
	}
	checked := 0
	for _, w := range words {
		w = strings.Trim(w, "[]")
		if !strings.HasPrefix(w, "-") || strings.Trim(w, "-") == "" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
		checked++
		if !known[name] {
			return checked, fmt.Errorf("%s is no flag of this command", w)
		}
	}
	return checked, nil
}

// flagNamesOf are every name of a command's flags, hidden ones and
// aliases included, without dashes.
func flagNamesOf(c *cli.Command) []string {
	var names []string
	for _, f := range c.Flags {
		names = append(names, f.Names()...)
	}
	return names
}

// TestCheckInvocation: the checker itself finds a wrong command, a wrong
// subcommand and a wrong flag, and passes what exists.
func TestCheckInvocation(t *testing.T) {
	app := newApp()
	tests := []struct {
		code string
		ok   bool
	}{
		{"fr score --version 3 -o out.jsonl testdata/example.jsonl", true},
		{"$ fr score --verison 3 in.jsonl", false},
		{"dir=$(fr models pull Xenova/roberta-large-mnli)", true},
		{"fr models pul X", false},
		{"fr scor in.jsonl", false},
		{"fr kb build -o kb.db [--tokenizer tokenizer.json] [--max-tokens 256] DOCS...", true},
		{"fr kb build [--max-token 256] DOCS", false},
		{"fr uai solve [--algorithm auto|exact|bp|cbp] [--evidence FILE] MODEL.uai", true},
		{"fr uai solve [--algorithm auto|exact] [--evidense FILE] MODEL.uai", false},
		{"fr score --merlin-flags \"--task MAR\" in.jsonl", true},
		{"fr factscore --gold in.jsonl | tail -1 --bogus", true},
		{"fr compare --k median in.jsonl", true},
		{"fr help kb build", true},
		{"fr help scoer", false},
		{"fr --version", true},
		{"fr score: FR3: 3 responses, mean Pr 0.8191", true},
	}
	for _, tc := range tests {
		var err error
		invs := frInvocations(tc.code)
		if len(invs) == 0 {
			t.Errorf("%q: no fr command found", tc.code)
		}
		for _, inv := range invs {
			if _, e := checkInvocation(app, inv); e != nil {
				err = e
			}
		}
		if (err == nil) != tc.ok {
			t.Errorf("%q: error %v, want ok %v", tc.code, err, tc.ok)
		}
	}
}
