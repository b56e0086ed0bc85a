package instance

import (
	"bytes"
	"strings"
	"testing"
)

// TestParallelJSONL: the check of ranges of lines on several cores says
// jsonl exactly where the one pass (scanLayout) finds valid JSON with no
// value across lines and no leading array, whatever the number of ranges
// and wherever their nominal boundaries fall (inside strings, on line
// breaks, in blank lines).
func TestParallelJSONL(t *testing.T) {
	rec := `{"input": "q", "output": "a\nb {", "atoms": [{"id": "a0", "text": "x ] } \" ["}], "p": NaN}`
	inputs := map[string]string{
		"jsonl":                 strings.Repeat(rec+"\n", 40),
		"jsonl, crlf, blanks":   "\ufeff" + strings.Repeat(rec+"\r\n\n  \n", 30),
		"no final line break":   strings.Repeat(rec+"\n", 20) + rec,
		"pretty-printed":        strings.Repeat("{\n  \"input\": \"q\",\n  \"output\": \"a\"\n}\n", 40),
		"array":                 "[" + strings.Repeat(rec+",", 30) + rec + "]\n",
		"array, one per line":   "[\n" + strings.Repeat(rec+",\n", 30) + rec + "\n]\n",
		"a broken line":         strings.Repeat(rec+"\n", 20) + `{"input": "q",` + "\n" + strings.Repeat(rec+"\n", 20),
		"two broken first":      "{\n{\n" + strings.Repeat(rec+"\n", 30),
		"a later array":         strings.Repeat(rec+"\n", 20) + "[1, 2]\n" + strings.Repeat(rec+"\n", 20),
		"two values on a line":  strings.Repeat(rec+rec+"\n", 20),
		"a number at the end":   strings.Repeat(rec+"\n", 20) + "12",
		"an open string at end": strings.Repeat(rec+"\n", 20) + `"abc`,
		"not JSON":              strings.Repeat("hello world\n", 50),
		"one long line":         strings.Repeat(rec, 50) + "\n",
	}
	for name, in := range inputs {
		l, err := scanLayout(strings.NewReader(in), DefaultMaxLineBytes, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := l.valid && !l.multiLine && !l.array
		for parts := int64(1); parts <= 9; parts++ {
			prefix := "xyz" // an offset: the input starts after it
			r := bytes.NewReader([]byte(prefix + in))
			if got, _ := jsonlParts(r, int64(len(prefix)), int64(len(in)), parts, nil); got != want {
				t.Errorf("%s, %d parts: %v, the one pass says %v (%+v)", name, parts, got, want, l)
			}
		}
	}
}
