// Package querybuild has an LLM write the search queries for an atom, from
// the atom and the response it was taken from: FactReasoner's QueryBuilder
// and SAFE's query step, which search for what a claim needs checked
// instead of the claim's own words. Every knowledge source is then asked
// with the queries (retrieve.Queried). The LLM sends this package's prompt,
// or IBM FactReasoner's own (package prompts), which asks for one query.
package querybuild

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/prompts"
)

// MaxQueries is the most queries used for one atom: an answer with more
// has its first MaxQueries taken, in the order written.
const MaxQueries = 3

// LLM writes queries with a chat model. An answer ParseQueries cannot read
// is asked again with a reminder of the format, as often as the client's
// Config.Reasks allows, and then is an *llm.UnreadableAnswerError; such an
// answer is never cached, and the atom's own text is never used in its
// place. It is safe for concurrent use.
type LLM struct {
	client *llm.Client
	prompt *prompts.Template // another system's prompt; nil: this package's

	atoms, queries, reasks, unreadable atomic.Int64
}

// New returns a query writer asking client's model.
func New(client *llm.Client) *LLM { return &LLM{client: client} }

// NewPrompt returns a query writer that sends another system's prompt, a
// template of the atom alone ({{statement_text}}, as FactReasoner's, which
// is not given the response), as one user message, and reads the one
// query of its answer with ParseFencedQuery.
func NewPrompt(client *llm.Client, prompt prompts.Template) (*LLM, error) {
	if _, err := prompt.Fill(map[string]string{"statement_text": ""}); err != nil {
		return nil, err
	}
	return &LLM{client: client, prompt: &prompt}, nil
}

// Name names the writer for a run's identity: "llm:MODEL", and "(prompt
// NAME)" after it for another system's prompt.
func (b *LLM) Name() string {
	if b.prompt != nil {
		return "llm:" + b.client.Model() + " (prompt " + b.prompt.Name + ")"
	}
	return "llm:" + b.client.Model()
}

// Identify says what writes the queries (retrieve.QueryWriter): Name.
func (b *LLM) Identify() string { return b.Name() }

// ReminderPrefix opens the message that asks again for an unreadable
// answer, as in every LLM stage (atomize.ReminderPrefix).
const ReminderPrefix = "Your last answer could not be read."

const reminder = ReminderPrefix + " Answer with a JSON array of one to three search queries, as strings, and nothing else."

// fenceReminder asks again, in FactReasoner's terms (its requirement
// "The output must be wrapped with markdown code fences."), for one query.
const fenceReminder = ReminderPrefix + " Answer with your one query wrapped between Markdown code fences, and nothing else."

const instructions = `You write search queries that find evidence about a claim taken from a response: passages of an encyclopedia, a document collection or the web that confirm or refute it.
- Write one to three short queries (at most 12 words each), most useful first.
- Each query names the claim's subject; take names and places that the claim leaves out or refers to indirectly from the response.
- Search for what would settle the claim (the date, the place, the number, the title), not for the claim's wording.
Answer with a JSON array of strings and nothing else.`

var examples = []struct{ response, atom, queries string }{
	{
		response: "Ruth Adair (1948-2011) was an American pianist. Born in Tulsa, she studied at the American Conservatory of Music and later taught there for two decades.",
		atom:     "Ruth Adair taught at the conservatory for two decades.",
		queries:  `["Ruth Adair pianist American Conservatory of Music faculty", "Ruth Adair taught American Conservatory of Music years"]`,
	},
	{
		response: "The Hartwell Bridge is a steel arch over the River Severn. It opened in 1932, when it had the longest span in Britain.",
		atom:     "The Hartwell Bridge opened in 1932.",
		queries:  `["Hartwell Bridge River Severn opening year", "Hartwell Bridge steel arch opened"]`,
	},
}

func message(response, atom string) string { return "RESPONSE:\n" + response + "\n\nCLAIM: " + atom }

// Queries asks for the search queries of one atom of a response.
func (b *LLM) Queries(ctx context.Context, atom, response string) ([]string, error) {
	parse, rem := ParseQueries, reminder
	var msgs []llm.Message
	if b.prompt != nil {
		// Fill cannot fail: NewPrompt checked the placeholders.
		text, _ := b.prompt.Fill(map[string]string{"statement_text": atom})
		msgs = []llm.Message{{Role: "user", Content: text}}
		parse, rem = parseFenced, fenceReminder
	} else {
		msgs = []llm.Message{{Role: "system", Content: instructions}}
		for _, e := range examples {
			msgs = append(msgs,
				llm.Message{Role: "user", Content: message(e.response, e.atom)},
				llm.Message{Role: "assistant", Content: e.queries})
		}
		msgs = append(msgs, llm.Message{Role: "user", Content: message(response, atom)})
	}
	resp, err := b.client.Complete(ctx, llm.Request{
		Messages:  msgs,
		MaxTokens: 256,
		Read:      func(r *llm.Response) error { _, err := parse(r.Content); return err },
		Reminder:  rem,
		Stage:     "query builder",
		Item:      fmt.Sprintf("atom %q", llmanswer.Clip(atom, 60)),
	})
	if err != nil {
		llmanswer.CountUnreadable(err, &b.reasks, &b.unreadable)
		return nil, err
	}
	qs, err := parse(resp.Content)
	if err != nil { // Read accepted it: cannot happen
		return nil, err
	}
	b.reasks.Add(int64(resp.Reasks))
	b.atoms.Add(1)
	b.queries.Add(int64(len(qs)))
	return qs, nil
}

// parseFenced is ParseFencedQuery's query as a list.
func parseFenced(answer string) ([]string, error) {
	q, err := ParseFencedQuery(answer)
	if err != nil {
		return nil, err
	}
	return []string{q}, nil
}

// Stats counts a query writer's work.
type Stats struct {
	Atoms      int64 // atoms whose queries were read
	Queries    int64 // queries written for them
	Reasks     int64
	Unreadable int64 // atoms whose answer stayed unreadable
}

func (s Stats) String() string {
	return fmt.Sprintf("%d queries for %d atoms; %d re-asks, %d answers unreadable after re-asking", s.Queries, s.Atoms, s.Reasks, s.Unreadable)
}

// Stats returns the counts so far.
func (b *LLM) Stats() Stats {
	return Stats{Atoms: b.atoms.Load(), Queries: b.queries.Load(), Reasks: b.reasks.Load(), Unreadable: b.unreadable.Load()}
}
