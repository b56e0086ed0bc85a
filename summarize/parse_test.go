package summarize

import (
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/testgen/answercorpus"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// verdict is how the corpus names what an answer says: none, a relevant
// summary, or an irrelevant one.
func verdict(r Reading) string {
	switch {
	case r.None:
		return "none"
	case Relevant(r.Text):
		return "summary"
	}
	return "irrelevant"
}

// TestReadSummaryCorpus runs the summarizer's corpus of answer shapes
// (testdata/llm-answers/summarizer): every answer is read as its want file
// says (none, or a relevant or irrelevant summary with its text), or is
// refused for the reason its unreadable file names.
func TestReadSummaryCorpus(t *testing.T) {
	for _, c := range answercorpus.Load(t, "summarizer") {
		t.Run(c.Name, func(t *testing.T) {
			r, err := ReadSummary(c.Answer)
			if c.Unreadable {
				if err == nil {
					t.Fatalf("read %+v from an answer that must be refused", r)
				}
				if !strings.Contains(err.Error(), c.Why) {
					t.Errorf("error %q lacks %q", err, c.Why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Want) == 0 {
				t.Fatal("empty want file")
			}
			if got := verdict(r); got != c.Want[0] {
				t.Errorf("read as %s (%q), want %s", got, r.Text, c.Want[0])
			}
			if want := strings.Join(c.Want[1:], "\n"); r.Text != want {
				t.Errorf("text %q, want %q", r.Text, want)
			}
			if !r.None && c.Answer[r.Start:r.End] != r.Text {
				t.Errorf("span [%d, %d) of the answer is %q, not the text", r.Start, r.End, c.Answer[r.Start:r.End])
			}
		})
	}
}

// TestSummaryShapes: every shape the test endpoint writes (llm/llmtest) reads
// as the summary, or as None, it was written from.
func TestSummaryShapes(t *testing.T) {
	const s = "Marie Curie was born in Warsaw, not in Paris."
	for n := range llmtest.SummaryShapes {
		r, err := ReadSummary(llmtest.SummaryAnswer(n, s))
		if err != nil || r.None || r.Text != s {
			t.Errorf("shape %d: %+v, %v", n, r, err)
		}
		r, err = ReadSummary(llmtest.SummaryAnswer(n, "None"))
		if err != nil || !r.None {
			t.Errorf("shape %d of None: %+v, %v", n, r, err)
		}
	}
	if _, err := ReadSummary(llmtest.UnreadableSummary); err == nil {
		t.Errorf("%q was read", llmtest.UnreadableSummary)
	}
}

// FuzzReadSummary: no answer makes ReadSummary panic; what it reads is a
// span of the answer, the summary is that span and holds no reasoning
// block's text, and a summary read back alone reads the same.
func FuzzReadSummary(f *testing.F) {
	for _, c := range answercorpus.Load(f, "summarizer") {
		f.Add(c.Answer)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		r, err := ReadSummary(answer)
		if err != nil {
			return
		}
		if r.Start < 0 || r.End > len(answer) || r.Start >= r.End {
			t.Fatalf("span [%d, %d) of %d bytes", r.Start, r.End, len(answer))
		}
		if r.None {
			if r.Text != "" {
				t.Fatalf("None with text %q", r.Text)
			}
			return
		}
		if strings.TrimSpace(r.Text) != r.Text || r.Text == "" {
			t.Fatalf("text %q is not trimmed, or empty", r.Text)
		}
		if answer[r.Start:r.End] != r.Text && !strings.Contains(answer, "<") {
			// Only a masked reasoning block or end-of-turn token (which
			// start with '<') can make the text differ from its span.
			t.Fatalf("text %q is not the answer's span %q", r.Text, answer[r.Start:r.End])
		}
		if strings.Contains(r.Text, "```") || strings.Contains(r.Text, "<") {
			return // a fence or a tag inside the summary is read anew
		}
		if again, err := ReadSummary(r.Text); err != nil || again.None || again.Text != r.Text {
			t.Fatalf("the summary %q read alone: %+v, %v", r.Text, again, err)
		}
	})
}
