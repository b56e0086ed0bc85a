//go:build !unix

package tempfile

import "os"

const canLock = false

// tryLock does nothing where advisory locks are not available.
func tryLock(*os.File) error { return nil }
