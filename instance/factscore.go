package instance

import (
	"encoding/json"
	"fmt"
)

// LabeledRecord is one line of FActScore's human-labeled data
// (data/labeled/*.jsonl in the FActScore release).
type LabeledRecord struct {
	Input  string `json:"input"`
	Output string `json:"output"`
	Topic  string `json:"topic"`
	// Annotations is nil when the model abstained from answering.
	Annotations []Annotation `json:"annotations"`
}

// Annotation is one sentence of a labeled response.
type Annotation struct {
	Text             string        `json:"text"`
	IsRelevant       bool          `json:"is-relevant"`
	HumanAtomicFacts []LabeledFact `json:"human-atomic-facts"`
	ModelAtomicFacts []LabeledFact `json:"model-atomic-facts"`
}

// LabeledFact is an atomic fact with its human label: S (supported), NS (not
// supported) or IR (irrelevant); model facts carry no label.
type LabeledFact struct {
	Text  string `json:"text"`
	Label string `json:"label,omitempty"`
}

// Label used by FActScore for irrelevant facts.
const Irrelevant = "IR"

// ParseLabeled decodes one line of FActScore's labeled format.
//
// A record without an "annotations" field is not in this format (a
// FactReasoner record in a labeled file, say) and is an error; a null
// "annotations" is a response that abstained.
func ParseLabeled(line []byte) (*LabeledRecord, error) {
	var rec LabeledRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return nil, JSONError(line, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return nil, JSONError(line, err)
	}
	if _, ok := fields["annotations"]; !ok {
		return nil, &FieldError{"annotations", "missing: not a record of FActScore's labeled format (a FactReasoner record among labeled ones? keep the formats in separate files)"}
	}
	for i, a := range rec.Annotations {
		for j, f := range a.HumanAtomicFacts {
			switch f.Label {
			case Supported, NotSupported, Irrelevant:
			default:
				return nil, &FieldError{fmt.Sprintf("annotations[%d].human-atomic-facts[%d].label", i, j),
					fmt.Sprintf("label %q is not S, NS or IR", f.Label)}
			}
		}
	}
	return &rec, nil
}

// Abstained reports whether the model declined to answer (FActScore counts
// such responses as not responding).
func (r *LabeledRecord) Abstained() bool { return r.Annotations == nil }

// Instance converts a labeled record to FactReasoner's format: the atoms are
// the human atomic facts of the relevant sentences whose label is S or NS,
// with ids a0, a1, ... in order. It has no contexts.
func (r *LabeledRecord) Instance() *Instance {
	in := &Instance{Input: r.Input, Output: r.Output, Topic: r.Topic}
	for _, a := range r.Annotations {
		if !a.IsRelevant {
			continue
		}
		for _, f := range a.HumanAtomicFacts {
			if f.Label != Supported && f.Label != NotSupported {
				continue
			}
			in.Atoms = append(in.Atoms, Atom{
				ID:       fmt.Sprintf("a%d", len(in.Atoms)),
				Text:     f.Text,
				Original: f.Text,
				Label:    f.Label,
			})
		}
	}
	return in
}
