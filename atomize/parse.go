package atomize

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
)

// ParseAtoms reads the atoms out of an atomizer's answer. It accepts the
// shapes chat models write (the corpus in testdata/llm-answers/atomizer
// has one of each):
//
//   - JSON: an array of strings, or of objects holding the text under
//     "text", "atom", "fact", "statement", "claim", "unit" or "sentence";
//     an object holding such an array under "atoms", "facts",
//     "atomic_facts", "atomic_units" (IBM's shape) or another single key;
//     an object of id → text ({"1": ..., "fact2": ...}, every key with a
//     digit in it), in its order. The JSON may sit in a code fence, after
//     a preamble or before other text; trailing commas and a wrong
//     closing bracket where one is missing (as in IBM's few-shot examples)
//     are forgiven.
//   - A Python list of strings (['…', "…"]), as Llama 3 and Mistral
//     sometimes write instead of JSON.
//   - Lists: numbered ("1.", "1)", "1 -", "(1)", "[1]", "Fact 1:") or bulleted
//     ("-", "*", "•", "+", "–") items; a line indented under an item
//     continues it. A bold topic label opening an item ("**Birth:**") is
//     removed. IBM's "- unit: Fact" type tags are removed, and units
//     typed other than Fact or Claim are left out, as IBM's code does.
//   - One fact per line, with no markers, each line one sentence.
//
// Around a list or the lines, preambles ("Here are the atomic facts:",
// "Sure!"), headings (a line ending in a colon, "## Career") and closings
// ("Let me know if…", "I hope this helps") are not facts and are dropped.
// Markdown bold and surrounding quotes are removed from each atom.
// Reasoning in <think> blocks is ignored.
//
// Anything else is an error that says why: JSON that is cut off or of
// another shape, a line that is neither a fact nor one of the known
// remarks, a refusal, a line saying that the text holds no facts ("None",
// "There are no atomic facts in this text."; the reminder asks for []),
// prose with several sentences on a line, an answer with only reasoning.
// An empty list ("[]", or IBM's object shape empty:
// "{}") is no atoms, not an error.
func ParseAtoms(answer string) ([]string, error) {
	text, err := llmanswer.Body(answer)
	if err != nil {
		return nil, err
	}
	if starts := jsonCandidates(text); len(starts) > 0 {
		var firstErr error
		for _, i := range starts {
			v, err := decodeCandidate([]byte(text[i:]))
			if err == nil {
				if atoms, ok := atomList(v); ok {
					return atoms, nil
				}
				err = errors.New("its JSON is not a list of facts")
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		return nil, fmt.Errorf("the answer holds JSON, but %w", firstErr)
	}
	if m := pyListStart.FindStringIndex(text); m != nil {
		atoms, err := pythonList(text[m[0]:])
		if err != nil {
			return nil, fmt.Errorf("the answer holds a Python list, but %w", err)
		}
		return atoms, nil
	}
	return lineAtoms(text)
}

// pyListStart matches where a Python list of strings may begin: '[' first
// on a line (or after a colon) and then a single-quoted string, which JSON
// does not have.
var pyListStart = regexp.MustCompile(`(?m)(?:^[ \t]*|:[ \t]*)\[\s*'`)

// pythonList reads the Python list of strings that s begins with
// (['a', "b's",]), the shape Llama 3 and Mistral write when they answer in
// Python instead of JSON: single or double quotes, backslash escapes, a
// trailing comma. What follows the list is not read. A list cut off before
// its end, or holding anything but strings, is an error.
func pythonList(s string) ([]string, error) {
	cutOff := errors.New("its list is cut off before its end")
	skip := func(i int) int {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
		return i
	}
	i := strings.IndexByte(s, '[') + 1
	out := []string{}
	for {
		if i = skip(i); i >= len(s) {
			return nil, cutOff
		}
		if s[i] == ']' {
			return out, nil
		}
		q := s[i]
		if q != '\'' && q != '"' {
			return nil, fmt.Errorf("its list holds %q where a quoted string belongs", llmanswer.Clip(s[i:], 20))
		}
		var b strings.Builder
		for i++; ; i++ {
			if i >= len(s) {
				return nil, cutOff
			}
			c := s[i]
			if c == q {
				i++
				break
			}
			if c == '\n' {
				return nil, errors.New("its list has a string that runs past the end of its line")
			}
			if c == '\\' {
				if i++; i >= len(s) {
					return nil, cutOff
				}
				switch c = s[i]; c {
				case 'n', 't', 'r':
					c = ' '
				}
			}
			b.WriteByte(c)
		}
		if a := cleanAtom(b.String()); a != "" {
			out = append(out, a)
		}
		if i = skip(i); i >= len(s) {
			return nil, cutOff
		}
		switch s[i] {
		case ',':
			i++
		case ']':
			return out, nil
		default:
			return nil, fmt.Errorf("its list holds %q where a comma or ] belongs", llmanswer.Clip(s[i:], 20))
		}
	}
}

// textKeys name the text of an atom given as an object.
var textKeys = []string{"text", "atom", "fact", "statement", "claim", "unit", "sentence", "atomic_fact", "atomic_unit", "content"}

// listKeys name the list of atoms inside an object.
var listKeys = []string{"atoms", "facts", "atomic_facts", "atomic_units", "units", "claims", "statements", "items", "sentences"}

// atomList reads a decoded JSON value as a list of atoms, if it is one of
// the shapes ParseAtoms accepts.
func atomList(v jvalue) ([]string, bool) {
	switch v.kind {
	case jarray:
		out := []string{}
		for _, e := range v.elems {
			var s string
			switch e.kind {
			case jstring:
				s = e.str
			case jobject:
				found := false
				for _, k := range textKeys {
					if t, ok := e.field(k); ok && t.kind == jstring {
						s, found = t.str, true
						break
					}
				}
				if !found {
					return nil, false
				}
			default:
				return nil, false
			}
			if s = cleanAtom(s); s != "" {
				out = append(out, s)
			}
		}
		return out, true
	case jobject:
		for _, k := range listKeys {
			if l, ok := v.field(k); ok {
				if atoms, ok := atomList(l); ok {
					return atoms, true
				}
			}
		}
		// One field holding a list, beside others that do not
		// ({"result": [...], "count": 3}).
		var only []string
		n := 0
		for _, e := range v.values {
			if e.kind != jarray && e.kind != jobject {
				continue
			}
			if l, ok := atomList(e); ok {
				only = l
				n++
			}
		}
		if n == 1 {
			return only, true
		}
		// id → text, in order; {} is the object with no facts, as [] is
		// the array with none.
		out := []string{}
		for i, k := range v.keys {
			if v.values[i].kind != jstring || !strings.ContainsFunc(k, unicode.IsDigit) {
				return nil, false
			}
			if s := cleanAtom(v.values[i].str); s != "" {
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, false
}

// listItem matches a line that is an item of a numbered or bulleted list,
// capturing its text.
var listItem = regexp.MustCompile(`^\s*(?:[-*•+–—‣◦▪]|\d{1,3}(?:[.):]|\s+[-–])|\(\d{1,3}\)|\[\d{1,3}\]|(?i:fact|atom|atomic fact|unit|claim|statement)\s*#?\s*\d{1,3}\s*[:.)\-])\s+(.*)$`)

// boldTopic matches an item that opens with a short bold topic label
// ("**Birth:** Ruth Adair was born in 1948.", "**Career**: …"), capturing
// the fact after it: the label names a heading, and is not part of the
// fact.
var boldTopic = regexp.MustCompile(`^\s*(?:\*\*|__)[^*_:\n]{1,40}(?::(?:\*\*|__)|(?:\*\*|__):)\s+(\S.*)$`)

// typeTag is IBM's content-unit type after an item ("- unit: Fact").
var typeTag = regexp.MustCompile(`(?i)\s*:\s*(fact|claim|instruction|data format|meta statement|question|other)\s*$`)

// lineAtoms reads an answer that is a list, or one fact per line.
func lineAtoms(text string) ([]string, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	isItem := make([]bool, len(lines))
	items := 0
	for i, l := range lines {
		if listItem.MatchString(l) {
			isItem[i] = true
			items++
		}
	}
	if items > 0 {
		return listAtoms(lines, isItem)
	}
	// One fact per line: remarks may open and close the answer.
	var body []int
	for i, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !isFence(t) {
			body = append(body, i)
		}
	}
	for len(body) > 0 && isRemark(lines[body[0]]) {
		body = body[1:]
	}
	for len(body) > 0 && isRemark(lines[body[len(body)-1]]) {
		body = body[:len(body)-1]
	}
	out := []string{}
	for _, i := range body {
		l := cleanAtom(lines[i])
		if err := checkFactLine(l); err != nil {
			return nil, fmt.Errorf("line %d %w: %q", i+1, err, llmanswer.Clip(l, 80))
		}
		if l != "" {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the answer holds no facts, only remarks")
	}
	return out, nil
}

// listAtoms reads the items of a list answer. A line indented under an item
// continues it; other lines must be remarks.
func listAtoms(lines []string, isItem []bool) ([]string, error) {
	out := []string{}
	var (
		cur []string
		bad error
	)
	flush := func() {
		if len(cur) == 0 {
			return
		}
		s := strings.Join(cur, " ")
		cur = nil
		if m := typeTag.FindStringSubmatchIndex(s); m != nil {
			kind := strings.ToLower(s[m[2]:m[3]])
			s = s[:m[0]]
			if kind != "fact" && kind != "claim" {
				return
			}
		}
		if m := boldTopic.FindStringSubmatch(s); m != nil {
			s = m[1]
		}
		s = cleanAtom(s)
		switch {
		case s == "":
		case !hasLetter(s):
			if bad == nil {
				bad = fmt.Errorf("an item holds no words: %q", llmanswer.Clip(s, 80))
			}
		default:
			out = append(out, s)
		}
	}
	inItem := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case isItem[i]:
			flush()
			cur = []string{listItem.FindStringSubmatch(l)[1]}
			inItem = true
		case t == "":
			flush()
			inItem = false
		case inItem && (strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "\t")):
			cur = append(cur, t)
		case isFence(t) || isRemark(t):
			flush()
			inItem = false
		default:
			return nil, fmt.Errorf("line %d is neither a list item nor a remark around the list: %q", i+1, llmanswer.Clip(t, 80))
		}
	}
	flush()
	if bad != nil {
		return nil, bad
	}
	return out, nil
}

func isFence(t string) bool { return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") }

// remarkStart begins a line that talks about the answer instead of giving
// a fact: preambles, offers and sign-offs.
var remarkStart = regexp.MustCompile(`(?i)^(?:here (?:is|are)\b|here's\b|sure\b|certainly\b|of course\b|okay\b|ok\b|absolutely\b|great\b|below (?:is|are)\b|the following\b|i(?: have|'ve|’ve) (?:broken|split|extracted|listed|identified)\b|i hope\b|hope (?:this|that) helps\b|let me know\b|please let me know\b|feel free\b|if you (?:need|have|want|would)\b|note:|please note\b|(?:atomic )?(?:facts|units|atoms|statements|output|answer)\s*:?$|this (?:list|breakdown) \b|these (?:are|facts|atomic)\b|each (?:fact|atom|statement) (?:is|above)\b|i (?:can|could) (?:also|further)\b|would you like\b)`)

// isRemark reports whether a line is a preamble, heading or closing: a
// line ending in a colon, a markdown heading or rule, or one that begins
// like a remark.
func isRemark(l string) bool {
	l = strings.TrimSpace(l)
	t := strings.Trim(l, "*_ ")
	switch {
	case len(t) < 80 && !strings.HasSuffix(t, ".") &&
		(strings.HasPrefix(l, "**") && strings.HasSuffix(l, "**") || strings.HasPrefix(l, "__") && strings.HasSuffix(l, "__")):
		return true // a bold heading
	case t == "":
		return true
	case strings.HasPrefix(t, "#"), strings.Trim(t, "-*_=") == "":
		return true
	case strings.HasSuffix(t, ":") && len(t) < 200:
		return true
	}
	return remarkStart.MatchString(t)
}

// refusal begins a line in which the model declines the task.
var refusal = regexp.MustCompile(`(?i)^(?:i'm sorry|i am sorry|sorry\b|i (?:cannot|can't|can not|am unable|'m unable|won't)\b|as an ai\b|unfortunately\b)`)

// noFacts is a line that says the text states no facts ("There are no
// atomic facts in this text.", "None"), not a fact about the text's
// subject.
var noFacts = regexp.MustCompile(`(?i)^(?:none|n/?a|no (?:atomic )?facts?\b.*|no (?:atomic )?facts? (?:can|could) be (?:extracted|found|identified)\b.*|there (?:are|is) no (?:atomic |checkable |verifiable )?(?:facts?|factual (?:information|claims?|statements?))(?: (?:in|to)\b.*)?|(?:the )?(?:text|response|passage) (?:contains|has|states|includes|holds) no (?:atomic |checkable |verifiable )?(?:facts?|factual (?:information|claims?|statements?))\b.*|(?:the )?(?:text|response|passage) does not (?:contain|have|state|include|hold) any (?:atomic |checkable |verifiable )?(?:facts?|factual (?:information|claims?|statements?))\b.*)[.!]?$`)

// checkFactLine refuses a line of a one-fact-per-line answer that is not
// one fact.
func checkFactLine(l string) error {
	if !hasLetter(l) {
		return errors.New("holds no words")
	}
	if refusal.MatchString(l) {
		return errors.New("declines the task")
	}
	if noFacts.MatchString(l) {
		// Not one fact: a statement that there are none, which the
		// reminder asks to give as [].
		return errors.New("says in words that the text holds no facts, where [] is the answer")
	}
	if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") || strings.HasPrefix(l, "{") && strings.HasSuffix(l, "}") {
		// JSON that did not parse (typographic quotes, say): data, not a
		// fact, and never one atom.
		return errors.New("is a bracketed list or object, not a fact")
	}
	if n := len(SplitSentences(l)); n > 1 {
		return fmt.Errorf("holds %d sentences, where an answer without list markers must give one fact per line", n)
	}
	return nil
}

// cleanAtom trims an atom and removes markdown emphasis (runs of two or
// more '*' or '_') and the quotes around it, as they nest ("**\"…\"**").
// It works in one pass over the atom, and cleaning a clean atom changes
// nothing.
func cleanAtom(s string) string {
	return trimQuotes(dropEmphasis(strings.TrimSpace(s)))
}

// dropEmphasis removes every run of two or more '*' or '_', including runs
// that the removal of another would join ("a*__*b" → "ab").
func dropEmphasis(s string) string {
	if !strings.Contains(s, "**") && !strings.Contains(s, "__") {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '*' && c != '_' {
			out = append(out, c)
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == c {
			j++
		}
		switch {
		case j-i >= 2:
		case len(out) > 0 && out[len(out)-1] == c:
			out = out[:len(out)-1] // a lone mark next to another: a run
		default:
			out = append(out, c)
		}
		i = j
	}
	return strings.TrimSpace(string(out))
}

// quotePairs are the quotes that may wrap an atom.
var quotePairs = [...][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}, {"`", "`"}, {"‘", "’"}}

// trimQuotes removes the quotes around s, as often as they nest. Quotes
// inside must pair up ("Flaherty appeared in "The Abyss"." loses only the
// outer ones); an apostrophe need not. The counts of each quote are taken
// once, so that the work is linear in the length of s.
func trimQuotes(s string) string {
	var count [len(quotePairs)][2]int
	for i, q := range quotePairs {
		count[i] = [2]int{strings.Count(s, q[0]), strings.Count(s, q[1])}
	}
	for {
		stripped := false
		for i, q := range quotePairs {
			if len(s) < len(q[0])+len(q[1]) || !strings.HasPrefix(s, q[0]) || !strings.HasSuffix(s, q[1]) {
				continue
			}
			if q[0] == q[1] {
				if q[0] != "'" && (count[i][0]-2)%2 != 0 {
					continue
				}
				count[i][0] -= 2
				count[i][1] -= 2
			} else {
				if count[i][0] != count[i][1] {
					continue
				}
				count[i][0]--
				count[i][1]--
			}
			s = strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
			stripped = true
		}
		if !stripped {
			return s
		}
	}
}

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }
