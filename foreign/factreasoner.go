package foreign

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/jsonfields"
	"github.com/factreasoner/factreasoner-go/score"
)

// FactReasoner's result files, as its code writes them: the assessor's
// score (assessor.py; fact_reasoner.py before it) returns a results object
// with the atoms' marginals ("marginals": [{"variable": "a0",
// "probabilities": [P(false), P(true)]}], merlin's, rounded to 6 decimals;
// the same P(true) in "factuality_score_per_atom": [{"a0": {"score": P,
// "support": "S"}}], which some files keep alone),
// "predictions" (an object {"a0": "S"}, or in older versions the string
// " a0: S a1: NS", beside "labels"), its scores, and for labeled input the
// gold labels ("references", an object or the string) and the agreement
// with them. Its examples write to_json() (input, output, topic, atoms
// with their labels, contexts) with that object as "results", one
// pretty-printed object; its evaluation scripts write the results objects
// alone, one per line, with "model_name". Its baselines (FactScore,
// VeriScore, FactVerify) write the same results without marginals: a
// decision per atom in "predictions" ("S", "NS"; "C" and "U" when not
// binary), and "entropy": null.

// frRecorded are the fields of FactReasoner's results that this project
// defines otherwise (docs/formats.md, "Fields named as FactReasoner's but defined
// otherwise"): kept under their names beside the measures computed here.
var frRecorded = []string{"avg_entropy", "num_false_atoms"}

// frMarginal is one of FactReasoner's marginals.
type frMarginal struct {
	Variable      string    `json:"variable"`
	Probabilities []float64 `json:"probabilities"`
}

// frResults is what is read of a results object.
type frResults struct {
	Marginals   []frMarginal    `json:"marginals"`
	PerAtom     json.RawMessage `json:"factuality_score_per_atom"`
	Predictions json.RawMessage `json:"predictions"`
	Labels      json.RawMessage `json:"labels"`
	References  json.RawMessage `json:"references"`
	NumAtoms    *float64        `json:"num_atoms"`
	Query       *string         `json:"query"`
	Input       *string         `json:"input"`
	Response    *string         `json:"response"`
	Topic       *string         `json:"topic"`
}

func readFactReasoner(path string, skip func(*instance.Error)) (*Run, error) {
	run := &Run{Path: path, Kind: FactReasoner}
	first := true
	err := values(path, func(line int, raw []byte) error {
		rec, decided, err := frRecord(line, raw)
		if err == nil && !first && decided != run.Decided {
			err = &instance.FieldError{Field: "results.marginals", Msg: "missing, but the records before have them (a run file holds one system's results)"}
			if !decided {
				err = &instance.FieldError{Field: "results.marginals", Msg: "present, but the records before have none (a run file holds one system's results)"}
			}
		}
		if err != nil {
			e := recordError(path, line, raw, "", err)
			if skip == nil {
				return e
			}
			skip(e)
			return nil
		}
		if first {
			run.Decided, first = decided, false
		}
		run.Records = append(run.Records, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return run, nil
}

// frRecord reads one record of a FactReasoner result file: to_json with
// its "results", or a results object alone. decided reports a baseline's
// results (decisions, no marginals).
func frRecord(line int, raw []byte) (rec *Record, decided bool, err error) {
	names, vals, err := jsonfields.Ordered(raw)
	if err != nil {
		return nil, false, fmt.Errorf("a record is a JSON object: %w", err)
	}
	rec = &Record{Line: line, At: line}
	resultsRaw := raw
	prefix := ""
	if i := indexOf(names, "results"); i >= 0 {
		// to_json and its results: the record reads as an input record.
		in, err := instance.NewReader(bytes.NewReader(raw), "").Next()
		if err != nil {
			var ie *instance.Error
			if errors.As(err, &ie) && ie.Field != "" {
				return nil, false, &instance.FieldError{Field: ie.Field, Msg: ie.Err.Error()}
			}
			return nil, false, err
		}
		if len(in.Atoms) == 0 {
			return nil, false, &instance.FieldError{Field: "atoms", Msg: "missing: a FactReasoner result records its atoms beside its results"}
		}
		rec.Input, rec.Output, rec.Topic, rec.HasOutput = in.Input, in.Output, in.Topic, true
		rec.Atoms, rec.HasAtomText, rec.Contexts = in.Atoms, true, in.Contexts
		resultsRaw, prefix = vals[i], "results"
	}
	decided, err = rec.readResults(resultsRaw, prefix == "")
	if err != nil {
		var fe *instance.FieldError
		if errors.As(err, &fe) && prefix != "" {
			return nil, false, &instance.FieldError{Field: prefix + "." + fe.Field, Msg: fe.Msg}
		}
		return nil, false, err
	}
	if prefix != "" {
		// The atoms of to_json must be those of the results, one to one.
		field, what := "results.marginals", "marginal"
		if decided {
			field, what = "results.predictions", "prediction"
		}
		known := make(map[string]bool, len(rec.Atoms))
		for i, a := range rec.Atoms {
			known[a.ID] = true
			_, p := rec.PTrue[a.ID]
			_, d := rec.Supported[a.ID]
			if !p && !d {
				return nil, false, &instance.FieldError{Field: fmt.Sprintf("atoms[%d].id", i), Msg: fmt.Sprintf("atom %q has no %s in the results", a.ID, what)}
			}
		}
		for _, id := range sortedIDs(rec.PTrue) {
			if !known[id] {
				return nil, false, &instance.FieldError{Field: field, Msg: fmt.Sprintf("%q has a %s but is no atom of the record", id, what)}
			}
		}
		for _, id := range sortedIDs(rec.Supported) {
			if !known[id] {
				return nil, false, &instance.FieldError{Field: field, Msg: fmt.Sprintf("%q has a %s but is no atom of the record", id, what)}
			}
		}
	}
	return rec, decided, nil
}

// readResults reads a results object into the record: its marginals or
// decisions, and, for a results object alone (alone), the question,
// response, topic, atoms and gold labels it records.
func (rec *Record) readResults(raw []byte, alone bool) (decided bool, err error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return false, &instance.FieldError{Msg: "not a JSON object"}
	}
	perAtom := false // P(true) read from factuality_score_per_atom
	var r frResults
	if err := json.Unmarshal(raw, &r); err != nil {
		return false, instance.JSONError(raw, err)
	}
	names, vals, err := jsonfields.Ordered(raw)
	if err != nil {
		return false, err
	}
	if alone {
		switch {
		case r.Query != nil:
			rec.Input = *r.Query
		case r.Input != nil:
			rec.Input = *r.Input
		}
		if r.Response != nil {
			rec.Output, rec.HasOutput = *r.Response, true
		}
		if r.Topic != nil {
			rec.Topic = *r.Topic
		}
	}

	// The atoms' marginals, else their P(true) as factuality_score_per_atom
	// gives it (the same numbers, in every version), else their decisions
	// (a baseline's).
	if r.Marginals == nil && !isNull(r.PerAtom) {
		var per []json.RawMessage
		if err := json.Unmarshal(r.PerAtom, &per); err != nil {
			return false, &instance.FieldError{Field: "factuality_score_per_atom", Msg: "expected an array"}
		}
		r.Marginals = make([]frMarginal, len(per))
		for i, raw := range per {
			var a score.AtomScore
			if err := json.Unmarshal(raw, &a); err != nil {
				return false, &instance.FieldError{Field: fmt.Sprintf("factuality_score_per_atom[%d]", i), Msg: err.Error()}
			}
			r.Marginals[i] = frMarginal{Variable: a.ID, Probabilities: []float64{1 - a.Score, a.Score}}
		}
		perAtom = true
	}
	var ids []string
	switch {
	case r.Marginals != nil:
		rec.PTrue = make(map[string]float64, len(r.Marginals))
		for i, m := range r.Marginals {
			field := fmt.Sprintf("marginals[%d]", i)
			pField := func(k int) string { return fmt.Sprintf("%s.probabilities[%d]", field, k) }
			if perAtom {
				field = fmt.Sprintf("factuality_score_per_atom[%d]", i)
				pField = func(int) string { return fmt.Sprintf("%s.%s.score", field, m.Variable) }
			}
			switch {
			case m.Variable == "":
				return false, &instance.FieldError{Field: field + ".variable", Msg: "missing"}
			case len(m.Probabilities) != 2:
				return false, &instance.FieldError{Field: field + ".probabilities", Msg: fmt.Sprintf("%d numbers, want 2: P(false), P(true)", len(m.Probabilities))}
			}
			if _, dup := rec.PTrue[m.Variable]; dup {
				return false, &instance.FieldError{Field: field + ".variable", Msg: fmt.Sprintf("%q is listed twice", m.Variable)}
			}
			for _, k := range []int{1, 0} { // P(true) first: it is the one used
				p := m.Probabilities[k]
				if math.IsNaN(p) || p < 0 || p > 1 {
					return false, &instance.FieldError{Field: pField(k), Msg: fmt.Sprintf("%v is not a probability", p)}
				}
			}
			rec.PTrue[m.Variable] = m.Probabilities[1]
			ids = append(ids, m.Variable)
		}
	default:
		field, labels := "predictions", r.Predictions
		if isNull(labels) {
			field, labels = "labels", r.Labels
		}
		if isNull(labels) {
			return false, &instance.FieldError{Field: "marginals", Msg: "missing, and no factuality_score_per_atom or predictions either: not a result of FactReasoner or of its baselines"}
		}
		pairs, err := labelPairs(labels, field)
		if err != nil {
			return false, err
		}
		decided = true
		rec.Supported = make(map[string]bool, len(pairs))
		for _, p := range pairs {
			switch p.label {
			case "S":
				rec.Supported[p.id] = true
			case "NS", "C", "U": // not supported; C and U are a non-binary baseline's
				rec.Supported[p.id] = false
			default:
				return false, &instance.FieldError{Field: p.field, Msg: fmt.Sprintf("label %q is not S, NS, C or U", p.label)}
			}
			ids = append(ids, p.id)
		}
	}

	if alone {
		for _, id := range ids {
			rec.Atoms = append(rec.Atoms, instance.Atom{ID: id})
		}
		if !isNull(r.References) {
			gold, err := labelPairs(r.References, "references")
			if err != nil {
				return false, err
			}
			at := make(map[string]int, len(rec.Atoms))
			for i, a := range rec.Atoms {
				at[a.ID] = i
			}
			for _, g := range gold {
				i, ok := at[g.id]
				switch {
				case !ok:
					return false, &instance.FieldError{Field: g.field, Msg: fmt.Sprintf("%q is not an atom of the results", g.id)}
				case g.label != instance.Supported && g.label != instance.NotSupported && g.label != "":
					return false, &instance.FieldError{Field: g.field, Msg: fmt.Sprintf("label %q is not S, NS or null", g.label)}
				}
				rec.Atoms[i].Label = g.label
			}
		}
	}
	if len(ids) == 0 {
		return false, &instance.FieldError{Field: "marginals", Msg: "no atoms: nothing to score"}
	}
	if r.NumAtoms != nil && *r.NumAtoms != float64(len(ids)) {
		return false, &instance.FieldError{Field: "num_atoms", Msg: fmt.Sprintf("%v, but the results are of %d atoms", *r.NumAtoms, len(ids))}
	}

	for _, name := range frRecorded {
		i := indexOf(names, name)
		if i < 0 {
			continue
		}
		v := Value{Name: name}
		if !isNull(vals[i]) {
			var x float64
			if err := json.Unmarshal(vals[i], &x); err != nil {
				return false, &instance.FieldError{Field: name, Msg: "expected a number or null"}
			}
			v.Value = &x
		}
		rec.Recorded = append(rec.Recorded, v)
	}
	return decided, nil
}

// labelPair is one atom's label in FactReasoner's predictions or
// references, and the field it is in.
type labelPair struct{ id, label, field string }

// labelPairs reads FactReasoner's labels of atoms: an object {"a0": "S"}
// (a null label is none) or the string " a0: S a1: NS".
func labelPairs(raw json.RawMessage, field string) ([]labelPair, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		f := strings.Fields(s)
		if len(f)%2 != 0 {
			return nil, &instance.FieldError{Field: field, Msg: fmt.Sprintf("%q is not \" a0: S a1: NS …\"", shorten(s))}
		}
		var out []labelPair
		for i := 0; i < len(f); i += 2 {
			id, ok := strings.CutSuffix(f[i], ":")
			if !ok || id == "" {
				return nil, &instance.FieldError{Field: field, Msg: fmt.Sprintf("%q is not \" a0: S a1: NS …\"", shorten(s))}
			}
			out = append(out, labelPair{id, f[i+1], field})
		}
		return out, nil
	}
	names, vals, err := jsonfields.Ordered(raw)
	if err != nil {
		return nil, &instance.FieldError{Field: field, Msg: "expected an object {\"a0\": \"S\", …} or a string \" a0: S …\""}
	}
	out := make([]labelPair, len(names))
	for i, name := range names {
		out[i] = labelPair{id: name, field: field + "." + name}
		if isNull(vals[i]) {
			continue
		}
		if err := json.Unmarshal(vals[i], &out[i].label); err != nil {
			return nil, &instance.FieldError{Field: field + "." + name, Msg: "expected a string label or null"}
		}
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

func shorten(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return s
}
