package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
)

// Decode reads one output line of fr score and checks that it is one: it
// has its input line, version, scores, K and marginals, and each marginal
// is a probability. Fields written by older versions of the tool may be
// missing (Recorded says which a line has). Errors are *instance.FieldError
// naming the field by its path ("marginals[3].probabilities[1]").
func Decode(raw []byte) (*Line, error) {
	var l Line
	if err := l.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return &l, nil
}

// FromInstance reads the output line that a record read by instance.Scan
// is (an output line given as input, as fr inspect and fr compare take
// them), and checks it as Decode does. Its input, output, topic, atoms and
// contexts are the record's; its Relations are left nil (they are the
// record's Relations); the other fields come from the record's Extra.
func FromInstance(in *instance.Instance) (*Line, error) {
	obj, err := instance.AppendFields([]byte("{}"), in.Extra, func(string) bool { return false })
	if err != nil {
		return nil, err
	}
	var l Line
	if err := l.UnmarshalJSON(obj); err != nil {
		return nil, err
	}
	l.Input, l.Output, l.Topic, l.Atoms, l.Contexts = in.Input, in.Output, in.Topic, in.Atoms, in.Contexts
	for _, f := range []string{"input", "output", "topic"} {
		l.present[f] = true
	}
	if len(in.Atoms) > 0 {
		l.present["atoms"] = true
	}
	if len(in.Contexts) > 0 {
		l.present["contexts"] = true
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return &l, nil
}

// IsLine reports whether a record read by instance.Scan is an output line
// of fr score (it carries marginals and a version).
func IsLine(in *instance.Instance) bool {
	var m, v bool
	for _, f := range in.Extra {
		m = m || f.Name == "marginals"
		v = v || f.Name == "version"
	}
	return m && v
}

// UnmarshalJSON decodes a line without checking it (Decode checks):
// errors name the field; the fields Line does not know are kept in Extra,
// in order. Relations are decoded one at a time, so that an error names
// its index, and a neutral one (which makes no factor) is an error.
func (l *Line) UnmarshalJSON(data []byte) error {
	type plain Line // without this method
	var w struct {
		*plain
		Relations []json.RawMessage `json:"relations"`
	}
	*l = Line{}
	w.plain = (*plain)(l)
	if err := json.Unmarshal(data, &w); err != nil {
		return instance.JSONError(data, err)
	}
	if w.Relations != nil {
		l.Relations = make([]graph.Relation, len(w.Relations))
		for i, raw := range w.Relations {
			r, err := decodeRelation(raw)
			if err != nil {
				field := fmt.Sprintf("relations[%d]", i)
				if err.Field != "" {
					field += "." + err.Field
				}
				return &instance.FieldError{Field: field, Msg: err.Msg}
			}
			l.Relations[i] = r
		}
	}
	present, extra, err := scanFields(data)
	if err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	l.present, l.Extra = present, extra
	return nil
}

// decodeRelation reads one relation of a line, by the rules of an input
// record's relations (instance.Relation), into a relation between
// variables.
func decodeRelation(raw []byte) (graph.Relation, *instance.FieldError) {
	var r instance.Relation
	if err := json.Unmarshal(raw, &r); err != nil {
		var fe *instance.FieldError
		if errors.As(err, &fe) {
			return graph.Relation{}, fe
		}
		if fe, ok := instance.JSONError(raw, err).(*instance.FieldError); ok {
			return graph.Relation{}, fe
		}
		return graph.Relation{}, &instance.FieldError{Msg: err.Error()}
	}
	if r.Type == instance.TypeNeutral {
		return graph.Relation{}, &instance.FieldError{Field: "type", Msg: "neutral relations make no factor"}
	}
	var t graph.RelationType
	if err := t.UnmarshalText([]byte(r.Type)); err != nil {
		return graph.Relation{}, &instance.FieldError{Field: "type", Msg: err.Error()}
	}
	if math.IsNaN(r.Probability) || r.Probability < 0 || r.Probability > 1 {
		return graph.Relation{}, &instance.FieldError{Field: "probability", Msg: fmt.Sprintf("%v is not a probability", r.Probability)}
	}
	return graph.Relation{Source: r.Source, Target: r.Target, Type: t, Probability: r.Probability}, nil
}

// scanFields returns the names of the fields of the JSON object data that
// Line knows, and its other fields in order. Names are matched as
// json.Unmarshal matches them, case-insensitively; of a repeated name the
// last value counts, as there.
func scanFields(data []byte) (map[string]bool, []instance.Field, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, nil, err
	}
	present := make(map[string]bool)
	var extra []instance.Field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if known := knownField(name); known != "" {
			present[known] = true
			continue
		}
		for i, f := range extra {
			if f.Name == name {
				extra = append(extra[:i], extra[i+1:]...)
				break
			}
		}
		extra = append(extra, instance.Field{Name: name, Value: v})
	}
	return present, extra, nil
}

// knownField is the JSON name of Line's field that name stands for, or "".
func knownField(name string) string {
	if IsField(name) {
		return name
	}
	for f := range lineFields() {
		if strings.EqualFold(f, name) {
			return f
		}
	}
	return ""
}

// Validate checks that a decoded line is an output line of fr score: it
// has its input line, version, scores, K and marginals; every marginal is
// a probability of a distinct, named variable; its priors are priors.
func (l *Line) Validate() error {
	for _, f := range []struct{ name, msg string }{
		{"line", "missing (the input line of the record; is this an output file of fr score?)"},
		{"factuality_score", "missing (is this an output file of fr score?)"},
		{"num_atoms", "missing (is this an output file of fr score?)"},
		{"version", "missing"},
		{"marginals", "missing"},
		{"k", "missing"},
	} {
		if !l.present[f.name] {
			return &instance.FieldError{Field: f.name, Msg: f.msg}
		}
	}
	if l.Line <= 0 {
		return &instance.FieldError{Field: "line", Msg: fmt.Sprintf("%d is not a line number", l.Line)}
	}
	if _, err := graph.ParseVersion(l.Version); err != nil {
		return &instance.FieldError{Field: "version", Msg: err.Error()}
	}
	if l.Marginals == nil {
		return &instance.FieldError{Field: "marginals", Msg: "missing"}
	}
	seen := make(map[string]bool, len(l.Marginals)+len(l.ContextMarginals))
	for _, m := range []struct {
		field string
		list  []Marginal
	}{{"marginals", l.Marginals}, {"context_marginals", l.ContextMarginals}} {
		for i, v := range m.list {
			p := v.Probabilities[1]
			switch {
			case v.Variable == "":
				return &instance.FieldError{Field: fmt.Sprintf("%s[%d].variable", m.field, i), Msg: "missing"}
			case math.IsNaN(p) || p < 0 || p > 1:
				return &instance.FieldError{Field: fmt.Sprintf("%s[%d].probabilities[1]", m.field, i), Msg: fmt.Sprintf("%v is not a probability", p)}
			case seen[v.Variable]:
				return &instance.FieldError{Field: fmt.Sprintf("%s[%d].variable", m.field, i), Msg: fmt.Sprintf("%q is listed twice", v.Variable)}
			case v.Error != 0 && !(v.Error > 0 && v.Error <= 1):
				return &instance.FieldError{Field: fmt.Sprintf("%s[%d].error", m.field, i), Msg: fmt.Sprintf("%v is not in (0, 1]", v.Error)}
			}
			seen[v.Variable] = true
		}
	}
	if l.Abstained && l.NumAtoms != 0 {
		return &instance.FieldError{Field: "abstained", Msg: fmt.Sprintf("true, but the line has %d atoms: a response that abstained has none", l.NumAtoms)}
	}
	if len(l.Marginals) != l.NumAtoms {
		return &instance.FieldError{Field: "marginals", Msg: fmt.Sprintf("%d of them but num_atoms is %d", len(l.Marginals), l.NumAtoms)}
	}
	if l.Priors != nil {
		if err := l.Priors.Validate(); err != nil {
			return &instance.FieldError{Field: "priors", Msg: err.Error()}
		}
		for id, p := range l.Priors.ContextPriors {
			if !(p > 0 && p < 1) {
				return &instance.FieldError{Field: "priors.context_priors." + id, Msg: fmt.Sprintf("prior %v is not in (0, 1)", p)}
			}
		}
	}
	return nil
}
