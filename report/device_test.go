//go:build unix

package report_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/factreasoner/factreasoner-go/report"
)

// TestWriteFileDevice: a path that is a device or pipe (/dev/null,
// /dev/stdout; here a named pipe, which a test may make) is written as it
// is, with overwrite too: renaming the temporary file over it would replace
// the device with a file (as root, /dev/null itself).
func TestWriteFileDevice(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		fifo := filepath.Join(t.TempDir(), "pipe")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no named pipes here:", err)
		}
		read := make(chan string)
		go func() {
			b, _ := os.ReadFile(fifo)
			read <- string(b)
		}()
		err := report.WriteFile(fifo, overwrite, func(f *os.File) error {
			_, err := f.WriteString("<html>")
			return err
		})
		if err != nil {
			t.Fatalf("overwrite %v: %v", overwrite, err)
		}
		// Checked first: a reader of a replaced pipe would wait forever.
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("overwrite %v: the pipe was replaced (%v)", overwrite, err)
		}
		if got := <-read; got != "<html>" {
			t.Errorf("overwrite %v: the pipe read %q", overwrite, got)
		}
	}
}

// TestWriteFileSymlink: with overwrite, the file a symbolic link names is
// replaced, and the link stays a link.
func TestWriteFileSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "report.html"), filepath.Join(dir, "latest.html")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	err := report.WriteFile(link, true, func(f *os.File) error {
		_, err := f.WriteString("new")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced (%v)", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the target holds %q, want the new report", b)
	}
}
