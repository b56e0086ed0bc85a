package veriscore

import (
	"errors"
	"regexp"
	"strings"

	"github.com/factreasoner/factreasoner-go/atomize"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/prompts"
)

// NewVerifier returns FactReasoner's VeriScore verifier over client's
// model (factscore.LabelVerifier with this package's prompt and reader).
func NewVerifier(client *llm.Client) (*factscore.LabelVerifier, error) {
	tmpl, err := prompts.Load("factreasoner/veriscore-verify")
	if err != nil {
		return nil, err
	}
	return &factscore.LabelVerifier{
		Client: client, Verifier: "veriscore", Stage: "veriscore verifier",
		Messages: func(_ string, c factscore.Claim) ([]llm.Message, error) {
			text, err := tmpl.Fill(map[string]string{"knowledge_text": Knowledge(c.Evidence), "atom_text": c.Text})
			return []llm.Message{{Role: "user", Content: text}}, err
		},
		Read:      ReadVerdict,
		Reminder:  atomize.ReminderPrefix + " End your answer with your final answer in square brackets: [Supported], [Contradicted] or [Unverifiable].",
		MaxTokens: 2048,
	}, nil
}

// Knowledge is the KNOWLEDGE of FactReasoner's VeriScore prompt: each
// context, best first, as "Title: {title}\nSummary: {snippet}\nText:
// {text}\n\n" (its make_knowledge). FactReasoner's code hands it the
// title and text only, so its Summary is always empty and a web result
// without text shows nothing; here the snippet fills Summary, as
// make_knowledge is written to read it.
func Knowledge(evidence []instance.Context) string {
	var b strings.Builder
	for _, c := range evidence {
		b.WriteString("Title: " + c.Title + "\nSummary: " + c.Snippet + "\nText: " + c.Text + "\n\n")
	}
	return b.String()
}

var bracketed = regexp.MustCompile(`(?s)\[(.*?)\]`)

// ReadVerdict reads the verdict of an answer to FactReasoner's VeriScore
// prompt: the last bracketed label, [Supported] (factscore.VerdictS),
// [Contradicted] (VerdictC) or [Unverifiable] (VerdictU), in any case,
// with bold or a final period inside the brackets tolerated. Brackets that
// hold no label (a citation, [1]) are passed over. An answer without a
// label is an error (FactReasoner's code would take it for U): it is asked
// again, never guessed.
func ReadVerdict(answer string) (string, error) {
	return lastLabel(answer, bracketed, map[string]string{
		"supported": factscore.VerdictS, "contradicted": factscore.VerdictC, "unverifiable": factscore.VerdictU,
	}, "no [Supported], [Contradicted] or [Unverifiable] in the answer")
}

// lastLabel is the verdict of the last match of re whose group is one of
// labels (lower case), once reasoning is set aside.
func lastLabel(answer string, re *regexp.Regexp, labels map[string]string, missing string) (string, error) {
	text, err := llmanswer.Body(answer)
	if err != nil {
		return "", err
	}
	ms := re.FindAllStringSubmatch(text, -1)
	for i := len(ms) - 1; i >= 0; i-- {
		l := strings.ToLower(strings.Trim(strings.TrimSpace(ms[i][1]), "*_ .!"))
		if v, ok := labels[l]; ok {
			return v, nil
		}
	}
	return "", errors.New(missing)
}

// ReadWrapped reads a verdict wrapped in ### signs, as VeriScore's and
// FactVerify's prompts ask (###Supported###): the last such label among
// labels. Package factverify reads its answers with it.
func ReadWrapped(answer string, labels map[string]string, missing string) (string, error) {
	return lastLabel(answer, wrapped, labels, missing)
}

var wrapped = regexp.MustCompile(`(?s)###(.*?)###`)
