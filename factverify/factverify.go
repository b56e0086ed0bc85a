// Package factverify is FactVerify, FactReasoner's implementation of SAFE
// (Wei et al. 2024) as a baseline: each claim judged by a chat model
// against search results, with VeriScore's three-label prompt and its eight
// worked examples (###Supported###, ###Contradicted### or
// ###Inconclusive###); a response's score is its supported claims over
// its claims.
package factverify

import (
	"fmt"
	"strings"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/prompts"
	"github.com/factreasoner/factreasoner-go/veriscore"
)

// NewVerifier returns FactReasoner's FactVerify verifier over client's
// model (factscore.LabelVerifier with this package's prompt and reader).
func NewVerifier(client *llm.Client) (*factscore.LabelVerifier, error) {
	tmpl, err := prompts.Load("factreasoner/factverify-verify")
	if err != nil {
		return nil, err
	}
	return &factscore.LabelVerifier{
		Client: client, Verifier: "factverify", Stage: "factverify verifier",
		Messages: func(_ string, c factscore.Claim) ([]llm.Message, error) {
			text, err := tmpl.Fill(map[string]string{"atom_text": c.Text, "search_results": SearchResults(c.Evidence)})
			return []llm.Message{{Role: "user", Content: text}}, err
		},
		Read:      ReadVerdict,
		Reminder:  atomize.ReminderPrefix + " Mark your decision with ### signs: ###Supported###, ###Contradicted### or ###Inconclusive###.",
		MaxTokens: 2048,
	}, nil
}

// SearchResults are FactVerify's search results, best first, numbered
// from 1: "Search Result {i}\nTitle: {title}\nContent: {snippet}\nLink:
// {link}\n\n" (its make_search_results). A context without a snippet (a
// knowledge base's passage) shows its text as Content, where
// FactReasoner's code, which reads snippets only, would show nothing.
func SearchResults(evidence []instance.Context) string {
	var b strings.Builder
	for i, c := range evidence {
		content := c.Snippet
		if content == "" {
			content = c.Text
		}
		fmt.Fprintf(&b, "Search Result %d\nTitle: %s\nContent: %s\nLink: %s\n\n", i+1, c.Title, content, c.Link)
	}
	return b.String()
}

// ReadVerdict reads an answer to the FactVerify prompt: the last label
// wrapped in ### signs, Supported (factscore.VerdictS), Contradicted
// (VerdictC) or Inconclusive (VerdictU), in any case. An answer without
// one is an error (FactReasoner's code would take it for U): it is asked
// again, never guessed.
func ReadVerdict(answer string) (string, error) {
	return veriscore.ReadWrapped(answer, map[string]string{
		"supported": factscore.VerdictS, "contradicted": factscore.VerdictC, "inconclusive": factscore.VerdictU,
	}, "no ###Supported###, ###Contradicted### or ###Inconclusive### in the answer")
}
