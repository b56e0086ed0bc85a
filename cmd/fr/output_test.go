package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// withExtras returns the shipped example with fields of the user's own on
// every record: an id, a category list and a nested object.
func withExtras(t *testing.T) (path string, records []map[string]json.RawMessage) {
	t.Helper()
	data, err := os.ReadFile("../../testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		extra := `"id": "bio-` + string(rune('0'+i)) + `", "cat": ["rare", "Europe"], "meta": {"source": "test", "n": [1, 2.5, null]}`
		line = strings.TrimSuffix(strings.TrimSpace(line), "}") + ", " + extra + "}"
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		out.WriteString(line + "\n")
		records = append(records, rec)
	}
	return writeFile(t, "extras.jsonl", out.String()), records
}

func decodeLines(t *testing.T, out string) []map[string]json.RawMessage {
	t.Helper()
	var recs []map[string]json.RawMessage
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("output line is not a JSON object: %v\n%s", err, l)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestOutputSelfContained: an output line of fr score carries the record as
// scored (response, atoms, contexts, the relations that became factors)
// and the input's own fields unchanged, so that it can be read back as an
// input: scored again (from its relations) it gives the same marginals.
// --output-inputs=false leaves the record out but keeps the user's fields.
func TestOutputSelfContained(t *testing.T) {
	in, inputs := withExtras(t)
	ctx := context.Background()
	out, _, err := run(t, ctx, "score", "--version", "3", "--nli", "lexical", in)
	if err != nil {
		t.Fatal(err)
	}
	recs := decodeLines(t, out)
	if len(recs) != len(inputs) {
		t.Fatalf("%d output lines for %d records", len(recs), len(inputs))
	}
	for i, r := range recs {
		for _, f := range []string{"id", "cat", "meta", "output", "atoms", "contexts"} {
			if !sameJSON(r[f], inputs[i][f]) {
				t.Errorf("record %d: field %s is %s, input has %s", i, f, r[f], inputs[i][f])
			}
		}
		var n int
		var rels []struct{ Source, Target, Type string }
		json.Unmarshal(r["num_relations"], &n)
		json.Unmarshal(r["relations"], &rels)
		if len(rels) != n || n == 0 {
			t.Errorf("record %d: %d relations written, num_relations %d", i, len(rels), n)
		}
		for _, rel := range rels {
			if !strings.HasPrefix(rel.Source, "c_") || rel.Type == "neutral" {
				t.Errorf("record %d: relation %+v", i, rel)
			}
		}
	}
	// The user's fields come last, in their order, after the tool's.
	if first := strings.SplitN(out, "\n", 2)[0]; !strings.HasSuffix(first, `"id":"bio-0","cat":["rare","Europe"],"meta":{"source":"test","n":[1,2.5,null]}}`) {
		t.Errorf("first line ends %q", first[max(0, len(first)-120):])
	}

	// Read back as input: auto scores it from its relations, to the same
	// marginals; and scoring that output again changes nothing.
	again, _, err := run(t, ctx, "score", "--version", "3", writeFile(t, "out.jsonl", out))
	if err != nil {
		t.Fatal(err)
	}
	recs2 := decodeLines(t, again)
	for i := range recs {
		for _, f := range []string{"marginals", "context_marginals", "relations", "factuality_score", "id", "cat", "meta"} {
			if !bytes.Equal(recs[i][f], recs2[i][f]) {
				t.Errorf("record %d, scored from its output: field %s is\n%s\nwas\n%s", i, f, recs2[i][f], recs[i][f])
			}
		}
		if string(recs2[i]["nli_backend"]) != `"given"` {
			t.Errorf("record %d scored again with %s, want given", i, recs2[i]["nli_backend"])
		}
	}
	third, _, err := run(t, ctx, "score", "--version", "3", writeFile(t, "again.jsonl", again))
	if err != nil || third != again {
		t.Errorf("scoring an output of given relations again changed it (%v)", err)
	}

	lean, _, err := run(t, ctx, "score", "--version", "3", "--nli", "lexical", "--output-inputs=false", in)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range decodeLines(t, lean) {
		for _, f := range []string{"atoms", "contexts", "relations"} {
			if _, ok := r[f]; ok {
				t.Errorf("record %d: --output-inputs=false wrote %s", i, f)
			}
		}
		if !bytes.Equal(r["id"], inputs[i]["id"]) || !bytes.Equal(r["marginals"], recs[i]["marginals"]) {
			t.Errorf("record %d: --output-inputs=false: id %s, marginals differ", i, r["id"])
		}
	}

	// fr atomize passes the user's fields through too.
	atomized, _, err := run(t, ctx, "atomize", "--atomizer", "sentences", in)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range decodeLines(t, atomized) {
		if !sameJSON(r["cat"], inputs[i]["cat"]) || !sameJSON(r["meta"], inputs[i]["meta"]) {
			t.Errorf("atomize, record %d: cat %s, meta %s", i, r["cat"], r["meta"])
		}
	}
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestCompareOutputs: fr compare on output files of fr score summarizes the
// recorded results (no NLI, no inference): the same rows as comparing the
// versions on the input, computed from the scored files.
func TestCompareOutputs(t *testing.T) {
	ctx := context.Background()
	in := "../../testdata/example.jsonl"
	want, _, err := run(t, ctx, "compare", "--format", "csv", "--nli", "lexical", in)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, v := range []string{"1", "2", "3"} {
		out, _, err := run(t, ctx, "score", "--version", v, "--nli", "lexical", "--output-inputs="+map[string]string{"1": "true", "2": "false", "3": "true"}[v], in)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, writeFile(t, "fr"+v+".jsonl", out))
	}
	got, _, err := run(t, ctx, append([]string{"compare", "--format", "csv"}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("compare of the outputs:\n%s\ncompare of the input:\n%s", got, want)
	}
	// One output file alone is compared as recorded too.
	one, _, err := run(t, ctx, "compare", "--format", "csv", files[1])
	if err != nil || !strings.Contains(one, "\nFR2,3,") || strings.Count(one, "\n") != 2 {
		t.Errorf("compare of one output file (%v):\n%s", err, one)
	}
	if _, _, err := run(t, ctx, "compare", "--versions", "1", files[0]); err == nil || !strings.Contains(err.Error(), "--versions") {
		t.Errorf("--versions with output files: %v", err)
	}
}

// TestInspectOutput: fr inspect on an output line of fr score shows the
// record as it was scored, without scoring it again: the same explanation
// as inspecting the input (less the NLI model's full distributions, which
// output lines do not keep), for any version.
func TestInspectOutput(t *testing.T) {
	ctx := context.Background()
	in := "../../testdata/example.jsonl"
	dist := regexp.MustCompile(`  \[entailment [^]]*\]`)
	for _, v := range []string{"1", "2", "3"} {
		want, _, err := run(t, ctx, "inspect", "--version", v, "--nli", "lexical", in)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := run(t, ctx, "score", "--version", v, "--nli", "lexical", in)
		if err != nil {
			t.Fatal(err)
		}
		// --nli lexical would score a record again; an output line is shown as recorded.
		got, _, err := run(t, ctx, "inspect", "--nli", "lexical", writeFile(t, "out.jsonl", out))
		if err != nil {
			t.Fatal(err)
		}
		if got != dist.ReplaceAllString(want, "") || !strings.Contains(got, "FR"+v+" · nli lexical") {
			t.Errorf("FR%s: inspect of the output:\n%s\ninspect of the input:\n%s", v, got, want)
		}
	}
}

// TestInspectContexts: fr inspect explains contexts too (--contexts, or
// --atom with a context id), with FR3's context–context relations: in the
// example's third record c_a3_0 entails c_a0_0 (0.62).
func TestInspectContexts(t *testing.T) {
	ctx := context.Background()
	in := "../../testdata/example.jsonl"
	all, _, err := run(t, ctx, "inspect", "--nli", "given", "--version", "3", "--contexts", "--line", "3", in)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"\nc_a0_0  P(true) = ",
		`entailment    0.620000  from c_a3_0 "Ada Lovelace"`,
		`entailment    0.620000  to c_a0_0 "Ada Lovelace"`,
		`contradiction 0.860000  to a5 "Ada Lovelace invented the first electronic computer."`,
	} {
		if !strings.Contains(all, s) {
			t.Errorf("--contexts lacks %q:\n%s", s, all)
		}
	}
	one, _, err := run(t, ctx, "inspect", "--nli", "given", "--version", "3", "--atom", "c_a3_0", "--line", "3", in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(one, "\nc_a3_0  P(true) = ") || !strings.Contains(one, "to c_a0_0") || strings.Contains(one, "\na0 ") || strings.Contains(one, "\nc_a0_0 ") {
		t.Errorf("--atom c_a3_0:\n%s", one)
	}
}
