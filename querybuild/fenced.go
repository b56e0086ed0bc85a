package querybuild

import (
	"errors"
	"fmt"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
)

// ParseFencedQuery reads the query out of an answer to IBM FactReasoner's
// query builder prompt (prompts/factreasoner/querybuilder.txt), which asks
// for one Google Search query between Markdown code fences. The query is
// the code block's content as FactReasoner's strip_code_fences takes it:
// the opening fence's line (and its language tag) and the closing fence
// removed, the rest trimmed; its quotation marks and operators are kept,
// as FactReasoner sends them. Its lines are joined by single spaces
// (FactReasoner sends the newlines, which a search engine reads as
// spaces).
//
// FactReasoner takes only an answer that starts and ends with a fence;
// another is sampled again, three times in all, and then its atom's own
// text is searched. Here reasoning in <think> blocks, a preamble and a
// closing around the block are set aside (the testdata/llm-answers/
// querybuilder-factreasoner corpus has each shape), and an answer without
// a code block, with one left open (cut off), empty or holding the
// prompt's placeholder, or with more than one (which is the query?) is an
// error: asked again, then reported, never replaced by the atom's text.
func ParseFencedQuery(answer string) (string, error) {
	text, err := llmanswer.Body(answer)
	if err != nil {
		return "", err
	}
	var (
		blocks [][]string // each code block's lines
		cur    []string
		open   bool
	)
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case !open && strings.HasPrefix(t, "```"):
			rest := t[3:]
			if body, _, ok := strings.Cut(rest, "```"); ok { // ```query``` on one line
				blocks = append(blocks, []string{body})
				continue
			}
			open, cur = true, nil
			if strings.ContainsAny(rest, " \t") { // more than a language tag
				cur = append(cur, rest)
			}
		case open && strings.HasSuffix(t, "```"): // the closing fence, alone or after the query
			blocks = append(blocks, append(cur, strings.TrimSuffix(t, "```")))
			open = false
		case open:
			cur = append(cur, t)
		}
	}
	switch {
	case open:
		return "", errors.New("its code block is not closed: the answer is cut off")
	case len(blocks) == 0 && refusal.MatchString(strings.TrimSpace(text)):
		return "", errors.New("the answer declines to write a query")
	case len(blocks) == 0:
		return "", errors.New("the answer has no code block; the prompt asks for the query between Markdown code fences")
	case len(blocks) > 1:
		return "", fmt.Errorf("the answer has %d code blocks; the prompt asks for one query", len(blocks))
	}
	q := strings.Join(strings.Fields(strings.Join(blocks[0], " ")), " ")
	switch {
	case q == "":
		return "", errors.New("its code block is empty")
	case strings.Contains(q, "```"):
		return "", errors.New("its code block holds another fence: its blocks cannot be told apart")
	case strings.HasPrefix(q, "<") && strings.HasSuffix(q, ">") && !strings.Contains(q[1:], "<"):
		return "", fmt.Errorf("its code block holds the prompt's placeholder %s, not a query", llmanswer.Clip(q, 40))
	}
	return q, nil
}
