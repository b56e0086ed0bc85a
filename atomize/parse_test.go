package atomize

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/internal/testgen/answercorpus"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// TestParseAtomsCorpus runs the atomizer's corpus of answer shapes
// (testdata/llm-answers/atomizer): every answer gives the atoms its want
// file lists, or is refused for the reason its unreadable file names.
func TestParseAtomsCorpus(t *testing.T) {
	for _, c := range answercorpus.Load(t, "atomizer") {
		t.Run(c.Name, func(t *testing.T) {
			got, err := ParseAtoms(c.Answer)
			if c.Unreadable {
				if err == nil {
					t.Fatalf("read %q from an answer that must be refused", got)
				}
				if !strings.Contains(err.Error(), c.Why) {
					t.Errorf("error %q lacks %q", err, c.Why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.Want) {
				t.Errorf("got  %q\nwant %q", got, c.Want)
			}
		})
	}
}

// TestParseRevisedCorpus runs the reviser's corpus
// (testdata/llm-answers/reviser).
func TestParseRevisedCorpus(t *testing.T) {
	for _, c := range answercorpus.Load(t, "reviser") {
		t.Run(c.Name, func(t *testing.T) {
			got, err := ParseRevised(c.Answer)
			if c.Unreadable {
				if err == nil {
					t.Fatalf("read %q from an answer that must be refused", got)
				}
				if !strings.Contains(err.Error(), c.Why) {
					t.Errorf("error %q lacks %q", err, c.Why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Want) != 1 || got != c.Want[0] {
				t.Errorf("got %q, want %q", got, c.Want)
			}
		})
	}
}

// addCorpus adds a stage's corpus answers to a fuzz test's seeds (beside
// those committed in testdata/fuzz).
func addCorpus(f *testing.F, stage string) {
	for _, c := range answercorpus.Load(f, stage) {
		f.Add(c.Answer)
	}
}

// FuzzParseAtoms: no answer makes ParseAtoms panic; what it reads is
// bounded by the answer (atoms are trimmed, non-empty text of the answer;
// JSON decoding turns an invalid byte into U+FFFD, three bytes, which is
// the most text can grow); and the atoms it reads
// round-trip: written back as a JSON array, as GPT-4o would answer, they
// read as the same atoms.
func FuzzParseAtoms(f *testing.F) {
	addCorpus(f, "atomizer")
	f.Fuzz(func(t *testing.T, answer string) {
		atoms, err := ParseAtoms(answer)
		if err != nil {
			return
		}
		total := 0
		for _, a := range atoms {
			if a == "" || strings.TrimSpace(a) != a {
				t.Fatalf("atom %q is empty or untrimmed", a)
			}
			total += len(a)
		}
		if total > 3*len(answer) {
			t.Fatalf("%d bytes of atoms from a %d-byte answer", total, len(answer))
		}
		if !utf8.ValidString(answer) {
			return // JSON cannot carry invalid UTF-8 back unchanged
		}
		b, err := json.Marshal(atoms)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseAtoms(string(b))
		if err != nil {
			t.Fatalf("the atoms %q, written as %s, do not read back: %v", atoms, b, err)
		}
		if !reflect.DeepEqual(again, atoms) {
			t.Fatalf("round trip: %q became %q", atoms, again)
		}
	})
}

// FuzzParseRevised: no answer makes ParseRevised panic; the atom it reads
// is one trimmed, non-empty line bounded by the answer; and it round
// trips through IBM's JSON shape.
func FuzzParseRevised(f *testing.F) {
	addCorpus(f, "reviser")
	f.Fuzz(func(t *testing.T, answer string) {
		rev, err := ParseRevised(answer)
		if err != nil {
			return
		}
		if rev == "" || strings.TrimSpace(rev) != rev || strings.Contains(rev, "\n") || len(rev) > 3*len(answer) {
			t.Fatalf("revised atom %q from a %d-byte answer", rev, len(answer))
		}
		if !utf8.ValidString(answer) {
			return
		}
		b, err := json.Marshal(map[string]string{"revised_unit": rev, "rationale": "none"})
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseRevised("```json\n" + string(b) + "\n```")
		if err != nil || again != rev {
			t.Fatalf("round trip: %q became %q, %v", rev, again, err)
		}
	})
}

// TestFakeShapes: every answer shape the test endpoint (llm/llmtest)
// writes reads back as what it was written from.
func TestFakeShapes(t *testing.T) {
	atoms := []string{"Ruth Adair was born in 1948.", "Ruth Adair was an American pianist.", `Ruth Adair recorded "Nocturnes" for Decca.`}
	for n := range llmtest.AtomShapes {
		answer := llmtest.AtomAnswer(n, atoms)
		if got, err := ParseAtoms(answer); err != nil || !reflect.DeepEqual(got, atoms) {
			t.Errorf("atom shape %d %q: %q, %v", n, answer, got, err)
		}
	}
	for n := range llmtest.RevisedShapes {
		answer := llmtest.RevisedAnswer(n, atoms[2])
		if got, err := ParseRevised(answer); err != nil || got != atoms[2] {
			t.Errorf("revision shape %d %q: %q, %v", n, answer, got, err)
		}
	}
	if got, err := ParseAtoms(llmtest.UnreadableAtoms); err == nil {
		t.Errorf("read %q", got)
	}
	if got, err := ParseRevised(llmtest.UnreadableRevision); err == nil {
		t.Errorf("read %q", got)
	}
}
