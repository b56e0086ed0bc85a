//go:build unix

package tempfile

import (
	"os"
	"syscall"
)

const canLock = true

// tryLock takes an exclusive advisory lock on f without waiting.
func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
