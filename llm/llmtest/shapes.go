package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ReminderPrefix opens the message with which every LLM stage asks again
// for an answer it could not read (atomize.ReminderPrefix; this package
// cannot import the stages, whose tests import it).
const ReminderPrefix = "Your last answer could not be read."

// IsReask reports whether a request asks again for an answer that could
// not be read: its last message is a stage's reminder.
func IsReask(r Request) bool { return strings.HasPrefix(r.Last(), ReminderPrefix) }

// The answer shapes below are the ways real chat models answer the
// stages' prompts (the corpus in testdata/llm-answers has them all, and
// more), so that a test endpoint can answer in a mix of them: the n-th
// shape of a kind is AtomAnswer(n, …), n taken modulo the number of
// shapes.

// AtomShapes is the number of shapes AtomAnswer writes.
const AtomShapes = 8

// AtomAnswer writes atoms as an atomizer's answer in the n-th shape: a
// JSON array (GPT-4o), the same in a fence between a preamble and a
// closing, IBM's {"atomic_units": [...]}, a numbered list after "Here are
// the atomic facts:" (Llama 3), a bulleted list with an offer (Llama 3),
// one fact per line (Granite), IBM's object of id → text, a Python list
// of strings (Llama 3, Mistral).
func AtomAnswer(n int, atoms []string) string {
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	var b strings.Builder
	switch mod(n, AtomShapes) {
	case 0:
		return js(atoms)
	case 1:
		return "Sure! Here are the atomic facts:\n\n```json\n" + js(atoms) + "\n```\n\nLet me know if you need anything else."
	case 2:
		units := make([]map[string]any, len(atoms))
		for i, a := range atoms {
			units[i] = map[string]any{"id": i + 1, "text": a}
		}
		return "```json\n" + js(map[string]any{"atomic_units": units}) + "\n```"
	case 3:
		b.WriteString("Here are the atomic facts:\n\n")
		for i, a := range atoms {
			fmt.Fprintf(&b, "%d. %s\n", i+1, a)
		}
	case 4:
		b.WriteString("Here is the list of atomic facts extracted from the text:\n\n")
		for _, a := range atoms {
			b.WriteString("* " + a + "\n")
		}
		b.WriteString("\nI hope this helps! Let me know if you have any other questions.")
	case 5:
		return strings.Join(atoms, "\n")
	case 6:
		b.WriteString("{")
		for i, a := range atoms {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: %s", fmt.Sprintf("id%d", i+1), js(a))
		}
		b.WriteString("}")
	case 7:
		b.WriteString("[")
		for i, a := range atoms {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("'" + strings.ReplaceAll(strings.ReplaceAll(a, `\`, `\\`), "'", `\'`) + "'")
		}
		b.WriteString("]")
	}
	return b.String()
}

// RevisedShapes is the number of shapes RevisedAnswer writes.
const RevisedShapes = 6

// RevisedAnswer writes a revised atom as a reviser's answer in the n-th
// shape: the atom alone (GPT-4o), after "Sure! Here is the revised atom:"
// in quotes with an offer (Llama 3), IBM's {"revised_unit", "rationale"}
// in a fence, "Revised atom:" with an explanation (Granite), ###atom###
// (IBM's second prompt), "The revised atom is: atom" after a think block
// (DeepSeek-R1).
func RevisedAnswer(n int, atom string) string {
	switch mod(n, RevisedShapes) {
	case 1:
		return "Sure! Here is the revised atom:\n\n\"" + atom + "\"\n\nLet me know if you need anything else!"
	case 2:
		b, _ := json.Marshal(map[string]string{"revised_unit": atom, "rationale": "The vague references were resolved from the response."})
		return "```json\n" + string(b) + "\n```"
	case 3:
		return "Revised atom: " + atom + "\nExplanation: the pronoun was replaced with the name it refers to."
	case 4:
		return "###" + atom + "###"
	case 5:
		return "<think>\nThe atom may use a pronoun.\n</think>\n\nThe revised atom is: " + atom
	}
	return atom
}

// LabelShapes is the number of shapes LabelAnswer writes.
const LabelShapes = 9

// LabelAnswer writes an NLI label as a model's answer in the n-th shape:
// the bare label (prompt v1), reasoning and then [label] (prompt v2 and
// the reference), "Answer: label", bold brackets after reasoning (Llama
// 3), [label] followed by a citation, "**Final Answer:** [label]" (GPT-4o),
// "Label: LABEL" (Granite), and a <think> block naming another label
// before the label (Qwen3), and a LaTeX \boxed{label} after reasoning
// (DeepSeek-R1).
func LabelAnswer(n int, label string) string {
	other := "neutral"
	if label == "neutral" {
		other = "entailment"
	}
	switch mod(n, LabelShapes) {
	case 1:
		return "The premise bears on the hypothesis as follows.\n[" + label + "]"
	case 2:
		return "Answer: " + label
	case 3:
		return "Comparing the premise with the hypothesis settles it.\n\n**[" + strings.ToUpper(label[:1]) + label[1:] + "]**"
	case 4:
		return "[" + label + "] … [1]"
	case 5:
		return "The premise was read with care.\n\n**Final Answer:** [" + label + "]"
	case 6:
		return "Label: " + strings.ToUpper(label)
	case 7:
		return "<think>\nPerhaps " + other + "? No.\n</think>\n\n" + label
	case 8:
		return "<think>\nIs it " + other + "? No.\n</think>\n\n**Final Answer**\n\\[\n\\boxed{\\text{" + label + "}}\n\\]"
	}
	return label
}

// UnreadableLabel, UnreadableAtoms and UnreadableRevision are answers the
// stages cannot read and must ask again about.
const (
	UnreadableLabel    = "Hard to say; it could go either way."
	UnreadableAtoms    = "I'm sorry, but I can't help with splitting this text."
	UnreadableRevision = "Ruth Adair moved.\nRuth Adair moved to Chicago."
)

func mod(n, m int) int { return (n%m + m) % m }

// SummaryShapes is the number of shapes SummaryAnswer writes.
const SummaryShapes = 8

// SummaryAnswer writes a context summary (or "None") as a summarizer's
// answer in the n-th shape: the summary alone (IBM's prompt), after
// "Summary:" (GPT-4o), after a preamble line with a closing offer (Llama
// 3), in quotes (Granite), in a code fence (IBM's older prompt), after a
// <think> block (Qwen3), under a bold "**SUMMARY:**" line (Llama 3), with
// an end-of-turn token left at its end (a server with the wrong chat
// template).
func SummaryAnswer(n int, summary string) string {
	switch mod(n, SummaryShapes) {
	case 1:
		return "Summary: " + summary
	case 2:
		return "Here is the summary of the CONTEXT with respect to the ATOM:\n\n" + summary + "\n\nLet me know if you need anything else!"
	case 3:
		return `"` + summary + `"`
	case 4:
		return "```\n" + summary + "\n```"
	case 5:
		return "<think>\nWhat does the context say about the atom?\n</think>\n\n" + summary
	case 6:
		return "**SUMMARY:**\n" + summary
	case 7:
		return summary + "<|eot_id|>"
	}
	return summary
}

// UnreadableSummary is an answer the summarizer cannot read (nothing after
// its label) and must ask again about.
const UnreadableSummary = "SUMMARY:"
