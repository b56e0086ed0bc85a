package refdata

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a test would have ended.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Skip(args ...any) {
	r.skip = fmt.Sprint(args...)
	runtime.Goexit()
}

// call runs Path on a recorder, as a test would, and returns it.
func call(elem ...string) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Path(r, elem...)
	}()
	<-done
	return r
}

// TestMissingData: missing reference data skips a test, or fails it when
// RequireEnv is set (as scripts/test does under CI).
func TestMissingData(t *testing.T) {
	t.Setenv("FACTREASONER_REFDATA", t.TempDir())
	t.Setenv(RequireEnv, "")
	if r := call("factreasoner", "nothing.json"); r.skip == "" || r.fatal != "" || !strings.Contains(r.skip, "nothing.json") {
		t.Errorf("without %s: skip %q, fatal %q; want a skip naming the file", RequireEnv, r.skip, r.fatal)
	}
	t.Setenv(RequireEnv, "1")
	if r := call("factreasoner", "nothing.json"); r.fatal == "" || r.skip != "" || !strings.Contains(r.fatal, RequireEnv) {
		t.Errorf("with %s: skip %q, fatal %q; want a failure", RequireEnv, r.skip, r.fatal)
	}
}

// TestShippedData: without the override, the data is the copy in
// testdata/refdata, and every source there carries its licence.
func TestShippedData(t *testing.T) {
	t.Setenv(Env, "")
	root := Root()
	if filepath.Base(root) != "refdata" || filepath.Base(filepath.Dir(root)) != "testdata" {
		t.Fatalf("Root() = %q, want the module's testdata/refdata", root)
	}
	for _, f := range [][]string{
		{"README.md"},
		{"factreasoner", "LICENSE"},
		{"factreasoner", "flaherty_wikipedia.json"},
		{"factreasoner", "flaherty_fr2_golden.json"},
		{"factscore-labeled", "LICENSE"},
		{"factscore-labeled", "ChatGPT.jsonl"},
		{"merlin-vectors", "README.md"},
		{"merlin-vectors", "fr3", "fr3_20x40.exact.MAR"},
		{"tokenizers", "LICENSE"},
		{"tokenizers", "NOTICE"},
		{"tokenizers", "roberta-base", "tokenizer.json"},
	} {
		if r := call(f...); r.skip != "" || r.fatal != "" {
			t.Errorf("%s: %s%s", filepath.Join(f...), r.skip, r.fatal)
		}
	}
}
