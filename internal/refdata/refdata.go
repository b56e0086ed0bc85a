// Package refdata finds the reference data that tests read: IBM's Flaherty
// instance and golden run, FActScore's labeled biographies, merlin test
// vectors and the roberta-base tokenizer. The repository carries a copy in
// testdata/refdata, each source with its licence (testdata/refdata/README.md),
// so that a clone runs every test on its own.
package refdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Env, when set to a directory, is read instead of testdata/refdata (a
// directory of the same layout, e.g. a newer release of the data).
const Env = "FACTREASONER_REFDATA"

// Root returns the reference data directory, or "" when it cannot be found:
// the directory named by Env when set, else testdata/refdata under the
// module root (found from the working directory, which go test sets to the
// package's directory).
func Root() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "testdata", "refdata")
			if _, err := os.Stat(d); err == nil {
				return d
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// RequireEnv, when set to a non-empty value, makes missing reference data
// fail the tests that need it instead of skipping them. scripts/test sets
// it, so that the test command cannot pass without testing those paths.
const RequireEnv = "FACTREASONER_REQUIRE_REFDATA"

// Path returns the path of a file or directory under the reference data
// directory. When it is missing the test is skipped (or, with RequireEnv
// set, fails) with a message that says what is missing and where it was
// looked for.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	root := Root()
	if root == "" {
		missing(tb, "reference data not found: expected testdata/refdata under the module root (or set "+Env+")")
	}
	p := filepath.Join(append([]string{root}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		missing(tb, "reference data file missing: "+p)
	}
	return p
}

func missing(tb testing.TB, msg string) {
	tb.Helper()
	if os.Getenv(RequireEnv) != "" {
		tb.Fatalf("%s (%s is set: reference data must be present)", msg, RequireEnv)
	}
	tb.Skip(msg)
}
