package llmnli

import (
	"math"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli"
)

// tk builds a token; lp NaN means the server gave no log probability.
func tk(text string, lp float64) llm.Token {
	return llm.Token{Text: text, Bytes: []byte(text), Logprob: lp}
}

var nan = math.NaN()

type parseCase struct {
	name    string
	content string
	tokens  []llm.Token
	valid   bool
	label   nli.Label
	// want is the expected probability, computed by hand from the
	// constructed log probabilities: exp(mean of the listed values).
	want []float64 // nil: NaN expected (valid) or 0 (invalid)
}

func checkParse(t *testing.T, parse func(string, []llm.Token) Answer, tests []parseCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := parse(tt.content, tt.tokens)
			if a.Valid != tt.valid || a.Label != tt.label {
				t.Fatalf("got valid=%v label=%v, want valid=%v label=%v", a.Valid, a.Label, tt.valid, tt.label)
			}
			switch {
			case !tt.valid:
				if a.Probability != 0 {
					t.Errorf("probability %v for an invalid answer, want 0", a.Probability)
				}
			case tt.want == nil:
				if !math.IsNaN(a.Probability) {
					t.Errorf("probability %v, want NaN (no log probabilities)", a.Probability)
				}
			default:
				sum := 0.0
				for _, v := range tt.want {
					sum += v
				}
				want := math.Exp(sum / float64(len(tt.want)))
				if math.Abs(a.Probability-want) > 1e-12 || a.Tokens != len(tt.want) {
					t.Errorf("probability %.15f over %d tokens, want %.15f over %d", a.Probability, a.Tokens, want, len(tt.want))
				}
			}
		})
	}
}

// TestParseV1: p = exp(mean log probability of the answer's tokens), end
// token excluded.
func TestParseV1(t *testing.T) {
	checkParse(t, ParseV1, []parseCase{
		{name: "label over three tokens", content: "entailment",
			tokens: []llm.Token{tk("ent", -0.1), tk("ail", -0.2), tk("ment", -0.3)},
			valid:  true, label: nli.Entailment, want: []float64{-0.1, -0.2, -0.3}},
		{name: "end token listed after the answer is excluded", content: "entailment",
			tokens: []llm.Token{tk("ent", -0.1), tk("ail", -0.2), tk("ment", -0.3), tk("<|eot_id|>", -5)},
			valid:  true, label: nli.Entailment, want: []float64{-0.1, -0.2, -0.3}},
		{name: "empty end token is excluded", content: "neutral",
			tokens: []llm.Token{tk("neut", -0.02), tk("ral", -0.04), tk("", -3)},
			valid:  true, label: nli.Neutral, want: []float64{-0.02, -0.04}},
		{name: "capitals and a period, every answer token counts", content: "Contradiction.",
			tokens: []llm.Token{tk("Contr", -0.5), tk("adiction", -0.1), tk(".", -0.3)},
			valid:  true, label: nli.Contradiction, want: []float64{-0.5, -0.1, -0.3}},
		{name: "one token with leading space", content: " neutral",
			tokens: []llm.Token{tk(" neutral", -0.05)},
			valid:  true, label: nli.Neutral, want: []float64{-0.05}},
		{name: "label in a sentence", content: "The answer is entailment",
			tokens: []llm.Token{tk("The", -1), tk(" answer", -0.5), tk(" is", -0.25), tk(" entail", -0.125), tk("ment", -0.0625)},
			valid:  true, label: nli.Entailment, want: []float64{-1, -0.5, -0.25, -0.125, -0.0625}},
		{name: "hidden reasoning tokens before the answer are excluded", content: "contradiction",
			tokens: []llm.Token{tk("<think>", -1), tk("no", -2), tk("</think>", -1), tk("contra", -0.2), tk("diction", -0.4)},
			valid:  true, label: nli.Contradiction, want: []float64{-0.2, -0.4}},
		{name: "server trimmed the answer's leading newline", content: "entailment",
			tokens: []llm.Token{tk("\n", -0.9), tk("entailment", -0.01)},
			valid:  true, label: nli.Entailment, want: []float64{-0.01}},
		{name: "two different labels name none", content: "entailment or neutral",
			tokens: []llm.Token{tk("entailment", -0.1), tk(" or", -0.1), tk(" neutral", -0.1)}},
		{name: "no label", content: "I cannot tell.",
			tokens: []llm.Token{tk("I", -0.1), tk(" cannot", -0.1), tk(" tell", -0.1), tk(".", -0.1)}},
		{name: "a word that contains a label is not one", content: "neutrality",
			tokens: []llm.Token{tk("neutral", -0.1), tk("ity", -0.1)}},
		{name: "empty answer", content: "", tokens: nil},
		{name: "missing logprobs: no tokens at all", content: "entailment", tokens: nil,
			valid: true, label: nli.Entailment},
		{name: "missing logprobs: a null log probability in the answer", content: "entailment",
			tokens: []llm.Token{tk("ent", -0.1), tk("ail", nan), tk("ment", -0.3)},
			valid:  true, label: nli.Entailment},
		{name: "missing logprobs: tokens that do not spell the answer", content: "entailment",
			tokens: []llm.Token{tk("neutral", -0.1)},
			valid:  true, label: nli.Entailment},
		{name: "a null log probability outside the answer does not matter", content: "neutral",
			tokens: []llm.Token{tk("neutral", -0.3), tk("</s>", nan)},
			valid:  true, label: nli.Neutral, want: []float64{-0.3}},
	})
}

// TestParseV2: p = exp(mean log probability of the tokens between the last
// '[' and the ']' after it).
func TestParseV2(t *testing.T) {
	reasoning := []llm.Token{tk("The", -1), tk(" premise", -1), tk(" says", -1), tk(" so", -1), tk(".", -1), tk("\n", -1)}
	with := func(ts ...llm.Token) []llm.Token { return append(append([]llm.Token(nil), reasoning...), ts...) }
	const pre = "The premise says so.\n"
	checkParse(t, ParseV2, []parseCase{
		{name: "bracket tokens apart from a three-token label", content: pre + "[entailment]",
			tokens: with(tk("[", -2), tk("ent", -0.1), tk("ail", -0.2), tk("ment", -0.3), tk("]", -4)),
			valid:  true, label: nli.Entailment, want: []float64{-0.1, -0.2, -0.3}},
		{name: "bracket merged into label tokens", content: pre + " [contradiction].",
			tokens: with(tk(" [contr", -0.4), tk("adiction", -0.2), tk("].", -0.9)),
			valid:  true, label: nli.Contradiction, want: []float64{-0.4, -0.2}},
		{name: "whole answer in one token", content: pre + "[neutral]",
			tokens: with(tk("[neutral]", -0.7)),
			valid:  true, label: nli.Neutral, want: []float64{-0.7}},
		{name: "last bracket wins", content: "[neutral] at first sight, but the dates differ.\n[contradiction]",
			tokens: []llm.Token{tk("[neutral]", -3), tk(" at first sight, but the dates differ.\n", -1), tk("[", -1), tk("contradiction", -0.05), tk("]", -1)},
			valid:  true, label: nli.Contradiction, want: []float64{-0.05}},
		{name: "capitals and spaces inside the brackets", content: pre + "[ Entailment ]",
			tokens: with(tk("[", -1), tk(" Ent", -0.3), tk("ailment", -0.1), tk(" ]", -1)),
			valid:  true, label: nli.Entailment, want: []float64{-0.3, -0.1}},
		{name: "end token after the bracket", content: pre + "[neutral]",
			tokens: with(tk("[", -1), tk("neutral", -0.2), tk("]", -1), tk("<|im_end|>", -0.01)),
			valid:  true, label: nli.Neutral, want: []float64{-0.2}},
		{name: "a split multi-byte character before the label", content: "Gleich — ja.\n[entailment]",
			tokens: []llm.Token{tk("Gleich ", -1), {Text: "\\xe2\\x80", Bytes: []byte{0xe2, 0x80}, Logprob: -1},
				{Text: "\\x94", Bytes: []byte{0x94}, Logprob: -1}, tk(" ja.\n[", -1), tk("entail", -0.6), tk("ment", -0.2), tk("]", -1)},
			valid: true, label: nli.Entailment, want: []float64{-0.6, -0.2}},
		{name: "no brackets", content: "entailment",
			tokens: []llm.Token{tk("entailment", -0.1)}},
		{name: "unknown word in the brackets", content: pre + "[maybe]",
			tokens: with(tk("[maybe]", -0.1))},
		{name: "empty brackets", content: pre + "[]", tokens: with(tk("[]", -0.1))},
		{name: "last bracket never closed, an earlier label does not count", content: "[neutral] hmm\n[entail",
			tokens: []llm.Token{tk("[neutral]", -0.1), tk(" hmm\n[", -0.1), tk("entail", -0.1)}},
		{name: "missing logprobs: no tokens", content: pre + "[contradiction]", tokens: nil,
			valid: true, label: nli.Contradiction},
		{name: "missing logprobs: null inside the label", content: pre + "[neutral]",
			tokens: with(tk("[", -1), tk("neut", nan), tk("ral", -0.1), tk("]", -1)),
			valid:  true, label: nli.Neutral},
		{name: "a null log probability outside the label does not matter", content: pre + "[neutral]",
			tokens: append([]llm.Token{tk("The premise says so.\n", nan)}, tk("[", nan), tk("neutral", -0.25), tk("]", nan)),
			valid:  true, label: nli.Neutral, want: []float64{-0.25}},
	})
}
