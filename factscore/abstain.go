package factscore

import (
	"fmt"
	"regexp"
	"strings"
)

// Abstention is a rule that tells a response that declined to answer,
// FActScore's abstain_detection: such a response does not respond.
type Abstention string

// FActScore's rules.
const (
	// AbstentionNone takes every response as an answer.
	AbstentionNone Abstention = "none"
	// AbstentionGeneric: the response starts with "I'm sorry" or asks the
	// user to "provide more" (FActScore's rule for ChatGPT-style models).
	AbstentionGeneric Abstention = "generic"
	// AbstentionPerplexity: FActScore's rule for PerplexityAI, which
	// answers from search results: with citations removed, the response
	// starts with one of the "no information" phrases, or its first
	// paragraph is empty or mentions one.
	AbstentionPerplexity Abstention = "perplexity_ai"
)

// ParseAbstention parses "none", "generic" or "perplexity_ai".
func ParseAbstention(s string) (Abstention, error) {
	switch a := Abstention(s); a {
	case AbstentionNone, AbstentionGeneric, AbstentionPerplexity:
		return a, nil
	}
	return "", fmt.Errorf("abstention rule %q is not none, generic or perplexity_ai", s)
}

// noInformation are the phrases of FActScore's PerplexityAI rule.
var noInformation = [...]string{
	"i could not find any information",
	"the search results do not provide",
	"there is no information",
	"there are no search results",
	"there are no provided search results",
	"not provided in the search results",
	"is not mentioned in the provided search results",
	"there seems to be a mistake in the question",
	"not sources found",
	"no sources found",
	"try a more general question",
}

var citation = regexp.MustCompile(`\s*\[\d+\]\s*`)

// Abstained reports whether the rule takes a response as declining to
// answer. Typographic apostrophes count as straight ones (FActScore's rules
// compare bytes, so "I’m sorry" would slip through them).
func (a Abstention) Abstained(response string) bool {
	response = strings.ReplaceAll(response, "’", "'")
	switch a {
	case AbstentionGeneric:
		return strings.HasPrefix(response, "I'm sorry") || strings.Contains(response, "provide more")
	case AbstentionPerplexity:
		text := citation.ReplaceAllString(response, "")
		if strings.HasPrefix(text, "According to , ") {
			text = "According to the search results, " + strings.TrimPrefix(text, "According to , ")
		}
		lower := strings.ToLower(text)
		for _, m := range noInformation {
			if strings.HasPrefix(lower, m) {
				return true
			}
		}
		// The answer is the paragraphs before the first empty or
		// uninformative one; none means no answer.
		first := strings.SplitN(lower, "\n\n", 2)[0]
		if strings.TrimSpace(first) == "" {
			return true
		}
		for _, m := range noInformation {
			if strings.Contains(first, m) {
				return true
			}
		}
	}
	return false
}
