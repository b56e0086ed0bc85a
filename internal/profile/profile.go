// Package profile writes a CPU profile and an execution trace of the
// process, for finding where a run spends its time (fr's FR_CPUPROFILE and
// FR_TRACE; docs/operations.md, BENCHMARKS.md).
package profile

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// Start starts a CPU profile (runtime/pprof) and an execution trace
// (runtime/trace) into the files named, where named ("" starts none).
// stop ends them and closes the files. Errors name the variables fr reads
// the names from.
func Start(cpu, tr string) (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var errs []error
		for _, s := range stops {
			errs = append(errs, s())
		}
		return errors.Join(errs...)
	}
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return nil, fmt.Errorf("FR_CPUPROFILE: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("FR_CPUPROFILE: %w", err)
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return f.Close() })
	}
	if tr != "" {
		f, err := os.Create(tr)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("FR_TRACE: %w", err), stop())
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return nil, errors.Join(fmt.Errorf("FR_TRACE: %w", err), stop())
		}
		stops = append(stops, func() error { trace.Stop(); return f.Close() })
	}
	return stop, nil
}
