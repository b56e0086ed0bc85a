package sqlcache

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenFileKinds: a cache path that is a named pipe (which would block
// the open forever), a device or a directory is refused, saying what it
// is, and left alone.
func TestOpenFileKinds(t *testing.T) {
	for _, kind := range []string{"named pipe", "character device", "directory"} {
		dir := t.TempDir()
		p := filepath.Join(dir, "llm-cache.sqlite")
		var err error
		switch kind {
		case "named pipe":
			err = syscall.Mkfifo(p, 0o600)
		case "character device":
			err = os.Symlink("/dev/zero", p)
		case "directory":
			err = os.Mkdir(p, 0o700)
		}
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			c, err := Open(p, LLM)
			if err == nil {
				c.Close()
			}
			done <- err
		}()
		select {
		case err = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: Open hangs", kind)
		}
		if err == nil || !strings.Contains(err.Error(), kind) {
			t.Errorf("%s: error %v", kind, err)
		}
	}
}
