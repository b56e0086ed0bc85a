package foreign

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/jsonfields"
	"github.com/factreasoner/factreasoner-go/jsonl"
)

// fr factscore's output: one factscore.Record per line, each with the
// decision on each of its facts (supported or not, and the fact's gold
// label when known), then the summary, which names the verifier.

// fsRecorded is the value of fr factscore's records kept under its name:
// FActScore with its length penalty, which this project's measures do not
// compute (their precision is its init_score).
const fsRecorded = "factscore"

func readFActScore(path string, skip func(*instance.Error)) (*Run, error) {
	run := &Run{Path: path, Kind: FActScore, Decided: true}
	summary := 0 // the line of the summary
	lines := make(map[int]int)
	err := jsonl.ReadLines(path, jsonl.MaxOutputLineBytes, func(n int, raw []byte) error {
		fail := func(err error) error {
			e := recordError(path, n, raw, "", err)
			if skip == nil {
				return e
			}
			skip(e)
			return nil
		}
		if summary > 0 {
			return fail(fmt.Errorf("a record after the summary line (line %d): the summary is the last line of fr factscore's output", summary))
		}
		names, vals, err := jsonfields.Ordered(raw)
		if err != nil {
			return fail(fmt.Errorf("invalid JSON: %w", err))
		}
		if indexOf(names, "decisions") < 0 {
			i := indexOf(names, "verifier")
			if i < 0 {
				return fail(&instance.FieldError{Field: "decisions", Msg: "missing (neither a record nor the summary of fr factscore's output)"})
			}
			if err := json.Unmarshal(vals[i], &run.Verifier); err != nil {
				return fail(&instance.FieldError{Field: "verifier", Msg: "expected a string"})
			}
			if err := readAssessor(run, names, vals); err != nil {
				return fail(err)
			}
			summary = n
			return nil
		}
		rec, err := fsRecord(raw)
		if err != nil {
			return fail(err)
		}
		if rec == nil {
			run.Skipped++
			return nil
		}
		rec.At = n
		if prev, dup := lines[rec.Line]; dup {
			return fail(&instance.FieldError{Field: "line", Msg: fmt.Sprintf("input line %d is also on line %d", rec.Line, prev)})
		}
		lines[rec.Line] = n
		run.Records = append(run.Records, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if run.Assessor != "" {
		// Its records' score is their precision, which the measures
		// computed here give: no value of its own per record.
		for _, rec := range run.Records {
			rec.Recorded = nil
		}
	}
	return run, nil
}

// readAssessor reads what the summary of fr veriscore or fr factverify
// says beside fr factscore's: its assessor, and VeriScore's score and K,
// kept as the run's Totals.
func readAssessor(run *Run, names []string, vals []json.RawMessage) error {
	i := indexOf(names, "assessor")
	if i < 0 {
		return nil
	}
	if err := json.Unmarshal(vals[i], &run.Assessor); err != nil || run.Assessor != "veriscore" && run.Assessor != "factverify" {
		return &instance.FieldError{Field: "assessor", Msg: fmt.Sprintf("%s is not veriscore or factverify", vals[i])}
	}
	for _, f := range []struct{ field, name string }{{"veriscore", "veriscore"}, {"k", "veriscore_k"}} {
		j := indexOf(names, f.field)
		if j < 0 {
			continue
		}
		var x float64
		if err := json.Unmarshal(vals[j], &x); err != nil {
			return &instance.FieldError{Field: f.field, Msg: "expected a number"}
		}
		run.Totals = append(run.Totals, Value{Name: f.name, Value: &x})
	}
	return nil
}

// fsLine is what this package reads of a line of fr factscore's output
// (factscore.Record, which is written by a package that carries the
// verifiers and their LLM and retrieval clients: readers of runs, such as
// the report, do without them).
type fsLine struct {
	Line      int     `json:"line"`
	Topic     string  `json:"topic"`
	Input     string  `json:"input"`
	Responded bool    `json:"responded"`
	Facts     int     `json:"num_facts"`
	Supported int     `json:"num_supported"`
	Score     float64 `json:"score"`
	Decisions []struct {
		ID        string `json:"id"`
		Atom      string `json:"atom"`
		Supported bool   `json:"supported"`
		Label     string `json:"label"`
	} `json:"decisions"`
}

// fsRecord reads one record of fr factscore's output; nil for a response
// without facts to score (it abstained, or has none).
func fsRecord(raw []byte) (*Record, error) {
	var r fsLine
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, instance.JSONError(bytes.TrimSpace(raw), err)
	}
	if r.Line <= 0 {
		return nil, &instance.FieldError{Field: "line", Msg: fmt.Sprintf("%d is not an input line", r.Line)}
	}
	if len(r.Decisions) != r.Facts {
		return nil, &instance.FieldError{Field: "decisions", Msg: fmt.Sprintf("%d of them but num_facts is %d", len(r.Decisions), r.Facts)}
	}
	if !r.Responded || r.Facts == 0 { // factscore.Result.Scored
		return nil, nil
	}
	rec := &Record{Line: r.Line, Input: r.Input, Topic: r.Topic, HasAtomText: true, Supported: make(map[string]bool, len(r.Decisions))}
	supported := 0
	for i, d := range r.Decisions {
		field := fmt.Sprintf("decisions[%d]", i)
		switch {
		case d.ID == "":
			return nil, &instance.FieldError{Field: field + ".id", Msg: "missing"}
		case d.Label != "" && d.Label != instance.Supported && d.Label != instance.NotSupported && d.Label != instance.Irrelevant:
			return nil, &instance.FieldError{Field: field + ".label", Msg: fmt.Sprintf("label %q is not S, NS or IR", d.Label)}
		}
		if _, dup := rec.Supported[d.ID]; dup {
			return nil, &instance.FieldError{Field: field + ".id", Msg: fmt.Sprintf("%q is listed twice", d.ID)}
		}
		rec.Supported[d.ID] = d.Supported
		// An irrelevant fact (FActScore's labeled data, with --gold) is
		// neither S nor NS: unlabeled for the gold measures.
		label := d.Label
		if label == instance.Irrelevant {
			label = ""
		}
		rec.Atoms = append(rec.Atoms, instance.Atom{ID: d.ID, Text: d.Atom, Label: label})
		if d.Supported {
			supported++
		}
	}
	if supported != r.Supported {
		return nil, &instance.FieldError{Field: "num_supported", Msg: fmt.Sprintf("%d, but %d decisions say supported", r.Supported, supported)}
	}
	score := r.Score
	rec.Recorded = Values{{Name: fsRecorded, Value: &score}}
	return rec, nil
}
