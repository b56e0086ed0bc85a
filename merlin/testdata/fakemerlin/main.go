// Command fakemerlin stands in for the merlin binary in tests. It accepts
// merlin's command line and behaves as FAKE_MERLIN_MODE says:
//
//	good       solve the model by enumeration and write a proper result
//	underflow  as good, but with ln Z = -2000 and STATUS false (merlin's
//	           report when e^lnZ underflows)
//	status     write STATUS false with ln Z = -inf (inconsistent evidence)
//	garbage    write a result file that is not in the UAI format
//	wrongvars  write marginals for one variable too few
//	badsum     write marginals that do not sum to 1
//	nooutput   exit 0 without writing anything
//	crash      print to stderr and exit with status 3
//	killed     kill itself with SIGKILL
//	sleep      sleep for a minute
//
// With FAKE_MERLIN_LOG set it appends its arguments (one line) and copies
// the model file next to the log, for the test to inspect.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/uai"
)

func main() {
	opts := map[string]string{}
	for i := 1; i+1 < len(os.Args); i += 2 {
		opts[os.Args[i]] = os.Args[i+1]
	}
	if log := os.Getenv("FAKE_MERLIN_LOG"); log != "" {
		os.WriteFile(log, []byte(strings.Join(os.Args[1:], " ")+"\n"), 0o644)
		data, _ := os.ReadFile(opts["--input-file"])
		os.WriteFile(filepath.Join(filepath.Dir(log), "model.uai"), data, 0o644)
	}
	fmt.Println("[MERLIN] fake merlin starting") // merlin is chatty on stdout
	out := opts["--output-file"] + ".MAR"
	write := func(s string) {
		if err := os.WriteFile(out, []byte(s), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	switch mode := os.Getenv("FAKE_MERLIN_MODE"); mode {
	case "good", "underflow", "wrongvars", "badsum":
		n, err := uai.ReadFile(opts["--input-file"])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		r, err := inference.Enumeration{}.Solve(context.Background(), n.Model)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		switch mode {
		case "underflow":
			r.LogZ = -2000
		case "wrongvars":
			r.Marginals = r.Marginals[1:]
		case "badsum":
			r.Marginals[0][0] += 0.25
		}
		var b strings.Builder
		uai.WriteMAR(&b, r)
		s := b.String()
		if mode == "underflow" {
			s = strings.Replace(s, "true: Consistent evidence", "false: Inconsistent evidence or underflow", 1)
		}
		write(s)
	case "status":
		write("PR\n-inf (0.000000e+00)\nSTATUS\nfalse: Inconsistent evidence or underflow\nMAR\n1 2 -nan -nan\n")
	case "garbage":
		write("Segmentation fault? no: just garbage\n")
	case "nooutput":
	case "crash":
		fmt.Fprintln(os.Stderr, "terminate called after throwing an instance of 'std::runtime_error'")
		os.Exit(3)
	case "killed":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Second)
	case "sleep":
		time.Sleep(time.Minute)
	default:
		fmt.Fprintf(os.Stderr, "fakemerlin: unknown FAKE_MERLIN_MODE %q\n", mode)
		os.Exit(1)
	}
}
