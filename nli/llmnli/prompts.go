package llmnli

import (
	"github.com/factreasoner/factreasoner-go/llm"
)

// The prompts: a system message with the instructions, worked examples as
// earlier turns of the conversation, and the pair to judge as the last user
// message. Changing their text changes every answer: the answer cache keys
// on the full messages, so old answers are not reused, but a cache keyed
// on the classifier's Identity is not told, so bump the prompt name then.

const definitions = `You judge natural language inference. You are given a PREMISE (a passage of evidence) and a HYPOTHESIS (one short statement). Decide how the premise bears on the hypothesis:
- entailment: the premise supports the hypothesis; if the premise is true, the hypothesis is true.
- contradiction: the premise goes against the hypothesis; if the premise is true, the hypothesis is false.
- neutral: the premise neither supports nor goes against the hypothesis; it is about something else, or leaves the question open.
Use only the premise. Do not use what you know about the world, and do not guess: if the premise does not settle the hypothesis, the answer is neutral.`

const v1Instructions = definitions + `
Answer with exactly one word: entailment, contradiction or neutral.`

const v2Instructions = definitions + `
First explain your reasoning in a few short sentences. Then, on the last line, give the answer in square brackets: [entailment], [contradiction] or [neutral].`

// example is one worked example: the pair, the bare label, and the short
// reasoning that prompt v2 shows before the bracketed label.
type example struct {
	premise, hypothesis string
	label               string
	reasoning           string
}

var examples = []example{
	{
		premise:    "Born in Tulsa, Oklahoma, in 1948, Ruth Adair moved to Chicago at the age of twelve and studied piano at the American Conservatory of Music.",
		hypothesis: "Ruth Adair was born in Oklahoma.",
		label:      "entailment",
		reasoning:  "The premise says Ruth Adair was born in Tulsa, Oklahoma. Tulsa is in Oklahoma, so she was born in Oklahoma.",
	},
	{
		premise:    "The Amazon River rises in the Andes of Peru and flows east across Brazil before it empties into the Atlantic Ocean.",
		hypothesis: "The Amazon River empties into the Pacific Ocean.",
		label:      "contradiction",
		reasoning:  "The premise says the Amazon empties into the Atlantic Ocean. A river has one mouth here, so it does not empty into the Pacific; the hypothesis is false if the premise is true.",
	},
	{
		premise:    "Born in Tulsa, Oklahoma, in 1948, Ruth Adair moved to Chicago at the age of twelve and studied piano at the American Conservatory of Music.",
		hypothesis: "Ruth Adair studied the violin.",
		label:      "neutral",
		reasoning:  "The premise says she studied piano. Studying piano does not rule out also studying the violin, and the premise says nothing about the violin.",
	},
	{
		premise:    "Snippet/Summary of Text:\n\nThe Hartwell Bridge opened in 1932.\n\nText:\n\nThe Hartwell Bridge, a steel arch over the Severn, opened to traffic in 1932 after eight years of construction.",
		hypothesis: "Construction of the Hartwell Bridge took eight years.",
		label:      "entailment",
		reasoning:  "The text says the bridge opened after eight years of construction, which is what the hypothesis states.",
	},
	{
		premise:    "Ruth Adair (1948-2011) was an American pianist. She recorded Chopin's nocturnes for Decca in 1979.",
		hypothesis: "Ruth Adair died in 2015.",
		label:      "contradiction",
		reasoning:  "The premise gives her dates as 1948-2011, so she died in 2011, not 2015.",
	},
	{
		premise:    "The Hartwell Bridge, a steel arch over the Severn, opened to traffic in 1932 after eight years of construction.",
		hypothesis: "The Hartwell Bridge was designed by a Scottish engineer.",
		label:      "neutral",
		reasoning:  "The premise does not say who designed the bridge.",
	},
}

func pairMessage(premise, hypothesis string) string {
	return "PREMISE: " + premise + "\nHYPOTHESIS: " + hypothesis
}

// messages builds the conversation for one pair.
func (p Prompt) messages(premise, hypothesis string) []llm.Message {
	instr := v1Instructions
	if p == V2 {
		instr = v2Instructions
	}
	msgs := make([]llm.Message, 0, 2+2*len(examples))
	msgs = append(msgs, llm.Message{Role: "system", Content: instr})
	for _, e := range examples {
		answer := e.label
		if p == V2 {
			answer = e.reasoning + "\n[" + e.label + "]"
		}
		msgs = append(msgs,
			llm.Message{Role: "user", Content: pairMessage(e.premise, e.hypothesis)},
			llm.Message{Role: "assistant", Content: answer})
	}
	return append(msgs, llm.Message{Role: "user", Content: pairMessage(premise, hypothesis)})
}
