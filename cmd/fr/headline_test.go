package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// relabeled is the shipped example with labels a person might disagree
// with: the first record's a0 and a1 and the second's a0 labeled NS, and
// the third record unlabeled; the headline's gold measures then differ
// from 1.
func relabeled(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for n := 0; sc.Scan(); n++ {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		for _, a := range rec["atoms"].([]any) {
			atom := a.(map[string]any)
			switch {
			case n == 2:
				delete(atom, "label")
			case atom["id"] == "a0", n == 0 && atom["id"] == "a1":
				atom["label"] = "NS"
			}
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	return writeFile(t, "relabeled.jsonl", b.String())
}

// handHeadline computes the headline's numbers from the output lines'
// marginals and the input's labels, as docs/scores.md defines them: per
// response Pr = #S/n and F1@K with K = k(n); pooled over the labeled atoms,
// accuracy and F1 of predicted S against gold S.
func handHeadline(t *testing.T, input, output string, k func(n int) float64) (responses, labeled int, pr, f1k, acc, atomF1 float64) {
	t.Helper()
	labels := make(map[int]map[string]string) // input line → atom → label
	for i, l := range readLines(t, input) {
		var rec struct {
			Atoms []struct{ ID, Label string }
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		labels[i+1] = make(map[string]string)
		for _, a := range rec.Atoms {
			labels[i+1][a.ID] = a.Label
		}
	}
	var tp, tn, fp, fn int
	for _, l := range readLines(t, output) {
		var rec struct {
			Line      int
			Marginals []struct {
				Variable      string
				Probabilities []float64
			}
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		responses++
		n, s := len(rec.Marginals), 0
		isLabeled := false
		for _, m := range rec.Marginals {
			p := m.Probabilities[1]
			supported := p > 0.5 && math.Round(p*1e6) != 5e5
			if supported {
				s++
			}
			gold := labels[rec.Line][m.Variable]
			if gold == "" {
				continue
			}
			isLabeled = true
			switch {
			case gold == "S" && supported:
				tp++
			case gold != "S" && !supported:
				tn++
			case supported:
				fp++
			default:
				fn++
			}
		}
		if isLabeled {
			labeled++
		}
		p := float64(s) / float64(n)
		r := math.Min(float64(s)/k(n), 1)
		pr += p
		if s > 0 {
			f1k += 2 * p * r / (p + r)
		}
	}
	pr /= float64(responses)
	f1k /= float64(responses)
	acc = float64(tp+tn) / float64(tp+tn+fp+fn)
	atomF1 = 2 * float64(tp) / float64(2*tp+fp+fn)
	if tp+tn+fp+fn == 0 || fp+fn == 0 {
		t.Fatalf("the input does not test the gold measures: TP %d, TN %d, FP %d, FN %d", tp, tn, fp, fn)
	}
	return
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestScoreHeadline (issue 23 item 5): at the end of fr score, stderr says
// the result, after the run's summary, and stdout does not: the responses,
// mean Pr, mean F1@K with its K and, over the labeled responses, accuracy
// and atom-level F1, equal to a hand computation from the output's
// marginals. A resumed run's headline covers the whole output.
func TestScoreHeadline(t *testing.T) {
	ctx := context.Background()
	in := relabeled(t)
	half := func(n int) float64 { return math.Max(float64(n/2), 1) }
	for _, tc := range []struct {
		args []string
		k    func(int) float64
		kSay string
	}{
		{nil, half, "F1@K %.4f (K = half the atoms of each response, at least 1)"},
		{[]string{"--k", "4"}, func(int) float64 { return 4 }, "F1@4 %.4f"},
		{[]string{"--k", "median", "--version", "3"}, func(int) float64 { return 9 }, "F1@9 %.4f (K = the median atom count)"},
	} {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		args := append(append([]string{"score", "--nli", "given", "-o", out}, tc.args...), in)
		stdout, stderr, err := run(t, ctx, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		responses, labeled, pr, f1k, acc, f1 := handHeadline(t, in, out, tc.k)
		version := "FR2"
		if len(tc.args) > 2 {
			version = "FR3"
		}
		want := fmt.Sprintf("fr score: %s: %d responses, mean Pr %.4f, mean "+tc.kSay+"\n", version, responses, pr, f1k) +
			fmt.Sprintf("fr score: %s: against the gold labels of %d responses: accuracy %.4f, atom-level F1 %.4f\n", version, labeled, acc, f1)
		if !strings.HasSuffix(stderr, want) {
			t.Errorf("%v: stderr ends\n%s\nwant the headline\n%s", tc.args, lastLines(stderr, 3), want)
		}
		if summary := strings.Index(stderr, "records scored"); summary < 0 || summary > strings.Index(stderr, want) {
			t.Errorf("%v: the headline does not follow the run's summary:\n%s", tc.args, stderr)
		}
		if stdout != "" {
			t.Errorf("%v: stdout (the output is -o) holds %q", tc.args, stdout)
		}
		if len(tc.args) > 0 {
			continue
		}
		// Resumed after the first record: the headline is the whole
		// output's.
		lines := readLines(t, out)
		if err := os.WriteFile(out, []byte(lines[0]+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, err = run(t, ctx, args...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, "1 already done") || !strings.HasSuffix(stderr, want) {
			t.Errorf("resumed: stderr\n%s\nwant it to end with\n%s", stderr, want)
		}
	}
	// The records' scores on stdout, the headline on stderr only.
	stdout, stderr, err := run(t, ctx, "score", "--nli", "given", in)
	if err != nil || strings.Contains(stdout, "mean Pr") || !strings.Contains(stderr, "mean Pr") {
		t.Errorf("without -o (%v): the headline is not on stderr alone:\nstderr %s", err, stderr)
	}
}

// TestFActScoreHeadline: at the end of fr factscore, stderr says FActScore
// and the share of responses that respond, equal to a hand computation
// from the labels (--gold: S / (S + NS) per response, no length penalty).
func TestFActScoreHeadline(t *testing.T) {
	// --gold needs every atom labeled: the relabeled records.
	labeled := readLines(t, relabeled(t))[:2]
	in := writeFile(t, "labeled.jsonl", strings.Join(labeled, "\n")+"\n")
	var sum float64
	var scored, facts int
	for _, l := range labeled {
		var rec struct{ Atoms []struct{ Label string } }
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		s, n := 0, 0
		for _, a := range rec.Atoms {
			if a.Label != "" {
				n++
			}
			if a.Label == "S" {
				s++
			}
		}
		facts += n
		if n > 0 {
			sum += float64(s) / float64(n)
			scored++
		}
	}
	want := fmt.Sprintf("fr factscore: FActScore %.4f, 100.0%% responding (2 of 2), %.1f facts per response; verifier gold\n", sum/float64(scored), float64(facts)/2)
	stdout, stderr, err := run(t, context.Background(), "factscore", "--gold", in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(stderr, want) {
		t.Errorf("stderr ends\n%s\nwant\n%s", lastLines(stderr, 2), want)
	}
	if strings.Contains(stdout, "responding") {
		t.Errorf("the headline is on stdout:\n%s", stdout)
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestScoreAbstention (issue 32): in a file with one raw response that
// declines to answer among labeled records, fr score writes that line
// with "abstained": true and no atoms, and the headline's mean precision
// is the mean over the others (the same as without it), with the
// responding share; the run records its rule, so that a run with another
// rule does not resume into it; fr compare counts 3 of 4.
func TestScoreAbstention(t *testing.T) {
	ctx := context.Background()
	example := "../../testdata/example.jsonl"
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	in := writeFile(t, "with-abstention.jsonl", string(data)+
		`{"input": "Tell me a bio of Lanny Flaherty.", "topic": "Lanny Flaherty", "output": "I’m sorry, I could not find any information about Lanny Flaherty."}`+"\n")
	_, alone, err := run(t, ctx, "score", "--nli", "given", example)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	_, stderr, err := run(t, ctx, "score", "--nli", "given", "--atomizer", "sentences", "-o", out, in)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := outputLines(t, out)
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	last := lines[3]
	if last["abstained"] != true || last["num_atoms"] != 0.0 || len(last["marginals"].([]any)) != 0 || last["atoms"] != nil {
		t.Errorf("the abstaining line: abstained %v, %v atoms, marginals %v, atoms %v", last["abstained"], last["num_atoms"], last["marginals"], last["atoms"])
	}
	// The rule is recorded where it acted: on the line of the record that
	// came without atoms, not on those that brought theirs.
	if r := last["run"].(map[string]any); r["abstention"] != "generic" || r["atomizer"] != nil {
		t.Errorf("the abstaining line's run: %v", r)
	}
	for _, l := range lines[:3] {
		if r := l["run"].(map[string]any); l["abstained"] != nil || r["abstention"] != nil || r["atomizer"] != nil {
			t.Errorf("line %v: abstained %v, run %v", l["line"], l["abstained"], l["run"])
		}
	}
	// The mean over the three others, as scored alone.
	meanPr := regexp.MustCompile(`mean Pr [0-9.]+`)
	if got, want := meanPr.FindString(stderr), meanPr.FindString(alone); got == "" || got != want {
		t.Errorf("headline %q, want %q (the others alone)", got, want)
	}
	if !strings.Contains(stderr, "4 responses (3 responding, 75.0%; 1 abstained, left out of the means)") {
		t.Errorf("headline without the responding share:\n%s", stderr)
	}
	js, _, err := run(t, ctx, "compare", "--format", "json", out)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := unmarshalRows(js, &rows); err != nil || len(rows) != 1 || rows[0]["responses"] != 4.0 || rows[0]["responding"] != 3.0 {
		t.Errorf("compare (%v): %v", err, rows)
	}
	// Another rule is another run: it does not resume into the output.
	_, _, err = run(t, ctx, "score", "--nli", "given", "--atomizer", "sentences", "--abstention", "perplexity_ai", "-o", out, in)
	if err == nil || !strings.Contains(err.Error(), "run.abstention") {
		t.Errorf("resuming with --abstention perplexity_ai: %v", err)
	}
	// An output line is also an input line: scored again with the
	// defaults (no atomizer), the abstaining line abstains again and the
	// others keep their marginals; only the run's abstention rule, which
	// a run without an atomizer has none of, is gone.
	again := filepath.Join(t.TempDir(), "again.jsonl")
	if _, stderr, err := run(t, ctx, "score", "-o", again, out); err != nil {
		t.Fatalf("scoring the output again: %v\n%s", err, stderr)
	}
	first, second := outputLines(t, out), outputLines(t, again)
	for i := range first {
		delete(first[i]["run"].(map[string]any), "abstention")
		for _, f := range []string{"abstained", "marginals", "factuality_score", "num_atoms"} {
			if !reflect.DeepEqual(first[i][f], second[i][f]) {
				t.Errorf("line %d scored again: %s %v, was %v", i+1, f, second[i][f], first[i][f])
			}
		}
		if !reflect.DeepEqual(first[i]["run"], second[i]["run"]) {
			t.Errorf("line %d scored again: run %v, was %v", i+1, second[i]["run"], first[i]["run"])
		}
	}
}
