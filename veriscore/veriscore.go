// Package veriscore is VeriScore (Song, Kim and Iyyer 2024), as
// FactReasoner's baselines run it: claims that can be verified, each
// checked against its evidence by a chat model, and a score over a set of
// responses, F1@K with K the median number of claims.
//
//   - Claims (ClaimExtractor): VeriScore's extraction, sentence by
//     sentence: each sentence, marked <SOS>…<EOS> between up to three
//     sentences before it and one after (and, in a long paragraph, the
//     paragraph's first), goes to the model with VeriScore's prompt (its
//     question-and-answer variant when the response answers a question),
//     which keeps only verifiable claims ("No verifiable claim."
//     otherwise). The claims of a response are the distinct claims of its
//     sentences, in order.
//   - Verification (Messages, ReadVerdict): FactReasoner's VeriScore
//     prompt (a STATEMENT against KNOWLEDGE, reasoning, then [Supported],
//     [Contradicted] or [Unverifiable]) through factscore.LabelVerifier.
//   - Score (K, F1): a response's precision is its supported claims over
//     its claims; its recall min(supported/K, 1); VeriScore is the mean
//     F1@K over the responses, K the median claim count of the responses
//     (VeriScore's "K median": the middle of the sorted counts, the upper
//     one of an even count).
//
// The prompts are package prompts' data files, as their authors wrote
// them.
package veriscore

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/prompts"
)

// ClaimExtractor is VeriScore's claim extraction over a chat model: an
// atomize.Atomizer (a response alone), and with AtomizeAnswer the
// question-and-answer variant. A sentence's answer that cannot be read is
// asked again, as often as the client's llm.Config.Reasks allows, and then
// is an *llm.UnreadableAnswerError. It is safe for concurrent use.
type ClaimExtractor struct {
	client               *llm.Client
	system               string // VeriScore's system message
	plainTmpl, withQTmpl prompts.Template

	sentences, claims, none, reasks, unreadable atomic.Int64
}

// NewClaimExtractor returns VeriScore's claim extraction asking client's
// model.
func NewClaimExtractor(client *llm.Client) (*ClaimExtractor, error) {
	e := &ClaimExtractor{client: client}
	var err error
	if e.plainTmpl, err = prompts.Load("veriscore/claims"); err != nil {
		return nil, err
	}
	if e.withQTmpl, err = prompts.Load("veriscore/claims-qa"); err != nil {
		return nil, err
	}
	sys, err := prompts.Load("veriscore/claims-system")
	if err != nil {
		return nil, err
	}
	e.system = sys.Text()
	return e, nil
}

// Identify says what the extraction is: "veriscore:MODEL".
func (e *ClaimExtractor) Identify() string { return "veriscore:" + e.client.Model() }

// Atomize implements atomize.Atomizer: the claims of a response that
// answers no question.
func (e *ClaimExtractor) Atomize(ctx context.Context, response string) ([]string, error) {
	return e.AtomizeAnswer(ctx, "", response)
}

// AtomizeAnswer returns the claims of a response to a question; without a
// question, of the response alone (VeriScore's two prompts).
func (e *ClaimExtractor) AtomizeAnswer(ctx context.Context, question, response string) ([]string, error) {
	snippets := Snippets(question, response)
	tmpl := e.plainTmpl
	if strings.TrimSpace(question) != "" {
		tmpl = e.withQTmpl
	}
	out := make([][]string, len(snippets))
	err := e.client.Each(ctx, len(snippets), func(i int) llm.Request {
		// Fill cannot fail: the templates have exactly these placeholders.
		text, _ := tmpl.Fill(map[string]string{"snippet": snippets[i].Snippet, "sentence": snippets[i].Sentence})
		return llm.Request{
			Messages:  []llm.Message{{Role: "system", Content: e.system}, {Role: "user", Content: text}},
			MaxTokens: 1000, // VeriScore's
			Read:      func(r *llm.Response) error { _, err := ReadClaims(r.Content); return err },
			Reminder:  claimsReminder,
			Stage:     "veriscore claims",
			Item:      fmt.Sprintf("sentence %q", llmanswer.Clip(snippets[i].Sentence, 60)),
		}
	}, func(i int, r *llm.Response) error {
		claims, err := ReadClaims(r.Content)
		if err != nil { // Read accepted it: cannot happen
			return err
		}
		e.reasks.Add(int64(r.Reasks))
		e.sentences.Add(1)
		if len(claims) == 0 {
			e.none.Add(1)
		}
		out[i] = claims
		return nil
	})
	if err != nil {
		llmanswer.CountUnreadable(err, &e.reasks, &e.unreadable)
		return nil, err
	}
	// The distinct claims, in order (VeriScore's deduplication).
	var all []string
	for _, cs := range out {
		for _, c := range cs {
			if !slices.Contains(all, c) {
				all = append(all, c)
			}
		}
	}
	e.claims.Add(int64(len(all)))
	return all, nil
}

// claimsReminder asks again for facts that could not be read.
const claimsReminder = atomize.ReminderPrefix + ` Answer with the facts, one per line, each starting with "- ", or with "No verifiable claim."`

// Snippet is what VeriScore asks about one sentence.
type Snippet struct {
	Snippet  string // the sentence marked <SOS>…<EOS> in its context
	Sentence string // the sentence
}

// Snippets are VeriScore's snippets of a response (its
// non_qa_scanner_extractor and qa_scanner_extractor). Without a question:
// the response's paragraphs (its non-empty lines) are split into
// sentences; sentence i goes with up to three sentences before it and one
// after, and, in a paragraph of more than five sentences, the paragraph's
// first sentence before those. With a question: the whole response's
// sentences, the same window, after "Question: …\nResponse: ". Sentences
// are split as atomize.SplitSentences splits them (VeriScore uses spaCy).
func Snippets(question, response string) []Snippet {
	var out []Snippet
	window := func(sents []string, i int) string {
		context1 := strings.Join(sents[max(0, i-3):i], " ")
		context2 := strings.Join(sents[i+1:min(len(sents), i+2)], " ")
		return strings.TrimSpace(context1) + " <SOS>" + strings.TrimSpace(sents[i]) + "<EOS> " + strings.TrimSpace(context2)
	}
	if q := strings.TrimSpace(question); q != "" {
		sents := atomize.SplitSentences(response)
		for i := range sents {
			snippet := strings.TrimSpace("Question: " + q + "\nResponse: " + window(sents, i))
			out = append(out, Snippet{Snippet: snippet, Sentence: strings.TrimSpace(sents[i])})
		}
		return out
	}
	for _, para := range strings.Split(response, "\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		sents := atomize.SplitSentences(para)
		for i := range sents {
			snippet := window(sents, i)
			if len(sents) > 5 {
				snippet = strings.TrimSpace(sents[0]) + " " + snippet
			}
			out = append(out, Snippet{Snippet: strings.TrimSpace(snippet), Sentence: strings.TrimSpace(sents[i])})
		}
	}
	return out
}

var leadingNumber = regexp.MustCompile(`^\d+\.?\s`)

// ReadClaims reads an extraction answer by VeriScore's rule: an answer
// that says "No verifiable claim." has none; otherwise each line is a
// claim, with every "- " removed and a leading number ("1. ") dropped,
// empty lines and notes ("Note: …") left out. Reasoning in <think> blocks
// is set aside first. An empty answer is an error: it is no answer
// (VeriScore would take it for no claims).
func ReadClaims(answer string) ([]string, error) {
	text, err := llmanswer.Body(answer)
	if err != nil {
		return nil, err
	}
	if strings.Contains(text, "No verifiable claim.") {
		return []string{}, nil
	}
	var claims []string
	for _, line := range strings.Split(text, "\n") {
		c := leadingNumber.ReplaceAllString(strings.ReplaceAll(strings.TrimSpace(line), "- ", ""), "")
		c = strings.TrimSpace(c)
		if c == "" || strings.HasPrefix(c, "Note:") || c == "Facts:" {
			continue
		}
		claims = append(claims, c)
	}
	return claims, nil
}

// ClaimStats count a ClaimExtractor's work.
type ClaimStats struct {
	Sentences  int64 // sentences whose answer was read
	NoClaim    int64 // of them, sentences without a verifiable claim
	Claims     int64 // distinct claims of the responses
	Reasks     int64
	Unreadable int64
}

func (s ClaimStats) String() string {
	return fmt.Sprintf("%d sentences (%d without a verifiable claim), %d claims; %d re-asks, %d answers unreadable after re-asking",
		s.Sentences, s.NoClaim, s.Claims, s.Reasks, s.Unreadable)
}

// Stats returns the counts so far.
func (e *ClaimExtractor) Stats() ClaimStats {
	return ClaimStats{Sentences: e.sentences.Load(), NoClaim: e.none.Load(), Claims: e.claims.Load(), Reasks: e.reasks.Load(), Unreadable: e.unreadable.Load()}
}
