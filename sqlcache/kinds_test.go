package sqlcache

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/safefile/safefiletest"
)

// TestOpenFileKinds: a cache path that is a named pipe (which would block
// the open forever), a device or a directory is refused, saying what it
// is, and left alone.
func TestOpenFileKinds(t *testing.T) {
	for _, kind := range safefiletest.Kinds {
		p := filepath.Join(t.TempDir(), "llm-cache.sqlite")
		safefiletest.Make(t, p, kind)
		err := safefiletest.Within(t, func() error {
			c, err := Open(p, LLM)
			if err == nil {
				c.Close()
			}
			return err
		})
		if err == nil || !strings.Contains(err.Error(), kind) {
			t.Errorf("%s: error %v", kind, err)
		}
	}
}
