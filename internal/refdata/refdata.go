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

// Path returns the path of a file under the shared data directory. When the
// file is missing the test is skipped with a message that says what is
// missing and where it was looked for.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	root := Root()
	if root == "" {
		tb.Skip("reference data not found: expected ../shared/data beside the module root (or set FACTREASONER_REFDATA)")
	}
	p := filepath.Join(append([]string{root}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("reference data file missing: %s", p)
	}
	return p
}
