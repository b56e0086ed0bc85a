// Package instance holds the FactReasoner data model: a response, its atoms,
// the contexts retrieved for them and, optionally, precomputed relations. It
// reads and validates FactReasoner jsonl (and the single pretty-printed JSON
// object some published files use) and converts FActScore's labeled format.
package instance

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Instance is one record of a FactReasoner input file.
type Instance struct {
	Input    string    `json:"input"`
	Output   string    `json:"output"`
	Topic    string    `json:"topic,omitempty"`
	Atoms    []Atom    `json:"atoms,omitempty"`
	Contexts []Context `json:"contexts,omitempty"`
	// Relations are the record's own NLI relations: nil when the record
	// has none (they are found by a model), and not nil, though empty,
	// when it says it has none (`"relations": []`, as fr score writes a
	// record whose relations were all neutral): the record's relations
	// are then given, and there are none.
	Relations []Relation `json:"relations,omitzero"`

	// Extra holds the record's fields that this package does not know (a
	// user's "id" or "cat", say), in input order, so that the tools pass
	// them through unchanged. They are written after the known fields.
	Extra []Field `json:"-"`

	// Line is the 1-based line of the source file where the record starts.
	// Output records carry it so that an interrupted run can be resumed.
	Line int `json:"-"`
}

// Field is a field of a JSON object, its value as it was read.
type Field struct {
	Name  string
	Value json.RawMessage
}

// MarshalJSON writes the record's known fields, then its Extra fields.
func (in Instance) MarshalJSON() ([]byte, error) {
	type plain Instance // without this method
	b, err := json.Marshal(plain(in))
	if err != nil {
		return nil, err
	}
	return AppendFields(b, in.Extra, isInstanceField)
}

// instanceFields are the JSON names of Instance's fields.
var instanceFields = [...]string{"input", "output", "topic", "atoms", "contexts", "relations"}

func isInstanceField(name string) bool {
	for _, f := range instanceFields {
		if f == name {
			return true
		}
	}
	return false
}

// AppendFields adds fields to the end of the JSON object obj (as
// json.Marshal writes it), leaving out those whose name skip reports:
// skip must report every field obj has. Field values are taken as they
// are.
func AppendFields(obj []byte, fields []Field, skip func(name string) bool) ([]byte, error) {
	if len(fields) == 0 {
		return obj, nil
	}
	out := obj[:len(obj)-1] // without the closing brace
	empty := len(obj) == 2  // {}
	for _, f := range fields {
		if skip(f.Name) {
			continue
		}
		name, err := json.Marshal(f.Name)
		if err != nil {
			return nil, err
		}
		if !empty {
			out = append(out, ',')
		}
		empty = false
		out = append(append(append(out, name...), ':'), f.Value...)
	}
	return append(out, '}'), nil
}

// Atom is one atomic unit of the response.
type Atom struct {
	ID       string `json:"id"`
	Text     string `json:"text"`               // revised, stand-alone text
	Original string `json:"original,omitempty"` // as extracted, before revision
	// Label is the gold label: "S" (supported), "NS" (not supported) or ""
	// (unlabeled).
	Label    string   `json:"label,omitempty"`
	Contexts []string `json:"contexts,omitempty"` // ids of the contexts retrieved for it
}

// Context is one evidence passage.
type Context struct {
	ID      string `json:"id"`
	Title   string `json:"title,omitempty"`
	Text    string `json:"text,omitempty"`
	Snippet string `json:"snippet,omitempty"`
	Link    string `json:"link,omitempty"`
	// Source names the knowledge source the context was retrieved from
	// ("wikipedia", "db", ...), when the tool retrieved it.
	Source string `json:"source,omitempty"`
	// Probability is the context's own prior P(true) (FactReasoner's
	// Context.probability), when the record gives one; nil means the
	// network's context prior.
	Probability *float64 `json:"probability,omitempty"`
	// SyntheticSummary is what a summarizer wrote about the context with
	// respect to its atom (FactReasoner's synthetic_summary), when present.
	SyntheticSummary string `json:"synthetic_summary,omitempty"`
}

// NLIText is the text the NLI model sees as the premise: snippet and text
// together when both are present, else whichever is non-empty.
func (c Context) NLIText() string {
	switch {
	case c.Snippet != "" && c.Text != "":
		return "Snippet/Summary of Text:\n\n" + c.Snippet + "\n\nText:\n\n" + c.Text
	case c.Text != "":
		return c.Text
	default:
		return c.Snippet
	}
}

// Empty reports whether the context has neither text nor snippet: its NLI
// text is empty, so it can relate to nothing.
func (c Context) Empty() bool {
	return strings.TrimSpace(c.Text) == "" && strings.TrimSpace(c.Snippet) == ""
}

// WithoutEmptyContexts returns the record without its empty contexts
// (Context.Empty), and their ids in file order. Atoms that list an empty
// context keep their other contexts; relations that name one are left out
// with it. When no context is empty it returns in itself; otherwise in is
// not modified.
func (in *Instance) WithoutEmptyContexts() (*Instance, []string) {
	var dropped []string
	empty := make(map[string]bool)
	for _, c := range in.Contexts {
		if c.Empty() {
			dropped = append(dropped, c.ID)
			empty[c.ID] = true
		}
	}
	if len(dropped) == 0 {
		return in, nil
	}
	out := *in
	out.Contexts = make([]Context, 0, len(in.Contexts)-len(dropped))
	for _, c := range in.Contexts {
		if !c.Empty() {
			out.Contexts = append(out.Contexts, c)
		}
	}
	out.Atoms = make([]Atom, len(in.Atoms))
	for i, a := range in.Atoms {
		out.Atoms[i] = a
		if slices.ContainsFunc(a.Contexts, func(id string) bool { return empty[id] }) {
			out.Atoms[i].Contexts = slices.DeleteFunc(slices.Clone(a.Contexts), func(id string) bool { return empty[id] })
		}
	}
	if slices.ContainsFunc(in.Relations, func(r Relation) bool { return empty[r.Source] || empty[r.Target] }) {
		out.Relations = slices.DeleteFunc(slices.Clone(in.Relations), func(r Relation) bool { return empty[r.Source] || empty[r.Target] })
	}
	return &out, dropped
}

// Relation is a precomputed NLI relation (the "relations" extension): the
// source is a context, the target an atom or a context.
type Relation struct {
	Source      string  `json:"source"`
	Target      string  `json:"target"`
	Type        string  `json:"type"` // entailment, contradiction, equivalence or neutral
	Probability float64 `json:"probability"`
}

// Relation types accepted in the "relations" field.
const (
	TypeEntailment    = "entailment"
	TypeContradiction = "contradiction"
	TypeEquivalence   = "equivalence"
	TypeNeutral       = "neutral"
)

// Gold labels.
const (
	Supported    = "S"
	NotSupported = "NS"
)

// Labeled reports whether any atom carries a gold label.
func (in *Instance) Labeled() bool {
	for _, a := range in.Atoms {
		if a.Label != "" {
			return true
		}
	}
	return false
}

// FieldError is a problem with one field of a record.
type FieldError struct {
	Field string // a JSON path such as atoms[3].contexts[1]
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Limits on a record, checked by Validate. A record beyond them is refused
// rather than scored: FR2 and FR3 ask about every atom with every context,
// and FR3 about every pair of contexts, so work and memory grow with their
// product and square.
const (
	MaxAtoms     = 10_000
	MaxContexts  = 10_000
	MaxRelations = 1_000_000
)

// Validate checks the record for the problems that would make scoring it
// meaningless or impossible. It returns the first problem found.
//
// An empty output is valid when the record gives its atoms (ConflictBank's
// records have "output": "" and their atoms). A context with neither text
// nor snippet is valid too: FactReasoner keeps such contexts (a web search
// hit without a snippet), and the pipeline drops them with a warning
// (WithoutEmptyContexts).
func (in *Instance) Validate() error {
	if strings.TrimSpace(in.Output) == "" && len(in.Atoms) == 0 {
		return &FieldError{"output", "empty response, and no atoms given"}
	}
	for _, l := range []struct {
		field  string
		n, max int
	}{{"atoms", len(in.Atoms), MaxAtoms}, {"contexts", len(in.Contexts), MaxContexts}, {"relations", len(in.Relations), MaxRelations}} {
		if l.n > l.max {
			return &FieldError{l.field, fmt.Sprintf("%d entries, more than the %d a record may have", l.n, l.max)}
		}
	}
	ids := make(map[string]string) // id -> field that defined it
	contexts := make(map[string]bool)
	for i, c := range in.Contexts {
		f := fmt.Sprintf("contexts[%d]", i)
		if c.ID == "" {
			return &FieldError{f + ".id", "missing id"}
		}
		if prev, ok := ids[c.ID]; ok {
			return &FieldError{f + ".id", fmt.Sprintf("duplicate id %q (also %s)", c.ID, prev)}
		}
		ids[c.ID] = f
		contexts[c.ID] = true
		if p := c.Probability; p != nil && !(*p >= 0 && *p <= 1) {
			return &FieldError{f + ".probability", fmt.Sprintf("probability %v is not in [0, 1]", *p)}
		}
	}
	for i, a := range in.Atoms {
		f := fmt.Sprintf("atoms[%d]", i)
		if a.ID == "" {
			return &FieldError{f + ".id", "missing id"}
		}
		if prev, ok := ids[a.ID]; ok {
			return &FieldError{f + ".id", fmt.Sprintf("duplicate id %q (also %s)", a.ID, prev)}
		}
		ids[a.ID] = f
		if strings.TrimSpace(a.Text) == "" {
			return &FieldError{f + ".text", fmt.Sprintf("atom %q has no text", a.ID)}
		}
		switch a.Label {
		case "", Supported, NotSupported:
		default:
			return &FieldError{f + ".label", fmt.Sprintf("label %q is not S, NS or null", a.Label)}
		}
		for j, cid := range a.Contexts {
			if !contexts[cid] {
				return &FieldError{fmt.Sprintf("%s.contexts[%d]", f, j), fmt.Sprintf("unknown context id %q", cid)}
			}
		}
	}
	for i, r := range in.Relations {
		f := fmt.Sprintf("relations[%d]", i)
		if !contexts[r.Source] {
			return &FieldError{f + ".source", fmt.Sprintf("source %q is not a context id", r.Source)}
		}
		if _, ok := ids[r.Target]; !ok {
			return &FieldError{f + ".target", fmt.Sprintf("target %q is not an atom or context id", r.Target)}
		}
		if r.Target == r.Source {
			return &FieldError{f + ".target", "a relation cannot link a context to itself"}
		}
		switch r.Type {
		case TypeEntailment, TypeContradiction, TypeEquivalence, TypeNeutral:
		default:
			return &FieldError{f + ".type", fmt.Sprintf("unknown relation type %q (want entailment, contradiction, equivalence or neutral)", r.Type)}
		}
		if math.IsNaN(r.Probability) || math.IsInf(r.Probability, 0) || r.Probability < 0 || r.Probability > 1 {
			return &FieldError{f + ".probability", fmt.Sprintf("probability %v is not in [0, 1]", r.Probability)}
		}
	}
	return nil
}
