package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/retrieve/searchtest"
)

// inputLines are the lines of a file's records, in order.
func inputLines(t *testing.T, path string) []int {
	t.Helper()
	ins, err := instance.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]int, len(ins))
	for i, in := range ins {
		lines[i] = in.Line
	}
	return lines
}

// scoredLines checks that out holds one output line per input line, in
// order, and returns them decoded.
func scoredLines(t *testing.T, out string, want []int) []map[string]json.RawMessage {
	t.Helper()
	var recs []map[string]json.RawMessage
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var r map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("output line %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	if len(recs) != len(want) {
		t.Fatalf("%d output lines, want %d", len(recs), len(want))
	}
	for i, r := range recs {
		if string(r["line"]) != fmt.Sprint(want[i]) {
			t.Errorf("output line %d is of input line %s, want %d", i+1, r["line"], want[i])
		}
	}
	return recs
}

// TestScoreFactReasonerFiles: fr score reads FactReasoner's labeled files
// with contexts as FactReasoner does and scores every record (exit 0, one
// line each): ConflictBank's records, whose output is "" with the atoms
// given, pass their "cat" through; the NASA web records' six search hits
// with neither text nor snippet are dropped, each named on stderr with its
// record, and counted in the summary.
func TestScoreFactReasonerFiles(t *testing.T) {
	ctx := context.Background()
	t.Run("conflictbank", func(t *testing.T) {
		path := refdata.Path(t, "factreasoner", "conflictbank-n100.jsonl")
		for _, v := range []string{"1", "2", "3"} {
			out, stderr, err := run(t, ctx, "score", "--nli", "lexical", "--version", v, path)
			if err != nil {
				t.Fatalf("FR%s: %v\n%s", v, err, stderr)
			}
			recs := scoredLines(t, out, inputLines(t, path))
			for _, r := range recs {
				if string(r["cat"]) != "[]" || string(r["output"]) != `""` || string(r["num_atoms"]) != "1" {
					t.Fatalf("FR%s: cat %s, output %s, num_atoms %s", v, r["cat"], r["output"], r["num_atoms"])
				}
			}
			if !strings.Contains(stderr, "100 records scored") {
				t.Errorf("FR%s: stderr\n%s", v, stderr)
			}
		}
	})
	t.Run("nasa google", func(t *testing.T) {
		path := refdata.Path(t, "factreasoner", "nasa_science-labeled_google.jsonl")
		out, stderr, err := run(t, ctx, "score", "--nli", "lexical", "--version", "3", path)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		recs := scoredLines(t, out, inputLines(t, path))
		empty := map[int][]string{1: {"c_a3_4"}, 2: {"c_a0_4"}, 3: {"c_a2_2", "c_a2_3", "c_a5_1", "c_a5_2"}}
		for i, r := range recs {
			var rec struct {
				Contexts []instance.Context
				Atoms    []instance.Atom
			}
			if err := json.Unmarshal(mustJSON(t, r), &rec); err != nil {
				t.Fatal(err)
			}
			for _, id := range empty[i+1] {
				want := fmt.Sprintf("%s:%d: context %q has neither text nor snippet: dropped", path, i+1, id)
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q", want)
				}
				for _, c := range rec.Contexts {
					if c.ID == id {
						t.Errorf("line %d: empty context %s scored", i+1, id)
					}
				}
				for _, a := range rec.Atoms {
					for _, c := range a.Contexts {
						if c == id {
							t.Errorf("line %d: atom %s still lists %s", i+1, a.ID, id)
						}
					}
				}
			}
		}
		if !strings.Contains(stderr, "3 records scored") || !strings.Contains(stderr, "6 empty contexts dropped") {
			t.Errorf("summary:\n%s", stderr)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestScoreNASAWithoutContexts: FactReasoner's NASA files give no contexts
// ("contexts": [] everywhere); with a retrieval source (a loopback fake of
// the Serper API) every record is scored, exit 0, one line each, from the
// passages retrieved for each atom (c_<atom>_<n>) and for the question
// (c_q_<n>, as many as per atom by default, as FactReasoner; none with
// --query-contexts 0).
func TestScoreNASAWithoutContexts(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	t.Setenv("SERPER_API_KEY", e2eSerperKey)
	ctx := context.Background()
	for _, file := range []string{"nasa_science-labeled.jsonl", "nasa_technical-labeled.jsonl"} {
		t.Run(file, func(t *testing.T) {
			path := refdata.Path(t, "factreasoner", file)
			ins, err := instance.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range ins {
				if len(in.Contexts) != 0 {
					t.Fatalf("%s:%d has contexts", path, in.Line)
				}
			}
			serper := serperFor(t, ins)
			for _, tc := range []struct {
				flags []string
				query int // question contexts per record
			}{
				{nil, 3},
				{[]string{"--query-contexts", "2"}, 2},
				{[]string{"--query-contexts", "0"}, 0},
			} {
				args := append([]string{"score", "--nli", "lexical", "--source", "serper", "--serper-endpoint", serper.URL, "--retrieval-cache", "off"}, tc.flags...)
				out, stderr, err := run(t, ctx, append(args, path)...)
				if err != nil {
					t.Fatalf("%v: %v\n%s", tc.flags, err, stderr)
				}
				recs := scoredLines(t, out, inputLines(t, path))
				for i, r := range recs {
					var rec struct {
						Contexts []instance.Context
						Atoms    []instance.Atom
						NumAtoms int `json:"num_atoms"`
						Own      int `json:"nli_pairs_own"`
					}
					if err := json.Unmarshal(mustJSON(t, r), &rec); err != nil {
						t.Fatal(err)
					}
					query := 0
					for _, c := range rec.Contexts {
						if strings.HasPrefix(c.ID, "c_q_") {
							query++
						}
					}
					for _, a := range rec.Atoms {
						if len(a.Contexts) != 2 {
							t.Errorf("%v: line %d: atom %s has contexts %v", tc.flags, i+1, a.ID, a.Contexts)
						}
					}
					if rec.NumAtoms != len(ins[i].Atoms) || query != tc.query || len(rec.Contexts) != 2*len(rec.Atoms)+tc.query {
						t.Errorf("%v: line %d: %d atoms, %d contexts, %d of the question's", tc.flags, i+1, rec.NumAtoms, len(rec.Contexts), query)
					}
					// The question's contexts are every atom's own: always asked.
					if rec.Own != rec.NumAtoms*(2+tc.query) {
						t.Errorf("%v: line %d: %d own pairs, want %d", tc.flags, i+1, rec.Own, rec.NumAtoms*(2+tc.query))
					}
				}
			}
		})
	}
}

// serperFor is a loopback fake of the Serper API that answers the search
// for each atom of the records with two results and the search for each
// question with four.
func serperFor(t *testing.T, ins []*instance.Instance) *searchtest.Serper {
	serper := searchtest.NewSerper(t, e2eSerperKey)
	for _, in := range ins {
		for i, a := range in.Atoms {
			serper.Add(a.Text,
				searchtest.Result{Title: in.Topic, Link: fmt.Sprintf("https://example.org/%d/%d", in.Line, i), Snippet: a.Text},
				searchtest.Result{Title: in.Topic + " facts", Link: fmt.Sprintf("https://example.org/%d/%d/facts", in.Line, i), Snippet: "Facts about " + in.Topic + "."})
		}
		serper.Add(in.Input,
			searchtest.Result{Title: in.Topic, Link: "https://example.org/q1", Snippet: in.Topic + " is a NASA mission."},
			searchtest.Result{Title: in.Topic + " (2)", Link: "https://example.org/q2", Snippet: "More on " + in.Topic + "."},
			searchtest.Result{Title: in.Topic + " (3)", Link: "https://example.org/q3", Snippet: "Even more on " + in.Topic + "."},
			searchtest.Result{Title: in.Topic + " (4)", Link: "https://example.org/q4", Snippet: "Never asked for."})
	}
	return serper
}

// TestReportEveryRefdataFile: fr report renders the output of every file
// of testdata/refdata that fr score accepts, scored by each version (with
// lexical NLI; the records without contexts with the passages of a fake
// web search, as FactReasoner retrieves them): the three runs of a file in
// one report, every response on it. ConflictBank's output, whose records
// give their atoms with an empty response, was one it refused. The files
// fr score refuses are not records (licences, UAI models, merlin's
// outputs, a tokenizer) or not FactReasoner's (FActScore's labeled
// biographies, which fr convert factscore reads; IBM's golden run, whose
// atoms are texts), and every file known to be records is among those
// accepted.
func TestReportEveryRefdataFile(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	t.Setenv("SERPER_API_KEY", e2eSerperKey)
	ctx := context.Background()
	root := refdata.Path(t)
	dir := t.TempDir()
	accepted := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name, _ := filepath.Rel(root, path)
		score := func(v string, flags ...string) (string, error) {
			out := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".fr"+v+".jsonl")
			args := append([]string{"score", "--nli", "lexical", "--version", v, "-o", out}, flags...)
			_, stderr, err := run(t, ctx, append(args, path)...)
			if err != nil {
				return "", fmt.Errorf("%w\n%s", err, stderr)
			}
			return out, nil
		}
		var flags []string
		if _, err := score("1"); err != nil {
			if !strings.Contains(err.Error(), "no contexts and no knowledge source") {
				return nil // not a file fr score accepts
			}
			ins, err := instance.ReadFile(path)
			if err != nil {
				return err
			}
			flags = []string{"--source", "serper", "--serper-endpoint", serperFor(t, ins).URL, "--retrieval-cache", "off"}
			os.Remove(filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".fr1.jsonl"))
		}
		accepted[name] = true
		var outs []string
		for _, v := range []string{"1", "2", "3"} {
			out, err := score(v, flags...)
			if err != nil {
				return fmt.Errorf("%s, FR%s: %w", name, v, err)
			}
			outs = append(outs, out)
		}
		responses := len(inputLines(t, path))
		html := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".html")
		_, stderr, err := run(t, ctx, append([]string{"report", "-o", html}, outs...)...)
		if err != nil {
			return fmt.Errorf("fr report of %s: %w\n%s", name, err, stderr)
		}
		page, err := os.ReadFile(html)
		if want := fmt.Sprintf("3 runs, %d responses read", responses); err != nil || !strings.Contains(stderr, want) || !bytes.Contains(page, []byte("</html>")) {
			t.Errorf("fr report of %s (%v): want %q and a page\n%s", name, err, want, stderr)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"factreasoner/conflictbank-n100.jsonl", "factreasoner/flaherty_google.json", "factreasoner/flaherty_wikipedia.json",
		"factreasoner/nasa_science-labeled_google.jsonl", "factreasoner/nasa_science-labeled.jsonl", "factreasoner/nasa_technical-labeled.jsonl",
		"factreasoner/reference_factreasoner_output.json", "factreasoner/reference_factscore_output.json",
	} {
		if !accepted[name] {
			t.Errorf("fr score refused %s", name)
		}
	}
}
