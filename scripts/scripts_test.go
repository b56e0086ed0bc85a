// Package scripts holds the project's scripts (scripts/test, the
// installers, the benchmark drivers) and the commands that make synthetic
// data (frgen, recgen); its tests check the scripts a newcomer meets
// first.
package scripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeApt is an apt-get that records its calls and says, for its first
// $FAKE_LOCKED calls, what apt-get says when another apt holds its lock
// (a fresh machine's unattended upgrades); $FAKE_FAIL makes it fail as
// apt-get does for a package it does not know.
const fakeApt = `#!/usr/bin/env bash
n=$(( $(cat "$FAKE_DIR/calls" 2>/dev/null || echo 0) + 1 ))
echo $n > "$FAKE_DIR/calls"
echo "$*" >> "$FAKE_DIR/args"
if [ "$n" -le "${FAKE_LOCKED:-0}" ]; then
	echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)" >&2
	echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?" >&2
	exit 100
fi
if [ -n "${FAKE_FAIL:-}" ]; then
	echo "E: Unable to locate package $FAKE_FAIL" >&2
	exit 100
fi
`

// runAptInstall runs scripts/apt-install with the fake apt-get (and an id
// that says root, so that no sudo is asked for).
func runAptInstall(t *testing.T, env []string, pkgs ...string) (calls []string, stderr string, err error) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o700)
	os.WriteFile(filepath.Join(bin, "apt-get"), []byte(fakeApt), 0o700)
	os.WriteFile(filepath.Join(bin, "id"), []byte("#!/bin/sh\necho 0\n"), 0o700)
	cmd := exec.Command("bash", append([]string{"apt-install"}, pkgs...)...)
	cmd.Env = append(os.Environ(), append([]string{"PATH=" + bin + ":" + os.Getenv("PATH"), "FAKE_DIR=" + dir, "FR_APT_RETRY_WAIT=0"}, env...)...)
	var errw bytes.Buffer
	cmd.Stderr = &errw
	err = cmd.Run()
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	return strings.Split(strings.TrimSpace(string(args)), "\n"), errw.String(), err
}

// TestAptInstallWaitsForTheLock: while another apt holds apt's lock,
// scripts/apt-install says so, with the way out (--no-install), and tries
// again until it is free; past its wait it gives up saying what to do; a
// failure of another kind is apt-get's own message, at once.
func TestAptInstallWaitsForTheLock(t *testing.T) {
	calls, stderr, err := runAptInstall(t, []string{"FAKE_LOCKED=3"}, "chromium", "graphviz")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	want := []string{"update -qq", "update -qq", "update -qq", "update -qq", "install -y -qq chromium graphviz"}
	if strings.Join(calls, "|") != strings.Join(want, "|") {
		t.Errorf("apt-get was called with %q, want %q", calls, want)
	}
	if n := strings.Count(stderr, "holds apt's lock"); n != 3 || !strings.Contains(stderr, "scripts/test --no-install") || strings.Contains(stderr, "E: Could not get lock") {
		t.Errorf("stderr:\n%s", stderr)
	}

	_, stderr, err = runAptInstall(t, []string{"FAKE_LOCKED=1000", "FR_APT_LOCK_WAIT=0"}, "npm")
	if code := exitCode(err); code != 1 || !strings.Contains(stderr, "still holds apt's lock") || !strings.Contains(stderr, "scripts/test --no-install") || !strings.Contains(stderr, "install npm by hand") {
		t.Errorf("lock never released: exit %d\n%s", code, stderr)
	}

	calls, stderr, err = runAptInstall(t, []string{"FAKE_FAIL=chromium"}, "chromium")
	if code := exitCode(err); code != 100 || !strings.Contains(stderr, "Unable to locate package chromium") || strings.Contains(stderr, "lock") || len(calls) != 1 {
		t.Errorf("another failure: exit %d, %d calls\n%s", code, len(calls), stderr)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
