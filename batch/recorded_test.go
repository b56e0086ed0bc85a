package batch

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/foreign/foreigntest"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/score"
)

// TestAssessmentOfPriors: the network rebuilt from an output line has the
// priors and factor tables the line was scored with (not the defaults), so
// that what inspect and a library caller see of it is what was solved.
func TestAssessmentOfPriors(t *testing.T) {
	input := writeRecords(t, 1)
	p := testPipeline(hashClassifier{})
	p.Graph = graph.Options{UsePriors: false, AtomPrior: 0.7, ContextPrior: 0.6}
	var out bytes.Buffer
	if _, err := ScoreFile(context.Background(), p, input, graph.FR2, &out, nil, FileOptions{}); err != nil {
		t.Fatal(err)
	}
	recorded, err := instance.ReadFile(writeTemp(t, out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	ins, err := instance.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.Assess(context.Background(), ins[0], graph.FR2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := assess.AssessmentOf(recorded[0])
	if err != nil {
		t.Fatal(err)
	}
	if got.Network.Options != p.Graph {
		t.Errorf("rebuilt network's options %+v, want %+v", got.Network.Options, p.Graph)
	}
	if len(got.Network.Factors) != len(want.Network.Factors) {
		t.Fatalf("%d factors, want %d", len(got.Network.Factors), len(want.Network.Factors))
	}
	for i, f := range got.Network.Factors {
		for j, x := range f.Table {
			if w := want.Network.Factors[i].Table[j]; math.Abs(x-w) > 1e-12 {
				t.Errorf("factor %d (%s → %s): table %v, want %v", i, f.Source, f.Target, f.Table, want.Network.Factors[i].Table)
				break
			}
		}
	}

	// An output line whose priors are not probabilities is refused, naming the field.
	bad := bytes.Replace(out.Bytes(), []byte(`"atom_prior":0.7`), []byte(`"atom_prior":1.5`), 1)
	recorded, err = instance.ReadFile(writeTemp(t, bad))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := assess.AssessmentOf(recorded[0]); err == nil || !strings.Contains(err.Error(), "priors") {
		t.Errorf("priors out of range: %v, want an error naming priors", err)
	}
}

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDetectFormat tells the formats of the files the tool reads apart:
// the shipped example (records), its output of ScoreFile and of
// FActScoreFile, FActScore's labeled file, a FactReasoner result file; a
// file of no format, and one that is missing, are unknown.
func TestDetectFormat(t *testing.T) {
	input := filepath.Join("..", "testdata", "example.jsonl")
	p := &assess.Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Given: assess.GivenAlways, Solver: inference.Auto{}}
	var scored, fs bytes.Buffer
	if _, err := ScoreFile(context.Background(), p, input, graph.FR2, &scored, nil, FileOptions{}); err != nil {
		t.Fatal(err)
	}
	w := jsonl.NewWriter(&fs)
	if _, _, err := FActScoreFile(context.Background(), p, input, 0, true, FileOptions{}, func(r factscore.Record) error { return w.Write(r) }); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		path string
		want Format
	}{
		{input, FormatInput},
		{writeTemp(t, scored.Bytes()), FormatScored},
		{writeTemp(t, fs.Bytes()), FormatFActScoreRun},
		{refdata.Path(t, "factscore-labeled", "ChatGPT.jsonl"), FormatLabeled},
		{foreigntest.FlahertyFactReasoner(t, dir), FormatResults},
		{writeTemp(t, []byte("not json\n")), FormatUnknown},
		{filepath.Join(dir, "missing.jsonl"), FormatUnknown},
	} {
		if got := DetectFormat(tc.path); got != tc.want {
			t.Errorf("%s: format %d, want %d", tc.path, got, tc.want)
		}
	}
}
