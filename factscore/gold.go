package factscore

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/instance"
)

// GoldLabeled counts a FActScore labeled record's human atomic facts: the
// supported ones (S) and all of them (S, NS and IR), over every annotated
// sentence. This is the human FActScore of the paper, S / (S + NS + IR)
// (58.3 for ChatGPT). The counts do not say whether the response
// abstained (r.Abstained does): an answer whose sentences are all
// irrelevant has no facts either, but responded.
func GoldLabeled(r *instance.LabeledRecord) (supported, facts int) {
	for _, a := range r.Annotations {
		for _, f := range a.HumanAtomicFacts {
			facts++
			if f.Label == instance.Supported {
				supported++
			}
		}
	}
	return supported, facts
}

// GoldInstance counts a FactReasoner record's gold labels: the atoms
// labeled S, and all atoms. Every atom must be labeled S or NS; a record
// without atoms has no facts.
func GoldInstance(in *instance.Instance) (supported, facts int, err error) {
	for i, a := range in.Atoms {
		switch a.Label {
		case instance.Supported:
			supported++
		case instance.NotSupported:
		default:
			return 0, 0, &instance.FieldError{Field: fmt.Sprintf("atoms[%d].label", i),
				Msg: fmt.Sprintf("atom %s has no gold label; gold scores need every atom labeled S or NS", a.ID)}
		}
	}
	return supported, len(in.Atoms), nil
}
