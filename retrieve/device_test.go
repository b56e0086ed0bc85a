//go:build unix

package retrieve

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBuilderDevice: a knowledge base is an SQLite file put in place by a
// rename, which would replace a device (/dev/null) or pipe: such a path is
// refused, with Overwrite too, and left as it is.
func TestBuilderDevice(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for _, overwrite := range []bool{false, true} {
		b, err := NewBuilder(fifo, BuildOptions{Overwrite: overwrite})
		if err == nil {
			b.Abort()
			t.Fatalf("overwrite %v: a pipe was accepted as the knowledge base", overwrite)
		}
		if !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("overwrite %v: %v", overwrite, err)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("overwrite %v: the pipe was replaced (%v)", overwrite, err)
		}
	}
}
