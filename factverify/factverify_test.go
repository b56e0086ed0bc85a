package factverify

import (
	"context"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/testgen/answercorpus"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/prompts"
)

// TestReadVerdictCorpus runs testdata/llm-answers/factverify.
func TestReadVerdictCorpus(t *testing.T) {
	answercorpus.Check(t, "factverify", func(answer string) ([]string, error) {
		v, err := ReadVerdict(answer)
		return []string{v}, err
	})
}

// TestVerifier: FactReasoner's FactVerify prompt, filled with the search
// results as its make_search_results writes them (a passage without a
// snippet shows its text), one user message per claim; the verdicts read.
func TestVerifier(t *testing.T) {
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		if strings.Contains(r.Last(), "Your task:\nClaim: The final is in New Jersey.") {
			return llmtest.Reply{Content: "The results say MetLife Stadium.\n\nYour decision: ###Supported###"}
		}
		return llmtest.Reply{Content: "###Inconclusive###"}
	})
	client, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	v, err := NewVerifier(client)
	if err != nil {
		t.Fatal(err)
	}
	ev := []instance.Context{
		{ID: "c0", Title: "FIFA", Snippet: "The final will be at MetLife Stadium.", Link: "https://www.fifa.com/x"},
		{ID: "c1", Title: "Wiki", Text: "MetLife Stadium is in East Rutherford, New Jersey."},
	}
	ds, err := v.Verify(context.Background(), "", []factscore.Claim{
		{ID: "a0", Text: "The final is in New Jersey.", Evidence: ev},
		{ID: "a1", Text: "The final is on a Sunday.", Evidence: ev},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].Verdict != "S" || !ds[0].Supported || ds[1].Verdict != "U" || ds[1].Supported {
		t.Errorf("decisions %+v", ds)
	}
	tmpl, _ := prompts.Load("factreasoner/factverify-verify")
	want, _ := tmpl.Fill(map[string]string{"atom_text": "The final is in New Jersey.", "search_results": "Search Result 1\nTitle: FIFA\nContent: The final will be at MetLife Stadium.\nLink: https://www.fifa.com/x\n\n" +
		"Search Result 2\nTitle: Wiki\nContent: MetLife Stadium is in East Rutherford, New Jersey.\nLink: \n\n"})
	found := false
	for _, r := range srv.Requests() {
		found = found || len(r.Messages) == 1 && r.Last() == want
	}
	if !found || v.Name() != "factverify:m" {
		t.Errorf("the prompt was not sent as FactReasoner fills it (name %s)", v.Name())
	}
}
