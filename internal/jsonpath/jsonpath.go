// Package jsonpath finds values in JSON text by path (atoms[3].label), so
// that an error about a value can name its exact field, and says what is
// wrong with a value in the terms of the JSON, not of the Go types it was
// decoded into.
package jsonpath

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// walk calls fn for every value of the JSON text data, children before
// their parent, with its path ("" for the whole value, then names and
// indices: atoms, atoms[0], atoms[0].label) and the byte offsets where it
// starts and ends. It stops when fn returns false or at the first syntax
// error.
func walk(data []byte, fn func(path string, start, end int) bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func(path string) bool
	walk = func(path string) bool {
		start := valueStart(data, int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return false
				}
				name, _ := key.(string)
				if path != "" {
					name = path + "." + name
				}
				if !walk(name) {
					return false
				}
			}
			if _, err := dec.Token(); err != nil {
				return false
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if !walk(fmt.Sprintf("%s[%d]", path, i)) {
					return false
				}
			}
			if _, err := dec.Token(); err != nil {
				return false
			}
		}
		return fn(path, start, int(dec.InputOffset()))
	}
	walk("")
}

// valueStart returns the offset of the first byte at or after off that is
// not white space or a separator (the start of the next JSON value).
func valueStart(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

// pathAt returns the path of the innermost value of data that holds the
// byte offset off, as json.UnmarshalTypeError reports it: just past the end
// of a literal, or just past the opening bracket of an object or array.
func at(data []byte, off int) (path string, ok bool) {
	walk(data, func(p string, start, end int) bool {
		if start < off && off <= end {
			path, ok = p, true
			return false // children come first: this is the innermost
		}
		return true
	})
	return path, ok
}

// Locate returns the offset where the value at a field path such as
// "results.marginals[3].probabilities" starts in the JSON text data; for
// a path that is not there, where its nearest enclosing value that is
// there starts; -1 when data cannot be read.
func Locate(data []byte, path string) int {
	starts := make(map[string]int)
	walk(data, func(p string, start, _ int) bool {
		starts[p] = start
		return true
	})
	for {
		if off, ok := starts[path]; ok {
			return off
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			if path == "" {
				return -1
			}
			path = ""
			continue
		}
		path = path[:i]
	}
}

// TypeError says, for an error of decoding the JSON text data into a Go
// value that is a value of the wrong type (json.UnmarshalTypeError), the
// value's full path, indices included, and what is wrong in the terms of
// the JSON ("expected number, got JSON string"), not of the Go types; ok
// is false for other errors.
func TypeError(data []byte, err error) (path, msg string, ok bool) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return "", "", false
	}
	path, found := at(data, int(te.Offset))
	if !found {
		path = te.Field // the names without the indices
	}
	got := te.Value
	if got == "bool" {
		got = "boolean"
	}
	return path, fmt.Sprintf("expected %s, got JSON %s", jsonType(te.Type), got), true
}

// Error describes an error of decoding the JSON text data in the terms
// of the JSON: "PATH: expected number, got JSON string" for a value of
// the wrong type, else "invalid JSON: …" (json's own words, which name no
// Go type for a syntax error).
func Error(data []byte, err error) error {
	if path, msg, ok := TypeError(data, err); ok {
		if path == "" {
			return errors.New(msg)
		}
		return fmt.Errorf("%s: %s", path, msg)
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

// jsonType names the JSON type that decodes into a Go type.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return t.String()
}
