package querybuild

import (
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/testgen/answercorpus"
)

// TestParseQueriesCorpus: every answer shape of
// testdata/llm-answers/querybuilder reads as its want file says, and
// every unreadable one is refused with the reason given.
func TestParseQueriesCorpus(t *testing.T) { testCorpus(t, "querybuilder", ParseQueries) }

// TestParseFencedQueryCorpus: the same for FactReasoner's prompt's one
// fenced query, testdata/llm-answers/querybuilder-factreasoner.
func TestParseFencedQueryCorpus(t *testing.T) {
	testCorpus(t, "querybuilder-factreasoner", parseFenced)
}

func testCorpus(t *testing.T, stage string, parse func(string) ([]string, error)) {
	for _, c := range answercorpus.Load(t, stage) {
		t.Run(c.Name, func(t *testing.T) {
			got, err := parse(c.Answer)
			if c.Unreadable {
				if err == nil {
					t.Fatalf("read %q from an unreadable answer", got)
				}
				if c.Why != "" && !strings.Contains(err.Error(), c.Why) {
					t.Fatalf("error %q does not say %q", err, c.Why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.Want) {
				t.Fatalf("got %q, want %q", got, c.Want)
			}
		})
	}
}

func FuzzParseQueries(f *testing.F) {
	for _, c := range answercorpus.Load(f, "querybuilder") {
		f.Add(c.Answer)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		qs, err := ParseQueries(answer)
		if err != nil {
			return
		}
		if len(qs) == 0 || len(qs) > MaxQueries {
			t.Fatalf("%d queries", len(qs))
		}
		for _, q := range qs {
			if strings.TrimSpace(q) == "" || strings.Contains(q, "\n") {
				t.Fatalf("query %q", q)
			}
		}
	})
}

func FuzzParseFencedQuery(f *testing.F) {
	for _, c := range answercorpus.Load(f, "querybuilder-factreasoner") {
		f.Add(c.Answer)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		q, err := ParseFencedQuery(answer)
		if err != nil {
			return
		}
		if strings.TrimSpace(q) != q || q == "" || strings.ContainsAny(q, "\n\t") || strings.Contains(q, "```") {
			t.Fatalf("query %q", q)
		}
	})
}
