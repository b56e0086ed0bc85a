package hftokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/jsonpath"
)

// obj is a JSON object of a tokenizer.json being read, with its path in the
// file (model.vocab, normalizer.normalizers[2]) for error messages.
type obj struct {
	path string
	m    map[string]json.RawMessage
}

// loadError is an error about a place in the file.
func (o obj) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", o.path, fmt.Sprintf(format, args...))
}

func parseObj(path string, raw json.RawMessage) (obj, error) {
	o := obj{path: path}
	if err := json.Unmarshal(raw, &o.m); err != nil {
		return o, fmt.Errorf("%s: want an object: %w", path, err)
	}
	if o.m == nil {
		return o, fmt.Errorf("%s: want an object, got null", path)
	}
	return o, nil
}

// isNull reports a missing or null value.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// only refuses keys other than the component's known ones: an option this
// implementation does not know could change the tokens, so it is not
// ignored.
func (o obj) only(keys ...string) error {
	var unknown []string
	for k := range o.m {
		if k != "type" && !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return o.errorf("unknown option %s (this implementation knows %s)", strings.Join(unknown, ", "), strings.Join(keys, ", "))
	}
	return nil
}

func (o obj) typ() (string, error) {
	var t string
	raw, ok := o.m["type"]
	if !ok {
		return "", o.errorf("no type")
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", o.errorf("type: %v", err)
	}
	return t, nil
}

// get decodes key into v; a missing or null key leaves v as it is and
// returns false.
func (o obj) get(key string, v any) (bool, error) {
	raw, ok := o.m[key]
	if !ok || isNull(raw) {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		// In the JSON's terms (the path within the value, what type it
		// holds), not the Go types it was decoded into.
		return false, fmt.Errorf("%s.%s: %w", o.path, key, jsonpath.Error(raw, err))
	}
	return true, nil
}

// need is get for a required key.
func (o obj) need(key string, v any) error {
	ok, err := o.get(key, v)
	if err != nil {
		return err
	}
	if !ok {
		return o.errorf("missing %s", key)
	}
	return nil
}

func (o obj) str(key, def string) (string, error) {
	s := def
	_, err := o.get(key, &s)
	return s, err
}

func (o obj) boolean(key string, def bool) (bool, error) {
	b := def
	_, err := o.get(key, &b)
	return b, err
}

// regexOrString reads a Split or Replace pattern: {"String": s} or
// {"Regex": r}.
func (o obj) pattern(key string) (pattern, error) {
	var p struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	}
	if err := o.need(key, &p); err != nil {
		return nil, err
	}
	switch {
	case p.String != nil && p.Regex == nil:
		return literal(*p.String), nil
	case p.Regex != nil && p.String == nil:
		re, err := compileRegex(*p.Regex)
		if err != nil {
			return nil, fmt.Errorf("%s.%s.Regex: %w", o.path, key, err)
		}
		return re, nil
	}
	return nil, o.errorf("%s: want {\"String\": ...} or {\"Regex\": ...}", key)
}

// behavior reads a split delimiter behavior.
func (o obj) behavior(key, def string) (behavior, error) {
	s, err := o.str(key, def)
	if err != nil {
		return 0, err
	}
	for b, name := range behaviorNames {
		if s == name {
			return behavior(b), nil
		}
	}
	return 0, o.errorf("%s %q: want one of %s", key, s, strings.Join(behaviorNames[:], ", "))
}

// component reads a component (normalizer, pre-tokenizer, post-processor):
// ok is false for null; else its object and type.
func component(path string, raw json.RawMessage) (o obj, typ string, ok bool, err error) {
	if isNull(raw) {
		return obj{}, "", false, nil
	}
	if o, err = parseObj(path, raw); err != nil {
		return obj{}, "", false, err
	}
	if typ, err = o.typ(); err != nil {
		return obj{}, "", false, err
	}
	return o, typ, true, nil
}

// sequence reads the list under key of a Sequence component, each element
// with load (which gives nil for null, refused here).
func sequence[T any](o obj, key string, load func(path string, raw json.RawMessage) (T, error)) ([]T, error) {
	if err := o.only(key); err != nil {
		return nil, err
	}
	var raws []json.RawMessage
	if err := o.need(key, &raws); err != nil {
		return nil, err
	}
	out := make([]T, 0, len(raws))
	for i, r := range raws {
		at := fmt.Sprintf("%s.%s[%d]", o.path, key, i)
		if isNull(r) {
			return nil, fmt.Errorf("%s: null", at)
		}
		x, err := load(at, r)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}
