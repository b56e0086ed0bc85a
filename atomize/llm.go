package atomize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/llm"
)

// LLM is an Atomizer that asks a chat model to split the response into
// atoms and answer with a JSON list of strings. It reads the list out of
// code fences and surrounding text.
type LLM struct {
	client *llm.Client

	responses, atoms atomic.Int64
}

// NewLLM returns an atomizer asking client's model.
func NewLLM(client *llm.Client) *LLM { return &LLM{client: client} }

const atomizerInstructions = `You split a text into atomic facts.
An atomic fact is a short, complete sentence that states exactly one piece of information from the text.
- Cover every piece of factual information in the text, in the order it appears.
- Stay faithful to the text, even where it is wrong: do not correct, add, judge or merge information.
- Write each fact so it can be read on its own: name the person or thing instead of using pronouns such as he, she, it or they.
- Leave out opinions, hedges and remarks that state nothing checkable (such as "I hope this helps").
Answer with a JSON array of strings, one string per fact, and nothing else.`

var atomizerExamples = []struct{ text, atoms string }{
	{
		text: "Ruth Adair (1948-2011) was an American pianist. Born in Tulsa, she studied at the American Conservatory of Music and later taught there for two decades. Her recordings of Chopin, made for Decca, won a Grammy in 1980.",
		atoms: `["Ruth Adair was born in 1948.", "Ruth Adair died in 2011.", "Ruth Adair was American.", "Ruth Adair was a pianist.", ` +
			`"Ruth Adair was born in Tulsa.", "Ruth Adair studied at the American Conservatory of Music.", ` +
			`"Ruth Adair taught at the American Conservatory of Music.", "Ruth Adair taught at the American Conservatory of Music for two decades.", ` +
			`"Ruth Adair recorded works by Chopin.", "Ruth Adair's recordings of Chopin were made for Decca.", ` +
			`"Ruth Adair's recordings of Chopin won a Grammy.", "Ruth Adair's recordings of Chopin won a Grammy in 1980."]`,
	},
	{
		text: "The Hartwell Bridge is a steel arch over the River Severn. It opened in 1932, when it had the longest span in Britain. I think it is one of the most beautiful bridges anywhere.",
		atoms: `["The Hartwell Bridge is a steel arch bridge.", "The Hartwell Bridge crosses the River Severn.", ` +
			`"The Hartwell Bridge opened in 1932.", "When the Hartwell Bridge opened in 1932, it had the longest span in Britain."]`,
	},
}

// Atomize asks for the atoms of one response.
func (a *LLM) Atomize(ctx context.Context, response string) ([]string, error) {
	msgs := []llm.Message{{Role: "system", Content: atomizerInstructions}}
	for _, e := range atomizerExamples {
		msgs = append(msgs,
			llm.Message{Role: "user", Content: "TEXT:\n" + e.text},
			llm.Message{Role: "assistant", Content: e.atoms})
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: "TEXT:\n" + response})
	resp, err := a.client.Complete(ctx, llm.Request{Messages: msgs, MaxTokens: 4096})
	if err != nil {
		return nil, err
	}
	atoms, err := ParseList(resp.Content)
	if err != nil {
		if resp.FinishReason == "length" {
			return nil, fmt.Errorf("the atomizer's answer was cut off at the token limit: %w", err)
		}
		return nil, err
	}
	a.responses.Add(1)
	a.atoms.Add(int64(len(atoms)))
	return atoms, nil
}

// Stats reports how many responses were split and into how many atoms.
func (a *LLM) Stats() string {
	return fmt.Sprintf("%d responses split into %d atoms", a.responses.Load(), a.atoms.Load())
}

// ParseList reads a list of strings from a model's answer: a JSON array of
// strings, possibly inside a code fence or surrounded by other text, or of
// objects with a "text", "atom" or "fact" field, or an object holding such
// an array. Trailing commas are forgiven. Empty strings are dropped.
func ParseList(answer string) ([]string, error) {
	b := []byte(answer)
	tried := 0
	for i := 0; i < len(b) && tried < 64; i++ {
		if b[i] != '[' && b[i] != '{' {
			continue
		}
		tried++
		for _, candidate := range [][]byte{b[i:], dropTrailingCommas(b[i:])} {
			var v any
			dec := json.NewDecoder(bytes.NewReader(candidate))
			if dec.Decode(&v) != nil {
				continue
			}
			if list, ok := stringList(v); ok {
				return list, nil
			}
		}
	}
	return nil, fmt.Errorf("the answer holds no JSON list of strings: %s", clip(answer))
}

var trailingComma = regexp.MustCompile(`,(\s*[\]}])`)

func dropTrailingCommas(b []byte) []byte { return trailingComma.ReplaceAll(b, []byte("$1")) }

// stringList turns a decoded JSON value into a list of strings, if it is
// one of the shapes ParseList accepts.
func stringList(v any) ([]string, bool) {
	switch v := v.(type) {
	case []any:
		out := []string{}
		for _, e := range v {
			var s string
			switch e := e.(type) {
			case string:
				s = e
			case map[string]any:
				for _, k := range []string{"text", "atom", "fact"} {
					if t, ok := e[k].(string); ok {
						s = t
						break
					}
				}
				if s == "" {
					return nil, false
				}
			default:
				return nil, false
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, true
	case map[string]any:
		for _, k := range []string{"atoms", "facts", "atomic_facts", "items"} {
			if l, ok := stringList(v[k]); ok {
				return l, true
			}
		}
		var only []string
		n := 0
		for _, e := range v {
			if l, ok := stringList(e); ok {
				only = l
				n++
			}
		}
		return only, n == 1
	}
	return nil, false
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// LLMReviser is a Reviser that asks a chat model, once per atom, to rewrite
// the atom so that it stands alone. An answer it cannot use (empty) keeps
// the atom as it was, and is counted.
type LLMReviser struct {
	client *llm.Client

	atoms, changed, kept atomic.Int64
}

// NewLLMReviser returns a reviser asking client's model.
func NewLLMReviser(client *llm.Client) *LLMReviser { return &LLMReviser{client: client} }

const reviserInstructions = `You are given a TEXT and one ATOM, a short sentence taken from the text.
Rewrite the atom so that it can be understood without the text: replace pronouns (he, she, it, they, his, its ...), partial names (a surname alone, a first name alone) and vague references (the company, the film, that year) with what they refer to in the text.
Change nothing else: do not add information, do not correct the atom, do not drop any of its content. If the atom already stands on its own, repeat it unchanged.
Answer with the revised atom only, on one line.`

const reviserText = "Ruth Adair (1948-2011) was an American pianist. Born in Tulsa, she moved to Chicago at twelve. The American Conservatory of Music hired her in 1975, and Adair taught there until her death."

var reviserExamples = []struct{ atom, revised string }{
	{"She moved to Chicago at twelve.", "Ruth Adair moved to Chicago at twelve."},
	{"The conservatory hired her in 1975.", "The American Conservatory of Music hired Ruth Adair in 1975."},
	{"Adair taught there until her death.", "Ruth Adair taught at the American Conservatory of Music until her death."},
	{"Ruth Adair was an American pianist.", "Ruth Adair was an American pianist."},
}

func reviserMessage(text, atom string) string { return "TEXT:\n" + text + "\n\nATOM: " + atom }

// Revise rewrites each atom, asking about as many at once as the client
// allows.
func (r *LLMReviser) Revise(ctx context.Context, response string, atoms []string) ([]string, error) {
	base := []llm.Message{{Role: "system", Content: reviserInstructions}}
	for _, e := range reviserExamples {
		base = append(base,
			llm.Message{Role: "user", Content: reviserMessage(reviserText, e.atom)},
			llm.Message{Role: "assistant", Content: e.revised})
	}
	reqs := make([]llm.Request, len(atoms))
	for i, a := range atoms {
		msgs := append(append([]llm.Message(nil), base...), llm.Message{Role: "user", Content: reviserMessage(response, a)})
		reqs[i] = llm.Request{Messages: msgs, MaxTokens: 256}
	}
	resps, err := r.client.CompleteAll(ctx, reqs)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(atoms))
	for i, resp := range resps {
		r.atoms.Add(1)
		rev, ok := ParseRevised(resp.Content)
		switch {
		case !ok:
			r.kept.Add(1)
			out[i] = atoms[i]
		default:
			if rev != atoms[i] {
				r.changed.Add(1)
			}
			out[i] = rev
		}
	}
	return out, nil
}

// Stats reports how many atoms were revised, changed, and kept as they
// were because the answer was unusable.
func (r *LLMReviser) Stats() string {
	return fmt.Sprintf("%d atoms revised, %d changed, %d kept as they were because the answer was empty",
		r.atoms.Load(), r.changed.Load(), r.kept.Load())
}

var revisedPrefix = regexp.MustCompile(`(?i)^(revised atom|revised|atom|answer)\s*:\s*`)

// ParseRevised reads a reviser's answer: the first non-empty line, with
// code fences, a leading "Revised atom:" and surrounding quotes removed.
func ParseRevised(answer string) (string, bool) {
	for _, line := range strings.Split(answer, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "```") {
			continue
		}
		line = revisedPrefix.ReplaceAllString(line, "")
		line = strings.TrimSpace(trimQuotes(line))
		if line != "" {
			return line, true
		}
	}
	return "", false
}

func trimQuotes(s string) string {
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}, {"`", "`"}} {
		if len(s) >= len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			return s[len(q[0]) : len(s)-len(q[1])]
		}
	}
	return s
}

// ErrNoAtoms is returned by Atoms when the atomizer finds nothing to check
// in a response.
var ErrNoAtoms = errors.New("the atomizer found no atoms in the response")
