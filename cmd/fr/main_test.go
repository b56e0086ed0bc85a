package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/factreasoner/factreasoner-go/hub"
)

// TestMain keeps the tests off the user's own Hugging Face cache, where a
// model downloaded with Hugging Face's tools would change what --nli auto
// does; tests that want one set HF_HUB_CACHE themselves.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	os.Setenv(hub.EnvHubCache, filepath.Join(os.TempDir(), "fr-test-no-hf-cache", "absent"))
	os.Exit(m.Run())
}

// childEnv makes the test binary run as fr itself, its arguments fr's,
// for tests that need a process of their own (runFr).
const childEnv = "FR_TEST_AS_FR"

// childMain runs the test binary as fr; $FR_TEST_FSIZE limits the size of
// the files it writes (RLIMIT_FSIZE), as a full disk would.
func childMain() int {
	if lim := os.Getenv("FR_TEST_FSIZE"); lim != "" {
		n, _ := strconv.ParseUint(lim, 10, 64)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			fmt.Fprintln(os.Stderr, "setrlimit:", err)
			return 3
		}
	}
	app := newApp()
	logThrough(app, os.Stderr)
	err := execute(context.Background(), app, append([]string{"fr"}, os.Args[1:]...))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fr:", err)
	}
	return exitStatus(err)
}
