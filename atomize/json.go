package atomize

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
)

// jvalue is a decoded JSON value that keeps the order of object keys:
// IBM-style answers ({"1": "...", "2": "..."}) list the atoms as the keys
// of an object, in order.
type jvalue struct {
	kind   jkind
	str    string   // jstring
	elems  []jvalue // jarray
	keys   []string // jobject, in order
	values []jvalue // jobject, one per key
}

type jkind int

const (
	jother jkind = iota // number, boolean or null
	jstring
	jarray
	jobject
)

// field returns the value of an object's first key equal to k.
func (v jvalue) field(k string) (jvalue, bool) {
	for i, key := range v.keys {
		if key == k {
			return v.values[i], true
		}
	}
	return jvalue{}, false
}

// maxJSONDepth bounds the nesting the decoder follows; answers nest two or
// three levels.
const maxJSONDepth = 16

// decodeOrdered decodes the first JSON value of b, keeping key order.
// Text after the value is ignored.
func decodeOrdered(b []byte) (jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return decodeValue(dec, 0)
}

func decodeValue(dec *json.Decoder, depth int) (jvalue, error) {
	if depth > maxJSONDepth {
		return jvalue{}, errors.New("JSON nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return jvalue{}, err
	}
	switch t := tok.(type) {
	case string:
		return jvalue{kind: jstring, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := jvalue{kind: jarray}
			for dec.More() {
				e, err := decodeValue(dec, depth+1)
				if err != nil {
					return jvalue{}, err
				}
				v.elems = append(v.elems, e)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return jvalue{}, err
			}
			return v, nil
		case '{':
			v := jvalue{kind: jobject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return jvalue{}, err
				}
				k, _ := kt.(string)
				e, err := decodeValue(dec, depth+1)
				if err != nil {
					return jvalue{}, err
				}
				v.keys = append(v.keys, k)
				v.values = append(v.values, e)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return jvalue{}, err
			}
			return v, nil
		}
		return jvalue{}, fmt.Errorf("unexpected %v", t)
	}
	return jvalue{kind: jother}, nil
}

// maxCandidates bounds how many places of an answer are tried as the start
// of its JSON, so that an answer full of brackets costs linear work.
const maxCandidates = 16

// jsonStart matches where a JSON object or array of the answer's may
// begin: '[' or '{' first on a line (after a code fence's line, or
// spaces), or after a colon, followed by what can begin an element.
var jsonStart = regexp.MustCompile(`(?m)(?:^[ \t]*|:[ \t]*)([\[{])\s*["\[{\]}]`)

// jsonCandidates are the byte offsets where the answer's JSON may begin.
func jsonCandidates(s string) []int {
	var out []int
	for _, m := range jsonStart.FindAllStringSubmatchIndex(s, maxCandidates) {
		out = append(out, m[2])
	}
	return out
}

// decodeCandidate decodes the JSON value at the start of b, forgiving the
// slips models make: trailing commas (`["a", "b",]`) and a closing bracket
// of the wrong kind where one is missing (`{"atomic_units": [{...}, {...} }`,
// as in IBM's own few-shot examples). A value cut off before its end is an
// error: what is missing cannot be made up.
func decodeCandidate(b []byte) (jvalue, error) {
	v, err := decodeOrdered(b)
	if err == nil {
		return v, nil
	}
	for _, fix := range []func([]byte) []byte{dropTrailingCommas, func(b []byte) []byte { return dropTrailingCommas(closeBrackets(b)) }} {
		if v, err2 := decodeOrdered(fix(b)); err2 == nil {
			return v, nil
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return jvalue{}, errors.New("its JSON is cut off before its end")
	}
	return jvalue{}, fmt.Errorf("its JSON is malformed (%v)", err)
}

var trailingComma = regexp.MustCompile(`,(\s*[\]}])`)

func dropTrailingCommas(b []byte) []byte { return trailingComma.ReplaceAll(b, []byte("$1")) }

// closeBrackets inserts the closing brackets that are missing before a
// closing bracket of the wrong kind: in `[{"a": 1} }` the '}' closes an
// object while an array is open, so "]" goes before it. It stops where the
// first value ends.
func closeBrackets(b []byte) []byte {
	var (
		out    = make([]byte, 0, len(b)+8)
		stack  []byte
		inStr  bool
		escape bool
	)
	for i, c := range b {
		if inStr {
			out = append(out, c)
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '[', '{':
			stack = append(stack, c)
		case ']', '}':
			open := byte('[')
			if c == '}' {
				open = '{'
			}
			// Close the open brackets above the one this closes.
			j := len(stack) - 1
			for j >= 0 && stack[j] != open {
				j--
			}
			if j < 0 {
				return append(out, b[i:]...)
			}
			for k := len(stack) - 1; k > j; k-- {
				if stack[k] == '[' {
					out = append(out, ']')
				} else {
					out = append(out, '}')
				}
			}
			stack = stack[:j]
			out = append(out, c)
			if len(stack) == 0 {
				return append(out, b[i+1:]...)
			}
			continue
		}
		out = append(out, c)
	}
	return out
}
