// Package refdata finds the shared reference data (IBM's Flaherty instance
// and golden run, FActScore's labeled biographies, merlin test vectors,
// tokenizers) that tests read in place from ../shared/data beside the
// repository. The data is never copied into the repository.
package refdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the shared data directory, or "" when it cannot be found. The
// environment variable FACTREASONER_REFDATA overrides the default location,
// ../shared/data relative to the module root.
func Root() string {
	if d := os.Getenv("FACTREASONER_REFDATA"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
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
// it under CI, so that a CI run cannot pass without testing those paths.
const RequireEnv = "FACTREASONER_REQUIRE_REFDATA"

// Path returns the path of a file or directory under the shared data
// directory. When it is missing the test is skipped (or, with RequireEnv
// set, fails) with a message that says what is missing and where it was
// looked for.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	root := Root()
	if root == "" {
		missing(tb, "reference data not found: expected ../shared/data beside the module root (or set FACTREASONER_REFDATA)")
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
