package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/result"
	"github.com/factreasoner/factreasoner-go/score"
)

// largeRecord writes a record at the limits: 10,000 atoms and 10,000
// contexts (each atom's own, c_a<i>_0), and a relation per atom; then a
// small record.
func largeRecord(t *testing.T) string {
	t.Helper()
	in := instance.Instance{Input: "Q?", Output: "R."}
	for i := range instance.MaxAtoms {
		id := fmt.Sprintf("a%d", i)
		in.Atoms = append(in.Atoms, instance.Atom{ID: id, Text: fmt.Sprintf("atom %d", i), Contexts: []string{"c_" + id + "_0"}})
		in.Contexts = append(in.Contexts, instance.Context{ID: "c_" + id + "_0", Text: fmt.Sprintf("context %d", i)})
		in.Relations = append(in.Relations, instance.Relation{Source: "c_" + id + "_0", Target: id, Type: "entailment", Probability: 0.9})
	}
	line, err := json.Marshal(&in)
	if err != nil {
		t.Fatal(err)
	}
	small := `{"input": "Q2?", "output": "R2.", "atoms": [{"id": "a0", "text": "A."}], "contexts": [{"id": "c0", "text": "C."}]}`
	path := filepath.Join(t.TempDir(), "large.jsonl")
	if err := os.WriteFile(path, []byte(string(line)+"\n"+small+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLargeRecord: a record of 10,000 atoms and 10,000 contexts (within
// the limits) is scored from its given relations with memory proportional
// to them (it asked for 6.4 GB of pairs at once, and the run died); asking
// a classifier about its 10^8 pairs is refused before they are listed, as
// an invalid record that --skip-invalid skips, and the run goes on.
func TestLargeRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("a record of 10,000 atoms and contexts")
	}
	input := largeRecord(t)
	for _, v := range []graph.Version{graph.FR2, graph.FR3} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p := &assess.Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Given: assess.GivenAlways, Solver: inference.Auto{}} // given relations
		var out bytes.Buffer
		st, err := ScoreFile(context.Background(), p, input, v, &out, nil, FileOptions{OmitInputs: true})
		runtime.ReadMemStats(&after)
		if err != nil || st.Scored != 2 {
			t.Fatalf("%s, given: %+v, %v", v, st, err)
		}
		var rec result.Line
		if err := json.Unmarshal(out.Bytes()[:bytes.IndexByte(out.Bytes(), '\n')], &rec); err != nil || rec.NumAtoms != instance.MaxAtoms || rec.NumRelations != instance.MaxAtoms || rec.NumTrueAtoms != instance.MaxAtoms {
			t.Errorf("%s, given: %d atoms, %d relations, %d true (%v)", v, rec.NumAtoms, rec.NumRelations, rec.NumTrueAtoms, err)
		}
		if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 1024 {
			t.Errorf("%s, given: %d MB allocated", v, mb)
		}

		var invalid []string
		p = testPipeline(hashClassifier{})
		p.Given = assess.GivenNever
		p.PairsPerAtom = assess.AllPairs
		st, err = ScoreFile(context.Background(), p, input, v, &out, nil, FileOptions{Invalid: func(e *instance.Error) { invalid = append(invalid, e.Error()) }})
		if err != nil || st.Scored != 1 || st.Invalid != 1 || len(invalid) != 1 ||
			!strings.Contains(invalid[0], input+":1: contexts: the record would put up to "+map[graph.Version]string{graph.FR2: "100000000", graph.FR3: "199990000"}[v]+" NLI pairs") {
			t.Errorf("%s, every pair: %+v, %v, invalid %v", v, st, err, invalid)
		}
	}
}
