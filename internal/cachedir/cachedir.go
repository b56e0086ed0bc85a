// Package cachedir locates the tool's cache directory, where downloaded
// runtimes, models and persistent caches live by default.
package cachedir

import (
	"fmt"
	"os"
	"path/filepath"
)

// EnvVar overrides the cache directory.
const EnvVar = "FACTREASONER_CACHE"

// Dir returns the cache directory: $FACTREASONER_CACHE when set, else
// factreasoner-go under the user's cache directory ($XDG_CACHE_HOME or
// ~/.cache on Linux). It does not create it.
func Dir() (string, error) {
	if d := os.Getenv(EnvVar); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set %s): %w", EnvVar, err)
	}
	return filepath.Join(base, "factreasoner-go"), nil
}

// Path returns a path under the cache directory, creating its parent
// directories, private to the user (0700: the caches hold model answers and
// retrieved pages); directories that exist are left as they are.
func Path(elem ...string) (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(append([]string{d}, elem...)...)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("cache directory: %w", err)
	}
	return p, nil
}
