package graph_test

import (
	"fmt"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
)

func TestNearDuplicates(t *testing.T) {
	p := 0.7
	in := &instance.Instance{
		Atoms: []instance.Atom{{ID: "a0", Text: "x", Contexts: []string{"c0", "c1", "c2", "c3", "c4"}}},
		Contexts: []instance.Context{
			{ID: "c0", Text: "The pump must be primed before first use by filling the housing with water."},
			// A mirror: the same words, another case and punctuation, one
			// word more. cos = 16/sqrt(16*17) = 0.970 ("the" twice).
			{ID: "c1", Text: "the pump must be primed before first use, by filling the housing with clean water", Probability: &p},
			// Half the words: cos = 8/sqrt(16*7) = 0.756.
			{ID: "c2", Text: "The pump must be primed before use."},
			{ID: "c3", Text: "Unrelated text about leave."},
			{ID: "c4", Text: "the pump must be primed before first use, by filling the housing with clean water"},
		},
	}
	for _, tc := range []struct {
		threshold float64
		n         int
		alias     string
	}{
		{0, 0, "map[c4:c1]"},    // identical texts only, as always
		{0.99, 1, "map[c4:c1]"}, // c4 = c1's words exactly
		{0.92, 2, "map[c1:c0 c4:c0]"},
		{0.7, 3, "map[c1:c0 c2:c0 c4:c0]"},
	} {
		out, n := graph.NearDuplicates(in, tc.threshold)
		nodes := graph.SelectNodes(out, graph.FR2)
		if n != tc.n || fmt.Sprint(nodes.Alias) != tc.alias {
			t.Errorf("threshold %v: %d collapsed, aliases %v; want %d, %s", tc.threshold, n, nodes.Alias, tc.n, tc.alias)
		}
		if tc.threshold == 0 && out != in {
			t.Error("threshold 0 copied the record")
		}
	}
	if in.Contexts[1].Text[:3] != "the" {
		t.Error("the input was modified")
	}
}
