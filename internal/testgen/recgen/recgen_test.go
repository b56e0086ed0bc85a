package recgen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
)

// TestFlaherty: the records are valid FactReasoner records of the
// Flaherty record's shape (26 atoms, 53 contexts, 21 distinct texts of
// its passage lengths), with relations that name their contexts and
// atoms, every atom with contexts of its own; the same seed gives the
// same file, another seed another.
func TestFlaherty(t *testing.T) {
	var a, b, c bytes.Buffer
	for _, w := range []struct {
		buf  *bytes.Buffer
		seed uint64
	}{{&a, 1}, {&b, 1}, {&c, 2}} {
		if err := Write(w.buf, Flaherty, w.seed, 0, 5); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) || bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Fatal("the same seed gave another file, or another seed the same")
	}
	path := filepath.Join(t.TempDir(), "gen.jsonl")
	if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, err := instance.ReadFile(path) // validates every record
	if err != nil || len(ins) != 5 {
		t.Fatalf("%d records, %v", len(ins), err)
	}
	for _, in := range ins {
		texts := map[string]bool{}
		ids := map[string]bool{}
		size := 0
		for _, c := range in.Contexts {
			texts[c.Text] = true
			ids[c.ID] = true
			size += len(c.Text)
		}
		for _, at := range in.Atoms {
			ids[at.ID] = true
			if len(at.Contexts) == 0 {
				t.Errorf("line %d: atom %s has no contexts", in.Line, at.ID)
			}
		}
		if len(in.Atoms) != 26 || len(in.Contexts) != 53 || len(texts) != 21 || size < 100_000 || size > 200_000 {
			t.Errorf("line %d: %d atoms, %d contexts, %d distinct texts, %d characters; want 26, 53, 21 and about the Flaherty record's 164,000",
				in.Line, len(in.Atoms), len(in.Contexts), len(texts), size)
		}
		if len(in.Relations) < 10 {
			t.Errorf("line %d: %d relations", in.Line, len(in.Relations))
		}
		for _, r := range in.Relations {
			if !ids[r.Source] || !ids[r.Target] {
				t.Errorf("line %d: relation %+v names what the record lacks", in.Line, r)
			}
		}
	}
	if _, err := Record(Shape{Atoms: 2, Contexts: 1, Distinct: 2}, 1, 0); err == nil {
		t.Error("more distinct texts than contexts: no error")
	}
}
