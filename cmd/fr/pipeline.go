package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/progress"
)

// versionArg parses the --version flag of score and inspect.
func versionArg(c *cli.Context) (graph.Version, error) {
	v, err := graph.ParseVersion(c.String("version"))
	if err != nil {
		return 0, usagef("--version: %w", err)
	}
	return v, nil
}

// openPipeline opens the pipeline of the command's flags (parts beyond
// those they choose in also), for the records of input (K median is
// computed over them).
func openPipeline(c *cli.Context, input string, also ...assemble.Part) (*assemble.Pipeline, error) {
	o, err := runsOf(c.Command.Name).options(c, also...)
	if err != nil {
		return nil, err
	}
	if o.K.Name == "median" {
		var fo batch.FileOptions
		if c.Bool("skip-invalid") {
			fo.Invalid = func(*instance.Error) {} // reported by the run
		}
		if o.K.Value, err = batch.MedianAtoms(input, fo); err != nil {
			return nil, fmt.Errorf("--k median: %w", err)
		}
	}
	return assemble.Open(c.Context, o)
}

// fileOptions are the options of a run over a file: with --skip-invalid,
// invalid records and records that fail (an LLM answer that cannot be
// read) are reported and skipped; progress goes to stderr.
func fileOptions(c *cli.Context, prog *progress.Display) batch.FileOptions {
	o := batch.FileOptions{Progress: showProgress(prog)}
	if c.Bool("skip-invalid") {
		o.Invalid = func(e *instance.Error) { fmt.Fprintf(c.App.ErrWriter, "fr: skipping invalid record: %v\n", e) }
		o.Failed = func(err error) { fmt.Fprintf(c.App.ErrWriter, "fr: skipping failed record: %v\n", err) }
	}
	return o
}

// skippedSummary says how many records a run skipped, for its summary.
func skippedSummary(st batch.ScoreStats) string {
	s := fmt.Sprintf("%d invalid skipped, %d failed", st.Invalid, st.Failed)
	if st.EmptyContexts > 0 {
		s += fmt.Sprintf(", %d empty contexts dropped", st.EmptyContexts)
	}
	return s
}

// stopped ends the summary of a run that an error stopped: its counts are
// of the records before the error, which the summary would otherwise
// present as the whole run ("0 failed" when a record had failed).
func stopped(err error) string {
	if err == nil {
		return ""
	}
	return "; stopped by the error below, the records from there on not done"
}

// failedError is the error of a run that skipped failed records: it did
// not do all its work, so it must not exit 0.
func failedError(st batch.ScoreStats) error {
	if st.Failed == 0 {
		return nil
	}
	return fmt.Errorf("%d records failed (see above) and were not written; run the same command again (with -o, to resume) once the cause is fixed", st.Failed)
}

// showProgress shows a run's progress on the display.
func showProgress(prog *progress.Display) func(batch.Progress) {
	return func(pr batch.Progress) { prog.Report(progress.Status(pr)) }
}
