package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/suggest"
	"github.com/factreasoner/factreasoner-go/jsonl"
)

// Exit statuses, as most command-line tools use them.
const (
	exitOK      = 0
	exitFailure = 1 // the work failed
	exitUsage   = 2 // a bad flag or argument
)

// usageError is a mistake in the command line: a bad flag or argument.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// asUsage marks err, when not nil, as a usage error.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// exitStatus is the status fr exits with after err.
func exitStatus(err error) int {
	var oe *assemble.OptionError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, new(usageError)), errors.As(err, &oe):
		return exitUsage
	}
	return exitFailure
}

// onUsageError reports a flag that cannot be parsed in one line on stderr,
// instead of the command's whole help on stdout, where it would land in
// redirected output.
func onUsageError(c *cli.Context, err error, _ bool) error {
	if flag, ok := unknownFlag(err); ok {
		flags := c.App.Flags
		if c.Command != nil && c.Command.Name != "" {
			flags = c.Command.Flags
		}
		return usagef("%v%s (see %s --help)", err, suggest.DidYouMean(flag, flagNames(flags)), helpName(c))
	}
	return usagef("%v (see %s --help)", err, helpName(c))
}

// helpName is the command line that names the command of c: "fr score",
// "fr kb build", "fr".
func helpName(c *cli.Context) string {
	if c.Command != nil && c.Command.HelpName != "" {
		return c.Command.HelpName
	}
	return c.App.HelpName
}

// inputArg returns the single INPUT argument as a path: "-" is standard
// input, copied to a temporary file (the commands read their input more
// than once: to check a resumed output, to compute K over the file).
func inputArg(c *cli.Context) (string, error) {
	if err := flagsBeforeArgs(c); err != nil {
		return "", err
	}
	if c.NArg() != 1 {
		return "", usagef("%s: want exactly one INPUT file, got %d arguments (see %s --help)", c.Command.Name, c.NArg(), c.Command.HelpName)
	}
	return inputPath(c, c.Args().First())
}

// flagsBeforeArgs refuses flags given after the arguments, which the flag
// parser would take as more arguments.
func flagsBeforeArgs(c *cli.Context) error {
	for _, a := range c.Args().Slice()[min(1, c.NArg()):] {
		if strings.HasPrefix(a, "-") && a != "-" {
			return usagef("%s: flag %s comes after the arguments: put flags before them (%s [flags] %s)", c.Command.Name, a, c.Command.HelpName, c.Command.ArgsUsage)
		}
	}
	return nil
}

// tempKey keys the temporary files of a command in its context.
type tempKey struct{}

// temps are the temporary files of a command, removed when it ends (the
// functions that remove them), and whether one of them holds standard
// input.
type temps struct {
	removes []func() error
	stdin   bool
}

// withTemp gives a command a place to note temporary files, removed by
// removeTemp when the command ends.
func withTemp(c *cli.Context) error {
	c.Context = context.WithValue(c.Context, tempKey{}, new(temps))
	return nil
}

func removeTemp(c *cli.Context) error {
	if t, ok := c.Context.Value(tempKey{}).(*temps); ok {
		for _, remove := range t.removes {
			remove()
		}
	}
	return nil
}

// spoolNames give the temporary copies of standard input and of pipes
// (inputPath, spoolInput) their own names back in fr's messages: a record
// of "-" is "stdin:3", not a line of a file removed when the command ends.
// The readers name the file they read; the names are put back where every
// message leaves fr (stderrWriter, execute), for errors and warnings alike.
type spoolNames struct {
	mu       sync.Mutex
	pairs    []string // path, name, ...
	replacer *strings.Replacer
}

// spoolNamesKey keys the app's spoolNames in its Metadata.
const spoolNamesKey = "spool names"

// namesOf is the app's spoolNames (none: a program built without them).
func namesOf(app *cli.App) *spoolNames {
	n, _ := app.Metadata[spoolNamesKey].(*spoolNames)
	return n
}

func (n *spoolNames) add(path, name string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pairs = append(n.pairs, path, name)
	n.replacer = strings.NewReplacer(n.pairs...)
}

// String is s with every spooled path replaced by its name.
func (n *spoolNames) String(s string) string {
	if n == nil {
		return s
	}
	n.mu.Lock()
	r := n.replacer
	n.mu.Unlock()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// Writer writes to w with the spooled paths named (String), and keeps w's
// file descriptor, so that a terminal is still known as one.
func (n *spoolNames) Writer(w io.Writer) io.Writer { return &namingWriter{n: n, w: w} }

type namingWriter struct {
	n *spoolNames
	w io.Writer
}

func (w *namingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, w.n.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *namingWriter) Fd() uintptr {
	if f, ok := w.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// inputPaths is the path of every argument (see inputPath).
func inputPaths(c *cli.Context) ([]string, error) {
	var paths []string
	for _, a := range c.Args().Slice() {
		p, err := inputPath(c, a)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// inputPath is the path of an input argument (jsonl.Input): "-" and a
// pipe given by name are copied to a temporary file, named "stdin" or
// after the pipe so that messages say where a record came from, removed
// when the command ends; a file that is missing, a directory or a device
// is refused here, before any work begins (and before a run's summary
// could say that nothing was done).
func inputPath(c *cli.Context, arg string) (string, error) {
	t, _ := c.Context.Value(tempKey{}).(*temps)
	if arg == "-" && t != nil && t.stdin {
		// Standard input can be read once: a second "-" would be empty.
		return "", usagef("%s: - (standard input) is given more than once", c.Command.Name)
	}
	stdin := c.App.Reader
	if stdin == nil {
		stdin = os.Stdin
	}
	path, remove, err := jsonl.Input(arg, stdin, instance.DefaultMaxDocumentBytes)
	if err == nil && remove != nil {
		name := arg
		if arg == "-" {
			name = "stdin"
		}
		namesOf(c.App).add(path, name)
		if t != nil {
			t.removes = append(t.removes, remove)
			t.stdin = t.stdin || arg == "-"
		}
	}
	return path, err
}

// spoolInput copies an input that can be read only once into a temporary
// file called name, removed when the command ends. No line longer than a
// document may be is copied: no reader could use it (an endless line from
// a pipe stops the copy).
func spoolInput(c *cli.Context, in io.Reader, name string) (string, error) {
	path, remove, err := jsonl.Spool(in, name, instance.DefaultMaxDocumentBytes)
	if err != nil {
		return "", err
	}
	namesOf(c.App).add(path, name)
	if t, ok := c.Context.Value(tempKey{}).(*temps); ok {
		t.removes = append(t.removes, remove)
	}
	return path, nil
}

// writeOutput writes a command's whole result, as write makes it, where
// the command of outputFlags writes: stdout; or the -o file (refused as
// openOutput refuses it) through a temporary file renamed when complete,
// so that a failed, killed or disk-full run leaves no partial file that
// looks complete; or a device or pipe as it is.
func writeOutput(c *cli.Context, write func(io.Writer) error, inputs ...string) error {
	path := c.String("output")
	if path == "" {
		return write(c.App.Writer)
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		w, closeOut, err := openOutput(c, inputs...)
		if err != nil {
			return err
		}
		err = write(w)
		return errors.Join(err, closeOut(err))
	}
	if err := notAnInput("-o", path, inputs...); err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil && !c.Bool("force") {
		return usagef("-o %s: the file exists; give --force to replace it, or another -o", path)
	}
	err := jsonl.WriteFile(path, c.Bool("force"), 0o600, func(f *os.File) error { return write(f) })
	if errors.Is(err, os.ErrExist) {
		return usagef("-o %s: the file exists; give --force to replace it, or another -o", path)
	}
	return err
}

// notAnInput refuses an output path that names one of the inputs: the
// same file, by its name, a symbolic link or a hard link (writing it would
// empty the input before it is read). An output that does not exist yet
// names no input.
func notAnInput(flag, out string, inputs ...string) error {
	if out == "" {
		return nil
	}
	so, err := os.Stat(out)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if si, err := os.Stat(in); err == nil && os.SameFile(so, si) {
			if in == out {
				return usagef("%s %s is an input of the command: give another %s", flag, out, flag)
			}
			return usagef("%s %s is the input %s (the same file): give another %s", flag, out, in, flag)
		}
	}
	return nil
}

// outputFlags are -o and --force of the commands that write a new output
// file (fr score's -o resumes instead; see its flags).
func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Category: catIO, Usage: "output `FILE` (default stdout); an existing FILE is replaced only with --force"},
		&cli.BoolFlag{Name: "force", Category: catIO, Usage: "replace an existing -o FILE"},
	}
}

// openOutput returns where a command of outputFlags writes: stdout, or the
// -o file, which must not exist unless --force is given (a device or pipe,
// such as /dev/null, is written as it is; /dev/stdout is the command's
// stdout) and must not be one of the command's inputs. close closes the
// file, given the command's error: a file the failed command wrote nothing
// to is removed (closeOutput).
func openOutput(c *cli.Context, inputs ...string) (w io.Writer, close func(failed error) error, err error) {
	path := c.String("output")
	if path == "" {
		path = stdoutPath
	}
	if err := notAnInput("-o", path, inputs...); err != nil {
		return nil, nil, err
	}
	f, err := createOutput(c, "-o", path)
	if err != nil {
		return nil, nil, err
	}
	return f, func(failed error) error { return closeOutput(f, failed) }, nil
}

// closeOutput closes an output the command opened; after it failed
// (failed), a regular file that holds nothing is removed first
// (jsonl.RemoveEmpty): a run that fails before its first line leaves no
// empty file that would look like a result of no records.
func closeOutput(c io.Closer, failed error) error {
	if f, ok := c.(*os.File); ok && failed != nil {
		return jsonl.RemoveEmpty(f)
	}
	return c.Close()
}

// stdoutPath names standard output as an output file: the command's own
// stdout, whatever it is redirected to (a regular file that the shell
// has just created must not be taken for an existing result).
const stdoutPath = "/dev/stdout"

// createOutput creates the file a command's flag names (-o, --dot) as
// jsonl.CreateOutput does: an existing file is refused, a usage error,
// unless --force is given; /dev/stdout is the command's stdout.
func createOutput(c *cli.Context, flag, path string) (io.WriteCloser, error) {
	if path == stdoutPath {
		return nopCloser{c.App.Writer}, nil
	}
	f, err := jsonl.CreateOutput(path, c.Bool("force"))
	if errors.Is(err, os.ErrExist) {
		return nil, usagef("%s %s: the file exists; give --force to replace it, or another %s", flag, path, flag)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// nopCloser is a writer that is not closed: stdout.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
