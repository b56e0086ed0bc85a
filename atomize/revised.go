package atomize

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
)

// ParseRevised reads the revised atom out of a reviser's answer. It accepts
// the shapes chat models write (the corpus in testdata/llm-answers/reviser
// has one of each), tried in this order:
//
//  1. JSON with the atom under "revised_unit" (IBM's reviser, beside its
//     "rationale"), "revised_atom", "revised_statement", "revised",
//     "standalone", "decontextualized_unit", "atom", "unit", "statement",
//     "text" or "output", in a code fence or not;
//  2. the last ###atom### (IBM's second reviser prompt);
//  3. a line labeled "Revised atom:" (or unit, statement, fact),
//     "Revised:", "Standalone:", "Answer:", "Output:", "Final answer:",
//     bold or not, with the atom after the label (the last such label
//     counts, so reasoning may come first);
//  4. the last code fence holding one line (IBM's first reviser prompt:
//     "REVISED UNIT:", reasoning, then the atom in a fence), or else the
//     line after a label with nothing after it ("Sure! Here is the revised
//     atom:");
//  5. a single line, once preambles ("Sure! Here is the revised atom:"),
//     closings ("Let me know…") and explanations ("Explanation: …", "I
//     replaced …") are set aside.
//
// Markdown bold, a block quote's "> ", surrounding quotes and a note about
// the change in parentheses after the atom ("(unchanged)") are removed.
// Anything else is an error: an empty answer, JSON without the atom,
// several lines any of which could be the atom, a refusal, an answer that
// says the atom needs no change without repeating it ("No revision
// needed.", "N/A"). Reasoning in <think> blocks is ignored.
func ParseRevised(answer string) (string, error) {
	if err := llmanswer.CheckSize(answer); err != nil {
		return "", err
	}
	text, err := llmanswer.MaskThink(answer)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", errors.New("the answer is empty")
	}
	if starts := jsonCandidates(text); len(starts) > 0 {
		var firstErr error
		for _, i := range starts {
			v, err := decodeCandidate([]byte(text[i:]))
			if err == nil {
				if s, ok := revisedField(v); ok {
					return checkRevised(s)
				}
				err = errors.New("its JSON does not hold the revised atom (revised_unit)")
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		return "", fmt.Errorf("the answer holds JSON, but %w", firstErr)
	}
	if m := hashWrapped.FindAllStringSubmatch(text, -1); m != nil {
		return checkRevised(m[len(m)-1][1])
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	labelLine := -1 // the last labeled line with nothing after the label
	for i := len(lines) - 1; i >= 0; i-- {
		m := revisedLabel.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if s := cleanAtom(m[1]); s != "" {
			return checkRevised(s)
		}
		if labelLine < 0 {
			labelLine = i
		}
	}
	if s, ok := lastFence(lines); ok {
		return checkRevised(s)
	}
	if labelLine >= 0 {
		// The atom is on the next line that is not blank.
		for _, l := range lines[labelLine+1:] {
			if t := strings.TrimSpace(l); t != "" && !isFence(t) {
				return checkRevised(t)
			}
		}
	}
	var body []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || isFence(t) || isRemark(t) || explanation.MatchString(strings.Trim(t, "*_ ")) {
			continue
		}
		body = append(body, t)
	}
	switch len(body) {
	case 0:
		return "", errors.New("the answer holds no revised atom, only remarks")
	case 1:
		return checkRevised(body[0])
	}
	return "", fmt.Errorf("the answer has %d lines that could each be the revised atom, and none is labeled (\"Revised atom:\")", len(body))
}

// revisedKeys name the revised atom in a JSON answer.
var revisedKeys = []string{"revised_unit", "revised_atom", "revised_statement", "revised", "standalone", "decontextualized_unit",
	"atom", "unit", "statement", "text", "output"}

func revisedField(v jvalue) (string, bool) {
	switch v.kind {
	case jobject:
		for _, k := range revisedKeys {
			if f, ok := v.field(k); ok && f.kind == jstring {
				return f.str, true
			}
		}
	case jstring:
		return v.str, true
	}
	return "", false
}

var (
	// noChange is an answer that says the atom stays as it is instead of
	// repeating it ("No revision needed.", "N/A"): never the atom itself.
	noChange = regexp.MustCompile(`(?i)^(?:no (?:revisions?|changes?|rewrites?|modifications?|edits?)(?: (?:is |are |were |was )?(?:needed|necessary|required|made))?|n/?a|none|nothing(?: (?:was |needs to be )?changed(?: in the (?:atom|unit|statement))?)?|same as (?:the )?(?:original|above|before|input)|(?:the )?(?:(?:atom|unit|statement) )?(?:is )?unchanged|(?:the )?(?:atom|unit|statement) stays the same)[.!]?$`)
	// changeNote is a note about the revision in parentheses after the
	// atom, on its line ("… pianist. (unchanged)").
	changeNote   = regexp.MustCompile(`(?i)\s*\((?:unchanged|no (?:revisions?|changes?)(?: (?:is |are |were |was )?(?:needed|necessary|required|made))?|note:[^()]*|already (?:standalone|self-contained)[^()]*)[.!]?\)$`)
	hashWrapped  = regexp.MustCompile(`###([^\n#]+)###`)
	revisedLabel = regexp.MustCompile(`(?i)(?:^|[^a-z])(?:(?:the )?revised (?:atom|unit|statement|fact|version)(?: is)?|revised|unchanged|standalone(?: (?:atom|unit|statement|version))?|decontextuali[sz]ed (?:atom|unit)|rewritten atom|final answer|answer|output)\s*(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$`)
	explanation  = regexp.MustCompile(`(?i)^(?:\(?(?:explanation|rationale|reasoning|justification|note|notes|changes?)\b|i (?:replaced|changed|resolved|substituted|added|kept|left)\b|i've (?:replaced|changed|resolved)\b|the (?:atom|unit|statement) (?:already|is already|does not|doesn't|needs no|contains)\b|this (?:atom|unit|statement|revision)\b|no (?:changes?|revision) (?:is|was|were) (?:needed|necessary|required)\b|\()`)
)

// lastFence returns the text of the last code fence when it is one line.
func lastFence(lines []string) (string, bool) {
	end := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if isFence(strings.TrimSpace(lines[i])) {
			if end < 0 {
				end = i
				continue
			}
			var inner []string
			for _, l := range lines[i+1 : end] {
				if t := strings.TrimSpace(l); t != "" {
					inner = append(inner, t)
				}
			}
			if len(inner) == 1 {
				return inner[0], true
			}
			return "", false
		}
	}
	return "", false
}

// checkRevised cleans a revised atom and refuses an empty one or a
// refusal.
func checkRevised(s string) (string, error) {
	// A markdown block quote ("> atom", "> > atom") marks the atom, and a
	// note about the change after it is not part of it. Removing one may
	// uncover quotes or another marker: clean until nothing changes, so
	// that a revised atom read again reads the same (a few rounds; more
	// wrapping than that is not an answer).
	for i := 0; ; i++ {
		t := cleanAtom(strings.TrimLeft(s, "> \t"))
		if loc := changeNote.FindStringIndex(t); loc != nil && loc[0] > 0 {
			t = cleanAtom(t[:loc[0]])
		}
		if t == s {
			break
		}
		if i == 4 {
			return "", fmt.Errorf("the revised atom is wrapped in too many quotes and markers: %q", llmanswer.Clip(s, 80))
		}
		s = t
	}
	switch {
	case noChange.MatchString(s):
		// Not a guess at the atom: the reminder asks again for it.
		return "", fmt.Errorf("the answer says the atom needs no change, but does not repeat it: %q", llmanswer.Clip(s, 80))
	case s == "":
		return "", errors.New("the revised atom is empty")
	case !hasLetter(s):
		return "", fmt.Errorf("the revised atom holds no words: %q", llmanswer.Clip(s, 80))
	case refusal.MatchString(s):
		return "", fmt.Errorf("the model declines the task: %q", llmanswer.Clip(s, 80))
	case strings.Contains(s, "\n"):
		return "", fmt.Errorf("the revised atom spans several lines: %q", llmanswer.Clip(s, 80))
	}
	return s, nil
}
