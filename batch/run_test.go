package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/testgen/flaherty"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/score"
)

// hashClassifier answers each pair by a hash of its texts, after a delay
// that also depends on them, so that records finish out of order when
// several are in flight. It fails on a hypothesis containing fail, when
// set.
type hashClassifier struct {
	fail string
	// text makes the failure that of a text the model's tokenizer cannot
	// take (an *nli.TextError) rather than a model that is down.
	text bool
}

func (hashClassifier) Identity() nli.Identity { return nli.Identity{Backend: "hash"} }

func (c hashClassifier) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	out := make([]nli.Result, len(pairs))
	var wait time.Duration
	for i, p := range pairs {
		if c.fail != "" && strings.Contains(p.Hypothesis, c.fail) {
			if c.text {
				return nil, &nli.TextError{ID: p.HypothesisID, Role: "hypothesis", Err: errors.New("tokenizer: the text has no tokens")}
			}
			return nil, errors.New("the model is down")
		}
		h := fnv.New32a()
		h.Write([]byte(p.Premise + "\x00" + p.Hypothesis))
		v := h.Sum32()
		out[i] = nli.Result{Label: nli.Label(v % 3), Probability: 0.5 + float64(v%1000)/2001}
		wait += time.Duration(v%300) * time.Microsecond
	}
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return out, nil
}

// writeRecords writes n records of different sizes to a jsonl file; every
// third repeats a context under another id, every fifth carries its own
// relations.
func writeRecords(t testing.TB, n int) string {
	t.Helper()
	var b strings.Builder
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon")
	for r := range n {
		in := instance.Instance{Input: fmt.Sprintf("Question %d?", r), Output: fmt.Sprintf("Response %d.", r), Topic: "T"}
		atoms, contexts := 2+r%5, 2+r%7
		for a := range atoms {
			own := []string{fmt.Sprintf("c%d", a%contexts), fmt.Sprintf("c%d", (a+1)%contexts), fmt.Sprintf("c%d", (a+3)%contexts)}
			in.Atoms = append(in.Atoms, instance.Atom{ID: fmt.Sprintf("a%d", a), Text: fmt.Sprintf("Record %d atom %d %s %s.", r, a, words[(r+a)%20], words[(r*a)%20]), Contexts: own})
		}
		for c := range contexts {
			in.Contexts = append(in.Contexts, instance.Context{ID: fmt.Sprintf("c%d", c), Title: "T", Text: fmt.Sprintf("context %d of %d : %s %s %s .", c, r, words[(r+c)%20], words[(c*3)%20], words[(r*c+1)%20])})
		}
		if r%3 == 0 { // a context repeated under another id, one of a0's own
			dup := in.Contexts[0]
			dup.ID = "c_dup"
			in.Contexts = append(in.Contexts, dup)
			in.Atoms[0].Contexts = append(in.Atoms[0].Contexts, "c_dup")
		}
		if r%5 == 4 {
			in.Relations = []instance.Relation{{Source: "c0", Target: "a0", Type: "entailment", Probability: 0.8}}
		}
		line, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func testPipeline(c nli.Classifier) *assess.Pipeline {
	return &assess.Pipeline{Graph: graph.DefaultOptions(), K: score.K{Half: true}, Solver: inference.Auto{},
		Classifier: c, Given: assess.GivenWhenPresent, PairsPerAtom: 2}
}

// TestScoreFileJobs: records scored several at a time are written in
// input order, byte for byte as one at a time, for every version; the
// progress reports add up to what was asked; the stats agree.
func TestScoreFileJobs(t *testing.T) {
	input := writeRecords(t, 40)
	for _, v := range []graph.Version{graph.FR1, graph.FR2, graph.FR3} {
		var want []byte
		var wantStats ScoreStats
		for _, jobs := range []int{1, 2, 3, 8} {
			var out bytes.Buffer
			var mu sync.Mutex
			var first, last Progress
			calls := 0
			o := FileOptions{Jobs: jobs, Progress: func(p Progress) {
				mu.Lock()
				defer mu.Unlock()
				if calls++; calls == 1 {
					first = p
				}
				if p.Pairs < last.Pairs || p.Records < last.Records || p.PairsTotal < last.PairsTotal || p.Planned < last.Planned || p.Planned > 40 {
					t.Errorf("progress went back, or beyond the records: %+v after %+v", p, last)
				}
				last = p
			}}
			st, err := ScoreFile(context.Background(), testPipeline(hashClassifier{}), input, v, &out, nil, o)
			if err != nil {
				t.Fatal(err)
			}
			if jobs == 1 {
				want, wantStats = out.Bytes(), st
				// FR1 asks its own pairs only: nothing to prune.
				if st.Scored != 40 || st.Pairs == 0 || st.Pairs != st.Own+st.Other || (st.Pruned == 0) != (v == graph.FR1) {
					t.Fatalf("%s: stats %+v", v, st)
				}
				continue
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s: --jobs %d output differs from --jobs 1", v, jobs)
			}
			if st != wantStats {
				t.Errorf("%s: --jobs %d stats %+v, --jobs 1 %+v", v, jobs, st, wantStats)
			}
			if !last.Counted || last.Records != 40 || last.RecordsTotal != 40 || last.Pairs != st.Pairs || last.PairsTotal != st.Pairs || last.Planned != 40 || last.Line != 40 {
				t.Errorf("%s: --jobs %d: last progress %+v, want 40 of 40 records and %d of %d pairs at line 40", v, jobs, last, st.Pairs, st.Pairs)
			}
			// The records are counted before the first is scored, by
			// the pass that tells the input's layout.
			if !first.Counted || first.RecordsTotal != 40 || first.Records != 0 || first.Planned != 0 {
				t.Errorf("%s: --jobs %d: first progress %+v, want the count of 40 records and nothing done", v, jobs, first)
			}
		}
	}
}

// TestScoreFileTooManyJobs: more records in flight than MaxJobs is an
// error before anything is read or allocated, not a runtime panic.
func TestScoreFileTooManyJobs(t *testing.T) {
	input := writeRecords(t, 3)
	var out bytes.Buffer
	_, err := ScoreFile(context.Background(), testPipeline(hashClassifier{}), input, graph.FR2, &out, nil, FileOptions{Jobs: 1 << 50})
	if err == nil || !strings.Contains(err.Error(), "at most 4096") || out.Len() != 0 {
		t.Errorf("error %v, %d bytes written; want a refusal naming the limit", err, out.Len())
	}
}

// TestScoreFileJobsError: an error in one record stops the run after
// every record before it is written, as one at a time does, however many
// records are in flight; nothing after it is written.
func TestScoreFileJobsError(t *testing.T) {
	input := writeRecords(t, 30)
	var want []byte
	for _, jobs := range []int{1, 4} {
		var out bytes.Buffer
		st, err := ScoreFile(context.Background(), testPipeline(hashClassifier{fail: "Record 17 "}), input, graph.FR2, &out, nil, FileOptions{Jobs: jobs})
		if err == nil || !strings.Contains(err.Error(), "in.jsonl:18: nli (hash): the model is down") {
			t.Fatalf("--jobs %d: error %v", jobs, err)
		}
		if st.Scored != 17 || bytes.Count(out.Bytes(), []byte("\n")) != 17 {
			t.Errorf("--jobs %d: %d records written (%d lines), want the 17 before the failure", jobs, st.Scored, bytes.Count(out.Bytes(), []byte("\n")))
		}
		if jobs == 1 {
			want = out.Bytes()
		} else if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("--jobs %d: output differs from --jobs 1", jobs)
		}
	}
}

// TestScoreFileTextError: a text the NLI model's tokenizer cannot take
// fails its record, naming file, line and the text's id: without
// --skip-invalid (FileOptions.Failed) the run stops there, with it the
// record is reported and skipped and every other record is scored.
func TestScoreFileTextError(t *testing.T) {
	input := writeRecords(t, 30)
	c := hashClassifier{fail: "Record 17 ", text: true}
	_, err := ScoreFile(context.Background(), testPipeline(c), input, graph.FR2, io.Discard, nil, FileOptions{})
	if err == nil || !strings.Contains(err.Error(), "in.jsonl:18:") || !strings.Contains(err.Error(), "hypothesis a0: tokenizer:") {
		t.Fatalf("without --skip-invalid: error %v", err)
	}
	var failed []string
	var out bytes.Buffer
	st, err := ScoreFile(context.Background(), testPipeline(c), input, graph.FR2, &out, nil, FileOptions{Jobs: 2, Failed: func(err error) { failed = append(failed, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	if st.Scored != 29 || st.Failed != 1 || len(failed) != 1 || !strings.Contains(failed[0], "in.jsonl:18:") || !strings.Contains(failed[0], "hypothesis a0") {
		t.Errorf("scored %d, failed %d %q; want 29 scored and record 18 failed, naming a0", st.Scored, st.Failed, failed)
	}
	if n := bytes.Count(out.Bytes(), []byte("\n")); n != 29 {
		t.Errorf("%d lines written, want 29", n)
	}
}

// TestScoreFileShards: the shards of a file are disjoint, hold every
// record, and merged give the single run's output byte for byte.
func TestScoreFileShards(t *testing.T) {
	input := writeRecords(t, 23)
	var whole bytes.Buffer
	if _, err := ScoreFile(context.Background(), testPipeline(hashClassifier{}), input, graph.FR2, &whole, nil, FileOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 5} {
		var paths []string
		scored := 0
		for i := range n {
			path := filepath.Join(t.TempDir(), fmt.Sprintf("shard%d.jsonl", i))
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			st, err := ScoreFile(context.Background(), testPipeline(hashClassifier{}), input, graph.FR2, f, nil, FileOptions{Jobs: 2, Shard: Shard{i, n}})
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if st.Scored+st.OtherShards != 23 {
				t.Errorf("shard %d/%d: %d scored and %d in other shards, want 23 in all", i, n, st.Scored, st.OtherShards)
			}
			scored += st.Scored
			paths = append(paths, path)
		}
		if scored != 23 {
			t.Errorf("%d shards scored %d records, want 23", n, scored)
		}
		m, err := PlanMerge(paths, MergeOptions{Input: input})
		if err != nil {
			t.Fatal(err)
		}
		var merged bytes.Buffer
		if _, err := m.WriteTo(&merged); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(merged.Bytes(), whole.Bytes()) {
			t.Errorf("%d shards merged differ from the single run", n)
		}
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  bool
	}{
		{"0/1", Shard{0, 1}, false},
		{"3/4", Shard{3, 4}, false},
		{" 2 / 10 ", Shard{2, 10}, false},
		{"4/4", Shard{}, true},
		{"-1/4", Shard{}, true},
		{"1/0", Shard{}, true},
		{"1", Shard{}, true},
		{"a/b", Shard{}, true},
	}
	for _, tc := range tests {
		got, err := ParseShard(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
	s := Shard{1, 3}
	var lines []int
	for l := 1; l <= 10; l++ {
		if s.Has(l) {
			lines = append(lines, l)
		}
	}
	if fmt.Sprint(lines) != "[1 4 7 10]" || !(Shard{}).Has(5) {
		t.Errorf("shard 1/3 has lines %v, want [1 4 7 10]", lines)
	}
}

// TestProgressInsideRecord: a long record reports its NLI pairs as they
// are answered, a round at a time, before the record is done.
func TestProgressInsideRecord(t *testing.T) {
	in, _ := flaherty.Load(t)
	in.Relations = nil
	line, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(t.TempDir(), "flaherty.jsonl")
	os.WriteFile(input, append(line, '\n'), 0o644)
	p := testPipeline(hashClassifier{})
	p.PairsPerAtom = assess.AllPairs
	var inside []int // pairs answered, reported before the record was done
	o := FileOptions{Progress: func(pr Progress) {
		if pr.Records == 0 && (len(inside) == 0 || pr.Pairs != inside[len(inside)-1]) {
			inside = append(inside, pr.Pairs)
		}
	}}
	st, err := ScoreFile(context.Background(), p, input, graph.FR3, io.Discard, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pairs != 966 {
		t.Fatalf("%d pairs asked, want 966", st.Pairs)
	}
	rounds := (966 + assess.NLIRound - 1) / assess.NLIRound
	if len(inside) < rounds || inside[len(inside)-1] != 966 {
		t.Fatalf("pairs reported inside the record: %v; want the %d rounds of %d", inside, rounds, assess.NLIRound)
	}
	for i := 1; i < len(inside); i++ {
		if d := inside[i] - inside[i-1]; d <= 0 || d > assess.NLIRound {
			t.Errorf("pairs reported %v: a step of %d", inside, d)
		}
	}
}

// withInvalid rewrites lines of a jsonl file (1-based) with invalid
// records.
func withInvalid(t *testing.T, path string, bad map[int]string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for n, s := range bad {
		lines[n-1] = s + "\n"
	}
	out := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(out, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScoreFileInvalidJobs: invalid records, decoded by the workers when
// several records are in flight, are reported in input order, the same
// reports as one at a time, and the output is the same; those of other
// shards are not reported but, without Invalid, stop the run as they
// always have, after every record before them is written.
func TestScoreFileInvalidJobs(t *testing.T) {
	bad := map[int]string{
		3:  `{"input": "q", "output": "r", "atoms": [{"id": "a0", "text": "t"}], "contexts": [{"id": "c0", "text": "x"}], "relations": [{"source": "c0", "target": "a0", "type": "maybe", "probability": 0.5}]}`,
		7:  `{not json`,
		8:  `[1, 2]`,
		13: `{"input": "q", "output": "r", "atoms": [{"id": "a0", "text": "t"}, {"id": "a0", "text": "u"}]}`,
	}
	input := withInvalid(t, writeRecords(t, 20), bad)
	for _, shard := range []Shard{{}, {1, 3}} {
		var want []byte
		var wantInvalid []string
		var wantStats ScoreStats
		for _, jobs := range []int{1, 2, 5} {
			var out bytes.Buffer
			var invalid []string
			o := FileOptions{Jobs: jobs, Shard: shard, Invalid: func(e *instance.Error) { invalid = append(invalid, e.Error()) }}
			st, err := ScoreFile(context.Background(), testPipeline(hashClassifier{}), input, graph.FR2, &out, nil, o)
			if err != nil {
				t.Fatalf("shard %s, --jobs %d: %v", shard, jobs, err)
			}
			if jobs == 1 {
				want, wantInvalid, wantStats = out.Bytes(), invalid, st
				inShard := 0
				for line := range bad {
					if shard.Has(line) {
						inShard++
					}
				}
				if st.Invalid != inShard || len(invalid) != inShard || st.Scored+st.OtherShards != 20-len(bad) {
					t.Fatalf("shard %s: stats %+v, reports %q; want %d invalid of the shard and %d valid records in all", shard, st, invalid, inShard, 20-len(bad))
				}
				continue
			}
			if !bytes.Equal(out.Bytes(), want) || st != wantStats || fmt.Sprint(invalid) != fmt.Sprint(wantInvalid) {
				t.Errorf("shard %s, --jobs %d: stats %+v, reports %q; --jobs 1 %+v, %q (output the same: %v)", shard, jobs, st, invalid, wantStats, wantInvalid, bytes.Equal(out.Bytes(), want))
			}
		}
		// Without Invalid the first invalid record stops the run (line 3,
		// in shard 0/3, stops shard 1/3 too).
		for _, jobs := range []int{1, 4} {
			var out bytes.Buffer
			st, err := ScoreFile(context.Background(), testPipeline(hashClassifier{}), input, graph.FR2, &out, nil, FileOptions{Jobs: jobs, Shard: shard})
			var ie *instance.Error
			if !errors.As(err, &ie) || ie.Line != 3 || ie.Field != "relations[0].type" {
				t.Fatalf("shard %s, --jobs %d: error %v; want line 3's relations[0].type", shard, jobs, err)
			}
			before := 0 // lines 1 and 2 in the shard
			for _, line := range []int{1, 2} {
				if shard.Has(line) {
					before++
				}
			}
			if st.Scored != before || bytes.Count(out.Bytes(), []byte("\n")) != before {
				t.Errorf("shard %s, --jobs %d: %d records written (%d lines), want those of lines 1 and 2 in the shard", shard, jobs, st.Scored, bytes.Count(out.Bytes(), []byte("\n")))
			}
		}
	}
}

// TestProgressCount: the records to do are counted before the first is
// scored, without decoding any, on the lines of the run's shard that the
// output does not hold; the invalid ones leave the total as the run finds
// them, so that it ends at what the run did.
func TestProgressCount(t *testing.T) {
	input := withInvalid(t, writeRecords(t, 10), map[int]string{4: `{not json`, 9: `{"input": 1}`})
	for _, jobs := range []int{1, 3} {
		var reports []Progress
		o := FileOptions{Jobs: jobs, Shard: Shard{0, 2}, Invalid: func(*instance.Error) {}, Progress: func(p Progress) { reports = append(reports, p) }}
		done := jsonl.Done{2: {}}
		st, err := ScoreFile(context.Background(), testPipeline(hashClassifier{}), input, graph.FR2, io.Discard, done, o)
		if err != nil || st.Scored != 3 || st.Invalid != 1 {
			t.Fatalf("--jobs %d: %+v (%v), want 3 records scored (lines 6, 8 and 10) and line 4 invalid", jobs, st, err)
		}
		// Lines 4, 6, 8 and 10; then line 4 is found invalid.
		if first := reports[0]; !first.Counted || first.RecordsTotal != 4 || first.Records != 0 {
			t.Errorf("--jobs %d: first report %+v, want 4 records to do", jobs, first)
		}
		if last := reports[len(reports)-1]; last.RecordsTotal != 3 || last.Records != 3 {
			t.Errorf("--jobs %d: last report %+v, want 3 of 3 records", jobs, last)
		}
		for _, p := range reports {
			if p.Records > p.RecordsTotal {
				t.Errorf("--jobs %d: %+v: more records done than to do", jobs, p)
			}
		}
	}
}
