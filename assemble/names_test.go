package assemble

import (
	"errors"
	"fmt"
	"testing"
)

// TestNaming: a program's names replace the option paths of the texts
// and errors of the settings: an option alone or first in an item, by
// path, with "Options." before it, as an option of a part's package, as
// a group of at most five settings, or one of the program's own; errors
// keep what they are.
func TestNaming(t *testing.T) {
	n := Naming{Setting: func(name string) string { return "<" + name + ">" }, Others: map[string]string{"FileOptions.OmitInputs": "<omit>"}}
	for _, tc := range []struct{ in, want string }{
		{"the model (NLI.Model)", "the model (<NLI.Model>)"},
		{"(Options.NLI.Model)", "(<NLI.Model>)"},
		{"(NLI.Backend onnx, Retrieval.DB)", "(<NLI.Backend> onnx, <Retrieval.DB>)"},
		{"(llmnli.Options.Method)", "(<LLMMethod>)"},
		{"(Graph)", "(<Graph.UsePriors>, <Graph.AtomPrior>, <Graph.ContextPrior>)"},
		{"(Summaries)", "(<Summaries=llm>, <Summaries=given>)"},
		{"(Retrieval)", "(Retrieval)"}, // a group of more than five
		{"(FileOptions.OmitInputs)", "(<omit>)"},
		{"(no option here) NLI.Model", "(no option here) NLI.Model"},
	} {
		if got := n.Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}

	oe := fmt.Errorf("opening: %w", &OptionError{Option: "NLI.Model", Err: errors.New("no model (NLI.Backend onnx)")})
	if err := n.Error(oe); err.Error() != "opening: <NLI.Model>: no model (<NLI.Backend> onnx)" || !errors.As(err, new(*OptionError)) {
		t.Errorf("OptionError: %v", err)
	}
	_, err := Given{Kinds: Kinds(), Values: map[string]string{"NLI.Backend": "lexical", "NLI.Model": "m"}}.Options()
	if err := n.Error(fmt.Errorf("score: %w", err)); err.Error() != "score: <NLI.Model> applies to <NLI.Backend> auto, onnx or remote, not to this run (<NLI.Backend> lexical)" ||
		!errors.As(err, new(*NotApplied)) {
		t.Errorf("NotApplied: %v", err)
	}
	_, err = Given{Kinds: Kinds(), Values: map[string]string{"Summaries=llm": "true", "Summaries=given": "true"}}.Options()
	if err := n.Error(err); err.Error() != "<Summaries=llm> and <Summaries=given> choose one option two ways: give one" || !errors.As(err, new(*Conflict)) {
		t.Errorf("Conflict: %v", err)
	}
	plain := errors.New("nothing named")
	if err := n.Error(plain); err != plain {
		t.Errorf("an error that names no option: %v, want it as it is", err)
	}
}
