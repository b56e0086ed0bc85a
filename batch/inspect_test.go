package batch

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/score"
)

// TestInspectFile: every record of the example is explained, or the one
// at a line, or one atom of each; a line that starts no record and an atom
// of no record are errors; and an output of ScoreFile is explained as it
// was scored: the same text as the input it was scored from.
func TestInspectFile(t *testing.T) {
	input := filepath.Join("..", "testdata", "example.jsonl")
	p := &assess.Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Given: assess.GivenAlways, Solver: inference.Auto{}}
	ctx := context.Background()
	inspect := func(path string, o InspectOptions) (string, *assess.Assessment, error) {
		var out bytes.Buffer
		last, err := InspectFile(ctx, p, path, graph.FR2, o, &out)
		return out.String(), last, err
	}
	all, last, err := inspect(input, InspectOptions{})
	if err != nil || strings.Count(all, "\n== line ") != 2 || !strings.HasPrefix(all, "== line 1 ") || last.Instance.Line != 3 {
		t.Fatalf("every record: %v\n%s", err, all)
	}
	one, last, err := inspect(input, InspectOptions{Line: 2})
	if err != nil || !strings.HasPrefix(one, "== line 2 ") || strings.Count(one, "== line ") != 1 || !strings.Contains(all, one) || last.Instance.Line != 2 {
		t.Errorf("line 2: %v\n%s", err, one)
	}
	atom, _, err := inspect(input, InspectOptions{Atom: "a1"})
	if err != nil || strings.Count(atom, "\na1  P(true)") != 3 || strings.Contains(atom, "\na0  P(true)") {
		t.Errorf("atom a1: %v\n%s", err, atom)
	}
	withContexts, _, err := inspect(input, InspectOptions{Line: 1, Contexts: true})
	if err != nil || !strings.Contains(withContexts, "(context)") || strings.Contains(one, "(context)") {
		t.Errorf("contexts: %v\n%s", err, withContexts)
	}
	for _, o := range []InspectOptions{{Line: 9}, {Atom: "a99"}} {
		if _, _, err := inspect(input, o); err == nil || !strings.Contains(err.Error(), input+": no ") {
			t.Errorf("%+v: %v, want an error naming the file", o, err)
		}
	}

	var scored bytes.Buffer
	if _, err := ScoreFile(ctx, p, input, graph.FR2, &scored, nil, FileOptions{}); err != nil {
		t.Fatal(err)
	}
	output := writeTemp(t, scored.Bytes())
	recorded, _, err := inspect(output, InspectOptions{})
	if err != nil || recorded != all {
		t.Errorf("the output, as scored: %v\n%s\nwant\n%s", err, recorded, all)
	}
}
