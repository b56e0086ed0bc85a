package instance

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// contextJSON is a context as a record writes it: its probability is read
// by parseProbability, which names NaN and Infinity.
type contextJSON struct {
	Context
	Probability json.RawMessage `json:"probability"`
}

// relationJSON is a relation as a record writes it.
type relationJSON struct {
	Source      string          `json:"source"`
	Target      string          `json:"target"`
	Type        string          `json:"type"`
	Probability json.RawMessage `json:"probability"`
}

// decodeValid decodes a record (quoted by quoteNonFinite) that is valid:
// the same Instance as decodeErr, from one pass over the record's top
// level that decodes each field's value where it belongs (a context once,
// not once as the record's and again as its own), and keeps the unknown
// fields on the way. For a record that is not valid JSON, has a value of
// the wrong type or fails Validate, it gives nil, without saying why:
// decodeErr says it.
//
// Its results are decodeErr's because it decodes as json.Unmarshal
// decodes an object into a struct: names match case-insensitively, the
// last of a repeated name counts (atoms decode into the same slice again,
// as there; contexts and relations are taken from the last, as decodeErr
// takes them), and each value is checked by the decoder it is given to
// (json.Valid for an unknown field's), the bytes between them here.
func decodeValid(raw []byte) *Instance {
	var out Instance
	ok := objectFields(raw, func(name string, value []byte) bool {
		switch {
		case strings.EqualFold(name, "input"):
			return json.Unmarshal(value, &out.Input) == nil
		case strings.EqualFold(name, "output"):
			return json.Unmarshal(value, &out.Output) == nil
		case strings.EqualFold(name, "topic"):
			return json.Unmarshal(value, &out.Topic) == nil
		case strings.EqualFold(name, "atoms"):
			return json.Unmarshal(value, &out.Atoms) == nil
		case strings.EqualFold(name, "contexts"):
			var cs []contextJSON
			if json.Unmarshal(value, &cs) != nil {
				return false
			}
			out.Contexts = nil
			if cs != nil {
				out.Contexts = make([]Context, len(cs))
			}
			for i, c := range cs {
				p, err := parseProbability(c.Probability)
				if err != nil {
					return false
				}
				out.Contexts[i] = c.Context
				out.Contexts[i].Probability = p
			}
			return true
		case strings.EqualFold(name, "relations"):
			var rs []relationJSON
			if json.Unmarshal(value, &rs) != nil {
				return false
			}
			out.Relations = nil // null: none given
			if rs != nil {
				out.Relations = make([]Relation, len(rs)) // [] too: given, none
			}
			for i, r := range rs {
				p, err := parseProbability(r.Probability)
				if err != nil || p == nil {
					return false
				}
				out.Relations[i] = Relation{Source: r.Source, Target: r.Target, Type: r.Type, Probability: *p}
			}
			return true
		}
		if !json.Valid(value) {
			return false
		}
		out.Extra = addField(out.Extra, name, bytes.Clone(value))
		return true
	})
	if !ok || out.Validate() != nil {
		return nil
	}
	return &out
}

// knownField reports whether name is one of Instance's JSON names, as
// json.Unmarshal matches them: case-insensitively.
func knownField(name string) bool {
	for _, f := range instanceFields {
		if strings.EqualFold(f, name) {
			return true
		}
	}
	return false
}

// addField adds a field to the end of fields; one of the same name
// already there is dropped (the last value counts, as in json.Unmarshal).
func addField(fields []Field, name string, value json.RawMessage) []Field {
	if i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == name }); i >= 0 {
		fields = slices.Delete(fields, i, i+1)
	}
	return append(fields, Field{Name: name, Value: value})
}

// objectFields calls fn with the name and value of each field of the JSON
// object data, in order, and reports whether data is an object (and
// spaces) and fn took every field. Only the object's own syntax is
// checked here: a value is given as the bytes from its first to its last,
// unchecked, for fn to check as it decodes it.
func objectFields(data []byte, fn func(name string, value []byte) bool) bool {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		if i == len(data) || data[i] != '"' {
			return false
		}
		end := stringEnd(data, i)
		if end < 0 {
			return false
		}
		name, ok := unquoteName(data[i:end])
		if !ok {
			return false
		}
		i = skipSpace(data, end)
		if i == len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		end = valueEnd(data, i)
		if end < 0 || !fn(name, data[i:end]) {
			return false
		}
		i = skipSpace(data, end)
		if i == len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return skipSpace(data, i+1) == len(data)
		case ',':
			i = skipSpace(data, i+1)
		default:
			return false
		}
	}
}

// unquoteName decodes a JSON string (with its quotes) as json.Unmarshal
// decodes a field name; one of plain ASCII is taken as it is.
func unquoteName(q []byte) (string, bool) {
	for _, c := range q[1 : len(q)-1] {
		if c < 0x20 || c == '\\' || c >= 0x80 {
			var s string
			return s, json.Unmarshal(q, &s) == nil
		}
	}
	return string(q[1 : len(q)-1]), true
}

// skipSpace returns the index of the first byte of data from i on that is
// not JSON white space, or len(data).
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the JSON string that starts at
// data[i] (a quote): after the first quote not escaped by a backslash; -1
// if there is none.
func stringEnd(data []byte, i int) int {
	for j := i + 1; ; j++ {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		backslashes := 0
		for data[j-1-backslashes] == '\\' { // stops at the opening quote
			backslashes++
		}
		if backslashes%2 == 0 {
			return j + 1
		}
	}
}

// valueEnd returns the index after the JSON value that starts at data[i],
// found by its brackets and quotes (not checked), or -1 if there is none.
func valueEnd(data []byte, i int) int {
	if i == len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end := stringEnd(data, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) && !strings.ContainsRune(" \t\r\n,}]", rune(data[j])) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
