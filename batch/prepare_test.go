package batch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

// scriptedAtomizer splits a response into sentences, finds nothing in
// "nothing." and cannot read its answer for "garbled.".
type scriptedAtomizer struct{}

func (scriptedAtomizer) Identify() string { return "scripted" }

func (scriptedAtomizer) Atomize(_ context.Context, response string) ([]string, error) {
	switch response {
	case "nothing.":
		return nil, nil
	case "garbled.":
		return nil, &llm.UnreadableAnswerError{Stage: "atomizer", Answer: "??", Attempts: 3}
	}
	return atomize.SplitSentences(response), nil
}

func writeInput(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readOutput(t *testing.T, b []byte) []*instance.Instance {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out []*instance.Instance
	if err := instance.Scan(path, nil, func(in *instance.Instance) error { out = append(out, in); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAtomizeFile(t *testing.T) {
	input := writeInput(t,
		`{"input": "Q1", "output": "Paris is in France. It is large.", "topic": "Paris"}`,
		`{"input": "Q2", "output": "Rome is in Italy.", "atoms": [{"id": "x", "text": "Rome is in Italy."}]}`,
		`{"input": "Q3", "output": "nothing."}`,
		`{"input": "Q4", "output": "garbled."}`,
		`{"input": "Q5"}`,
	)
	p := &assess.Pipeline{Atomizer: scriptedAtomizer{}}
	var noAtoms, failed, invalid []string
	var last Progress
	o := FileOptions{
		Invalid:  func(e *instance.Error) { invalid = append(invalid, e.Error()) },
		Failed:   func(err error) { failed = append(failed, err.Error()) },
		Progress: func(pr Progress) { last = pr },
	}
	var out bytes.Buffer
	st, err := AtomizeFile(context.Background(), p, input, &out, o, func(err error) {
		if !errors.Is(err, atomize.ErrNoAtoms) {
			t.Errorf("noAtoms told %v, want atomize.ErrNoAtoms", err)
		}
		noAtoms = append(noAtoms, err.Error())
	})
	if err != nil {
		t.Fatal(err)
	}
	want := AtomizeStats{Records: 4, Atomized: 1, NoAtoms: 1, Invalid: 1, Failed: 1}
	if st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	if len(noAtoms) != 1 || !strings.HasPrefix(noAtoms[0], input+":3: ") {
		t.Errorf("noAtoms told %q, want one error at %s:3", noAtoms, input)
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0], input+":4: ") {
		t.Errorf("failed told %q, want one error at %s:4", failed, input)
	}
	if len(invalid) != 1 || !strings.Contains(invalid[0], ":5") {
		t.Errorf("invalid told %q, want line 5", invalid)
	}
	if last.Records != 3 || last.Line != 3 {
		t.Errorf("last progress %+v, want 3 records, line 3 (the failed record is not written)", last)
	}
	recs := readOutput(t, out.Bytes())
	var got [][]string
	for _, r := range recs {
		var texts []string
		for _, a := range r.Atoms {
			texts = append(texts, a.ID+"="+a.Text)
		}
		got = append(got, texts)
	}
	wantAtoms := [][]string{{"a0=Paris is in France.", "a1=It is large."}, {"x=Rome is in Italy."}, nil}
	if !reflect.DeepEqual(got, wantAtoms) {
		t.Errorf("atoms written %q, want %q", got, wantAtoms)
	}

	// Without Failed, a record whose answer cannot be read stops the run,
	// after the records before it were written.
	out.Reset()
	st, err = AtomizeFile(context.Background(), p, input, &out, FileOptions{Invalid: o.Invalid}, nil)
	var u *llm.UnreadableAnswerError
	if !errors.As(err, &u) || !strings.HasPrefix(err.Error(), input+":4: ") {
		t.Errorf("error %v, want the unreadable answer at %s:4", err, input)
	}
	if n := len(readOutput(t, out.Bytes())); n != 3 || st.Records != 4 {
		t.Errorf("%d records written, %d read before the error; want 3 and 4", n, st.Records)
	}
}

// topicRetriever knows the topic "Paris" only.
type topicRetriever struct{}

func (topicRetriever) Identify() string { return "topics" }

func (topicRetriever) Retrieve(_ context.Context, topic, atom string, k int) ([]retrieve.Passage, error) {
	if topic != "Paris" {
		return nil, retrieve.ErrTopicNotFound
	}
	return []retrieve.Passage{{Title: "Paris", Text: "Paris is the capital of France."}}, nil
}

func TestRetrieveFile(t *testing.T) {
	input := writeInput(t,
		`{"input": "Q1", "output": "Paris is in France. It is large.", "topic": "Paris", "atoms": [{"id": "a0", "text": "Paris is in France."}, {"id": "a1", "text": "Paris is large."}]}`,
		`{"input": "Q2", "output": "Rome is in Italy.", "topic": "Rome", "atoms": [{"id": "a0", "text": "Rome is in Italy."}]}`,
		`{"input": "Q3", "output": "No atoms yet.", "topic": "Paris"}`,
	)
	var warnings []string
	p := &assess.Pipeline{Retriever: topicRetriever{}, TopK: 1, SkipMissingTopics: true, Warn: func(s string) { warnings = append(warnings, s) }}
	var out bytes.Buffer
	st, err := RetrieveFile(context.Background(), p, input, &out, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := RetrieveStats{Records: 3, Atoms: 2, NoAtoms: 1, MissingTopics: 1}
	if st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "line 2") {
		t.Errorf("warnings %q, want one for line 2", warnings)
	}
	recs := readOutput(t, out.Bytes())
	if len(recs) != 3 || len(recs[0].Contexts) == 0 || len(recs[1].Contexts) != 0 {
		t.Fatalf("records written: %d; want 3, the first with contexts, the second without", len(recs))
	}
	for _, a := range recs[0].Atoms {
		if len(a.Contexts) != 1 {
			t.Errorf("atom %s lists contexts %q, want one", a.ID, a.Contexts)
		}
	}

	// Without SkipMissingTopics the missing topic stops the run at its line.
	p.SkipMissingTopics = false
	out.Reset()
	if _, err := RetrieveFile(context.Background(), p, input, &out, FileOptions{}); !errors.Is(err, retrieve.ErrTopicNotFound) || !strings.HasPrefix(err.Error(), input+":2: ") {
		t.Errorf("error %v, want the missing topic at %s:2", err, input)
	}
	if _, err := RetrieveFile(context.Background(), &assess.Pipeline{}, input, &out, FileOptions{}); err == nil {
		t.Error("RetrieveFile without a Retriever: no error")
	}
}
