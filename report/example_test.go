package report_test

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/factreasoner/factreasoner-go/report"
)

// An HTML report of two runs of fr score on the same input. These outputs
// do not record what was scored, so the input file fills it in.
func Example() {
	ctx := context.Background()
	inputs, err := report.ReadInputs("../testdata/report/example-input.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	var runs []*report.Run
	for _, path := range []string{"../testdata/report/example.fr2.jsonl", "../testdata/report/example.fr3.jsonl"} {
		run, err := report.ReadRun(ctx, path, inputs)
		if err != nil {
			log.Fatal(err)
		}
		runs = append(runs, run)
	}
	rep, err := report.New(runs, report.Options{Title: "FR2 against FR3"})
	if err != nil {
		log.Fatal(err)
	}
	// Write the page to a file instead; report.AutoLayout uses graphviz
	// when it is installed.
	if err := rep.WriteHTML(ctx, io.Discard, report.Builtin{}); err != nil {
		log.Fatal(err)
	}
	for i, name := range rep.Names() {
		st := rep.Stats[i]
		fmt.Printf("%s: %d responses, mean Pr %.3f, ECE %.3f over %d labeled atoms\n",
			name, st.Summary.Responses, st.Summary.MeanPr, st.Calibration.ECE, st.Calibration.N)
	}
	// Output:
	// FR2 · given: 3 responses, mean Pr 0.278, ECE 0.265 over 28 labeled atoms
	// FR3 · given: 3 responses, mean Pr 0.278, ECE 0.264 over 28 labeled atoms
}
