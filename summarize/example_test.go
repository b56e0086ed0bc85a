package summarize_test

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/summarize"
)

// ReadSummary reads the shapes models write: a labeled summary, IBM's
// older fenced answer, None in the ways models say it, and refuses an
// answer that holds no summary. Relevant then tells a summary that says
// something about the atom from one that says the context does not.
func ExampleReadSummary() {
	for _, answer := range []string{
		"Summary: Ruth Adair was born in 1948; the season is not given.",
		"```\nThe Hartwell Bridge crosses the River Severn, not the Thames.\n```",
		"None.\n\nThe context is about a bridge.",
		"The context does not mention Ruth Adair.",
		"SUMMARY:",
	} {
		r, err := summarize.ReadSummary(answer)
		fmt.Printf("none %v, relevant %v: %q %v\n", r.None, summarize.Relevant(r.Text), r.Text, err)
	}
	// Output:
	// none false, relevant true: "Ruth Adair was born in 1948; the season is not given." <nil>
	// none false, relevant true: "The Hartwell Bridge crosses the River Severn, not the Thames." <nil>
	// none true, relevant false: "" <nil>
	// none false, relevant false: "The context does not mention Ruth Adair." <nil>
	// none false, relevant false: "" the answer holds no summary, only a label or preamble
}

// Premises is the record as NLI reads it once its contexts carry
// summaries (a FactReasoner output, or one of fr score --summarize): each
// summary in place of its context's text, the prior kept.
func ExamplePremises() {
	p := 0.81
	in := &instance.Instance{Contexts: []instance.Context{
		{ID: "c_a0_0", Text: "Ruth Adair (1948-2011) was an American pianist, born in Tulsa.", SyntheticSummary: "Ruth Adair was born in 1948.", Probability: &p},
		{ID: "c_a0_1", Text: "The Hartwell Bridge opened in 1932."},
	}}
	premises, missing := summarize.Premises(in)
	for _, c := range premises.Contexts {
		fmt.Printf("%s: %q\n", c.ID, c.NLIText())
	}
	fmt.Println(missing, "context without a summary")
	// Output:
	// c_a0_0: "Ruth Adair was born in 1948."
	// c_a0_1: "The Hartwell Bridge opened in 1932."
	// 1 context without a summary
}
