package querybuild

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
)

// ParseQueries reads the search queries out of a query builder's answer,
// at most MaxQueries of them. It accepts the shapes chat models write (the
// corpus in testdata/llm-answers/querybuilder has one of each):
//
//   - JSON: an array of strings, or of objects holding the query under
//     "query", "q" or "search_query"; an object holding such an array
//     under one key ("queries", "search_queries"), or one query under
//     "query". The JSON may sit in a code fence, after a preamble or
//     before other text.
//   - A Python list of strings (['…', "…"]).
//   - Lines: numbered ("1.", "1)") or bulleted ("-", "*", "•") items, or
//     one query per line, optionally labelled ("Query:", "Query 2:",
//     "Search query:"), in quotes, bold or backticks.
//
// Preambles ("Here are the search queries:", "Sure!"), headings and
// closings ("Let me know if…") are dropped; reasoning in <think> blocks is
// ignored. Anything else is an error that says why: an empty answer or
// list, a refusal, JSON cut off or of another shape, a line of prose (more
// than 25 words) where a query should be.
func ParseQueries(answer string) ([]string, error) {
	if err := llmanswer.CheckSize(answer); err != nil {
		return nil, err
	}
	text, err := llmanswer.MaskThink(answer)
	if err != nil {
		return nil, err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, errors.New("the answer is empty")
	}
	if refusal.MatchString(text) {
		return nil, errors.New("the answer declines to write queries")
	}
	var qs []string
	switch {
	case strings.ContainsAny(text, "[{") && jsonStart.MatchString(text):
		if qs, err = jsonQueries(text); err != nil {
			return nil, err
		}
	default:
		if qs, err = lineQueries(text); err != nil {
			return nil, err
		}
	}
	var out []string
	for _, q := range qs {
		q = cleanQuery(q)
		if q != "" {
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the answer holds no query")
	}
	return out[:min(len(out), MaxQueries)], nil
}

var (
	refusal   = regexp.MustCompile(`(?i)^(i'?m sorry|i am sorry|i cannot|i can't|i'm unable|i am unable|as an ai)`)
	jsonStart = regexp.MustCompile(`(?m)(^|[\s:` + "`" + `])[\[{]`)
	pyItem    = regexp.MustCompile(`'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"`)
	marker    = regexp.MustCompile(`^(?:\d+[.)]|[-*•+]|\(\d+\))\s+`)
	label     = regexp.MustCompile(`(?i)^(?:\*\*)?(?:search )?quer(?:y|ies)(?: \d+)?\s*:(?:\*\*)?\s*`)
)

// jsonQueries reads the first JSON value of text that is a list of
// queries, or a Python list.
func jsonQueries(text string) ([]string, error) {
	var firstErr error
	for i := 0; i < len(text); i++ {
		if text[i] != '[' && text[i] != '{' {
			continue
		}
		var v any
		err := json.NewDecoder(strings.NewReader(text[i:])).Decode(&v)
		if err == nil {
			if qs, ok := queryList(v); ok {
				return qs, nil
			}
			err = errors.New("its JSON is not a list of queries")
		} else if text[i] == '[' && (strings.HasPrefix(text[i:], "['") || strings.HasPrefix(text[i:], "[\"")) {
			if end := strings.Index(text[i:], "]"); end > 0 {
				var qs []string
				for _, m := range pyItem.FindAllStringSubmatch(text[i:i+end], -1) {
					qs = append(qs, m[1]+m[2])
				}
				if len(qs) > 0 {
					return qs, nil
				}
			}
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = errors.New("no JSON value")
	}
	if strings.Contains(firstErr.Error(), "unexpected EOF") {
		firstErr = errors.New("it is cut off")
	}
	return nil, fmt.Errorf("the answer holds JSON, but %w", firstErr)
}

// queryList reads a decoded JSON value as a list of queries.
func queryList(v any) ([]string, bool) {
	switch x := v.(type) {
	case []any:
		var out []string
		for _, e := range x {
			switch y := e.(type) {
			case string:
				out = append(out, y)
			case map[string]any:
				q, ok := field(y, "query", "q", "search_query", "text")
				if !ok {
					return nil, false
				}
				out = append(out, q)
			default:
				return nil, false
			}
		}
		return out, true
	case map[string]any:
		if q, ok := field(x, "query", "search_query"); ok {
			return []string{q}, true
		}
		if len(x) == 1 {
			for _, v := range x {
				return queryList(v)
			}
		}
		for _, k := range []string{"queries", "search_queries"} {
			if v, ok := x[k]; ok {
				return queryList(v)
			}
		}
	}
	return nil, false
}

func field(m map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			return s, true
		}
	}
	return "", false
}

// lineQueries reads one query per line, list markers and labels removed,
// preambles and closings dropped.
func lineQueries(text string) ([]string, error) {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "```") || strings.HasPrefix(l, "#") || isRemark(l) {
			continue
		}
		l = marker.ReplaceAllString(l, "")
		l = label.ReplaceAllString(l, "")
		if l == "" {
			continue
		}
		if n := len(strings.Fields(l)); n > 25 {
			return nil, fmt.Errorf("a line of %d words is prose, not a search query", n)
		}
		out = append(out, l)
	}
	return out, nil
}

// isRemark reports whether a line is a preamble, heading or closing.
func isRemark(l string) bool {
	low := strings.ToLower(strings.Trim(l, "*_ "))
	if strings.HasSuffix(low, ":") && !label.MatchString(l) {
		return true // "Here are the search queries:", "**Queries:**" is a label
	}
	for _, p := range []string{"sure", "here are", "here is", "certainly", "let me know", "i hope", "these queries", "this query", "feel free"} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return false
}

// cleanQuery removes bold, backticks and surrounding quotes.
func cleanQuery(q string) string {
	q = strings.TrimSpace(strings.ReplaceAll(q, "**", ""))
	for len(q) >= 2 {
		f, l := q[0], q[len(q)-1]
		if (f == '"' && l == '"') || (f == '\'' && l == '\'') || (f == '`' && l == '`') {
			q = strings.TrimSpace(q[1 : len(q)-1])
			continue
		}
		break
	}
	return strings.Join(strings.Fields(q), " ")
}
