package atomize

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/prompts"
)

// LLM is an Atomizer that asks a chat model to split the response into
// atoms and answer with a JSON list of strings. It reads the answer with
// ParseAtoms; an answer ParseAtoms cannot read is asked again with a
// reminder of the format, as often as the client's Config.Reasks allows,
// and then is an *llm.UnreadableAnswerError. Such an answer is never
// cached. It is safe for concurrent use.
type LLM struct {
	client *llm.Client
	prompt *prompts.Template // another system's prompt; nil: this package's

	responses, atoms, reasks, unreadable atomic.Int64
}

// NewLLM returns an atomizer asking client's model.
func NewLLM(client *llm.Client) *LLM { return &LLM{client: client} }

// Identify says what the atomizer is: its model and prompt.
func (a *LLM) Identify() string { return identify(a.client.Model(), a.prompt) }

// NewLLMPrompt returns an atomizer that sends another system's prompt, a
// template of the response ({{response}}, as FactReasoner's), as one user
// message, and reads the answer as NewLLM's does.
func NewLLMPrompt(client *llm.Client, prompt prompts.Template) (*LLM, error) {
	if _, err := prompt.Fill(map[string]string{"response": ""}); err != nil {
		return nil, err
	}
	return &LLM{client: client, prompt: &prompt}, nil
}

// jsonReminder asks again, in another system's terms, for the JSON its
// prompt asked for.
const jsonReminder = ReminderPrefix + " Answer in the JSON format of the instructions, in a markdown code block, and nothing else."

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

// ReminderPrefix opens the message that asks again for an answer that
// could not be read, in every LLM stage; the test endpoint
// (llm/llmtest) recognizes re-asks by it.
const ReminderPrefix = "Your last answer could not be read."

const atomizerReminder = ReminderPrefix + " Answer with a JSON array of strings, one string per fact, and nothing else ([] when the text states no fact)."

// Atomize asks for the atoms of one response.
func (a *LLM) Atomize(ctx context.Context, response string) ([]string, error) {
	msgs := []llm.Message{{Role: "system", Content: atomizerInstructions}}
	for _, e := range atomizerExamples {
		msgs = append(msgs,
			llm.Message{Role: "user", Content: "TEXT:\n" + e.text},
			llm.Message{Role: "assistant", Content: e.atoms})
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: "TEXT:\n" + response})
	reminder := atomizerReminder
	if a.prompt != nil {
		text, err := a.prompt.Fill(map[string]string{"response": response})
		if err != nil {
			return nil, err
		}
		msgs, reminder = []llm.Message{{Role: "user", Content: text}}, jsonReminder
	}
	resp, err := a.client.Complete(ctx, llm.Request{
		Messages:  msgs,
		MaxTokens: 4096,
		Read:      func(r *llm.Response) error { _, err := ParseAtoms(r.Content); return err },
		Reminder:  reminder,
		Stage:     "atomizer",
		Item:      "response " + fmt.Sprintf("%q", llmanswer.Clip(response, 60)),
	})
	if err != nil {
		llmanswer.CountUnreadable(err, &a.reasks, &a.unreadable)
		return nil, err
	}
	atoms, err := ParseAtoms(resp.Content)
	if err != nil { // Read accepted it: cannot happen
		return nil, err
	}
	a.reasks.Add(int64(resp.Reasks))
	a.responses.Add(1)
	a.atoms.Add(int64(len(atoms)))
	return atoms, nil
}

// LLMStats counts an LLM atomizer's work.
type LLMStats struct {
	Responses  int64 // responses whose answer was read
	Atoms      int64 // atoms in those answers
	Reasks     int64 // re-asks for the answers counted here (llm.Usage also counts those of requests canceled when another failed)
	Unreadable int64 // responses whose answer stayed unreadable
}

func (s LLMStats) String() string {
	return fmt.Sprintf("%d responses split into %d atoms; %d re-asks, %d answers unreadable after re-asking",
		s.Responses, s.Atoms, s.Reasks, s.Unreadable)
}

// Stats returns the counts so far.
func (a *LLM) Stats() LLMStats {
	return LLMStats{Responses: a.responses.Load(), Atoms: a.atoms.Load(), Reasks: a.reasks.Load(), Unreadable: a.unreadable.Load()}
}

// LLMReviser is a Reviser that asks a chat model, once per atom, to rewrite
// the atom so that it stands alone. It reads each answer with
// ParseRevised; an answer it cannot read is asked again with a reminder,
// as often as the client's Config.Reasks allows, and then is an
// *llm.UnreadableAnswerError. An atom is never kept as it was in place of
// an answer. It is safe for concurrent use.
type LLMReviser struct {
	client *llm.Client
	prompt *prompts.Template // another system's prompt; nil: this package's

	atoms, changed, reasks, unreadable atomic.Int64
}

// NewLLMReviser returns a reviser asking client's model.
func NewLLMReviser(client *llm.Client) *LLMReviser { return &LLMReviser{client: client} }

// Identify says what the reviser is: its model and prompt.
func (r *LLMReviser) Identify() string { return identify(r.client.Model(), r.prompt) }

// NewLLMReviserPrompt returns a reviser that sends another system's
// prompt, a template of the atom and the response ({{atomic_unit}},
// {{response}}, as FactReasoner's), as one user message per atom, and
// reads the answers as NewLLMReviser's does.
func NewLLMReviserPrompt(client *llm.Client, prompt prompts.Template) (*LLMReviser, error) {
	if _, err := prompt.Fill(map[string]string{"atomic_unit": "", "response": ""}); err != nil {
		return nil, err
	}
	return &LLMReviser{client: client, prompt: &prompt}, nil
}

const reviserReminder = ReminderPrefix + " Answer with the revised atom only, on one line, and nothing else; if the atom already stands on its own, repeat it unchanged."

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
// allows. The atoms' ids in errors are a0, a1, ... as Atoms numbers them.
func (r *LLMReviser) Revise(ctx context.Context, response string, atoms []string) ([]string, error) {
	base := []llm.Message{{Role: "system", Content: reviserInstructions}}
	for _, e := range reviserExamples {
		base = append(base,
			llm.Message{Role: "user", Content: reviserMessage(reviserText, e.atom)},
			llm.Message{Role: "assistant", Content: e.revised})
	}
	read := func(resp *llm.Response) error { _, err := ParseRevised(resp.Content); return err }
	out := make([]string, len(atoms))
	err := r.client.Each(ctx, len(atoms), func(i int) llm.Request {
		msgs := append(append([]llm.Message(nil), base...), llm.Message{Role: "user", Content: reviserMessage(response, atoms[i])})
		maxTokens, reminder := 256, reviserReminder
		if r.prompt != nil {
			// Another system's JSON carries its rationale too. Fill cannot
			// fail: NewLLMReviserPrompt checked the placeholders.
			text, _ := r.prompt.Fill(map[string]string{"atomic_unit": atoms[i], "response": response})
			msgs, maxTokens, reminder = []llm.Message{{Role: "user", Content: text}}, 1024, jsonReminder
		}
		return llm.Request{
			Messages:  msgs,
			MaxTokens: maxTokens,
			Read:      read,
			Reminder:  reminder,
			Stage:     "reviser",
			Item:      fmt.Sprintf("atom a%d %q", i, llmanswer.Clip(atoms[i], 60)),
		}
	}, func(i int, resp *llm.Response) error {
		rev, err := ParseRevised(resp.Content)
		if err != nil { // Read accepted it: cannot happen
			return err
		}
		r.reasks.Add(int64(resp.Reasks))
		r.atoms.Add(1)
		if rev != atoms[i] {
			r.changed.Add(1)
		}
		out[i] = rev
		return nil
	})
	if err != nil {
		llmanswer.CountUnreadable(err, &r.reasks, &r.unreadable)
		return nil, err
	}
	return out, nil
}

// ReviserStats counts an LLM reviser's work.
type ReviserStats struct {
	Atoms      int64 // atoms whose revision was read
	Changed    int64 // of them, revisions that differ from the atom
	Reasks     int64 // re-asks for the answers counted here (llm.Usage also counts those of requests canceled when another failed)
	Unreadable int64 // atoms whose answer stayed unreadable
}

func (s ReviserStats) String() string {
	return fmt.Sprintf("%d atoms revised, %d changed; %d re-asks, %d answers unreadable after re-asking",
		s.Atoms, s.Changed, s.Reasks, s.Unreadable)
}

// Stats returns the counts so far.
func (r *LLMReviser) Stats() ReviserStats {
	return ReviserStats{Atoms: r.atoms.Load(), Changed: r.changed.Load(), Reasks: r.reasks.Load(), Unreadable: r.unreadable.Load()}
}

// ErrNoAtoms is returned by Atoms when the atomizer finds nothing to check
// in a response.
var ErrNoAtoms = errors.New("the atomizer found no atoms in the response")
