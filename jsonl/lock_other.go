//go:build !unix

package jsonl

import "os"

// lock does nothing where advisory locks are not available.
func lock(*os.File) error { return nil }
