package instance

import (
	"github.com/factreasoner/factreasoner-go/internal/jsonpath"
)

// Locate returns the offset where the value at a field path such as
// "results.marginals[3].probabilities" starts in the JSON text data (for
// readers of other record formats that name a field and its line); for a
// path that is not there, where its nearest enclosing value that is there
// starts; -1 when data cannot be read.
func Locate(data []byte, path string) int { return jsonpath.Locate(data, path) }

// JSONError describes an error of decoding the JSON data into a Go value
// in the terms of the JSON: a value of the wrong type is a *FieldError
// naming its path and the JSON types ("expected number, got JSON string"),
// not the Go types; anything else is "invalid JSON: …".
func JSONError(data []byte, err error) error {
	if fe := typeError(data, err); fe != nil {
		return fe
	}
	return jsonpath.Error(data, err)
}

// typeError turns a json.UnmarshalTypeError from decoding data into a
// FieldError whose field is the value's full path, indices included; nil
// for other errors.
func typeError(data []byte, err error) *FieldError {
	path, msg, ok := jsonpath.TypeError(data, err)
	if !ok {
		return nil
	}
	return &FieldError{path, msg}
}
