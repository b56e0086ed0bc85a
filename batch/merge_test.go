package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
)

// TestPlanMergeRefuses: outputs that are not the shards of one run are
// refused with an error naming the file and line, and so is an incomplete
// set when the input is given.
func TestPlanMergeRefuses(t *testing.T) {
	input := writeRecords(t, 9)
	shardWith := func(i, n, perAtom int, atomPrior float64) []byte {
		var out bytes.Buffer
		p := testPipeline(hashClassifier{})
		p.PairsPerAtom = perAtom
		p.Graph.AtomPrior = atomPrior
		if _, err := ScoreFile(context.Background(), p, input, graph.FR2, &out, nil, FileOptions{Shard: Shard{i, n}}); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	shard := func(i, n, perAtom int) []byte { return shardWith(i, n, perAtom, graph.DefaultOptions().AtomPrior) }
	s0, s1, s2 := shard(0, 3, 2), shard(1, 3, 2), shard(2, 3, 2)
	s1prior := shardWith(1, 3, 2, 0.6)
	// Lines written before the priors were recorded: the defaults.
	s1old := regexp.MustCompile(`,"priors":\{[^}]*\}`).ReplaceAll(s1, nil)
	if bytes.Equal(s1old, s1) {
		t.Fatal("no priors in the output lines")
	}
	s1all := shard(1, 3, assess.AllPairs)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f0, f1, f2 := write("s0", s0), write("s1", s1), write("s2", s2)
	f1all := write("s1all", s1all)
	f1prior, f1old := write("s1prior", s1prior), write("s1old", s1old)
	torn := write("torn", append(append([]byte{}, s2...), `{"factuality_score": 0.`...))
	firstLine := s2[:bytes.IndexByte(s2, '\n')+1]
	dup := write("dup", firstLine)
	notOutput := write("notout", []byte(`{"input": "Q?", "output": "x"}`+"\n"))
	otherVersion := write("v3", bytes.Replace(firstLine, []byte(`"version":"FR2"`), []byte(`"version":"FR3"`), 1))
	otherInput := write("otherinput", bytes.Replace(firstLine, []byte(`"input":"Question`), []byte(`"input":"Another question`), 1))

	tests := []struct {
		name  string
		paths []string
		input string
		want  string
	}{
		{"all shards", []string{f2, f0, f1}, input, ""},
		{"without the input, a missing shard goes unnoticed", []string{f0, f2}, "", ""},
		{"missing shard", []string{f0, f2}, input, "3 records of " + input + " have no result in the outputs, at lines [1 4 7]"},
		{"duplicate", []string{f0, f1, f2, dup}, input, f2 + ":1 and " + dup + ":1 both hold the result of input line 2"},
		{"other pruning", []string{f0, f1all, f2}, "", `field "pairs_per_atom" is "all", but "own+2" at ` + f0 + ":1"},
		{"other priors", []string{f0, f1prior, f2}, "", `field "priors" is "use_priors true, atom_prior 0.6, context_prior 0.9", but "use_priors true, atom_prior 0.5, context_prior 0.9" at ` + f0 + ":1"},
		{"lines without priors are the defaults'", []string{f0, f1old, f2}, input, ""},
		{"other version", []string{f0, f1, otherVersion}, "", `field "version" is "FR3", but "FR2" at ` + f0 + ":1"},
		{"torn", []string{f0, f1, torn}, "", torn + ":4: the last line is cut short"},
		{"not an output", []string{f0, notOutput}, "", notOutput + ":1: not an output line of fr score"},
		{"other input", []string{f0, f1, otherInput}, input, otherInput + `:1: field "input" is "Another question 1?" there but "Question 1?"`},
		{"more than the input", []string{f0, f1, f2}, writeRecords(t, 7), f2 + ":3: holds the result of line 8 of "},
	}
	for _, tc := range tests {
		m, err := PlanMerge(tc.paths, MergeOptions{Input: tc.input})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if tc.input != "" && m.Lines() != 9 {
				t.Errorf("%s: %d lines, want 9", tc.name, m.Lines())
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v\nwant one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestPlanMergeContextPriors: the contexts' own priors are part of a
// result: a shard whose lines were written without them (their
// context_priors left out, as before they were read) is refused, from its
// own contexts, and, when the input is given, a shard scored from other
// priors than the input's.
func TestPlanMergeContextPriors(t *testing.T) {
	withPriors := func(p float64) string {
		ins, err := instance.ReadFile(writeRecords(t, 6))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		for _, in := range ins {
			in.Contexts[0].Probability = &p
			line, _ := json.Marshal(in)
			b.Write(append(line, '\n'))
		}
		path := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	input, other := withPriors(0.6), withPriors(0.7)
	dir := t.TempDir()
	shard := func(in string, i int, omit bool) string {
		var out bytes.Buffer
		if _, err := ScoreFile(context.Background(), testPipeline(hashClassifier{}), in, graph.FR2, &out, nil, FileOptions{Shard: Shard{i, 2}, OmitInputs: omit}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(out.Bytes(), []byte(`"context_priors":{"c0":`)) {
			t.Fatalf("no context priors recorded:\n%s", out.Bytes())
		}
		path := filepath.Join(dir, fmt.Sprintf("s%d-%d-%v-%s", i, len(in), omit, filepath.Base(filepath.Dir(in))))
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	s0, s1 := shard(input, 0, false), shard(input, 1, false)
	data, _ := os.ReadFile(s0)
	stripped := regexp.MustCompile(`,"context_priors":\{[^}]*\}`).ReplaceAll(data, nil)
	old := filepath.Join(dir, "old")
	os.WriteFile(old, stripped, 0o644)
	s0other := shard(other, 0, true) // without inputs: only the input tells
	for _, tc := range []struct {
		name  string
		paths []string
		input string
		want  string
	}{
		{"same priors", []string{s0, s1}, input, ""},
		{"written without the contexts' priors", []string{old, s1}, "", old + `:1: field "priors.context_priors" is "none" there but "c0 0.6" by its own contexts' "probability"`},
		{"other priors than the input's", []string{s0other, s1}, input, s0other + `:1: field "priors.context_priors" is "c0 0.7" there but "c0 0.6" by the contexts' "probability" of the record at ` + input + ":2"},
		{"without the input, a line without inputs goes unchecked", []string{s0other, s1}, "", ""},
	} {
		_, err := PlanMerge(tc.paths, MergeOptions{Input: tc.input})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant an error containing %q", tc.name, err, tc.want)
		}
	}
}
