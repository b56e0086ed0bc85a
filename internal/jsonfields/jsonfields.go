// Package jsonfields decodes a JSON object's fields in their order, which
// encoding/json's maps do not keep: for readers that keep another
// system's fields as it wrote them, and writers that add fields beside
// others.
package jsonfields

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
)

// Ordered returns the names and values of the fields of the JSON object
// raw, in order. Of a name given twice the last value counts, as with
// json.Unmarshal, in the place of the last.
func Ordered(raw []byte) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var names []string
	var vals []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		name, _ := t.(string)
		if i := slices.Index(names, name); i >= 0 {
			names, vals = slices.Delete(names, i, i+1), slices.Delete(vals, i, i+1)
		}
		names, vals = append(names, name), append(vals, v)
	}
	return names, vals, nil
}
