package answercorpus

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.txtar", "comment\n-- a --\nline 1\nline 2\n-- want --\nx\ny\n-- b --\n\n-- unreadable --\nempty\n-- c --\n[]\n-- want --\n")
	cs, err := ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	want := []Case{
		{Name: "good.txtar: a", Answer: "line 1\nline 2", Want: []string{"x", "y"}},
		{Name: "good.txtar: b", Answer: "", Unreadable: true, Why: "empty"},
		{Name: "good.txtar: c", Answer: "[]", Want: []string{}},
	}
	if !reflect.DeepEqual(cs, want) {
		t.Errorf("got %+v\nwant %+v", cs, want)
	}
	for name, data := range map[string]string{
		"odd.txtar":   "-- a --\nx\n",
		"bad.txtar":   "-- a --\nx\n-- expect --\ny\n",
		"dup.txtar":   "-- a --\nx\n-- want --\ny\n-- a --\nx\n-- want --\ny\n",
		"named.txtar": "-- want --\nx\n-- want --\ny\n",
	} {
		if _, err := ReadFile(write(name, data)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
