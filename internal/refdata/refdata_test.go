package refdata

import (
	"fmt"
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
