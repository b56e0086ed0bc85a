package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputEveryCommand (issue 23 item 6): every command that writes a
// result takes -o FILE, refuses an existing FILE without --force (status
// 2, the file unchanged), writes to stdout with -o /dev/stdout exactly
// what it writes without -o, and accepts /dev/null.
func TestOutputEveryCommand(t *testing.T) {
	ctx := context.Background()
	example := "../../testdata/example.jsonl"
	scored, _, err := run(t, ctx, "score", "--nli", "given", example)
	if err != nil {
		t.Fatal(err)
	}
	scoredFile := writeFile(t, "scored.jsonl", scored)
	model := writeFile(t, "m.uai", cliModel)
	for _, args := range [][]string{
		{"compare", "--nli", "given"},
		{"compare", "--format", "csv", scoredFile},
		{"inspect", "--nli", "given", "--line", "2"},
		{"factscore", "--gold"},
		{"atomize", "--atomizer", "sentences"},
		{"merge", scoredFile},
		{"uai", "solve", model},
		{"score", "--nli", "given"},
	} {
		if !strings.HasSuffix(args[len(args)-1], ".jsonl") && !strings.HasSuffix(args[len(args)-1], ".uai") {
			args = append(args, example)
		}
		with := func(flags ...string) []string {
			// Flags go before the arguments: after the command's name
			// (uai solve: after both).
			n := 1
			if args[0] == "uai" {
				n = 2
			}
			return append(append(append([]string{}, args[:n]...), flags...), args[n:]...)
		}
		want, _, err := run(t, ctx, args...)
		if err != nil || want == "" {
			t.Errorf("%v: %v, output %q", args, err, want)
			continue
		}
		out := filepath.Join(t.TempDir(), "out")
		if stdout, _, err := run(t, ctx, with("-o", out)...); err != nil || stdout != "" {
			t.Errorf("%v -o: %v, stdout %q", args, err, stdout)
		} else if b, _ := os.ReadFile(out); string(b) != want {
			t.Errorf("%v -o: the file holds\n%s\nwant\n%s", args, b, want)
		}
		if got, _, err := run(t, ctx, with("-o", "/dev/stdout")...); err != nil || got != want {
			t.Errorf("%v -o /dev/stdout: %v, stdout\n%s\nwant\n%s", args, err, got, want)
		}
		if stdout, _, err := run(t, ctx, with("-o", os.DevNull)...); err != nil || stdout != "" {
			t.Errorf("%v -o %s: %v, stdout %q", args, os.DevNull, err, stdout)
		}
		if args[0] == "score" {
			continue // its -o resumes
		}
		precious := writeFile(t, "precious", "precious\n")
		_, _, err = run(t, ctx, with("-o", precious)...)
		if exitStatus(err) != exitUsage || !strings.Contains(err.Error(), "--force") {
			t.Errorf("%v -o EXISTING: status %d (%v), want %d", args, exitStatus(err), err, exitUsage)
		}
		if b, _ := os.ReadFile(precious); string(b) != "precious\n" {
			t.Errorf("%v -o EXISTING: the file was changed: %q", args, b)
		}
		if _, _, err := run(t, ctx, with("--force", "-o", precious)...); err != nil {
			t.Errorf("%v --force -o EXISTING: %v", args, err)
		} else if b, _ := os.ReadFile(precious); string(b) != want {
			t.Errorf("%v --force -o EXISTING: the file holds %q", args, b)
		}
	}
}

// TestInspectDOTFile: fr inspect --dot refuses to replace an existing file
// without --force, as -o does, before any work; with --force it writes
// the network.
func TestInspectDOTFile(t *testing.T) {
	ctx := context.Background()
	dot := writeFile(t, "net.dot", "precious\n")
	args := []string{"inspect", "--nli", "given", "--line", "1", "--dot", dot, "../../testdata/example.jsonl"}
	stdout, _, err := run(t, ctx, args...)
	if exitStatus(err) != exitUsage || !strings.Contains(err.Error(), "--dot "+dot+": the file exists; give --force") {
		t.Errorf("--dot EXISTING: status %d (%v)", exitStatus(err), err)
	}
	if stdout != "" {
		t.Errorf("--dot EXISTING: the work was done:\n%s", stdout)
	}
	if b, _ := os.ReadFile(dot); string(b) != "precious\n" {
		t.Errorf("--dot EXISTING: the file was changed: %q", b)
	}
	if _, _, err := run(t, ctx, append([]string{"inspect", "--force"}, args[1:]...)...); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dot); !strings.HasPrefix(string(b), "graph") && !strings.HasPrefix(string(b), "digraph") {
		t.Errorf("--force --dot: the file holds %.40q, want the network", b)
	}
}

// TestReportDevice: fr report writes a device or pipe (/dev/null; here a
// named pipe, which a test may make without risk) in place, --force or
// not, and fr kb build refuses one: both write a temporary file and rename
// it, which would replace the device.
func TestReportDevice(t *testing.T) {
	ctx := context.Background()
	scored, _, err := run(t, ctx, "score", "--nli", "given", "../../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	in := writeFile(t, "scored.jsonl", scored)
	for _, force := range []bool{false, true} {
		fifo := filepath.Join(t.TempDir(), "pipe")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no named pipes here:", err)
		}
		read := make(chan int)
		go func() {
			b, _ := os.ReadFile(fifo)
			read <- len(b)
		}()
		args := []string{"report", "--layout", "built-in", "-o", fifo, in}
		if force {
			args = append([]string{"report", "--force"}, args[1:]...)
		}
		_, _, err := run(t, ctx, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%v: the pipe was replaced", args)
		}
		if n := <-read; n == 0 {
			t.Errorf("%v: nothing was written to the pipe", args)
		}
		docs := writeFile(t, "docs.jsonl", `{"title": "A", "text": "a b c"}`+"\n")
		_, _, err = run(t, ctx, "kb", "build", "--force", "-o", fifo, docs)
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("kb build -o PIPE: %v", err)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("kb build -o PIPE: the pipe was replaced")
		}
	}
}
