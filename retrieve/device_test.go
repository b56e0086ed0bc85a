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

// TestBuilderSymlink: with Overwrite, the file a symbolic link names is
// replaced by the knowledge base, and the link stays a link.
func TestBuilderSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "kb.db"), filepath.Join(dir, "latest.db")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	b, err := NewBuilder(link, BuildOptions{Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(t.Context(), Document{Title: "A", Pieces: []string{"a b c"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Finish(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced (%v)", err)
	}
	if b, _ := os.ReadFile(target); !strings.HasPrefix(string(b), "SQLite format 3") {
		t.Errorf("the target is not the knowledge base: %.20q", b)
	}
}
