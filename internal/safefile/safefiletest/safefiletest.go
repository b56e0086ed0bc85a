// Package safefiletest makes the files that are not what they claim to be,
// for tests of readers that must refuse them (package safefile): a
// directory, a named pipe (which blocks its reader forever), a device.
package safefiletest

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// Kinds are the kinds of file Make makes, as safefile's errors name them.
var Kinds = []string{"directory", "named pipe", "character device"}

// Make makes path a file of the kind: a directory, a named pipe, or a
// link to /dev/zero (a character device that would fill the memory of a
// reader that reads to its end).
func Make(t testing.TB, path, kind string) {
	t.Helper()
	var err error
	switch kind {
	case "directory":
		err = os.Mkdir(path, 0o700)
	case "named pipe":
		err = syscall.Mkfifo(path, 0o600)
	case "character device":
		err = os.Symlink("/dev/zero", path)
	default:
		t.Fatalf("no kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Within returns what f returns, failing the test when f has not returned
// in 20 seconds: a reader that opens a named pipe blocks forever.
func Within[T any](t testing.TB, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(20 * time.Second):
		t.Fatal("hangs")
		var zero T
		return zero
	}
}
