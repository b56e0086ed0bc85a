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
