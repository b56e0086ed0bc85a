// Package answercorpus reads the corpus of LLM answer shapes in
// testdata/llm-answers, which the tests of each LLM stage's parser run and
// its fuzz tests take as seeds.
//
// The corpus of a stage is the txtar archives (golang.org/x/tools/txtar)
// in testdata/llm-answers/<stage>/. The comment of an archive says where
// its shapes come from. Its files come in pairs: a file named for the case
// holds the answer exactly as a model wrote it (the newline txtar puts at
// the end of a file is not part of it), and the file after it is either
// "want", what the parser must read from it (one item per line), or
// "unreadable", for an answer the parser must refuse, with, optionally, a
// phrase its error must contain. Adding a shape is adding two files to an
// archive.
package answercorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// Case is one answer of the corpus.
type Case struct {
	Name   string // archive file: case name
	Answer string
	// Want is what the answer says, one item per line of the want file
	// (an empty want file is an empty list). Nil for an unreadable
	// answer.
	Want []string
	// Unreadable marks an answer the parser must refuse; Why is a phrase
	// its error must contain, or "".
	Unreadable bool
	Why        string
}

// Load reads the corpus of a stage ("atomizer", "reviser", "nli",
// "factscore"). A malformed archive fails the test; an empty corpus too.
func Load(tb testing.TB, stage string) []Case {
	tb.Helper()
	dir, err := Dir(stage)
	if err != nil {
		tb.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		tb.Fatal(err)
	}
	var cases []Case
	for _, f := range files {
		cs, err := ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		cases = append(cases, cs...)
	}
	if len(cases) == 0 {
		tb.Fatalf("no answer shapes in %s", dir)
	}
	return cases
}

// Dir is the corpus directory of a stage, found from the working directory
// up to the module root.
func Dir(stage string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "llm-answers", stage), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory: cannot find testdata/llm-answers")
		}
		dir = parent
	}
}

// ReadFile reads the cases of one archive.
func ReadFile(path string) ([]Case, error) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(path)
	if len(ar.Files)%2 != 0 {
		return nil, fmt.Errorf("%s: %d files: every answer must be followed by want or unreadable", base, len(ar.Files))
	}
	cases := make([]Case, 0, len(ar.Files)/2)
	seen := map[string]bool{}
	for i := 0; i < len(ar.Files); i += 2 {
		a, w := ar.Files[i], ar.Files[i+1]
		c := Case{Name: base + ": " + a.Name, Answer: strings.TrimSuffix(string(a.Data), "\n")}
		if a.Name == "want" || a.Name == "unreadable" || seen[a.Name] {
			return nil, fmt.Errorf("%s: case %q: a case needs a name of its own, followed by want or unreadable", base, a.Name)
		}
		seen[a.Name] = true
		switch w.Name {
		case "want":
			c.Want = []string{}
			if s := strings.TrimSuffix(string(w.Data), "\n"); s != "" {
				c.Want = strings.Split(s, "\n")
			}
		case "unreadable":
			c.Unreadable = true
			c.Why = strings.TrimSpace(string(w.Data))
		default:
			return nil, fmt.Errorf("%s: case %q is followed by %q, not want or unreadable", base, a.Name, w.Name)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// Check runs the corpus of a stage against its reader, each case a
// subtest: a readable answer must read as its want file (in order; an
// empty want file is no item), an unreadable one must be refused with an
// error holding its phrase.
func Check(t *testing.T, stage string, read func(answer string) ([]string, error)) {
	t.Helper()
	for _, c := range Load(t, stage) {
		t.Run(c.Name, func(t *testing.T) {
			got, err := read(c.Answer)
			if c.Unreadable {
				if err == nil || !strings.Contains(err.Error(), c.Why) {
					t.Errorf("read %q, error %v; want an error %q", got, err, c.Why)
				}
				return
			}
			if err != nil || strings.Join(got, "\n") != strings.Join(c.Want, "\n") {
				t.Errorf("read %q (%v), want %q", got, err, c.Want)
			}
		})
	}
}
