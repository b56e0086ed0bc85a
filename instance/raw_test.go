package instance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestScanRaw: splitting a file into records (ScanRaw) and decoding each
// on a goroutine of its own gives what Scan gives, record for record and
// error for error, in jsonl (with invalid records, blank lines and a byte
// order mark) and in pretty-printed files; a record that cannot be split
// off goes to skip, an invalid jsonl line to its Decode.
func TestScanRaw(t *testing.T) {
	pretty := "\n{\n  \"input\": \"Q\",\n  \"output\": \"R\",\n  \"atoms\": []\n}\n\n{\"input\": \"Q2\", \"output\": \"\"}\n"
	tests := []struct{ name, in string }{
		{"jsonl", "\xEF\xBB\xBF" + good + "\n{oops\n\n[1]\n" + good + "\n" + `{"input": "Q", "output": "R", "atoms": [{"id": "a0", "text": ""}]}` + "\n" + good},
		{"pretty-printed", pretty},
		{"array", "[\n" + good + ",\n" + good + "\n]\n"},
	}
	for _, tc := range tests {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		var want []string
		err := Scan(path, func(e *Error) { want = append(want, e.Error()) }, func(in *Instance) error {
			want = append(want, fmt.Sprintf("%d: %s", in.Line, in.Input))
			return nil
		})
		if err != nil {
			t.Fatalf("%s: Scan: %v", tc.name, err)
		}
		// Each record in order: a Raw, or the error of one that could not
		// be split off (in a pretty-printed file, any invalid record: the
		// reader decodes the file whole).
		var raws []Raw
		var got []string
		err = ScanRaw(path, func(e *Error) { raws, got = append(raws, Raw{}), append(got, e.Error()) }, func(r Raw) error {
			raws, got = append(raws, r), append(got, "")
			return nil
		})
		if err != nil {
			t.Fatalf("%s: ScanRaw: %v", tc.name, err)
		}
		var wg sync.WaitGroup
		for i, r := range raws {
			if got[i] != "" {
				continue
			}
			wg.Go(func() {
				in, err := r.Decode()
				if err != nil {
					got[i] = err.Error()
					return
				}
				if in.Line != r.Line {
					t.Errorf("%s: decoded line %d, raw line %d", tc.name, in.Line, r.Line)
				}
				got[i] = fmt.Sprintf("%d: %s", in.Line, in.Input)
			})
		}
		wg.Wait()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: ScanRaw and Decode give\n%s\nScan gives\n%s", tc.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
