// Package foreigntest writes other systems' runs of the Flaherty reference
// record, and the record itself, for the tests of the programs that read
// them (fr compare, fr report). They are made from the shared reference
// data (internal/refdata): a test is skipped where it is missing.
package foreigntest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// FlahertyInput writes into dir the labeled Flaherty record
// (flaherty_wikipedia.json: 26 atoms labeled S or NS, 53 contexts) as one
// jsonl line, with the 15 relations of IBM's recorded FR2 run inlined
// (flaherty_fr2_golden.json), and returns its path and the golden file's
// fields. Scored with --nli given, it reproduces IBM's run.
func FlahertyInput(tb testing.TB, dir string) (string, map[string]json.RawMessage) {
	tb.Helper()
	inst := readJSON(tb, refdata.Path(tb, "factreasoner", "flaherty_wikipedia.json"))
	gold := readJSON(tb, refdata.Path(tb, "factreasoner", "flaherty_fr2_golden.json"))
	inst["relations"] = gold["relations"]
	return writeJSON(tb, filepath.Join(dir, "flaherty.jsonl"), inst, false), gold
}

// FlahertyFactReasoner writes into dir the result file FactReasoner's
// example writes (to_json with its "results", pretty-printed) for IBM's
// recorded FR2 run on the labeled Flaherty record, and returns its path:
// the record of flaherty_wikipedia.json with the 21 contexts FactReasoner
// kept after removing duplicates (the first of each text), each atom's
// contexts mapped to the kept ones as FactReasoner's deduplication maps
// them, and the golden file's results object as IBM recorded it (P(true) in
// factuality_score_per_atom; predictions and references as strings; its
// entropy in natural log). Its record starts on line 1, as the record of
// FlahertyInput.
func FlahertyFactReasoner(tb testing.TB, dir string) string {
	tb.Helper()
	inst := readJSON(tb, refdata.Path(tb, "factreasoner", "flaherty_wikipedia.json"))
	gold := readJSON(tb, refdata.Path(tb, "factreasoner", "flaherty_fr2_golden.json"))
	var kept []string
	decode(tb, gold["contexts_after_dedup"], &kept)
	var contexts []map[string]any
	decode(tb, inst["contexts"], &contexts)
	first := make(map[string]string) // text → the id kept for it
	byID := make(map[string]map[string]any)
	for _, c := range contexts {
		id, text := c["id"].(string), c["text"].(string)
		if _, ok := first[text]; !ok {
			first[text] = id
		}
		byID[id] = c
	}
	canon := make(map[string]string)
	for _, c := range contexts {
		canon[c["id"].(string)] = first[c["text"].(string)]
	}
	var out []map[string]any
	for _, id := range kept {
		c, ok := byID[id]
		if !ok || canon[id] != id {
			tb.Fatalf("the golden run keeps context %s, which is not the first of its text in flaherty_wikipedia.json", id)
		}
		out = append(out, c)
	}
	var atoms []map[string]any
	decode(tb, inst["atoms"], &atoms)
	for _, a := range atoms {
		var ids []string
		seen := make(map[string]bool)
		for _, id := range a["contexts"].([]any) {
			if k := canon[id.(string)]; !seen[k] {
				seen[k] = true
				ids = append(ids, k)
			}
		}
		a["contexts"] = ids
	}
	rec := map[string]any{"input": inst["input"], "output": inst["output"], "topic": inst["topic"],
		"atoms": atoms, "contexts": out, "results": gold["results"]}
	return writeJSON(tb, filepath.Join(dir, "flaherty_factreasoner_output.json"), rec, true)
}

func readJSON(tb testing.TB, path string) map[string]json.RawMessage {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]json.RawMessage
	decode(tb, data, &m)
	return m
}

func decode(tb testing.TB, data []byte, v any) {
	tb.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		tb.Fatal(err)
	}
}

// writeJSON writes v as one line, or pretty-printed with four spaces as
// Python's json.dump(indent=4) writes it.
func writeJSON(tb testing.TB, path string, v any, pretty bool) string {
	tb.Helper()
	var data []byte
	var err error
	if pretty {
		data, err = json.MarshalIndent(v, "", "    ")
	} else {
		data, err = json.Marshal(v)
	}
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}
