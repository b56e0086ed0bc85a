package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// TestConvertFActScoreChatGPT: `fr convert factscore` on FActScore's labeled
// ChatGPT biographies writes the 157 answered responses, in input order,
// each with the human facts of its relevant sentences labeled S or NS as
// atoms a0, a1, … (the IR facts dropped), 4886 atoms in all, and counts the
// 26 abstained responses on stderr. What each record should hold is read
// from the labeled file here, without the converter's code.
func TestConvertFActScoreChatGPT(t *testing.T) {
	path := refdata.Path(t, "factscore-labeled", "ChatGPT.jsonl")
	type atom struct{ ID, Text, Original, Label string }
	type record struct {
		Input, Output, Topic string
		Atoms                []atom
		Contexts             []json.RawMessage
	}
	var want []record
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	abstained := 0
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var r struct {
			Input, Output, Topic string
			Annotations          []struct {
				Relevant bool `json:"is-relevant"`
				Facts    []struct {
					Text, Label string
				} `json:"human-atomic-facts"`
			}
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.Annotations == nil {
			abstained++
			continue
		}
		rec := record{Input: r.Input, Output: r.Output, Topic: r.Topic}
		for _, a := range r.Annotations {
			for _, f := range a.Facts {
				if a.Relevant && (f.Label == "S" || f.Label == "NS") {
					rec.Atoms = append(rec.Atoms, atom{fmt.Sprintf("a%d", len(rec.Atoms)), f.Text, f.Text, f.Label})
				}
			}
		}
		if len(rec.Atoms) > 0 {
			want = append(want, rec)
		}
	}

	outPath := filepath.Join(t.TempDir(), "chatgpt.jsonl")
	stdout, stderr, err := run(t, context.Background(), "convert", "factscore", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, context.Background(), "convert", "factscore", "-o", outPath, path); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(outPath); err != nil || string(b) != stdout {
		t.Errorf("-o wrote something else than stdout (%v)", err)
	}
	if !strings.Contains(stderr, "fr convert: 157 responses written, 26 abstained, 0 without S/NS facts left out") {
		t.Errorf("stderr:\n%s", stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 157 || len(want) != 157 || abstained != 26 {
		t.Fatalf("%d records written, %d expected; %d abstained", len(lines), len(want), abstained)
	}
	atoms := 0
	for i, l := range lines {
		var got record
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		atoms += len(got.Atoms)
		w := want[i]
		if got.Input != w.Input || got.Output != w.Output || got.Topic != w.Topic || len(got.Contexts) != 0 {
			t.Errorf("line %d: input %q topic %q, %d contexts; want %q %q, none", i+1, got.Input, got.Topic, len(got.Contexts), w.Input, w.Topic)
		}
		if len(got.Atoms) != len(w.Atoms) {
			t.Errorf("line %d: %d atoms, want %d", i+1, len(got.Atoms), len(w.Atoms))
			continue
		}
		for j := range got.Atoms {
			if got.Atoms[j] != w.Atoms[j] {
				t.Errorf("line %d: atom %d is %+v, want %+v", i+1, j, got.Atoms[j], w.Atoms[j])
			}
		}
	}
	if atoms != 4886 {
		t.Errorf("%d atoms, want 4886", atoms)
	}
	// The output is valid FactReasoner input.
	ins, err := instance.ReadFile(outPath)
	if err != nil || len(ins) != 157 {
		t.Errorf("reading the output back: %d records, %v", len(ins), err)
	}
}

// TestLabeledFormatErrors: a FactReasoner record inside a labeled file is
// an error naming its line (not an abstention); a labeled record that
// would convert to something fr score refuses (a fact without text) is
// left out with its line named; a value of the wrong
// JSON type is named by its path and JSON types, not Go's.
func TestLabeledFormatErrors(t *testing.T) {
	ctx := context.Background()
	good := `{"input": "Q", "output": "R.", "topic": "T", "annotations": [{"text": "R.", "is-relevant": true, "human-atomic-facts": [{"text": "F.", "label": "S"}]}]}`
	fr := `{"input": "Q", "output": "R.", "atoms": [{"id": "a0", "text": "F."}]}`
	in := writeFile(t, "mixed.jsonl", good+"\n"+fr+"\n")
	if _, _, err := run(t, ctx, "factscore", "--gold", in); err == nil || !strings.Contains(err.Error(), in+":2: annotations: missing") {
		t.Errorf("a FactReasoner record in a labeled file: %v", err)
	}
	if _, _, err := run(t, ctx, "convert", "factscore", in); err == nil || !strings.Contains(err.Error(), in+":2: annotations") {
		t.Errorf("convert: %v", err)
	}
	emptyFact := strings.Replace(good, `{"text": "F.", "label": "S"}`, `{"text": " ", "label": "S"}, {"text": "G.", "label": "NS"}`, 1)
	emptyOutput := strings.Replace(good, `"output": "R."`, `"output": ""`, 1)
	in = writeFile(t, "bad.jsonl", good+"\n"+emptyFact+"\n"+emptyOutput+"\n")
	out, stderr, err := run(t, ctx, "convert", "factscore", in)
	if err != nil {
		t.Fatal(err)
	}
	// An empty response with facts is written: fr score reads it (as
	// FactReasoner reads ConflictBank's records).
	if strings.Count(out, "\n") != 2 || !strings.Contains(stderr, in+":2: left out: atoms[0].text") || strings.Contains(stderr, in+":3:") ||
		!strings.Contains(stderr, "2 responses written, 0 abstained, 0 without S/NS facts left out, 1 invalid left out") {
		t.Errorf("convert of invalid records: stdout\n%s\nstderr\n%s", out, stderr)
	}
	// What convert writes, fr score reads.
	if _, _, err := run(t, ctx, "score", "--nli", "lexical", "--source", "none", writeFile(t, "conv.jsonl", strings.ReplaceAll(out, `"atoms"`, `"contexts": [{"id": "c0", "text": "F."}], "atoms"`))); err != nil {
		t.Errorf("fr score on convert's output: %v", err)
	}
	typeErr := writeFile(t, "type.jsonl", strings.Replace(good, `"is-relevant": true`, `"is-relevant": "yes"`, 1)+"\n")
	if _, _, err := run(t, ctx, "convert", "factscore", typeErr); err == nil || !strings.Contains(err.Error(), "annotations[0].is-relevant: expected boolean, got JSON string") || strings.Contains(err.Error(), "Go ") {
		t.Errorf("a value of the wrong type: %v", err)
	}
}
